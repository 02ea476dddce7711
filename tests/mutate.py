#!/usr/bin/env python3
"""mutate.py - single-edit mutants of the five reference solutions, graded one at a time.

Each mutant is one textual edit (OLD -> NEW, at the Nth occurrence of OLD) of
kernels/solutions/0N-*.cl.  The script writes the mutant to OUT/lN_NAME.cl, grades it with

    nice build/clgrade check N OUT/lN_NAME.cl --seed 1 --json OUT/lN_NAME.json

(one at a time: the machine is shared) and prints one line per mutant: PASS / FAIL, the first
failing criterion, the JSON cause, and automatic red flags on the explanation:

  1x       a 1-D size printed as 1xN
  matrix   a matrix word (row, column, matrix, N x N, tile) in a lesson-5 message or try
  symptom  the first failing criterion is marked caused_by another
  nocause  several criteria fail but no cause is named although a race / divergence fails

The flags only point where to look: whether each FAIL names the real root cause of the edit is
judged by hand (tests/fixtures/lN_*.cl pin the wrong ones).  A PASS is a possible false pass:
compare the mutant with the reference by hand (an equivalent mutant is fine).

usage: tests/mutate.py [--list] [--only SUBSTR] [--lesson N] [--out DIR] [--no-grade]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

# (lesson, name, old, new, occurrence) -- occurrence 0: OLD must be unique in the file.
# A deleted line is OLD = the whole line with its newline, NEW = "".
MUTANTS = [
    # ---- lesson 1: naive matmul
    (1, "guard_row_gt", "if (row >= N || col >= N)", "if (row > N || col >= N)", 0),
    (1, "guard_col_gt", "if (row >= N || col >= N)", "if (row >= N || col > N)", 0),
    (1, "guard_and", "if (row >= N || col >= N)", "if (row >= N && col >= N)", 0),
    (1, "no_guard", "    if (row >= N || col >= N)\n        return;\n", "", 0),
    (1, "ids_swapped", "const int col = get_global_id(0);\n    const int row = get_global_id(1);",
     "const int col = get_global_id(1);\n    const int row = get_global_id(0);", 0),
    (1, "a_transposed", "A[row * N + k]", "A[k * N + row]", 0),
    (1, "k_le_n", "k < N", "k <= N", 0),
    (1, "k_from_1", "int k = 0", "int k = 1", 0),
    (1, "store_transposed", "C[row * N + col] = acc", "C[col * N + row] = acc", 0),
    (1, "acc_assign", "acc += A", "acc = A", 0),
    (1, "acc_init_1", "float acc = 0.0f;", "float acc = 1.0f;", 0),
    (1, "store_plus1", "C[row * N + col] = acc", "C[row * N + col + 1] = acc", 0),
    # ---- lesson 2: tiled matmul
    (2, "no_barrier1", "        barrier(CLK_LOCAL_MEM_FENCE);   /* 1: both tiles complete before anyone reads */\n", "", 0),
    (2, "no_barrier2", "        barrier(CLK_LOCAL_MEM_FENCE);   /* 2: everyone done reading before the next load */\n", "", 0),
    (2, "ntiles_floor", "(N + TILE - 1) / TILE", "N / TILE", 0),
    (2, "t_le_ntiles", "t < ntiles", "t <= ntiles", 0),
    (2, "a_load_unguarded", "(row < N && a_col < N) ? A[row * N + a_col] : 0.0f", "A[row * N + a_col]", 0),
    (2, "b_load_unguarded", "(b_row < N && col < N) ? B[b_row * N + col] : 0.0f", "B[b_row * N + col]", 0),
    (2, "a_col_le", "a_col < N)", "a_col <= N)", 0),
    (2, "b_row_le", "(b_row < N", "(b_row <= N", 0),
    (2, "as_store_swapped", "As[ty][tx] =", "As[tx][ty] =", 0),
    (2, "as_read_swapped", "acc += As[ty][k]", "acc += As[k][ty]", 0),
    (2, "bs_read_swapped", "* Bs[k][tx]", "* Bs[tx][k]", 0),
    (2, "a_col_ty", "const int a_col = t * TILE + tx;", "const int a_col = t * TILE + ty;", 0),
    (2, "b_row_tx", "const int b_row = t * TILE + ty;", "const int b_row = t * TILE + tx;", 0),
    (2, "col_ty", "const int col = get_group_id(0) * TILE + tx;", "const int col = get_group_id(0) * TILE + ty;", 0),
    (2, "store_guard_le", "    if (row < N && col < N)\n        C[", "    if (row <= N && col < N)\n        C[", 0),
    (2, "store_unguarded", "    if (row < N && col < N)\n        C[", "        C[", 0),
    (2, "k_lt_tile_m1", "k < TILE", "k < TILE - 1", 0),
    # ---- lesson 3: padded transpose
    (3, "no_barrier", "    barrier(CLK_LOCAL_MEM_FENCE);   /* the whole tile is loaded before anyone reads it */\n", "", 0),
    (3, "load_unguarded", "    if (bx + lx < cols && by + ly < rows)\n", "", 0),
    (3, "store_unguarded", "    if (by + lx < rows && bx + ly < cols)\n", "", 0),
    (3, "load_guard_cols_le", "if (bx + lx < cols", "if (bx + lx <= cols", 0),
    (3, "load_guard_rows_le", "by + ly < rows)", "by + ly <= rows)", 0),
    (3, "store_guard_rows_le", "if (by + lx < rows", "if (by + lx <= rows", 0),
    (3, "tile_read_unswapped", "= tile[lx][ly];", "= tile[ly][lx];", 0),
    (3, "tile_store_swapped", "tile[ly][lx] = in", "tile[lx][ly] = in", 0),
    (3, "out_stride_cols", "out[(bx + ly) * rows", "out[(bx + ly) * cols", 0),
    (3, "in_stride_rows", "in[(by + ly) * cols", "in[(by + ly) * rows", 0),
    (3, "bx_from_dim1", "const int bx = get_group_id(0) * TILE;", "const int bx = get_group_id(1) * TILE;", 0),
    (3, "in_lx_ly_swapped", "in[(by + ly) * cols + (bx + lx)]", "in[(by + lx) * cols + (bx + ly)]", 0),
    (3, "pad_16", "tile[TILE][TILE + 1]", "tile[TILE][TILE + 16]", 0),
    # ---- lesson 4: the tile budget
    (4, "chose_16_sm90", "#define CHOSEN_TILE_SM90 32", "#define CHOSEN_TILE_SM90 16", 0),
    (4, "limiter_sm90_regs", "#define CHOSEN_LIMITER_SM90 threads", "#define CHOSEN_LIMITER_SM90 registers", 0),
    (4, "chose_32_sm86", "#define CHOSEN_TILE_SM86 16", "#define CHOSEN_TILE_SM86 32", 0),
    (4, "no_barrier2", "        barrier(CLK_LOCAL_MEM_FENCE);   /* everyone done before the next load */\n", "", 0),
    (4, "ntiles_floor", "(N + TILE - 1) / TILE", "N / TILE", 0),
    (4, "bs_read_swapped", "* Bs[k][tx]", "* Bs[tx][k]", 0),
    (4, "bs_pad_1", "__local float Bs[TILE][TILE];", "__local float Bs[TILE][TILE + 1];", 0),
    # ---- lesson 5: reduction
    (5, "stride_local", "const int g = get_global_size(0);", "const int g = get_local_size(0);", 0),
    (5, "unroll_step_3g", "i += 4 * g", "i += 3 * g", 0),
    (5, "unroll_guard_le", "i + 3 * g < n", "i + 3 * g <= n", 0),
    (5, "unroll_guard_2g", "i + 3 * g < n", "i + 2 * g < n", 0),
    (5, "tail_le", "for (; i < n; i += g)", "for (; i <= n; i += g)", 0),
    (5, "tree_index_mul", "s[l + d]", "s[l * 2 * d]", 0),
    (5, "tree_index_plus1", "s[l + d]", "s[l + d + 1]", 0),
    (5, "tree_guard_le", "if (l < d)", "if (l <= d)", 0),
    (5, "tree_start_quarter", "d = TILE / 2", "d = TILE / 4", 0),
    (5, "tree_stop_early", "d > 0", "d > 1", 0),
    (5, "tree_step_4", "d >>= 1", "d >>= 2", 0),
    (5, "no_barrier_after_load", "    s[l] = (a0 + a1) + (a2 + a3);\n    barrier(CLK_LOCAL_MEM_FENCE);\n",
     "    s[l] = (a0 + a1) + (a2 + a3);\n", 0),
    (5, "no_tree_barrier", "        barrier(CLK_LOCAL_MEM_FENCE);\n    }\n", "    }\n", 0),
    (5, "writer_l1", "if (l == 0)", "if (l == 1)", 0),
    (5, "partial_s_l", "= s[0];", "= s[l];", 0),
    (5, "partial_by_local_id", "partial[get_group_id(0)]", "partial[get_local_id(0)]", 0),
    (5, "start_local_id", "int i = get_global_id(0);", "int i = get_local_id(0);", 0),
    (5, "tail_into_a1", "        a0 += in[i];\n    s[l]", "        a1 += in[i];\n    s[l]", 0),
    (5, "s_half", "__local float s[TILE];", "__local float s[TILE / 2];", 0),
    (5, "no_tail_loop", "    for (; i < n; i += g)\n        a0 += in[i];\n", "", 0),
    (5, "tree_assign", "s[l] += s[l + d]", "s[l] = s[l + d]", 0),
]

MATRIX_WORDS = re.compile(r"\b(rows?|columns?|matri(x|ces)|tiles?)\b|N x N", re.I)


def solution(lesson):
    return glob.glob(f"kernels/solutions/0{lesson}-*.cl")[0]


def mutate(src, old, new, occ):
    n = src.count(old)
    if n == 0:
        raise ValueError(f"not found: {old!r}")
    if occ == 0:
        if n != 1:
            raise ValueError(f"{n} occurrences of {old!r}")
        return src.replace(old, new, 1)
    at = -1
    for _ in range(occ):
        at = src.index(old, at + 1)
    return src[:at] + new + src[at + len(old):]


def flags(lesson, rep, text):
    out = []
    fails = [c for c in rep.get("criteria", []) if c.get("status") == "fail"]
    if re.search(r"\b1x\d", text):
        out.append("1x")
    if lesson == 5:
        for c in rep.get("criteria", []):
            words = MATRIX_WORDS.findall((c.get("message") or "") + " " + (c.get("try") or ""))
            # "tests/fixtures/..." paths and __local "tile" wording both count: judge by hand
            if words:
                out.append(f"matrix:{c['id']}")
    if fails and fails[0].get("caused_by"):
        out.append("symptom-first")
    racey = [c for c in fails if c["id"] == "race_free"]
    if racey and len(fails) > 1 and not rep.get("cause"):
        out.append("nocause")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--lesson", type=int)
    ap.add_argument("--out", default="build/mutants")
    ap.add_argument("--no-grade", action="store_true")
    ap.add_argument("--clgrade", default="build/clgrade")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    todo = [m for m in MUTANTS if (a.lesson is None or m[0] == a.lesson)
            and (a.only is None or a.only in f"l{m[0]}_{m[1]}")]
    if a.list:
        for m in todo:
            print(f"l{m[0]}_{m[1]}: {m[2]!r} -> {m[3]!r}")
        return 0
    summary = []
    for lesson, name, old, new, occ in todo:
        tag = f"l{lesson}_{name}"
        src = open(solution(lesson)).read()
        try:
            mut = mutate(src, old, new, occ)
        except ValueError as e:
            print(f"{tag}: BAD MUTANT ({e})", flush=True)
            continue
        path = os.path.join(a.out, tag + ".cl")
        open(path, "w").write(mut)
        if a.no_grade:
            continue
        js = os.path.join(a.out, tag + ".json")
        if os.path.exists(js):
            os.remove(js)
        p = subprocess.run(["nice", a.clgrade, "check", str(lesson), path, "--seed", "1", "--json", js],
                           capture_output=True, text=True)
        text = p.stdout + p.stderr
        open(os.path.join(a.out, tag + ".txt"), "w").write(text)
        try:
            rep = json.load(open(js))
        except (OSError, ValueError):
            print(f"{tag}: rc={p.returncode} NO JSON", flush=True)
            summary.append({"mutant": tag, "rc": p.returncode, "verdict": "nojson"})
            continue
        fails = [c for c in rep.get("criteria", []) if c.get("status") == "fail"]
        first = fails[0]["id"] if fails else "-"
        cause = (rep.get("cause") or {}).get("criterion", "-")
        verdict = "PASS" if p.returncode == 0 and not fails else "FAIL"
        fl = flags(lesson, rep, text)
        print(f"{tag:32s} rc={p.returncode} {verdict} first={first} cause={cause} "
              f"fails={','.join(c['id'] for c in fails)} {' '.join(fl)}", flush=True)
        summary.append({"mutant": tag, "rc": p.returncode, "verdict": verdict, "first": first,
                        "cause": cause, "flags": fl,
                        "fails": [{k: c.get(k) for k in ("id", "message", "try", "caused_by")}
                                  for c in fails]})
    if summary and not a.no_grade:
        json.dump(summary, open(os.path.join(a.out, "summary.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
