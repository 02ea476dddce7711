/* test_localmem.c — Check unit tests for the __local bytes a kernel declares (grader/localmem.c)
 * and the choice among the grader's sources.
 *
 * Runtimes disagree (Debian 12's PoCL 3.1 counts declared __local arrays, Ubuntu 24.04's PoCL
 * 5.0 answers 0), so the grader reads the declarations itself.  Each case is a spelling a
 * student's kernel may use; the expected bytes are worked out by hand in the comment.  What
 * the reader cannot size must come back unknown (-1), never as a guess. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localmem.h"

static long decl(const char *src, int tile)
{
	char why[200];
	return lmem_declared(src, "k", tile, why, sizeof why);
}

/* A kernel around body that names every array the cases declare (an array the kernel never
 * names again is dropped by compilers, and not counted: test_unused). */
#define KERNEL(body) "__kernel void k(__global float *c, const int N)\n{\n" body \
	"\n    use(t, u, a, b, As, Bs, big, big2, big3, big4);\n}\n"

START_TEST(test_two_tiles)
{
	/* 2 * 16 * 16 * 4 = 2048; at TILE=32: 8192 */
	const char *s = KERNEL("    __local float As[TILE][TILE];\n    __local float Bs[TILE][TILE];");
	ck_assert_int_eq(decl(s, 16), 2048);
	ck_assert_int_eq(decl(s, 32), 8192);
	ck_assert_int_eq(decl(s, 8), 512);
}
END_TEST

START_TEST(test_padded_and_flat)
{
	ck_assert_int_eq(decl(KERNEL("local float t[TILE][TILE + 1];"), 32), 32 * 33 * 4);
	ck_assert_int_eq(decl(KERNEL("__local float t[TILE * TILE];"), 32), 4096);
	ck_assert_int_eq(decl(KERNEL("__local float t[(TILE+1)*TILE/2];"), 16), 136 * 4);
	ck_assert_int_eq(decl(KERNEL("__local float t[16384 - 2 * TILE * TILE];"), 16), 15872 * 4);
}
END_TEST

START_TEST(test_types)
{
	/* vectors: float4 16 B, a 3-vector takes a 4-vector's room; unsigned char 1 B */
	ck_assert_int_eq(decl(KERNEL("__local float4 t[TILE];"), 16), 256);
	ck_assert_int_eq(decl(KERNEL("__local float3 t[4];"), 16), 64);
	ck_assert_int_eq(decl(KERNEL("__local double t[2][3];"), 16), 48);
	ck_assert_int_eq(decl(KERNEL("__local unsigned char t[10];"), 16), 10);
	ck_assert_int_eq(decl(KERNEL("__local uint2 t[8];"), 16), 64);
	ck_assert_int_eq(decl(KERNEL("__local half t[8];"), 16), 16);
	ck_assert_int_eq(decl(KERNEL("__local int t;"), 16), 4);
	ck_assert_int_eq(decl(KERNEL("volatile __local int t[3];"), 16), 12);
	ck_assert_int_eq(decl(KERNEL("float __local t[TILE];"), 16), 64);
}
END_TEST

START_TEST(test_several_declarators)
{
	/* 16*16*4 + 16*17*4 = 1024 + 1088 */
	ck_assert_int_eq(decl(KERNEL("__local float a[TILE][TILE], b[TILE][TILE + 1];"), 16), 2112);
	/* a pointer to __local has no storage of its own */
	ck_assert_int_eq(decl(KERNEL("__local float a[TILE];\n__local float *p = a, b[2];"), 16), 72);
	ck_assert_int_eq(decl(KERNEL("__local float *p;"), 16), 0);
}
END_TEST

START_TEST(test_macros)
{
	const char *s = "#define W (TILE + PAD)\n#define PAD 1\n#define ROWS 2*TILE\n"
	                KERNEL("__local float t[ROWS][W];");
	ck_assert_int_eq(decl(s, 16), 32 * 17 * 4);
	/* -DTILE wins over the file's fallback */
	ck_assert_int_eq(decl("#ifndef TILE\n#define TILE 8\n#endif\n" KERNEL("__local float t[TILE];"), 16), 64);
	/* #undef and a second #define */
	ck_assert_int_eq(decl("#define B 4\n#undef B\n#define B 5\n" KERNEL("__local int t[B];"), 16), 20);
	/* sizeof in a dimension */
	ck_assert_int_eq(decl("#define BYTES 64\n" KERNEL("__local char t[BYTES / sizeof(float)];"), 16), 16);
	/* unsigned literals, hex */
	ck_assert_int_eq(decl(KERNEL("__local float t[0x10u];"), 16), 64);
}
END_TEST

