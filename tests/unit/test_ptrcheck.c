/* test_ptrcheck.c — Check unit tests for the refusal of kernels that turn a pointer's value
 * into data (grader/ptrcheck.c), through the real path: preproc_run, clang's preprocessor and
 * clang's AST dump in confined children, then the grader's walk of the tree.
 *
 * Every refused family (casts both ways, explicit and implicit, through a helper, a struct
 * member, as_ulong, __builtin_astype, a reinterpreting cast, a union, pointer comparisons and
 * differences, a pointer as a condition, address builtins), hidden by macros and token pasting
 * too, must come back PREPROC_REFUSED with the student's file, line and column and the reason;
 * every honest pattern, and every solution, starter and fixture of the suite (all TILEs its
 * lesson builds at), must be accepted.  About 20 s on 2 busy cores (two clang runs per
 * kernel and TILE). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson.h"
#include "preproc.h"
#include "ptrcheck.h"
#include "sandbox.h"

static char tmp[4096];

static void setup(void)
{
	ck_assert_int_eq(sandbox_tmp_make(tmp, sizeof tmp), 0);
}

static void teardown(void)
{
	sandbox_tmp_remove(tmp);
}

/* Preprocess and check source as lesson 3 would (TILE tile); the result, msg filled. */
static ptrcheck_sizes last_sizes;   /* the size tests of the last run_at */

static preproc_result run_at(const char *source, const char *lesson_dir, int tile, char *msg,
                             size_t len)
{
	preproc_job j = { source, "kernels/starter/k.cl", lesson_dir, tmp, tile, 1, 20, 0, NULL,
	                  { "" }, 0, { 0 } };
	char *out = NULL;
	preproc_result r = preproc_run(&j, &out, msg, len);
	ck_assert(r == PREPROC_OK ? out != NULL : out == NULL);
	free(out);
	last_sizes = j.sizes;
	return r;
}

static preproc_result run(const char *source, char *msg, size_t len)
{
	return run_at(source, "lessons/03-transpose-padding", 16, msg, len);
}

#define HEAD "__kernel void transpose(__global const float *in, __global float *out,\n" \
             "                        const int rows, const int cols)\n{\n"

/* ---- refused ---- */

typedef struct attack {
	const char *name, *src;
	const char *why;      /* in the message */
	int line, col;        /* where the message points (col 0: not checked) */
} attack;

