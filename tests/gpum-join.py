#!/usr/bin/env python3
"""gpum-join.py PRED MEAS -- the GPU time model against measured H200 times (GUIDE.md,
"Predicted GPU time").  PRED: `sh tests/gpum-validate.sh predict` here (timing.predicted of each
check); MEAS: `sh tests/gpum-validate.sh measure` on the GPU host (timing.kernel_ms of each
check).  Prints one markdown row per kernel timed in both, then the issue-19 figures over the
held-out kernels: every kernel but FIT, whose times fixed a constant (grader/gpumodel.c)."""
import json, os, sys, statistics

BARS = {2: 1.10, 3: 2.0, 5: 1.30}          # grader/lesson.c speedup_gpu
FIT = {"baseline_reduce_naive.cl_reduce"}   # fitted the DRAM latency under load (gpumodel.c)

def load(d, n):
    try:
        return json.load(open(os.path.join(d, n + ".json")))
    except (OSError, ValueError):
        return None

def main(pred_dir, meas_dir):
    rows = []
    for f in sorted(os.listdir(meas_dir)):
        if not f.endswith(".json"):
            continue
        n = f[:-5]
        m, p = load(meas_dir, n), load(pred_dir, n)
        mt = (m or {}).get("timing") or {}
        # timing.predicted; at the report's root where nothing single was timed (lesson 4)
        pt = ((p or {}).get("timing") or {}).get("predicted") or (p or {}).get("predicted")
        if not pt:
            continue
        lesson = int(m["lesson"][:2])
        if mt.get("kernel_ms"):
            rows.append(dict(name=n, lesson=lesson, meas=mt["kernel_ms"], pred=pt["kernel_ms"],
                             ms=mt.get("speedup"), ps=pt.get("speedup"), lim=pt["limiter"],
                             fit=n in FIT))
        # lesson 4: each TILE of the sweep, measured (tiles[]) against predicted (tiles[])
        pred_tiles = {t["tile"]: t for t in pt.get("tiles") or [] if t.get("kernel_ms")}
        for t in (m or {}).get("tiles") or []:
            q = pred_tiles.get(t.get("tile"))
            if t.get("kernel_ms") and q:
                rows.append(dict(name="%s@TILE%d" % (n, t["tile"]), lesson=lesson,
                                 meas=t["kernel_ms"], pred=q["kernel_ms"], ms=None, ps=None,
                                 lim=q["limiter"], fit=n in FIT))
    print("| lesson | kernel | measured ms | predicted ms | error | limiter | measured x | predicted x | verdicts |")
    print("|---|---|---|---|---|---|---|---|---|")
    errs, worst, verdicts = [], [], 0
    for r in rows:
        e = (r["pred"] - r["meas"]) / r["meas"]
        r["err"] = e
        bar = BARS.get(r["lesson"])
        same = ""
        if bar and r["ms"] and r["ps"]:
            same = "same" if (r["ms"] >= bar) == (r["ps"] >= bar) else "DIFFER"
            verdicts += same == "DIFFER" and not r["fit"]
        if not r["fit"]:
            errs.append(abs(e))
            if abs(e) > 0.25:
                worst.append(r)
        fmt = lambda x: "%.2f" % x if x else "-"
        print("| %d | %s%s | %.4f | %.4f | %+.0f%% | %s | %s | %s | %s |" % (
            r["lesson"], r["name"], " (fit)" if r["fit"] else "", r["meas"], r["pred"], 100 * e,
            r["lim"], fmt(r["ms"]), fmt(r["ps"]), same))
    print()
    print("held out: %d kernels, median |error| %.1f%%, mean %.1f%%, max %.1f%%, within 25%%: %d/%d"
          % (len(errs), 100 * statistics.median(errs), 100 * statistics.mean(errs),
             100 * max(errs), sum(e <= 0.25 for e in errs), len(errs)))
    print("speedup verdicts that differ (held out): %d" % verdicts)
    for r in worst:
        print("  beyond 25%%: %s %+.0f%%" % (r["name"], 100 * r["err"]))
    l3 = [r for r in rows if r["lesson"] == 3 and not r["fit"]]
    bad = [(a["name"], b["name"]) for i, a in enumerate(l3) for b in l3[i + 1:]
           if abs(a["meas"] - b["meas"]) > 0.10 * min(a["meas"], b["meas"])
           and (a["meas"] < b["meas"]) != (a["pred"] < b["pred"])]
    pairs = sum(1 for i, a in enumerate(l3) for b in l3[i + 1:]
                if abs(a["meas"] - b["meas"]) > 0.10 * min(a["meas"], b["meas"]))
    print("lesson 3 pairs more than 10%% apart: %d, ranked wrongly: %d" % (pairs, len(bad)))
    for a, b in bad:
        print("  wrong order: %s / %s" % (a, b))

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
