/* test_ref.c — Check unit tests for the CPU reference and the comparison (grader/ref.c).
 *
 * Every expectation is exact: the reference is recomputed here in the same order (so it must
 * match bit for bit), the error bound is probed one float ulp inside and one ulp outside, and
 * each mismatch pattern of diagnose() is produced on purpose and its message checked. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

#define U 5.9604644775390625e-08 /* 2^-24 */

/* ---- helpers ---- */

static float bits_float(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static uint32_t float_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

/* A correct output: the reference rounded to float. */
static float *correct_output(const ref_problem *p)
{
	float *g = malloc(p->out_len * sizeof *g);
	ck_assert_ptr_nonnull(g);
	for (size_t i = 0; i < p->out_len; i++)
		g[i] = (float)p->expect[i];
	return g;
}

static void setup_matmul(ref_problem *p, int n, uint64_t seed)
{
	ck_assert_int_eq(ref_setup(p, &kind_matmul, n, n, 16, seed), 0);
}

static void setup_transpose(ref_problem *p, int rows, int cols, uint64_t seed)
{
	ck_assert_int_eq(ref_setup(p, &kind_transpose, rows, cols, 32, seed), 0);
}

/* ---- generator ---- */

START_TEST(test_rand_splitmix64)
{
	uint64_t s = 0;
	/* splitmix64's published outputs for state 0 */
	ck_assert_uint_eq(ref_rand(&s), 0xe220a8397b1dcdafull);
	ck_assert_uint_eq(ref_rand(&s), 0x6e789e6aa1b965f4ull);
	ck_assert_uint_eq(ref_rand(&s), 0x06c45d188009454full);
	ck_assert_uint_eq(s, 3 * 0x9e3779b97f4a7c15ull);
}
END_TEST

START_TEST(test_randf_range)
{
	uint64_t s = 0;
	float first = ref_randf(&s);
	ck_assert(first == (float)((double)(0xe220a8397b1dcdafull >> 40) / 8388608.0 - 1.0));
	s = 12345;
	float lo = 1, hi = -1;
	for (int i = 0; i < 20000; i++) {
		float f = ref_randf(&s);
		ck_assert(f >= -1.0f && f < 1.0f);
		ck_assert(ldexpf(f + 1.0f, 23) == floorf(ldexpf(f + 1.0f, 23))); /* multiple of 2^-23 */
		lo = f < lo ? f : lo;
		hi = f > hi ? f : hi;
	}
	ck_assert(lo < -0.99f);
	ck_assert(hi > 0.99f);
}
END_TEST

START_TEST(test_inputs_deterministic_per_seed)
{
	ref_problem a, b, c;
	setup_matmul(&a, 24, 42);
	setup_matmul(&b, 24, 42);
	setup_matmul(&c, 24, 43);
	size_t n = 24 * 24;
	for (int k = 0; k < 2; k++) {
		ck_assert_uint_eq(a.in_len[k], n);
		ck_assert_int_eq(memcmp(a.in[k], b.in[k], n * sizeof(float)), 0);
		size_t differ = 0;
		for (size_t i = 0; i < n; i++)
			differ += a.in[k][i] != c.in[k][i];
		ck_assert_uint_gt(differ, n * 9 / 10);
	}
	ck_assert_int_eq(memcmp(a.expect, b.expect, n * sizeof(double)), 0);
	/* A and B come from one stream: B is not a copy of A */
	ck_assert_int_ne(memcmp(a.in[0], a.in[1], n * sizeof(float)), 0);
	ref_free(&a);
	ref_free(&b);
	ref_free(&c);

	ref_problem t1, t2, t3;
	setup_transpose(&t1, 7, 9, 5);
	setup_transpose(&t2, 7, 9, 5);
	setup_transpose(&t3, 7, 9, 6);
	ck_assert_int_eq(memcmp(t1.in[0], t2.in[0], 63 * sizeof(float)), 0);
	ck_assert_int_ne(memcmp(t1.in[0], t3.in[0], 63 * sizeof(float)), 0);
	ref_free(&t1);
	ref_free(&t2);
	ref_free(&t3);
}
END_TEST

/* ---- the references ---- */

START_TEST(test_matmul_reference_in_double)
{
	ref_problem p;
	int n = 33;
	setup_matmul(&p, n, 7);
	ck_assert_ptr_eq(p.kind, &kind_matmul);
	ck_assert_int_eq(p.rows, n);
	ck_assert_int_eq(p.cols, n);
	ck_assert_int_eq(p.n_in, 2);
	ck_assert_str_eq(p.in_name[0], "A");
	ck_assert_str_eq(p.in_name[1], "B");
	ck_assert_str_eq(p.out_name, "C");
	ck_assert_int_eq(p.out_rows, n);
	ck_assert_int_eq(p.out_cols, n);
	ck_assert_uint_eq(p.out_len, (size_t)n * n);
	ck_assert(p.flops == 2.0 * n * n * n);
	ck_assert(p.bytes == 3.0 * n * n * 4);
	/* The same dot products summed over k ascending in double: each product of two floats is
	 * exact in double, so the reference must agree bit for bit. */
	const float *a = p.in[0], *b = p.in[1];
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double e = 0, s = 0;
			for (int k = 0; k < n; k++) {
				e += (double)a[i * n + k] * b[k * n + j];
				s += fabs((double)a[i * n + k]) * fabs((double)b[k * n + j]);
			}
			ck_assert_msg(p.expect[i * n + j] == e, "C[%d][%d] = %.17g, want %.17g", i, j,
			              p.expect[i * n + j], e);
			ck_assert(p.scale[i * n + j] == s);
		}
	ref_free(&p);
}
END_TEST