static const attack attacks[] = {
	{ "oracle (ulong)in >> 47", HEAD "    if (((ulong)in >> 47) != 0) return;\n"
	  "    out[0] = in[0];\n}\n", "cast of a pointer to an integer", 4, 10 },
	{ "spaces and tabs before the cast", HEAD "\tint  x =   0;  out[0]  =\t (size_t)&x;\n}\n",
	  "cast of a pointer to an integer", 4, 28 },
	{ "(size_t)&local_var", HEAD "    int x = 0;\n    out[0] = (size_t)&x;\n}\n",
	  "cast of a pointer to an integer", 5, 14 },
	{ "(ulong)&__local array", HEAD "    __local float t[4];\n    out[0] = (ulong)&t[1];\n}\n",
	  "cast of a pointer to an integer", 5, 14 },
	{ "(intptr_t)", HEAD "    intptr_t a = (intptr_t)out;\n    out[0] = a;\n}\n",
	  "cast of a pointer to an integer", 4, 18 },
	{ "implicit pointer to integer", HEAD "    ulong a = in;\n    out[0] = a;\n}\n",
	  "cast of a pointer to an integer", 4, 15 },
	{ "integer to pointer", HEAD "    __global float *q = (__global float *)(ulong)rows;\n"
	  "    q[0] = 1;\n}\n", "cast of an integer to a pointer", 4, 25 },
	{ "implicit integer to pointer", HEAD "    __global float *q = rows;\n    q[0] = 1;\n}\n",
	  "cast of an integer to a pointer", 4, 25 },
	{ "helper function", "ulong addr(__global const float *p) { return (ulong)p; }\n"
	  HEAD "    out[0] = addr(in) & 7;\n}\n", "cast of a pointer to an integer", 1, 46 },
	{ "implicit, in a helper's return",
	  "ulong addr(__global const float *p) { return p; }\n"
	  HEAD "    out[0] = addr(in);\n}\n", "cast of a pointer to an integer", 1, 46 },
	{ "pointer argument to an integer parameter",
	  "float f(ulong a) { return a >> 47; }\n" HEAD "    out[0] = f(in);\n}\n",
	  "cast of a pointer to an integer", 5, 16 },
	{ "struct member", "typedef struct { __global const float *p; int n; } box;\n"
	  HEAD "    box b = { in, rows };\n    out[0] = (ulong)b.p;\n}\n",
	  "cast of a pointer to an integer", 6, 14 },
	{ "struct seen as another struct", "struct S { __global const float *p; };\n"
	  "struct T { ulong u; };\n"
	  HEAD "    struct S s = { in };\n    out[0] = ((struct T *)&s)->u;\n}\n",
	  "pointer's memory read as another type", 7, 15 },
	{ "struct defined after the cast", "struct T;\n"
	  "float peek(__private ulong *x) { return ((__private struct T *)x)->p[0]; }\n"
	  "struct T { __global const float *p; };\n"
	  HEAD "    ulong a = 0;\n    out[0] = peek(&a);\n}\n",
	  "memory read back as a pointer", 2, 42 },
	{ "__builtin_memcpy of a pointer", HEAD "    __global const float *p = in;\n    ulong a;\n"
	  "    __builtin_memcpy(&a, &p, sizeof a);\n    out[0] = a;\n}\n",
	  "pointer", 6, 0 },
	{ "as_ulong", HEAD "    ulong a = as_ulong(in);\n    out[0] = a >> 47;\n}\n",
	  "as_type/__builtin_astype of a pointer", 4, 15 },
	{ "__builtin_astype", HEAD "    out[0] = __builtin_astype(in, ulong) >> 47;\n}\n",
	  "as_type/__builtin_astype of a pointer", 4, 14 },
	{ "*(ulong *)&p", HEAD "    __global const float *p = in;\n"
	  "    out[0] = *(__private ulong *)&p >> 47;\n}\n",
	  "pointer's memory read as another type", 5, 15 },
	{ "array of pointers read as a vector", HEAD "    __global const float *a[2] = { in, in };\n"
	  "    ulong2 v = vload2(0, (__private ulong *)a);\n    out[0] = v.x;\n}\n",
	  "pointer's memory read as another type", 5, 26 },
	{ "pointer stored in the output", HEAD "    __global float *__global *pp = "
	  "(__global float *__global *)out;\n    *pp = out;\n}\n", "memory read back as a pointer",
	  4, 36 },
	{ "union with a pointer", HEAD "    union { __global const float *p; ulong u; } x;\n"
	  "    x.p = in;\n    out[0] = x.u >> 47;\n}\n", "a union with a pointer member", 4, 5 },
	{ "union in a compound literal", HEAD "    out[0] = ((union { __global const float *p; "
	  "ulong u; }){ in }).u >> 47;\n}\n", "a union with a pointer member", 4, 60 },
	{ "struct declared in a cast", HEAD "    ulong a = 0;\n"
	  "    out[0] = ((__private struct { __global const float *p; } *)&a)->p[0];\n}\n",
	  "memory read back as a pointer", 5, 15 },
	{ "comparison in < out", HEAD "    if (in < out) out[0] = 1;\n}\n",
	  "an ordered comparison of pointers", 4, 9 },
	{ "ordered comparison within one buffer (wraps around)",
	  HEAD "    if (in + ((1UL << 62) - (1UL << 45)) < in) return;\n    out[0] = 1;\n}\n",
	  "an ordered comparison of pointers", 4, 9 },
	{ "equality through locals", HEAD "    __global const float *a = in + 1;\n"
	  "    __global float *b = out;\n    if (a != b) out[0] = 1;\n}\n",
	  "comparison of pointers into different buffers", 6, 9 },
	{ "difference out - in", HEAD "    out[0] = out - in;\n}\n",
	  "difference of pointers into different buffers", 4, 14 },
	{ "difference against a constant", HEAD "    out[0] = out - (__global float *)0;\n}\n",
	  "difference of a pointer and a constant", 4, 14 },
	{ "difference of two __local arrays", HEAD "    __local float a[4], b[4];\n"
	  "    out[0] = a - b;\n}\n", "difference of pointers into different buffers", 5, 14 },
	{ "in == 0", HEAD "    if (in == 0) return;\n    out[0] = 1;\n}\n",
	  "comparison of a pointer with null", 4, 9 },
	{ "if (p - K)", HEAD "    if (in - (1UL << 45)) return;\n    out[0] = 1;\n}\n",
	  "pointer used as a condition", 4, 5 },
	{ "!p", HEAD "    out[0] = !in;\n}\n", "pointer used as a condition", 4, 14 },
	{ "p ? a : b", HEAD "    out[0] = (in + 7) ? 1 : 2;\n}\n", "pointer used as a condition", 4, 14 },
	{ "(bool)p", HEAD "    bool b = (bool)(in + 3);\n    out[0] = b;\n}\n",
	  "pointer used as a truth value", 4, 14 },
	{ "pointer of unknown provenance", HEAD "    __global const float *p = in;\n"
	  "    __global const float *__private *pp = &p;\n    *pp = out;\n"
	  "    out[0] = p - in;\n}\n", "cannot tie to one buffer", 7, 14 },
	{ "helper comparing its parameters",
	  "int before(__global const float *a, __global const float *b) { return a < b; }\n"
	  HEAD "    out[0] = before(in, out);\n}\n", "an ordered comparison of pointers", 1, 71 },
	{ "helper testing its parameters for equality",
	  "int same(__global const float *a, __global const float *b) { return a == b; }\n"
	  HEAD "    out[0] = same(in, out);\n}\n", "comparison of pointers into different buffers",
	  1, 69 },
	{ "__builtin_is_aligned", HEAD "    out[0] = __builtin_is_aligned(in, 1UL << 20);\n}\n",
	  "a pointer given to __builtin_is_aligned", 4, 35 },
	{ "__builtin_frame_address", HEAD "    out[0] = (ulong)__builtin_frame_address(0);\n}\n",
	  "pointer", 4, 14 },
	{ "macro-hidden cast", "#define ADDR(p) ((ulong)(p))\n#define HIGH(p) (ADDR(p) >> 47)\n"
	  HEAD "    if (HIGH(in)) return;\n    out[0] = 1;\n}\n", "cast of a pointer to an integer",
	  6, 9 },
	{ "token-pasted type", "#define CAT(a, b) a##b\n"
	  HEAD "    if (((CAT(ul, ong))in >> 47) != 0) return;\n    out[0] = 1;\n}\n",
	  "cast of a pointer to an integer", 5, 10 },
	{ "token-pasted as_ulong", "#define CAT(a, b) a##b\n#define AS(t) CAT(as_, t)\n"
	  HEAD "    out[0] = AS(ulong)(in) >> 47;\n}\n", "as_type/__builtin_astype of a pointer",
	  6, 14 },
	{ "macro-hidden union", "#define PUN(T) union { T p; ulong u; }\n"
	  HEAD "    PUN(__global const float *) x;\n    x.p = in;\n    out[0] = x.u;\n}\n",
	  "a union with a pointer member", 5, 5 },
	{ "only at TILE 16 (#if)", HEAD "#if TILE == 16\n    if ((ulong)in >> 47) return;\n#endif\n"
	  "    out[0] = 1;\n}\n", "cast of a pointer to an integer", 5, 9 },
};