START_TEST(test_comments_and_conditionals)
{
	/* commented-out and #if 0 declarations do not count */
	const char *s = KERNEL("// __local float big[4096];\n/* __local float big2[4096]; */\n"
	                       "#if 0\n__local float big3[4096];\n#else\n__local float t[TILE];\n#endif\n"
	                       "#if TILE > 16\n__local float big4[1];\n#elif TILE == 16\n__local float u[2];\n#endif");
	ck_assert_int_eq(decl(s, 16), 64 + 8);
	ck_assert_int_eq(decl(s, 32), 128 + 4);
	/* an undefined identifier in #if is 0, as in C */
	ck_assert_int_eq(decl("#if USE_BIG\n#define N2 4096\n#else\n#define N2 4\n#endif\n"
	                      KERNEL("__local float t[N2];"), 16), 16);
	ck_assert_int_eq(decl("#ifdef TILE\n#define N2 4\n#endif\n" KERNEL("__local float t[N2];"), 16), 16);
	/* a backslash-newline inside a #define */
	ck_assert_int_eq(decl("#define N2 (TILE \\\n + 1)\n" KERNEL("__local float t[N2];"), 16), 68);
}
END_TEST

START_TEST(test_only_the_kernel)
{
	/* another kernel's arrays, a cast to __local and a prototype are not this kernel's */
	const char *s = "__kernel void other(__global float *c) { __local float x[1000]; c[0] = x[0]; }\n"
	                "__kernel void k(__global float *c, const int N);\n"
	                "float helper(__local float *p) { return p[0]; }\n"
	                "__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void k(__global float *c, const int N)\n"
	                "{\n    __local float t[TILE];\n    float v = helper((__local float *)t);\n"
	                "    { __local float inner[4]; c[1] = inner[1]; }\n}\n";
	ck_assert_int_eq(decl(s, 16), 64 + 16);
	ck_assert_int_eq(lmem_declared(s, "other", 16, NULL, 0), 4000);
	ck_assert_int_eq(lmem_declared(KERNEL("int x;"), "k", 16, NULL, 0), 0);
}
END_TEST

START_TEST(test_unused)
{
	/* never read (only declared, or only stored to): PoCL 3.1 reports 0 bytes for such an
	 * array, and so does the reader; x[i] += and passing the array on are reads */
	const char *s = "__kernel void k(__global float *c)\n{\n    __local float gone[TILE][TILE];\n"
	                "    __local float stored[TILE];\n    stored[get_local_id(0)] = 1.0f;\n"
	                "    __local float acc[TILE];\n    acc[0] += 1.0f;\n"
	                "    __local float passed[2];\n    f(passed);\n"
	                "    __local float cmp[3];\n    c[0] = cmp[0] == 1.0f;\n}\n";
	ck_assert_int_eq(decl(s, 16), 64 + 8 + 12);
}
END_TEST

START_TEST(test_unknown_is_not_a_guess)
{
	char why[200];
	/* a struct type, a function-like macro, a runtime dimension, a missing kernel */
	ck_assert_int_eq(lmem_declared("typedef struct { float a, b; } pair;\n" KERNEL("__local pair t[4];"),
	                               "k", 16, why, sizeof why), -1);
	ck_assert_ptr_ne(strstr(why, "pair"), NULL);
	ck_assert_int_eq(decl("#define SQ(x) ((x)*(x))\n" KERNEL("__local float t[SQ(TILE)];"), 16), -1);
	ck_assert_int_eq(decl(KERNEL("__local float t[N];"), 16), -1);
	ck_assert_int_eq(lmem_declared(KERNEL("__local float t[4];"), "nope", 16, why, sizeof why), -1);
	ck_assert_ptr_ne(strstr(why, "nope"), NULL);
	/* a declaration under an #if it cannot evaluate */
	ck_assert_int_eq(decl(KERNEL("#if __OPENCL_VERSION__ >= FOO(2)\n__local float t[4];\n#endif"), 16), -1);
	/* nonsense and overflow */
	ck_assert_int_eq(decl(KERNEL("__local float t[0];"), 16), -1);
	ck_assert_int_eq(decl(KERNEL("__local float t[1/0];"), 16), -1);
	ck_assert_int_eq(decl(KERNEL("__local float t[0x7fffffffffffffff][4];"), 16), -1);
	ck_assert_int_eq(decl(KERNEL("__local float t[2.5];"), 16), -1);
	/* what the kernel never reads costs nothing, sized or not */
	ck_assert_int_eq(lmem_declared("__kernel void k() { __local pair p[4]; __local float q[SQ(2)]; }",
	                               "k", 16, why, sizeof why), 0);
}
END_TEST

