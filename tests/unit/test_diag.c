/* test_diag.c — Check unit tests for build-log rewriting and the diagnoses (grader/diag.c).
 *
 * The logs are real shapes: PoCL's "error: <kcache tempfile>:L:C: msg" followed by its driver
 * chatter, and clang/NVIDIA's "<kernel>:L:C: error: msg".  The include tests are the ways a
 * student's kernel could make the compiler read (and echo into the log) a file outside the
 * lesson's folder; each such spelling was checked to really include the file under PoCL. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

static const char *SRC =
	"__kernel void k(__global float *c)\n"
	"{   const int i = get_global_id(0)\n"
	"    c[i] = 1.0f;\n"
	"}\n";

/* ---- diag_rewrite ---- */

START_TEST(test_rewrite_pocl)
{
	const char *raw =
		"error: /root/.cache/pocl/kcache/tempfile_sioL4h.cl:2:27: expected ';' at end of declaration\n"
		"Device pthread-haswell-AMD EPYC failed to build the program\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "kernels/starter/x.cl", out, sizeof out);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"kernels/starter/x.cl:2:27: error: expected ';' at end of declaration\n"
		"  {   const int i = get_global_id(0)\n"
		"                            ^\n");   /* 2 + 26 spaces: the caret under column 27 */
}
END_TEST

START_TEST(test_rewrite_clang_nvidia)
{
	const char *raw =
		"<kernel>:3:5: error: use of undeclared identifier 'c2'\n"
		"    c2[i] = 1.0f;\n"
		"    ^\n"
		"1 error generated.\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"k.cl:3:5: error: use of undeclared identifier 'c2'\n"
		"      c[i] = 1.0f;\n"
		"      ^\n");
}
END_TEST

START_TEST(test_rewrite_warning)
{
	const char *raw =
		"warning: /root/.cache/pocl/kcache/tempfile_Ab12Cd.cl:1:15: unused parameter\n"
		"<kernel>:3:10: warning: implicit conversion\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 0);   /* warnings are not errors */
	ck_assert_str_eq(out,
		"k.cl:1:15: warning: unused parameter\n"
		"  __kernel void k(__global float *c)\n"
		"                ^\n"
		"k.cl:3:10: warning: implicit conversion\n"
		"      c[i] = 1.0f;\n"
		"           ^\n");
}
END_TEST

START_TEST(test_rewrite_other_file_keeps_name)
{
	const char *raw =
		"error: lessons/01-naive-matmul/helper.h:4:1: unknown type name 'flot'\n"
		"error: /root/.cache/pocl/kcache/tempfile_x.cl:1:1: expected something\n";
	char out[2048];
	int n = diag_rewrite(raw, SRC, "k.cl", out, sizeof out);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(out,
		"lessons/01-naive-matmul/helper.h:4:1: error: unknown type name 'flot'\n"
		"k.cl:1:1: error: expected something\n"
		"  __kernel void k(__global float *c)\n"
		"  ^\n");
}
END_TEST