START_TEST(test_matmul_1x1)
{
	ref_problem p;
	setup_matmul(&p, 1, 3);
	ck_assert(p.expect[0] == (double)p.in[0][0] * p.in[1][0]);
	ck_assert(p.scale[0] == fabs((double)p.in[0][0] * p.in[1][0]));
	float g = (float)p.expect[0];
	ref_result r;
	ref_compare(&p, &g, 16, &r);
	ck_assert_int_eq(r.passed, 1);
	ref_free(&p);
}
END_TEST

START_TEST(test_transpose_reference)
{
	ref_problem p;
	setup_transpose(&p, 3, 5, 11);
	ck_assert_int_eq(p.n_in, 1);
	ck_assert_str_eq(p.in_name[0], "in");
	ck_assert_str_eq(p.out_name, "out");
	ck_assert_int_eq(p.rows, 3);
	ck_assert_int_eq(p.cols, 5);
	ck_assert_int_eq(p.out_rows, 5);
	ck_assert_int_eq(p.out_cols, 3);
	ck_assert_uint_eq(p.out_len, 15);
	ck_assert_uint_eq(p.in_len[0], 15);
	ck_assert(p.flops == 0.0);
	ck_assert(p.bytes == 2.0 * 15 * 4);
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 5; c++) {
			ck_assert(p.expect[c * 3 + r] == p.in[0][r * 5 + c]);
			ck_assert(p.scale[c * 3 + r] == fabs(p.in[0][r * 5 + c]));
		}
	for (size_t i = 0; i < p.out_len; i++)
		ck_assert(ref_bound(&p, i) == 0.0);
	ref_free(&p);
}
END_TEST

/* ---- the comparison ---- */

START_TEST(test_correct_output_passes)
{
	ref_problem p;
	setup_matmul(&p, 40, 1);
	float *g = correct_output(&p);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 1);
	ck_assert_uint_eq(r.bad, 0);
	ck_assert_uint_eq(r.unwritten, 0);
	ck_assert_uint_eq(r.nonfinite, 0);
	ck_assert_int_eq(r.first_row, -1);
	ck_assert_int_eq(r.first_col, -1);
	ck_assert_str_eq(r.pattern, "");
	ck_assert(r.max_rel_error <= U);  /* rounding to float: |e - (float)e| <= u |e| <= u scale */
	free(g);
	ref_free(&p);

	setup_transpose(&p, 33, 65, 1);
	g = correct_output(&p);
	ref_compare(&p, g, 32, &r);
	ck_assert_int_eq(r.passed, 1);
	ck_assert(r.max_rel_error == 0.0);
	free(g);
	ref_free(&p);
}
END_TEST