START_TEST(test_hostile_text)
{
	/* self-referencing macros, deep parentheses, an unterminated kernel: bounded, no crash */
	ck_assert_int_eq(decl("#define A B\n#define B A\n" KERNEL("__local float t[A];"), 16), -1);
	char *deep = malloc(200000);
	strcpy(deep, "__kernel void k() { __local float t[");
	size_t at = strlen(deep);
	memset(deep + at, '(', 50000);
	strcpy(deep + at + 50000, "1]; c[0] = t[0]; }");
	ck_assert_int_eq(decl(deep, 16), -1);
	free(deep);
	ck_assert_int_le(decl("__kernel void k() { __local float t[TILE", 16), 0);
	ck_assert_int_eq(decl("", 16), -1);
	ck_assert_int_eq(decl("\"unterminated __local float x[2];", 16), -1);
}
END_TEST

START_TEST(test_pick)
{
	lmem_source s;
	/* Debian's PoCL 3.1: runtime and declarations agree; the runtime is named */
	ck_assert_int_eq(lmem_pick(2048, 2048, -1, &s), 2048);
	ck_assert_int_eq(s, LMEM_RUNTIME);
	/* Ubuntu 24.04's PoCL 5.0 answers 0 */
	ck_assert_int_eq(lmem_pick(0, 2048, -1, &s), 2048);
	ck_assert_int_eq(s, LMEM_DECLARED);
	/* NVIDIA: 1 byte for a kernel without __local */
	ck_assert_int_eq(lmem_pick(1, 0, -1, &s), 1);
	ck_assert_int_eq(s, LMEM_RUNTIME);
	/* declarations unknown: the analysis, else the runtime */
	ck_assert_int_eq(lmem_pick(0, -1, 4096, &s), 4096);
	ck_assert_int_eq(s, LMEM_ANALYSIS);
	ck_assert_int_eq(lmem_pick(0, -1, -1, &s), 0);
	ck_assert_int_eq(s, LMEM_RUNTIME);
	ck_assert_str_eq(lmem_source_name(LMEM_DECLARED), "declarations");
	ck_assert_str_eq(lmem_source_name(LMEM_ANALYSIS), "oclgrind");
}
END_TEST

/* The shipped kernels and fixtures (tests run from the repository root). */
static long decl_file(const char *path, const char *kernel, int tile)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char *buf = calloc(1, 1 << 18);
	size_t n = fread(buf, 1, (1 << 18) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char why[200];
	long v = lmem_declared(buf, kernel, tile, why, sizeof why);
	free(buf);
	return v;
}

START_TEST(test_shipped_kernels)
{
	ck_assert_int_eq(decl_file("kernels/solutions/01-naive-matmul.cl", "matmul_naive", 16), 0);
	ck_assert_int_eq(decl_file("kernels/solutions/02-tiled-matmul.cl", "matmul_tiled", 16), 2048);
	ck_assert_int_eq(decl_file("kernels/solutions/03-transpose-padding.cl", "transpose", 32), 4224);
	ck_assert_int_eq(decl_file("kernels/solutions/04-tile-budget.cl", "matmul_tiled", 8), 512);
	ck_assert_int_eq(decl_file("kernels/solutions/04-tile-budget.cl", "matmul_tiled", 32), 8192);
	ck_assert_int_eq(decl_file("kernels/starter/02-tiled-matmul.cl", "matmul_tiled", 16), 0);
	ck_assert_int_eq(decl_file("kernels/starter/03-transpose-padding.cl", "transpose", 32), 0);
	ck_assert_int_eq(decl_file("tests/fixtures/l2_local_64k.cl", "matmul_tiled", 16), 65536);
	ck_assert_int_eq(decl_file("tests/fixtures/l2_token_local.cl", "matmul_tiled", 16), 1024);
	ck_assert_int_eq(decl_file("tests/fixtures/l3_swizzle.cl", "transpose", 32), 4096);
}
END_TEST

static Suite *localmem_suite(void)
{
	Suite *s = suite_create("localmem");
	TCase *t = tcase_create("declared");
	tcase_add_test(t, test_two_tiles);
	tcase_add_test(t, test_padded_and_flat);
	tcase_add_test(t, test_types);
	tcase_add_test(t, test_several_declarators);
	tcase_add_test(t, test_macros);
	tcase_add_test(t, test_comments_and_conditionals);
	tcase_add_test(t, test_only_the_kernel);
	tcase_add_test(t, test_unused);
	tcase_add_test(t, test_unknown_is_not_a_guess);
	tcase_add_test(t, test_hostile_text);
	tcase_add_test(t, test_pick);
	tcase_add_test(t, test_shipped_kernels);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(localmem_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