START_TEST(test_refused)
{
	const attack *a = &attacks[_i];
	char msg[4096];
	preproc_result r = run(a->src, msg, sizeof msg);
	ck_assert_msg(r == PREPROC_REFUSED, "%s: not refused (%d): %s", a->name, r, msg);
	ck_assert_msg(strstr(msg, a->why), "%s: message lacks \"%s\": %s", a->name, a->why, msg);
	ck_assert_msg(strstr(msg, "the grader refuses kernels that inspect addresses"),
	              "%s: %s", a->name, msg);
	char where[128];
	if (a->col)
		snprintf(where, sizeof where, "kernels/starter/k.cl:%d:%d: error: ", a->line, a->col);
	else
		snprintf(where, sizeof where, "kernels/starter/k.cl:%d:", a->line);
	ck_assert_msg(strncmp(msg, where, strlen(where)) == 0, "%s: message starts not with %s: %s",
	              a->name, where, msg);
}
END_TEST

/* ---- allowed ---- */

static const char *const honest[] = {
	HEAD "    __global float *row = out + rows * 2;\n    row[1] = in[rows * cols - 1];\n}\n",
	HEAD "    const float4 v = ((__global const float4 *)in)[0] + vload4(1, in);\n"
	"    vstore4(v, 0, out);\n}\n",
	HEAD "    __global const float *p = in + 3;\n    out[0] = p - in;\n"
	"    out[1] = (p != in + rows) + (p == in) + (&in[4] - p);\n}\n",
	HEAD "    float s = 0;\n    for (__global const float *p = in; p != in + rows; p++)\n"
	"        s += *p;\n    __global const float *q;\n    q = in;\n    q += cols;\n"
	"    while (q != in + rows * cols) { s += *q; q++; }\n    out[0] = s;\n}\n",
	HEAD "    __local float tile[TILE][TILE + 1];\n    tile[0][1] = in[0];\n"
	"    barrier(CLK_LOCAL_MEM_FENCE);\n    out[0] = &tile[1][0] - &tile[0][0];\n"
	"    __local float *t = &tile[0][0];\n    out[1] = (t + 3 == &tile[0][5]) + t[1];\n}\n",
	HEAD "    __global float *z = 0;\n    z = out;\n    z[0] = 1;\n}\n",
	HEAD "    union { float f; uint u; } x;\n    x.f = in[0];\n    out[0] = as_float(x.u ^ 1u)"
	" + as_float(as_uint(in[1]));\n}\n",
	"float dot(__global const float *a, __global const float *b, int n)\n"
	"{ float s = 0; for (int k = 0; k < n; k++) s += a[k] * b[k]; return s; }\n"
	HEAD "    out[0] = dot(in, in + cols, cols) + (rows > 0 ? in[0] : in[1]);\n}\n",
	"__constant float table[4] = { 1, 2, 3, 4 };\n"
	HEAD "    __constant float *t = table + 1;\n    out[0] = t[0] + (t - table);\n}\n",
	/* a kernel clang cannot compile is left to the build's own message */
	HEAD "    out[0] = in[colum];\n}\n",
};

START_TEST(test_honest)
{
	char msg[4096];
	preproc_result r = run(honest[_i], msg, sizeof msg);
	ck_assert_msg(r == PREPROC_OK, "honest kernel %d refused: %s", _i, msg);
}
END_TEST