/* The largest float above expect[i] still within the bound, and the next one (outside). */
static void probe_bound(const ref_problem *p, size_t i, float *inside, float *outside)
{
	double e = p->expect[i], bound = ref_bound(p, i);
	float g = (float)e;
	ck_assert(fabs((double)g - e) <= bound);
	while (fabs((double)nextafterf(g, INFINITY) - e) <= bound)
		g = nextafterf(g, INFINITY);
	*inside = g;
	*outside = nextafterf(g, INFINITY);
	ck_assert(fabs((double)*inside - e) <= bound);
	ck_assert(fabs((double)*outside - e) > bound);
}

static void check_bound_edges(int n, size_t i)
{
	ref_problem p;
	setup_matmul(&p, n, 99);
	ck_assert(p.scale[i] > 0);
	/* the documented formula: 2 (K+1) u sum |a||b|, K = N */
	double want = 2.0 * (n + 1) * U * p.scale[i];
	ck_assert(fabs(ref_bound(&p, i) - want) <= 1e-12 * want);

	float inside, outside;
	probe_bound(&p, i, &inside, &outside);
	float *g = correct_output(&p);
	ref_result r;

	g[i] = inside;
	ref_compare(&p, g, 16, &r);
	ck_assert_msg(r.passed, "N=%d: an error just inside the bound must pass", n);
	ck_assert(r.max_rel_error == fabs((double)inside - p.expect[i]) / p.scale[i]);

	g[i] = outside;
	ref_compare(&p, g, 16, &r);
	ck_assert_msg(!r.passed, "N=%d: an error just outside the bound must fail", n);
	ck_assert_uint_eq(r.bad, 1);
	ck_assert_int_eq(r.first_row, (int)(i / n));
	ck_assert_int_eq(r.first_col, (int)(i % n));
	ck_assert(r.got == (double)outside);
	ck_assert(r.expected == p.expect[i]);

	/* the same holds below the reference */
	float lo = (float)p.expect[i];
	while (fabs((double)nextafterf(lo, -INFINITY) - p.expect[i]) <= ref_bound(&p, i))
		lo = nextafterf(lo, -INFINITY);
	g[i] = lo;
	ref_compare(&p, g, 16, &r);
	ck_assert(r.passed);
	g[i] = nextafterf(lo, -INFINITY);
	ref_compare(&p, g, 16, &r);
	ck_assert(!r.passed);
	free(g);
	ref_free(&p);
}

START_TEST(test_bound_edges_small_n)
{
	check_bound_edges(4, 5);
}
END_TEST

START_TEST(test_bound_edges_large_n)
{
	check_bound_edges(64, 64 * 10 + 3);
}
END_TEST

/* An error of 40 u * scale is outside the bound at K = 4 (10 u) and inside at K = 64 (130 u). */
static int passes_with_relative_error(int n, size_t i, double rel)
{
	ref_problem p;
	setup_matmul(&p, n, 99);
	float *g = correct_output(&p);
	g[i] = (float)(p.expect[i] + rel * U * p.scale[i]);
	double err = fabs((double)g[i] - p.expect[i]) / (U * p.scale[i]);
	ck_assert_msg(err > rel - 2 && err < rel + 2, "rounding moved the error to %g u", err);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	free(g);
	ref_free(&p);
	return r.passed;
}

START_TEST(test_bound_grows_with_k)
{
	ref_problem a, b;
	setup_matmul(&a, 4, 99);
	setup_matmul(&b, 64, 99);
	double ra = ref_bound(&a, 0) / a.scale[0], rb = ref_bound(&b, 0) / b.scale[0];
	ck_assert(fabs(rb / ra - 65.0 / 5.0) < 1e-9);
	ref_free(&a);
	ref_free(&b);
	ck_assert_int_eq(passes_with_relative_error(4, 5, 40), 0);
	ck_assert_int_eq(passes_with_relative_error(64, 64 * 10 + 3, 40), 1);
	ck_assert_int_eq(passes_with_relative_error(64, 64 * 10 + 3, 140), 0);
}
END_TEST