START_TEST(test_rewrite_error_count)
{
	const char *raw =
		"<kernel>:1:1: error: one\n"
		"<kernel>:2:2: warning: not counted\n"
		"<kernel>:2:3: note: not counted either\n"
		"<kernel>:3:1: error: two\n"
		"<kernel>:4:1: fatal error: three\n"
		"3 errors generated.\n";
	char out[4096];
	ck_assert_int_eq(diag_rewrite(raw, SRC, "k.cl", out, sizeof out), 3);
	ck_assert_ptr_nonnull(strstr(out, "k.cl:2:3: note: not counted either\n"));
	ck_assert_ptr_nonnull(strstr(out, "k.cl:4:1: fatal error: three\n"));
	ck_assert_ptr_null(strstr(out, "generated"));
	ck_assert_int_eq(diag_rewrite("", SRC, "k.cl", out, sizeof out), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(diag_rewrite(NULL, SRC, "k.cl", out, sizeof out), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_rewrite_tab_and_missing_line)
{
	const char *src = "x\n\tint y = z;\n";
	char out[1024];
	ck_assert_int_eq(diag_rewrite("<kernel>:2:10: error: bad\n<kernel>:9:1: error: past the end\n",
	                              src, "k.cl", out, sizeof out), 2);
	/* the tab stays a tab so the caret lines up; a line the source lacks has no excerpt */
	ck_assert_str_eq(out,
		"k.cl:2:10: error: bad\n"
		"  \tint y = z;\n"
		"  \t        ^\n"
		"k.cl:9:1: error: past the end\n");
}
END_TEST

START_TEST(test_rewrite_small_buffer)
{
	const char *raw = "<kernel>:3:5: error: use of undeclared identifier 'c2'\n";
	char out[20];
	memset(out, 'x', sizeof out);
	ck_assert_int_eq(diag_rewrite(raw, SRC, "k.cl", out, sizeof out), 1);
	ck_assert_uint_eq(strlen(out), sizeof out - 1);
	ck_assert_str_eq(out, "k.cl:3:5: error: us");
}
END_TEST

/* ---- diag_first_error ---- */

START_TEST(test_first_error)
{
	char out[512];
	diag_first_error("k.cl:1:15: warning: unused\n  src\n  ^\n"
	                 "k.cl:2:27: error: expected ';'\n  src\n  ^\n"
	                 "k.cl:3:1: error: second\n", out, sizeof out);
	ck_assert_str_eq(out, "k.cl:2:27: error: expected ';'");
	diag_first_error("k.cl:1:15: warning: unused\n", out, sizeof out);
	ck_assert_str_eq(out, "");
	diag_first_error("", out, sizeof out);
	ck_assert_str_eq(out, "");
	diag_first_error("k.cl:2:27: error: expected ';'", out, 10);
	ck_assert_str_eq(out, "k.cl:2:27");
}
END_TEST

START_TEST(test_first_error_fatal_and_excerpt)
{
	char out[512];
	/* a fatal error is an error */
	diag_first_error("k.cl:1:10: fatal error: 'x.h' file not found\n  #include \"x.h\"\n  ^\n",
	                 out, sizeof out);
	ck_assert_str_eq(out, "k.cl:1:10: fatal error: 'x.h' file not found");
	/* the student's source echoed under a warning is not the compiler's error */
	diag_first_error("k.cl:1:5: warning: unused variable 'x'\n"
	                 "  int x; // TODO: error: fix this\n"
	                 "      ^\n"
	                 "k.cl:4:2: error: the real one\n", out, sizeof out);
	ck_assert_str_eq(out, "k.cl:4:2: error: the real one");
}
END_TEST

START_TEST(test_rewrite_then_first_error)
{
	const char *raw =
		"error: /root/.cache/pocl/kcache/tempfile_sioL4h.cl:2:27: expected ';' at end of declaration\n"
		"Device pthread-haswell-AMD EPYC failed to build the program\n";
	char out[2048], first[512];
	diag_rewrite(raw, SRC, "kernels/starter/x.cl", out, sizeof out);
	diag_first_error(out, first, sizeof first);
	ck_assert_str_eq(first, "kernels/starter/x.cl:2:27: error: expected ';' at end of declaration");
}
END_TEST

/* ---- diagnoses that name the real cause ---- */

static const char *LINK_SRC =
	"float dot_row(int r);\n"
	"__kernel void k(__global float *c)\n"
	"{   c[0] = dot_row(1); }\n";

/* A #line directive in any spelling the preprocessor takes is found at its line; text that
 * only looks like one is not. */
/* Subscripts after an array's name on a line: the most over its uses there. */
START_TEST(subscripts_counted_per_line)
{
	const char *src = "x = tile[a][b];\ny = tile[r * (TILE + 1) + c];\nz = tile [f(i[0])] [j];\n"
	                  "w = mytile[1][2] + tile_x[3];\nv = tile[i] + tile[j][k];\n";
	ck_assert_int_eq(diag_subscripts(src, 1, "tile"), 2);
	ck_assert_int_eq(diag_subscripts(src, 2, "tile"), 1);
	ck_assert_int_eq(diag_subscripts(src, 3, "tile"), 2);
	ck_assert_int_eq(diag_subscripts(src, 4, "tile"), 0);
	ck_assert_int_eq(diag_subscripts(src, 5, "tile"), 2);
	ck_assert_int_eq(diag_subscripts(src, 9, "tile"), 0);
}
END_TEST

START_TEST(one_buffer_of_a_double_buffer)
{
	char sub[64];
	const char *same = "__local float4 As[2][8][33];\nstage((__local float*)As[cur]);\n"
	                   "a = As[ cur ][k][ty]; /* As[cur ^ 1] in a comment */\n";
	ck_assert_int_eq(diag_one_buffer(same, "As", sub, sizeof sub), 1);
	ck_assert_str_eq(sub, "cur");
	const char *two = "__local float As[2][64];\nAs[cur][l] = x;\ny = As[cur ^ 1][l];\n";
	ck_assert_int_eq(diag_one_buffer(two, "As", sub, sizeof sub), 0);
	const char *single = "__local float As[16][16];\nAs[ty][tx] = x;\ny = As[ty][k];\n";
	ck_assert_int_eq(diag_one_buffer(single, "As", sub, sizeof sub), 0);
	const char *constant = "__local float s[2][64];\ns[0][l] = x;\ny = s[0][l + 1];\n";
	ck_assert_int_eq(diag_one_buffer(constant, "s", sub, sizeof sub), 0);
}
END_TEST

START_TEST(square_arrays_and_guard_gaps)
{
	ck_assert_int_eq(diag_square("__local float t[W][W];\nt[a][b] = 0;\n", "t"), 1);
	ck_assert_int_eq(diag_square("__local float t[TILE][TILE + 1];\nt[a][b] = 0;\n", "t"), 1);
	ck_assert_int_eq(diag_square("__local float Cs[TILE][BT + TILE];\nCs[a][b] = 0;\n", "Cs"), 0);
	char gap[200];
	const char *const sizes[] = { "in", "out", "rows", "cols", NULL };
	const char *src = "x = (halo >= 0) ? in[gy * cols + halo] : 0.0f;\n"
	                  "if (by + ly < rows && bx + lx < cols) out[(bx + ly) * rows + by + lx] = v;\n"
	                  "y = (y >= 0 && x < cols) ? in[y * cols + x] : 0.0f;\n"
	                  "for (int k = 0; k <= n; k++) s += (row < rows) ? in[row * cols + k] : 0;\n";
	ck_assert_int_eq(diag_guard_gap(src, 1, "halo >= 0", "in", sizes, 0, gap, sizeof gap), 1);
	ck_assert_ptr_nonnull(strstr(gap, "never tests gy"));
	ck_assert_int_eq(diag_guard_gap(src, 2, "by + ly < rows && bx + lx < cols", "out", sizes, 0,
	                                 gap, sizeof gap), 1);
	ck_assert_ptr_nonnull(strstr(gap, "by+ly where the index uses bx+ly"));
	ck_assert_int_eq(diag_guard_gap(src, 3, "y >= 0 && x < cols", "in", sizes, 0, gap, sizeof gap), 1);
	ck_assert_ptr_nonnull(strstr(gap, "bounds y only from below"));
	/* a loop counter's bound is its loop's: nothing for the guard to miss */
	ck_assert_int_eq(diag_guard_gap(src, 4, "row < rows", "in", sizes, 0, gap, sizeof gap), 0);
	char name[64];
	int d, u;
	ck_assert_int_eq(diag_unset_sum("float acc;\nfor (k = 0; k < n; k++)\n  acc += a[k];\n",
	                                 name, sizeof name, &d, &u), 1);
	ck_assert_str_eq(name, "acc");
	ck_assert_int_eq(d, 1);
	ck_assert_int_eq(u, 3);
	ck_assert_int_eq(diag_unset_sum("float acc[4][4];\nacc[i][j] = fma(a, b, acc[i][j]);\n",
	                                 name, sizeof name, &d, &u), 1);
	ck_assert_int_eq(diag_unset_sum("float acc[4];\nfor (i = 0; i < 4; i++) acc[i] = 0.0f;\n"
	                                "acc[0] += 1.0f;\n", name, sizeof name, &d, &u), 0);
	ck_assert_int_eq(diag_unset_sum("float s = 0.0f;\ns += 1.0f;\n", name, sizeof name, &d,
	                                &u), 0);
	ck_assert_int_eq(diag_unset_sum("float a0 = 0.0f, a3;\na3 += 1.0f;\n", name, sizeof name,
	                                &d, &u), 1);
	ck_assert_str_eq(name, "a3");
	char cond[64];
	ck_assert_int_eq(diag_ternary_cond(src, 1, cond, sizeof cond), 1);
	ck_assert_str_eq(cond, "halo >= 0");
}
END_TEST

START_TEST(line_directives_found_in_every_spelling)
{
	static const struct { const char *src; int line; } c[] = {
		{ "#line 40\nkernel void k(void) {}\n", 1 },
		{ "int a;\n  # 40 \"f.cl\"\n", 2 },
		{ "int a;\n\n%:line 3\n", 3 },
		{ "??=line 3\n", 1 },
		{ "int a;\n#\\\nline 3\n", 2 },
		{ "/* x */ # /* y */ line 3\n", 1 },
		{ "/* a\n b */\n\t#line 9 \"grader/ref.c\"\n", 3 },
		{ "\xef\xbb\xbf#line 2\n", 1 },
		{ "// #line 3\nint a;\n", 0 },
		{ "/*\n#line 3\n*/\n", 0 },
		{ "const char *s = \"#line 3\";\n", 0 },
		{ "#define LINE 3\n#lineage\nint a; # 3\n", 0 },
		{ "#pragma unroll 4\n#if 0\n#endif\n", 0 },
		/* clang reads a #warning's or #error's text raw: a slash-star there opens nothing */
		{ "#warning /*\n#line 120 \"grader/ref.c\"\n// */\n", 2 },
		{ "  # /* c */ warning x /*\n%:line 3\n", 2 },
		{ "#error /*\n#line 3\n", 2 },
		{ "#define X /*\n#line 3\n*/\n", 0 },
		{ "int warning; /*\n#line 3\n*/\n", 0 },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++)
		ck_assert_msg(diag_line_directive(c[i].src) == c[i].line, "case %zu: line %d, want %d",
		              i, diag_line_directive(c[i].src), c[i].line);
}
END_TEST

START_TEST(link_error_keeps_runtime_message_at_declaration)
{
	const char *raw = "Error(s) while linking: \n"
	                  "Cannot find symbol dot_row in kernel library\n"
	                  "Device pthread-skylake failed to build the program\n";
	char out[2048] = "";
	ck_assert_int_eq(diag_rewrite(raw, LINK_SRC, "k.cl", out, sizeof out), 0);
	ck_assert_int_eq(diag_unlocated(raw, LINK_SRC, "k.cl", out, sizeof out), 1);
	ck_assert_ptr_nonnull(strstr(out, "k.cl:1:7: error: Error(s) while linking: Cannot find "
	                                  "symbol dot_row in kernel library"));
	ck_assert_ptr_null(strstr(out, "failed to build"));
	char first[512];
	diag_first_error(out, first, sizeof first);
	ck_assert_ptr_nonnull(strstr(first, "Cannot find symbol dot_row"));
}
END_TEST

START_TEST(link_error_ptxas_spelling_and_nothing_to_show)
{
	char out[2048] = "";
	ck_assert_int_eq(diag_unlocated("ptxas fatal   : Unresolved extern function 'dot_row'\n",
	                                LINK_SRC, "k.cl", out, sizeof out), 1);
	ck_assert_ptr_nonnull(strstr(out, "k.cl:1:7: error: ptxas fatal   : Unresolved extern "
	                                  "function 'dot_row'"));
	out[0] = '\0';
	ck_assert_int_eq(diag_unlocated("\nDevice x failed to build the program\n", LINK_SRC, "k.cl",
	                                out, sizeof out), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

static const char *MM[] = { "A", "B", "C", "N", NULL };
static const char *TR[] = { "in", "out", "rows", "cols", NULL };

static diag_arg arg(const char *type, const char *name, diag_addr addr)
{
	diag_arg a;
	memset(&a, 0, sizeof a);
	snprintf(a.type, sizeof a.type, "%s", type);
	snprintf(a.name, sizeof a.name, "%s", name);
	a.addr = addr;
	return a;
}

START_TEST(signature_matches_lesson)
{
	diag_arg mm[4] = { arg("float*", "A", DIAG_ARG_GLOBAL), arg("float*", "B", DIAG_ARG_CONSTANT),
	                   arg("float*", "C", DIAG_ARG_GLOBAL), arg("int", "n", DIAG_ARG_PRIVATE) };
	diag_arg tr[4] = { arg("float*", "src", DIAG_ARG_GLOBAL), arg("float*", "dst", DIAG_ARG_GLOBAL),
	                   arg("int", "r", DIAG_ARG_PRIVATE), arg("uint", "c", DIAG_ARG_PRIVATE) };
	char msg[600] = "";
	ck_assert_int_eq(diag_signature(MM, 2, mm, 4, msg, sizeof msg), 0);
	ck_assert_int_eq(diag_signature(TR, 1, tr, 4, msg, sizeof msg), 0);
	ck_assert_int_eq(diag_signature(MM, 2, NULL, 4, msg, sizeof msg), 0);  /* no info */
	/* typedef'd names cannot be judged: accepted where pointer-ness and space fit */
	diag_arg td[4] = { arg("real*", "A", DIAG_ARG_GLOBAL), arg("real*", "B", DIAG_ARG_GLOBAL),
	                   arg("real*", "C", DIAG_ARG_GLOBAL), arg("idx_t", "N", DIAG_ARG_PRIVATE) };
	ck_assert_int_eq(diag_signature(MM, 2, td, 4, msg, sizeof msg), 0);
	td[3] = arg("idx_t*", "N", DIAG_ARG_GLOBAL);
	ck_assert_int_eq(diag_signature(MM, 2, td, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "argument 4 (N)"));
}
END_TEST

START_TEST(signature_extra_local_pointers)
{
	diag_arg a[6] = { arg("float*", "A", DIAG_ARG_GLOBAL), arg("float*", "B", DIAG_ARG_GLOBAL),
	                  arg("float*", "C", DIAG_ARG_GLOBAL), arg("int", "N", DIAG_ARG_PRIVATE),
	                  arg("float*", "As", DIAG_ARG_LOCAL), arg("float*", "Bs", DIAG_ARG_LOCAL) };
	char msg[600];
	ck_assert_int_eq(diag_signature(MM, 2, a, 6, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "the lesson passes (A, B, C, N); your kernel takes 6 "
	                                  "arguments"));
	ck_assert_ptr_nonnull(strstr(msg, "argument 5 (As) is a __local pointer"));
	a[2] = arg("float*", "C", DIAG_ARG_LOCAL);   /* a __local pointer where C belongs */
	ck_assert_int_eq(diag_signature(MM, 2, a, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "takes 4 arguments"));
	ck_assert_ptr_nonnull(strstr(msg, "argument 3 (C) is a __local pointer, but the lesson "
	                                  "passes a __global buffer there"));
	ck_assert_int_eq(diag_signature(MM, 2, NULL, 6, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "your kernel takes 6 arguments"));
}
END_TEST

START_TEST(signature_wrong_types_and_spaces)
{
	char msg[600];
	diag_arg a[4] = { arg("float*", "A", DIAG_ARG_GLOBAL), arg("float*", "B", DIAG_ARG_GLOBAL),
	                  arg("float*", "C", DIAG_ARG_GLOBAL), arg("float", "N", DIAG_ARG_PRIVATE) };
	ck_assert_int_eq(diag_signature(MM, 2, a, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "argument 4 (N) is float, but the lesson passes an int"));
	a[3] = arg("int", "N", DIAG_ARG_PRIVATE);
	a[1] = arg("double*", "B", DIAG_ARG_GLOBAL);
	ck_assert_int_eq(diag_signature(MM, 2, a, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "argument 2 (B) is __global double*"));
	a[1] = arg("float4*", "B", DIAG_ARG_GLOBAL);
	ck_assert_int_eq(diag_signature(MM, 2, a, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "argument 2 (B) is __global float4*"));
	a[1] = arg("float*", "B", DIAG_ARG_GLOBAL);
	a[2] = arg("float*", "C", DIAG_ARG_CONSTANT);   /* an output cannot be __constant */
	ck_assert_int_eq(diag_signature(MM, 2, a, 4, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "argument 3 (C)"));
	diag_arg t[3] = { arg("float*", "in", DIAG_ARG_GLOBAL), arg("float*", "out", DIAG_ARG_GLOBAL),
	                  arg("int", "n", DIAG_ARG_PRIVATE) };
	ck_assert_int_eq(diag_signature(TR, 1, t, 3, msg, sizeof msg), -1);
	ck_assert_ptr_nonnull(strstr(msg, "the lesson passes (in, out, rows, cols); your kernel "
	                                  "takes 3 arguments"));
}
END_TEST

START_TEST(barriers_found_outside_comments)
{
	ck_assert_int_eq(diag_has_barrier("__kernel void k() { /* barrier(CLK_LOCAL_MEM_FENCE); */\n"
	                                  "// barrier(x)\n int my_barrier = 0; }"), 0);
	ck_assert_int_eq(diag_has_barrier("__kernel void k() {\n barrier (CLK_LOCAL_MEM_FENCE); }"), 1);
	ck_assert_int_eq(diag_has_barrier("__kernel void k() {\n work_group_barrier(CLK_LOCAL_MEM_FENCE); }"), 1);
}
END_TEST

START_TEST(global_only_fence_named_when_local_data)
{
	const char *bad = "__kernel void k(__global float *o) {\n"
	                  "  __local float t[16];\n"
	                  "  t[0] = 1.0f;\n"
	                  "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
	                  "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
	                  "  o[0] = t[1]; }\n";
	ck_assert_int_eq(diag_global_only_fence(bad), 5);
	const char *no_local = "__kernel void k(__global float *o) {\n"
	                       "  barrier(CLK_GLOBAL_MEM_FENCE);\n  o[0] = 1.0f; }\n";
	ck_assert_int_eq(diag_global_only_fence(no_local), 0);
	const char *ok = "__kernel void k(__global float *o) {\n  local float t[4];\n"
	                 "  /* barrier(CLK_GLOBAL_MEM_FENCE); */ barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
	ck_assert_int_eq(diag_global_only_fence(ok), 0);
}
END_TEST

START_TEST(sizes_edge_not_mixed_up)
{
	/* lesson 3's sizes: right at every multiple of TILE=32, wrong where a tile is partial */
	diag_size s[] = { {1, 1, 1, 0}, {100, 37, 0, 0}, {37, 100, 0, 0}, {64, 64, 1, 0}, {32, 96, 1, 0}, {33, 65, 0, 0} };
	char extra[400], try_[400];
	ck_assert_int_eq(diag_sizes(lesson_find("3"), s, 6, 32, extra, sizeof extra, try_, sizeof try_), 1);
	ck_assert_ptr_null(strstr(extra, "mixed up"));
	ck_assert_ptr_nonnull(strstr(extra, "right at 32x96, a multiple of TILE=32"));
	ck_assert_ptr_nonnull(strstr(try_, "guard"));
}
END_TEST

START_TEST(sizes_mixed_up_needs_nonsquare_multiple_wrong)
{
	char extra[400], try_[400];
	diag_size s[] = { {1, 1, 1, 0}, {100, 37, 0, 0}, {37, 100, 0, 0}, {64, 64, 1, 0}, {32, 96, 0, 0}, {33, 65, 0, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("3"), s, 6, 32, extra, sizeof extra, try_, sizeof try_), 1);
	ck_assert_ptr_nonnull(strstr(extra, "rows and cols are mixed up"));
	/* the same pattern in matmul (square only) never says so */
	diag_size m[] = { {1, 1, 0, 0}, {17, 17, 0, 0}, {100, 100, 0, 0}, {256, 256, 1, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("2"), m, 4, 16, extra, sizeof extra, try_, sizeof try_), 1);
	ck_assert_ptr_null(strstr(extra, "mixed up"));
	ck_assert_ptr_nonnull(strstr(extra, "right at 256x256, a multiple of TILE=16"));
	/* wrong at a multiple too: not an edge problem */
	diag_size w[] = { {1, 1, 1, 0}, {17, 17, 0, 0}, {100, 100, 1, 0}, {256, 256, 0, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("2"), w, 4, 16, extra, sizeof extra, try_, sizeof try_), 1);
	ck_assert_ptr_null(strstr(extra, "multiple of TILE=16, and wrong only"));
	ck_assert_ptr_nonnull(strstr(extra, "right at 100x100"));
	/* wrong everywhere: nothing to say */
	diag_size all[] = { {1, 1, 0, 0}, {17, 17, 0, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("2"), all, 2, 16, extra, sizeof extra, try_, sizeof try_), 0);
	ck_assert_str_eq(extra, "");
}
END_TEST

START_TEST(sizes_in_the_reduction_words)
{
	char extra[600], try_[400];
	/* right while each work-item loads one element (n <= 524288 work-items), wrong beyond:
	 * the grid-stride loop, not a hard-coded size or a partial tile */
	diag_size s[] = { {1, 1, 1, 0}, {1, 255, 1, 0}, {1, 257, 1, 0}, {1, 4099, 1, 0}, {1, 1000003, 0, 0},
	                  {1, 1400017, 0, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("5"), s, 6, 256, extra, sizeof extra, try_,
	                            sizeof try_), 1);
	ck_assert_ptr_nonnull(strstr(extra, "up to the global size (524288 work-items"));
	ck_assert_ptr_nonnull(strstr(try_, "get_global_size(0)"));
	ck_assert_ptr_null(strstr(extra, "hard-coded"));
	ck_assert_ptr_null(strstr(try_, "tile"));
	ck_assert_ptr_null(strstr(extra, "1x"));
	/* right in one group, wrong in two: a group's partial sum */
	diag_size g[] = { {1, 1, 1, 0}, {1, 255, 1, 0}, {1, 257, 0, 0}, {1, 4099, 0, 0} };
	ck_assert_int_eq(diag_sizes(lesson_find("5"), g, 4, 256, extra, sizeof extra, try_,
	                            sizeof try_), 1);
	ck_assert_ptr_nonnull(strstr(extra, "within one work-group"));
	ck_assert_ptr_nonnull(strstr(try_, "partial[get_group_id(0)]"));
}
END_TEST

START_TEST(reads_output_message)
{
	char buf[400], try_[400];
	diag_reads_output("C", 289, 289, buf, sizeof buf, try_, sizeof try_);
	ck_assert_ptr_nonnull(strstr(buf, "reads C before writing it (C starts as NaN)"));
	ck_assert_ptr_nonnull(strstr(buf, "289 of 289"));
	ck_assert_ptr_nonnull(strstr(try_, "float acc = 0.0f;"));
}
END_TEST

static Suite *diag_suite(void)
{
	Suite *s = suite_create("diag");
	TCase *t = tcase_create("rewrite");
	tcase_add_test(t, test_rewrite_pocl);
	tcase_add_test(t, test_rewrite_clang_nvidia);
	tcase_add_test(t, test_rewrite_warning);
	tcase_add_test(t, test_rewrite_other_file_keeps_name);
	tcase_add_test(t, test_rewrite_error_count);
	tcase_add_test(t, test_rewrite_tab_and_missing_line);
	tcase_add_test(t, test_rewrite_small_buffer);
	tcase_add_test(t, test_first_error);
	tcase_add_test(t, test_first_error_fatal_and_excerpt);
	tcase_add_test(t, test_rewrite_then_first_error);
	suite_add_tcase(s, t);

	t = tcase_create("diagnoses");
	tcase_add_test(t, link_error_keeps_runtime_message_at_declaration);
	tcase_add_test(t, link_error_ptxas_spelling_and_nothing_to_show);
	tcase_add_test(t, signature_matches_lesson);
	tcase_add_test(t, signature_extra_local_pointers);
	tcase_add_test(t, signature_wrong_types_and_spaces);
	tcase_add_test(t, barriers_found_outside_comments);
	tcase_add_test(t, global_only_fence_named_when_local_data);
	tcase_add_test(t, sizes_edge_not_mixed_up);
	tcase_add_test(t, sizes_mixed_up_needs_nonsquare_multiple_wrong);
	tcase_add_test(t, sizes_in_the_reduction_words);
	tcase_add_test(t, reads_output_message);
	tcase_add_test(t, line_directives_found_in_every_spelling);
	tcase_add_test(t, subscripts_counted_per_line);
	tcase_add_test(t, one_buffer_of_a_double_buffer);
	tcase_add_test(t, square_arrays_and_guard_gaps);
	suite_add_tcase(s, t);

	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(diag_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