/* ---- size tests (ptrcheck_size.c): accepted, but found ---- */

#define RHEAD "__kernel void reduce(__global const float *in, __global float *partial,\n" \
              "                     const int n)\n{\n"

static const attack size_tests[] = {
	{ "a literal", RHEAD "    if (n > 100000)\n        partial[0] = in[0];\n}\n", NULL, 4, 9 },
	{ "a macro", "#define BIG (1 << 20)\n" RHEAD "    partial[0] = n < BIG ? in[0] : in[1];\n}\n",
	  NULL, 5, 18 },
	{ "through a local", RHEAD "    const int big = n / 4096;\n    if (big != 0)\n"
	  "        partial[0] = in[0];\n}\n", NULL, 5, 9 },
	{ "a helper", "static int large(int m) { return m >= 65536; }\n"
	  RHEAD "    if (large(n)) partial[0] = in[0];\n}\n", NULL, 1, 34 },
	{ "get_num_groups", RHEAD "    if (get_num_groups(0) > 8)\n        partial[0] = in[0];\n}\n",
	  NULL, 4, 9 },
	{ "a modulo", RHEAD "    if (n % 3 == 1)\n        partial[0] = in[0];\n}\n", NULL, 4, 9 },
	{ "in a loop bound's place", RHEAD "    for (int i = 0; n > 300 && i < 4; i++)\n"
	  "        partial[i] = in[i];\n}\n", NULL, 4, 21 },
	{ "compound-assigned", RHEAD "    int m = n;\n    m += 0;\n    if (m > 100000) partial[0] = 1;\n}\n",
	  NULL, 6, 9 },
	{ "shift-assigned", RHEAD "    int m = n;\n    m <<= 1;\n    if (m >= 8192) partial[0] = 1;\n}\n",
	  NULL, 6, 9 },
	{ "incremented", RHEAD "    int m = n;\n    m++;\n    if (m == 1000) partial[0] = 1;\n}\n",
	  NULL, 6, 9 },
	{ "stepped in a constant loop", RHEAD "    int m = n;\n    do { m -= 1; } while (0);\n"
	  "    if (m > 100000) partial[0] = 1;\n}\n", NULL, 6, 9 },
	{ "re-assigned", RHEAD "    int m = 0;\n    m = n * 2;\n    m = m + 1;\n"
	  "    if (m > 100000) partial[0] = 1;\n}\n", NULL, 7, 9 },
	{ "a size's counter", RHEAD "    for (int m = n; m > 100000; m--) partial[0] = 1;\n}\n",
	  NULL, 4, 21 },
	{ "a truth value", RHEAD "    if (n / 100001) partial[0] = in[0];\n}\n", NULL, 4, 9 },
	{ "a shift in &&", RHEAD "    if ((n >> 17) && in[0] > 0) partial[0] = 1;\n}\n", NULL, 4, 9 },
	{ "a ?: condition", RHEAD "    partial[0] = (n / 100001) ? in[0] : in[1];\n}\n", NULL, 4, 18 },
	{ "a bool", RHEAD "    bool big = n >> 17;\n    if (big) partial[0] = 1;\n}\n", NULL, 4, 16 },
	{ "a switch's case range", RHEAD "    switch (n) {\n    case 100001 ... 0x7fffffff: partial[0] = 1;\n"
	  "    }\n}\n", NULL, 4, 13 },
	{ "a helper's return", "static int big(int m) { return m / 100001; }\n"
	  RHEAD "    if (big(n)) partial[0] = in[0];\n}\n", NULL, 1, 32 },
	/* the third review: a size with what the search cannot tell is a size */
	{ "the comma operator", RHEAD "    if ((0, n) > 100000) partial[0] = 1;\n}\n", NULL, 4, 9 },
	{ "an assignment's value", RHEAD "    int m;\n    if ((m = n) > 100000) partial[0] = 1;\n}\n",
	  NULL, 5, 9 },
	{ "a compound literal", RHEAD "    if ((int){ n } > 100000) partial[0] = 1;\n}\n", NULL, 4, 9 },
	{ "a statement expression", RHEAD "    if (({ n; }) > 100000) partial[0] = 1;\n}\n", NULL, 4, 9 },
	{ "a vector's component", RHEAD "    const int2 v = (int2)(n, 0);\n    if (v.x > 100000) partial[0] = 1;\n}\n",
	  NULL, 5, 9 },
	{ "a struct's member", "struct d { int n; };\n" RHEAD "    struct d s;\n    s.n = n;\n"
	  "    if (s.n > 100000) partial[0] = 1;\n}\n", NULL, 7, 9 },
	{ "a private array's element", RHEAD "    int a[2] = { 0, 0 };\n    a[1] = n;\n"
	  "    if (a[1] > 100000) partial[0] = 1;\n}\n", NULL, 6, 9 },
	{ "a __constant table", "__constant int LIM[1] = { 100000 };\n" RHEAD
	  "    if (n > LIM[0]) partial[0] = 1;\n}\n", NULL, 5, 9 },
	{ "an address-taken limit", RHEAD "    int lim = 100000;\n    int *p = &lim;\n    *p += 0;\n"
	  "    if (n > lim) partial[0] = 1;\n}\n", NULL, 7, 9 },
	{ "the global offset", RHEAD "    if (n > 100000 + (int)get_global_offset(0)) partial[0] = 1;\n}\n",
	  NULL, 4, 9 },
	/* the review of 2026-12-05: expressions the search did not know laundered the size */
	{ "GNU's ?:", RHEAD "    const int m = n ?: 0;\n    if (m > 100000) partial[0] = 1;\n}\n",
	  NULL, 5, 9 },
	{ "_Generic", RHEAD "    const int m = _Generic(get_local_id(0), int: n, default: n);\n"
	  "    if (m > 100000) partial[0] = 1;\n}\n", NULL, 5, 9 },
	{ "__extension__", RHEAD "    const int m = __extension__ n;\n    if (m > 100000) partial[0] = 1;\n}\n",
	  NULL, 5, 9 },
	{ "__builtin_choose_expr", RHEAD "    const int m = __builtin_choose_expr(1, n, 0);\n"
	  "    if (m > 100000) partial[0] = 1;\n}\n", NULL, 5, 9 },
	{ "__real__", RHEAD "    const int m = __real__ n;\n    if (m > 100000) partial[0] = 1;\n}\n",
	  NULL, 5, 9 },
};