START_TEST(test_transpose_exact)
{
	ref_problem p;
	setup_transpose(&p, 8, 12, 2);
	float *g = correct_output(&p);
	size_t i = 5 * 8 + 3;  /* out is 12 x 8: row 5, column 3 */
	g[i] = nextafterf(g[i], INFINITY);
	ref_result r;
	ref_compare(&p, g, 4, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.bad, 1);
	ck_assert_int_eq(r.first_row, 5);
	ck_assert_int_eq(r.first_col, 3);
	ck_assert(r.max_rel_error > 0);
	char want[320];
	snprintf(want, sizeof want, "1 of 96 elements are wrong, first at row 5, column 3: got %.7g, "
	         "expected %.7g", (double)g[i], p.expect[i]);
	ck_assert_str_eq(r.pattern, want);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_nan_inf_never_pass)
{
	const float bad[] = { NAN, -NAN, INFINITY, -INFINITY, bits_float(0x7f800001u) };
	for (int kind = 0; kind < 2; kind++) {
		ref_problem p;
		if (kind == 0)
			setup_matmul(&p, 16, 4);
		else
			setup_transpose(&p, 16, 16, 4);
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			float *g = correct_output(&p);
			g[37] = bad[k];
			ref_result r;
			ref_compare(&p, g, 16, &r);
			ck_assert_msg(!r.passed, "kind %d, value %d passed", kind, (int)k);
			ck_assert_uint_eq(r.bad, 1);
			ck_assert_uint_eq(r.nonfinite, 1);
			ck_assert_uint_eq(r.unwritten, 0);
			ck_assert_int_eq(r.first_row, 2);
			ck_assert_int_eq(r.first_col, 5);
			ck_assert(r.max_rel_error <= U);  /* non-finite elements are not in the max */
			free(g);
		}
		ref_free(&p);
	}
}
END_TEST

START_TEST(test_unwritten_counted_separately)
{
	ref_problem p;
	setup_matmul(&p, 16, 4);
	float *g = correct_output(&p);
	g[3] = bits_float(REF_UNWRITTEN_BITS);
	g[200] = NAN;
	ck_assert_uint_ne(float_bits(NAN), REF_UNWRITTEN_BITS);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.unwritten, 1);
	ck_assert_uint_eq(r.nonfinite, 1);
	ck_assert_uint_eq(r.bad, 2);
	ck_assert_int_eq(r.first_row, 0);
	ck_assert_int_eq(r.first_col, 3);
	free(g);
	ref_free(&p);
}
END_TEST

/* ---- the patterns of diagnose() ---- */

START_TEST(test_pattern_nothing_written)
{
	ref_problem p;
	setup_matmul(&p, 17, 8);
	float *g = correct_output(&p);
	for (size_t i = 0; i < p.out_len; i++)
		g[i] = bits_float(REF_UNWRITTEN_BITS);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.unwritten, p.out_len);
	ck_assert_uint_eq(r.bad, p.out_len);
	ck_assert_uint_eq(r.nonfinite, 0);
	ck_assert_int_eq(r.first_row, 0);
	ck_assert_int_eq(r.first_col, 0);
	ck_assert_str_eq(r.pattern, "no element of C was written (all still hold the grader's NaN "
	                 "fill): does the kernel store its result, and is the store's guard right?");
	free(g);
	ref_free(&p);

	setup_transpose(&p, 5, 7, 8);
	g = correct_output(&p);
	for (size_t i = 0; i < p.out_len; i++)
		g[i] = bits_float(REF_UNWRITTEN_BITS);
	ref_compare(&p, g, 32, &r);
	ck_assert_msg(strncmp(r.pattern, "no element of out was written (", 31) == 0, "pattern: %s",
	              r.pattern);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_all_zero)
{
	ref_problem p;
	setup_matmul(&p, 16, 8);
	float *g = calloc(p.out_len, sizeof *g);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.unwritten, 0);
	ck_assert_str_eq(r.pattern, "every element of C is 0: the kernel stores without "
	                 "accumulating anything");
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_matmul_swapped)
{
	ref_problem p;
	int n = 16;
	setup_matmul(&p, n, 8);
	float *g = malloc(p.out_len * sizeof *g);
	for (int r = 0; r < n; r++)
		for (int c = 0; c < n; c++)
			g[r * n + c] = (float)p.expect[c * n + r];
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_gt(r.bad, (size_t)n * n / 2);
	ck_assert_str_eq(r.pattern, "row and column are swapped: the result is the transpose of the "
	                 "right one (get_global_id(0) walks columns, get_global_id(1) rows)");
	/* one element off the transposed answer: no longer "swapped" */
	g[5 * n + 9] += 1.0f;
	ref_compare(&p, g, 16, &r);
	ck_assert(strstr(r.pattern, "swapped") == NULL);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_transpose_plain_copy)
{
	const int shapes[][2] = { { 8, 12 }, { 12, 8 }, { 16, 16 } };
	for (int s = 0; s < 3; s++) {
		ref_problem p;
		setup_transpose(&p, shapes[s][0], shapes[s][1], 21);
		float *g = malloc(p.out_len * sizeof *g);
		memcpy(g, p.in[0], p.out_len * sizeof *g);
		ref_result r;
		ref_compare(&p, g, 4, &r);
		ck_assert_int_eq(r.passed, 0);
		ck_assert_str_eq(r.pattern, "the output is a plain copy of the input: the store index "
		                 "must swap row and column (out is cols x rows: out[c * rows + r])");
		free(g);
		ref_free(&p);
	}
}
END_TEST

START_TEST(test_pattern_last_partial_tile)
{
	ref_problem p;
	int n = 17;
	setup_matmul(&p, n, 8);
	float *g = correct_output(&p);
	g[16 * n + 3] += 0.5f;   /* row 16: the partial tile row */
	g[5 * n + 16] += 0.5f;   /* column 16 */
	g[16 * n + 16] = 0.0f;
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.bad, 3);
	ck_assert_int_eq(r.first_row, 5);
	ck_assert_int_eq(r.first_col, 16);
	ck_assert_str_eq(r.pattern, "only the last partial tile is wrong (rows or columns from 16 on): "
	                 "edge handling -- 17 is not a multiple of TILE=16, so loads past the edge must "
	                 "read 0 and stores past it must be skipped");

	/* one wrong element inside the full tiles: a different story */
	g[3 * n + 4] += 0.5f;
	ref_compare(&p, g, 16, &r);
	ck_assert_uint_eq(r.bad, 4);
	char want[320];
	snprintf(want, sizeof want, "4 of 289 elements are wrong, first at row 3, column 4: got %.7g, "
	         "expected %.7g", (double)g[3 * n + 4], p.expect[3 * n + 4]);
	ck_assert_str_eq(r.pattern, want);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_last_partial_tile_transpose)
{
	ref_problem p;
	setup_transpose(&p, 32, 33, 8);   /* out is 33 x 32: rows from 32 on are partial */
	float *g = correct_output(&p);
	for (int c = 0; c < 32; c++)
		g[32 * 32 + c] = bits_float(REF_UNWRITTEN_BITS);
	ref_result r;
	ref_compare(&p, g, 32, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.unwritten, 32);
	ck_assert_int_eq(r.first_row, 32);
	ck_assert_int_eq(r.first_col, 0);
	const char *want = "only the last partial tile is wrong (rows or columns from 32 on): "
	                   "edge handling -- 33 is not a multiple of TILE=32, so loads";
	ck_assert_msg(strncmp(r.pattern, want, strlen(want)) == 0, "pattern: %s", r.pattern);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_unwritten_subset)
{
	ref_problem p;
	int n = 16;
	setup_matmul(&p, n, 8);
	float *g = correct_output(&p);
	g[2 * n + 5] = bits_float(REF_UNWRITTEN_BITS);
	g[7 * n + 7] = bits_float(REF_UNWRITTEN_BITS);
	g[9 * n + 0] = bits_float(REF_UNWRITTEN_BITS);
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.unwritten, 3);
	ck_assert_uint_eq(r.nonfinite, 0);
	ck_assert_uint_eq(r.bad, 3);
	ck_assert_str_eq(r.pattern, "3 of 256 elements were never written (still the grader's NaN "
	                 "fill), first at row 2, column 5: some work-items return, skip their store, or store "
	                 "to another work-item's element");
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_nan_written)
{
	ref_problem p;
	int n = 16;
	setup_matmul(&p, n, 8);
	float *g = correct_output(&p);
	g[4 * n + 4] = NAN;
	g[6 * n + 1] = INFINITY;
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.nonfinite, 2);
	ck_assert_uint_eq(r.unwritten, 0);
	ck_assert_uint_eq(r.bad, 2);
	ck_assert_int_eq(r.first_row, 4);
	ck_assert_int_eq(r.first_col, 4);
	ck_assert_str_eq(r.pattern, "the kernel wrote NaN or Inf into 2 elements: reading "
	                 "outside a buffer (the grader's guard zones around every buffer hold NaN), "
	                 "or a value never written");
	free(g);
	ref_free(&p);
}
END_TEST