/* Two sizes compared with each other: found, and said so (how 1); a truth value: how 2. */
START_TEST(test_size_how)
{
	char msg[4096];
	ck_assert_int_eq(run_at("__kernel void t(__global float *o, const int rows, const int cols)\n"
	                        "{\n    if (rows == cols) o[0] = 1;\n}\n",
	                        "lessons/03-transpose-padding", 32, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.n, 1);
	ck_assert_int_eq(last_sizes.how, 1);
	ck_assert_int_eq(run_at(RHEAD "    while (n >> 20) return;\n}\n", "lessons/05-reduction", 256,
	                        msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.how, 2);
}
END_TEST

START_TEST(test_size_test_found)
{
	const attack *a = &size_tests[_i];
	char msg[4096], where[128];
	preproc_result r = run_at(a->src, "lessons/05-reduction", 256, msg, sizeof msg);
	ck_assert_msg(r == PREPROC_OK, "%s: not accepted (%d): %s", a->name, r, msg);
	ck_assert_msg(last_sizes.n > 0, "%s: no size test found", a->name);
	snprintf(where, sizeof where, "kernels/starter/k.cl:%d:%d", a->line, a->col);
	ck_assert_msg(strcmp(last_sizes.first, where) == 0, "%s: at %s, not %s", a->name,
	              last_sizes.first, where);
}
END_TEST

/* Divisibility by a power of two is kept apart (the criteria weigh it against the lesson's
 * sizes), with its divisor. */
START_TEST(test_size_divisibility)
{
	char msg[4096];
	ck_assert_int_eq(run_at(RHEAD "    if (n % 4 == 0 && (n % 16) != 0 && (n & 7) == 0)\n"
	                        "        partial[0] = in[0];\n}\n",
	                        "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.n, 0);
	ck_assert_uint_eq(last_sizes.div_mask, (1u << 2) | (1u << 3) | (1u << 4));
	ck_assert_str_eq(last_sizes.div_first, "kernels/starter/k.cl:4:9");
	/* read as truth values: the classic ceiling division, a mask, their negations */
	ck_assert_int_eq(run_at(RHEAD "    int ntiles = n / TILE;\n    if (n % TILE)\n        ntiles++;\n"
	                        "    if (!(n % 4) || (n & 7) || !(n & (TILE - 1))) partial[0] = in[0];\n"
	                        "    bool odd = n & 1;\n    partial[1] = (n % 32) ? odd : 0;\n}\n",
	                        "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.n, 0);
	ck_assert_uint_eq(last_sizes.div_mask, (1u << 1) | (1u << 2) | (1u << 3) | (1u << 5) |
	                                       (1u << 8));
	ck_assert_str_eq(last_sizes.div_first, "kernels/starter/k.cl:5:9");
	/* not a power of two: a size test */
	ck_assert_int_eq(run_at(RHEAD "    if (n % 3) partial[0] = in[0];\n}\n",
	                        "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.n, 1);
}
END_TEST

/* A group's id compared with a constant is counted apart; mixed with a size it is not. */
START_TEST(test_group_tests)
{
	char msg[4096];
	ck_assert_int_eq(run_at(RHEAD "    const int late = get_group_id(0) >= 3;\n"
	                        "    if (late) partial[0] = in[0];\n}\n",
	                        "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.n, 0);
	ck_assert_int_eq(last_sizes.ngroup, 1);
	ck_assert_str_eq(last_sizes.group_first, "kernels/starter/k.cl:4:22");
	ck_assert_int_eq(run_at(RHEAD "    const int g0 = get_group_id(0) * TILE;\n"
	                        "    if (get_group_id(0) == 0 || g0 + TILE <= n) partial[0] = in[g0];\n"
	                        "    if (get_group_id(0) == get_num_groups(0) - 1) partial[1] = 0;\n}\n",
	                        "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(last_sizes.ngroup, 0);
	ck_assert_int_eq(last_sizes.n, 0);
	static const char *const found[] = {   /* a global id far off, or an id stepped */
		"    const int q = _Generic(0, int: (int)get_group_id(0));\n    if (q >= 3) partial[0] = 1;\n",
		"    switch (get_group_id(0)) { case 0: case 1: case 2: break; default: partial[0] = 1; }\n",
		/* a variable given several values: the farthest counts */
		"    int v = get_global_id(0);\n    if (v >= 0) partial[1] = 0;\n"
		"    v = get_global_id(0) - 1000;\n    if (v >= 0) partial[0] = 1;\n",
		"    if (get_group_id(0) * get_local_size(0) >= 4096) partial[0] = 1;\n",
		"    if (get_global_id(0) >= 1024) partial[0] = 1;\n",
		"    int q = get_group_id(0);\n    q += 0;\n    if (q >= 4) partial[0] = 1;\n",
		"    const int i = get_group_id(0) * 256 + get_local_id(0);\n    if (i > 5000) partial[0] = 1;\n",
		"    if (get_global_id(0) >> 10) partial[0] = 1;\n",
		"    if (get_global_id(0) / get_local_size(0) >= 4) partial[0] = 1;\n",
		"    const int g = get_global_id(0) / get_enqueued_local_size(0);\n    if (g == 3) partial[0] = 1;\n",
		"    int g = get_global_id(0);\n    g -= 1000;\n    if (g >= 0) partial[0] = 1;\n",
		/* read with signs: a far threshold however spelled */
		"    const int g = get_global_id(0);\n    if (g - 1024 >= 0) partial[0] = 1;\n",
		"    const int g = get_global_id(0);\n    if (1024 - g <= 0) partial[0] = 1;\n",
		"    const int g = get_global_id(0);\n    if (-g < -100) partial[0] = 1;\n",
		"    if (get_global_id(0) + 100 > 1000) partial[0] = 1;\n",
		"    const int g = get_global_id(0) - 20;\n    if (g) partial[0] = 1;\n",
		"    const int g = get_global_id(0);\n    if (g + 3 == 20) partial[0] = 1;\n",
		"    if (get_global_id(0) > 16) partial[0] = 1;\n",
		"    if (get_global_id(0) - 1000 < 5u) partial[0] = 1;\n",
		"    if (get_global_id(0) - 1000 < (size_t)-990) partial[0] = 1;\n",
		"    if ((uchar)(get_global_id(0) + 200) >= 100) partial[0] = 1;\n",
		"    const int g = get_global_id(0), h = get_local_id(0) ? g : g - 1000;\n"
		"    if (h >= 0) partial[0] = 1;\n",
	};
	for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
		char src[1024];
		snprintf(src, sizeof src, RHEAD "%s}\n", found[i]);
		ck_assert_int_eq(run_at(src, "lessons/05-reduction", 256, msg, sizeof msg), PREPROC_OK);
		ck_assert_msg(last_sizes.ngroup > 0, "not found: %s", found[i]);
	}
	ck_assert_int_eq(last_sizes.group_how, 1);
}
END_TEST

static const char *const size_honest[] = {
	RHEAD "    for (int i = get_global_id(0); i < n; i += get_global_size(0))\n"
	"        partial[0] += in[i];\n}\n",
	RHEAD "    if (n < 1) return;\n    if (0 >= n) return;\n    if (get_global_id(0) >= n) return;\n"
	"    partial[0] = in[0];\n}\n",
	RHEAD "    const int g = get_global_size(0);\n    int i = get_global_id(0);\n"
	"    for (; i + 3 * g < n; i += 4 * g) partial[0] += in[i];\n}\n",
	RHEAD "    const int tiles = (n + TILE - 1) / TILE;\n"
	"    for (int t = 0; t < tiles; t++) partial[t] = in[t];\n}\n",
	RHEAD "    for (int s = get_local_size(0) / 2; s > 0; s >>= 1)\n        partial[s] = 0;\n"
	"    if (get_local_size(0) >= 64) partial[0] = 1;\n}\n",
	RHEAD "    int left = n;\n    while (left > 0) { partial[0] += in[left - 1]; left--; }\n}\n",
	"static int below(int i, int m) { return i < m; }\n"
	RHEAD "    if (below(get_global_id(0), n)) partial[0] = in[0];\n}\n",
	"static int some(int m) { return m > 0; }\n"
	RHEAD "    if (some(n)) partial[0] = in[0];\n}\n",
	RHEAD "    for (int i = 0; i < n; i++) partial[i] = in[i];\n"
	"    int k = 0;\n    while (k < n) k += 4;\n    for (int t = 0; t * TILE < n; ++t) partial[t] = 0;\n}\n",
	RHEAD "    int left = n;\n    while (left) left--;\n    if (n) partial[0] = 0;\n}\n",
	RHEAD "    const int y = get_group_id(1) * 16 - 3 + get_local_id(1);\n"
	"    if (y >= 0 && y < n) partial[0] = in[y];\n}\n",
	RHEAD "    const int gid = get_global_id(0);\n    if (gid == 0 || gid < 1) partial[0] = 0;\n"
	"    if (get_global_id(0) % 2 == 0 && get_global_id(0) < 16) partial[1] = 0;\n}\n",
	RHEAD "    for (int d = 128; d > 0; d >>= 1)\n        if (get_local_id(0) < d) partial[d] = 0;\n"
	"    if (get_local_id(0) >= 200 || !get_local_id(0)) partial[0] = 0;\n}\n",
	RHEAD "    for (int r = get_local_id(1); r < TILE + 6; r += TILE)\n"
	"        for (int c = get_local_id(0); c < TILE + 6; c += TILE) {\n"
	"            const int x = get_group_id(0) * TILE - 3 + c;\n"
	"            partial[r] = (x >= 0 && x < n) ? in[x] : 0.0f;\n        }\n}\n",
	/* an image edge's guard past the tile (lesson 6): y >= 0 is y >= -TILE, then 2 - gid */
	RHEAD "    const int ly = get_local_id(1), by = get_group_id(1) * TILE - 3;\n"
	"    if ((by + TILE + 3 + ly) >= 0) partial[0] = 1;\n"
	"    if (by + 3 + ly - 1 >= -1 && 2 - (int)get_global_id(0) < 5) partial[1] = 1;\n"
	"    if (get_global_id(0) + 100 != 50 && (int)get_global_id(0) - 30 < -14) partial[2] = 1;\n}\n",
	RHEAD "    const int ly = get_local_id(1), c = ly < 3 ? ly : ly + TILE;\n"
	"    const int bx = get_group_id(0) * TILE - 3;\n    if (bx + c >= 0) partial[0] = 1;\n}\n",
	/* a halo's variable given two values, each an edge's guard (public code: OLCF's
	 * stencil_2d), and a group's id scaled by the group's width */
	RHEAD "    int gx = get_local_id(0) + get_group_id(0) * get_local_size(0);\n"
	"    int halo = gx - 3;\n    if (halo >= 0) partial[0] = in[halo];\n"
	"    halo = gx + TILE;\n    if (halo < n) partial[1] = in[halo];\n}\n",
	/* loads, members and parts of what ids or data make, against sizes */
	RHEAD "    if (in[0] < n && *in > 0.5f) partial[0] = 1;\n"
	"    const float4 v = vload4(get_global_id(0), in);\n    if (v.x < n) partial[1] = v.y;\n"
	"    int a[2] = { get_global_id(0), 0 };\n    if (a[0] < n) partial[2] = 1;\n}\n",
	RHEAD "    __local float s[64];\n    s[get_local_id(0)] = in[get_global_id(0)];\n"
	"    if (s[0] > n || (int)get_global_id(0) < (int)get_local_size(0)) partial[0] = 1;\n"
	"    if (get_global_id(0) / get_local_size(0) == 1) partial[1] = 1;\n}\n",
};

START_TEST(test_size_honest)
{
	char msg[4096];
	preproc_result r = run_at(size_honest[_i], "lessons/05-reduction", 256, msg, sizeof msg);
	ck_assert_msg(r == PREPROC_OK, "kernel %d refused: %s", _i, msg);
	ck_assert_msg(last_sizes.n == 0, "kernel %d: a size test at %s", _i, last_sizes.first);
	ck_assert_msg(last_sizes.ngroup == 0, "kernel %d: an id's test at %s", _i,
	              last_sizes.group_first);
}
END_TEST

/* Every kernel of the suite at every TILE its lesson builds it at: solutions and starters
 * accepted; fixtures never refused for pointers, except the ptr_* ones, which must be. */
static void check_folder(const char *folder, int must_pass)
{
	DIR *d = opendir(folder);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	int seen = 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 3, ".cl") != 0)
			continue;
		char path[4096], dir[4096];
		snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
		FILE *f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		static char src[1 << 20];
		size_t len = fread(src, 1, sizeof src - 1, f);
		src[len] = '\0';
		fclose(f);
		/* the lesson: the file's number (01-...), or lN_ for fixtures; others lesson 1 */
		const char *key = "1";
		char num[4] = "";
		if (e->d_name[0] == 'l' && e->d_name[1] >= '1' && e->d_name[1] <= '9' && e->d_name[2] == '_')
			snprintf(num, sizeof num, "%c", e->d_name[1]), key = num;
		else if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			snprintf(num, sizeof num, "%.2s", e->d_name), key = num;
		const lesson *l = lesson_find(key);
		ck_assert_ptr_nonnull(l);
		lesson_path(l, "dir", dir, sizeof dir);
		int tiles[LESSON_MAX_TILES + 1] = { l->tile }, nt = 1;
		for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
			if (l->tiles[i] != l->tile)
				tiles[nt++] = l->tiles[i];
		int attack = strncmp(e->d_name, "ptr_", 4) == 0, refused_for_pointers = 0;
		for (int t = 0; t < nt; t++) {
			char msg[8192];
			preproc_result r = run_at(src, dir, tiles[t], msg, sizeof msg);
			ck_assert_msg(r != PREPROC_ERROR, "%s at TILE %d: grader error: %s", path, tiles[t], msg);
			int ptr = r == PREPROC_REFUSED && strstr(msg, "inspect addresses") != NULL;
			refused_for_pointers |= ptr;
			if (must_pass)
				ck_assert_msg(r == PREPROC_OK, "%s at TILE %d refused: %s", path, tiles[t], msg);
			if (must_pass)   /* the lessons' own kernels test their size nowhere */
				ck_assert_msg(last_sizes.n == 0 && last_sizes.ngroup == 0,
				              "%s at TILE %d: a size test at %s%s", path, tiles[t],
				              last_sizes.first, last_sizes.group_first);
			else if (!attack)
				ck_assert_msg(!ptr, "%s at TILE %d refused for pointers: %s", path, tiles[t], msg);
		}
		if (attack)
			ck_assert_msg(refused_for_pointers, "%s: the attack was not refused", path);
		seen++;
	}
	closedir(d);
	ck_assert_int_gt(seen, 4);
}

START_TEST(test_solutions) { check_folder("kernels/solutions", 1); }
END_TEST
START_TEST(test_starters) { check_folder("kernels/starter", 1); }
END_TEST
START_TEST(test_fixtures) { check_folder("tests/fixtures", 0); }
END_TEST

/* Only the TILE where the attack is compiled is refused; lesson 4 builds at every TILE. */
START_TEST(test_refused_at_sweep_tile_only)
{
	const char *src = "__kernel void matmul_tiled(__global const float *A, __global const float *B,\n"
	                  "    __global float *C, const int N)\n{\n"
	                  "#if TILE == 8\n    if ((ulong)A >> 47) return;\n#endif\n    C[0] = A[0];\n}\n";
	char msg[4096];
	ck_assert_int_eq(run_at(src, "lessons/04-tile-budget", 16, msg, sizeof msg), PREPROC_OK);
	ck_assert_int_eq(run_at(src, "lessons/04-tile-budget", 8, msg, sizeof msg), PREPROC_REFUSED);
	ck_assert_ptr_nonnull(strstr(msg, "kernels/starter/k.cl:5:9: error: a pointer's value"));
}
END_TEST

/* A syntax tree too deep for cJSON is a refusal that says so, not a pass. */
START_TEST(test_too_deep)
{
	size_t n = 700;   /* 1+1+...: 700 nested BinaryOperators, no bracket-depth limit */
	char *src = malloc(strlen(HEAD) + 4 * n + 64);
	char *p = src + sprintf(src, "%s    out[0] = 1", HEAD);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "+1");
	strcpy(p, ";\n}\n");
	char msg[4096];
	preproc_result r = run(src, msg, sizeof msg);
	free(src);
	ck_assert_int_eq(r, PREPROC_REFUSED);
	ck_assert_ptr_nonnull(strstr(msg, "kernels/starter/k.cl: error: the kernel's syntax tree is "
	                             "nested too deeply"));
}
END_TEST

/* Several findings: each on its own line, in source order. */
START_TEST(test_several_findings_in_order)
{
	char msg[4096];
	ck_assert_int_eq(run(HEAD "    out[1] = in == out;\n    out[0] = (ulong)in;\n}\n", msg,
	                     sizeof msg), PREPROC_REFUSED);
	const char *a = strstr(msg, "k.cl:4:14: error:"), *b = strstr(msg, "k.cl:5:14: error:");
	ck_assert_msg(a && b && a < b, "%s", msg);
}
END_TEST

static Suite *ptrcheck_suite(void)
{
	Suite *s = suite_create("ptrcheck");
	TCase *t = tcase_create("refused");
	tcase_set_timeout(t, 120);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_loop_test(t, test_refused, 0, sizeof attacks / sizeof attacks[0]);
	tcase_add_test(t, test_refused_at_sweep_tile_only);
	tcase_add_test(t, test_too_deep);
	tcase_add_test(t, test_several_findings_in_order);
	suite_add_tcase(s, t);

	t = tcase_create("allowed");
	tcase_set_timeout(t, 300);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_loop_test(t, test_honest, 0, sizeof honest / sizeof honest[0]);
	tcase_add_loop_test(t, test_size_test_found, 0, sizeof size_tests / sizeof size_tests[0]);
	tcase_add_loop_test(t, test_size_honest, 0, sizeof size_honest / sizeof size_honest[0]);
	tcase_add_test(t, test_size_divisibility);
	tcase_add_test(t, test_size_how);
	tcase_add_test(t, test_group_tests);
	tcase_add_test(t, test_solutions);
	tcase_add_test(t, test_starters);
	tcase_add_test(t, test_fixtures);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ptrcheck_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