/* NaN in a few elements and finite wrong values in more: the pattern names both counts, so
 * a kernel wrong everywhere is not described by its NaN alone (pub67, blurFrameKernel). */
START_TEST(test_pattern_nan_and_wrong)
{
	ref_problem p;
	int n = 16;
	setup_matmul(&p, n, 8);
	float *g = correct_output(&p);
	g[0] += 1.0f;
	g[5] += 1.0f;
	g[4 * n + 4] = NAN;
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_uint_eq(r.nonfinite, 1);
	ck_assert_uint_eq(r.bad, 3);
	ck_assert_msg(strstr(r.pattern, "NaN or Inf into 1 elements") != NULL, "%s", r.pattern);
	ck_assert_msg(strstr(r.pattern, "3 of 256 elements are wrong in all") != NULL, "%s", r.pattern);
	free(g);
	ref_free(&p);
}
END_TEST

START_TEST(test_pattern_generic)
{
	ref_problem p;
	int n = 16;
	setup_matmul(&p, n, 8);
	float *g = correct_output(&p);
	g[3 * n + 4] = 2.5f;
	g[11 * n + 2] = -7.0f;
	ref_result r;
	ref_compare(&p, g, 16, &r);
	ck_assert_int_eq(r.passed, 0);
	ck_assert_uint_eq(r.bad, 2);
	ck_assert(r.got == 2.5);
	ck_assert(r.expected == p.expect[3 * n + 4]);
	char want[320];
	snprintf(want, sizeof want, "2 of 256 elements are wrong, first at row 3, column 4: got 2.5, "
	         "expected %.7g", p.expect[3 * n + 4]);
	ck_assert_str_eq(r.pattern, want);
	ck_assert(r.max_rel_error == fmax(fabs(2.5 - p.expect[3 * n + 4]) / p.scale[3 * n + 4],
	                                  fabs(-7.0 - p.expect[11 * n + 2]) / p.scale[11 * n + 2]));
	free(g);
	ref_free(&p);
}
END_TEST

/* ---- the wide run's inputs (ref_draw_wide) ---- */

/* Every value of every input: 24 significant bits drawn at random (the lowest set in about half
 * of them), a magnitude in [2^-41, 2^-25) with every binade used, about one in four negative;
 * the same per seed, another for another seed; the kind's own draw is not used. */
START_TEST(test_wide_inputs)
{
	ref_problem a, b, c;
	ck_assert_int_eq(ref_setup_wide(&a, &kind_matmul, 64, 64, 16, 9, 1), 0);
	ck_assert_int_eq(ref_setup_wide(&b, &kind_matmul, 64, 64, 16, 9, 0), 0);
	ck_assert_int_eq(ref_setup_wide(&c, &kind_matmul, 64, 64, 16, 10, 0), 0);
	ck_assert(a.wide && b.wide && !b.expect);
	size_t n = 64 * 64, neg = 0, low = 0, differ = 0;
	int binades[16] = { 0 };
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(memcmp(a.in[k], b.in[k], n * sizeof(float)), 0);
		for (size_t i = 0; i < n; i++) {
			float v = fabsf(a.in[k][i]);
			ck_assert(v >= ldexpf(1, REF_WIDE_EXP_LO) && v < ldexpf(1, REF_WIDE_EXP_HI));
			int e;
			frexpf(v, &e);
			binades[e - 1 - REF_WIDE_EXP_LO]++;
			neg += a.in[k][i] < 0;
			low += float_bits(v) & 1u;
			differ += a.in[k][i] != c.in[k][i];
		}
	}
	for (int e = 0; e < 16; e++)
		ck_assert_int_gt(binades[e], 2 * (int)n / 16 / 2);
	ck_assert(neg > 2 * n / 5 && neg < 2 * n * 3 / 10);
	ck_assert(low > 2 * n * 2 / 5 && low < 2 * n * 3 / 5);
	ck_assert_uint_gt(differ, 2 * n * 9 / 10);
	ref_free(&a);
	ref_free(&b);
	ref_free(&c);
}
END_TEST

/* On the wide inputs the matmul's bound holds for a float dot product in either order, and a
 * value of A or B rounded to fixed point with 23 fraction bits (exact on the lesson's inputs)
 * fails every element; a transpose through a fixed-point tile fails every element. */
START_TEST(test_wide_matmul_and_transpose)
{
	ref_problem p;
	int n = 40;
	ck_assert_int_eq(ref_setup_wide(&p, &kind_matmul, n, n, 16, 3, 1), 0);
	size_t bad_fixed = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float fwd = 0, bwd = 0, fixed = 0;
			for (int k = 0; k < n; k++) {
				float a = p.in[0][i * n + k], b = p.in[1][k * n + j];
				float ab = p.in[0][i * n + n - 1 - k] * p.in[1][(n - 1 - k) * n + j];
				fwd += a * b, bwd += ab;
				fixed += (float)(int)(a * 8388608.0f) / 8388608.0f *
				         ((float)(int)(b * 8388608.0f) / 8388608.0f);
			}
			size_t e = (size_t)i * n + j;
			ck_assert(ref_element_ok(&p, e, fwd) && ref_element_ok(&p, e, bwd));
			bad_fixed += !ref_element_ok(&p, e, fixed);
		}
	ck_assert_uint_eq(bad_fixed, (size_t)n * n);
	ref_free(&p);
	ck_assert_int_eq(ref_setup_wide(&p, &kind_transpose, 37, 100, 32, 3, 1), 0);
	float *got = malloc(p.out_len * sizeof *got);
	for (int r = 0; r < 37; r++)
		for (int c = 0; c < 100; c++)
			got[c * 37 + r] = (float)(int)(p.in[0][r * 100 + c] * 8388608.0f) / 8388608.0f;
	ref_result res;
	ref_compare(&p, got, 32, &res);
	ck_assert(!res.passed && res.bad == p.out_len);
	ck_assert_ptr_nonnull(strstr(res.pattern, "elements are wrong"));
	free(got);
	ref_free(&p);
}
END_TEST

static Suite *ref_suite(void)
{
	Suite *s = suite_create("ref");
	TCase *t = tcase_create("inputs");
	tcase_add_test(t, test_rand_splitmix64);
	tcase_add_test(t, test_randf_range);
	tcase_add_test(t, test_inputs_deterministic_per_seed);
	tcase_add_test(t, test_wide_inputs);
	tcase_add_test(t, test_wide_matmul_and_transpose);
	suite_add_tcase(s, t);

	t = tcase_create("reference");
	tcase_add_test(t, test_matmul_reference_in_double);
	tcase_add_test(t, test_matmul_1x1);
	tcase_add_test(t, test_transpose_reference);
	suite_add_tcase(s, t);

	t = tcase_create("compare");
	tcase_add_test(t, test_correct_output_passes);
	tcase_add_test(t, test_bound_edges_small_n);
	tcase_add_test(t, test_bound_edges_large_n);
	tcase_add_test(t, test_bound_grows_with_k);
	tcase_add_test(t, test_transpose_exact);
	tcase_add_test(t, test_nan_inf_never_pass);
	tcase_add_test(t, test_unwritten_counted_separately);
	suite_add_tcase(s, t);

	t = tcase_create("patterns");
	tcase_add_test(t, test_pattern_nothing_written);
	tcase_add_test(t, test_pattern_all_zero);
	tcase_add_test(t, test_pattern_matmul_swapped);
	tcase_add_test(t, test_pattern_transpose_plain_copy);
	tcase_add_test(t, test_pattern_last_partial_tile);
	tcase_add_test(t, test_pattern_last_partial_tile_transpose);
	tcase_add_test(t, test_pattern_unwritten_subset);
	tcase_add_test(t, test_pattern_nan_written);
	tcase_add_test(t, test_pattern_nan_and_wrong);
	tcase_add_test(t, test_pattern_generic);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ref_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
