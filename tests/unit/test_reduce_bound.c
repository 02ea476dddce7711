/* test_reduce_bound.c — the reduction kind's correctness bound (kind_reduction.c) and its
 * lesson's bank-conflict table: right sums in any order the launch allows pass, a dropped
 * element fails at every small correctness size, and the strided step's n-way per step is
 * what lessons/05-reduction/README.md says; on the wide run's inputs any order passes its
 * bound and fixed-point or half sums fail at every seed. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "kind.h"
#include "ref.h"

enum { TILE = 256 };

static void setup(ref_problem *p, int n, uint64_t seed)
{
	ck_assert_int_eq(ref_setup(p, &kind_reduction, 1, n, TILE, seed), 0);
	ck_assert_uint_eq(p->out_len, kind_reduce_groups(n, TILE));
	ck_assert_uint_eq(p->result_len, 1);
}

/* The partials a launch writes when each group adds its chunk in the given order: 0 forward,
 * 1 backward, 2 pairwise tree (the lesson's sequential addressing), 3 float4 lanes first. */
static float *partials(const ref_problem *p, int order)
{
	size_t groups = p->out_len, global = groups * TILE;
	float *out = calloc(groups, sizeof(float));
	float item[TILE];
	for (size_t g = 0; g < groups; g++) {
		for (int l = 0; l < TILE; l++) {
			size_t gid = g * TILE + l;
			float acc = 0, lane[4] = { 0 };
			size_t m = 0;
			for (size_t i = gid; i < (size_t)p->cols; i += global, m++)
				if (order == 3)
					lane[m % 4] += p->in[0][i];
				else
					acc += p->in[0][i];
			item[l] = order == 3 ? (lane[0] + lane[1]) + (lane[2] + lane[3]) : acc;
		}
		if (order == 2) {
			for (int d = TILE / 2; d > 0; d /= 2)
				for (int l = 0; l < d; l++)
					item[l] += item[l + d];
			out[g] = item[0];
		} else {
			float s = 0;
			for (int l = 0; l < TILE; l++)
				s += item[order == 1 ? TILE - 1 - l : l];
			out[g] = s;
		}
	}
	return out;
}

static const int sizes[] = { 1, 2, 255, 256, 257, 4099, 65537, 1000003 };

START_TEST(any_order_passes)
{
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (int order = 0; order < 4; order++) {
			ref_problem p;
			setup(&p, sizes[s], 7 + s);
			float *got = partials(&p, order);
			ref_result r;
			ref_compare(&p, got, TILE, &r);
			ck_assert_msg(r.passed, "n=%d order %d: %s", sizes[s], order, r.pattern);
			ck_assert(r.max_rel_error < 1e-5);
			free(got);
			ref_free(&p);
		}
}
END_TEST

/* Dropping any one element fails: its magnitude (>= 0.5) is above the bound. */
START_TEST(dropped_element_fails)
{
	static const int small[] = { 1, 2, 255, 257, 4099 };
	for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
		ref_problem p;
		setup(&p, small[s], 11);
		ck_assert(ref_bound(&p, 0) < 0.5);
		for (int k = 0; k < 3; k++) {
			size_t drop = k == 0 ? 0 : k == 1 ? (size_t)small[s] / 2 : (size_t)small[s] - 1;
			float keep = p.in[0][drop];
			ck_assert(fabsf(keep) >= 0.5f && fabsf(keep) < 1.0f);
			p.in[0][drop] = 0;               /* the kernel never sees it */
			float *got = partials(&p, 2);
			p.in[0][drop] = keep;
			ref_result r;
			ref_compare(&p, got, TILE, &r);
			ck_assert_msg(!r.passed, "n=%d: dropping in[%zu] passed", small[s], drop);
			free(got);
		}
		ref_free(&p);
	}
}
END_TEST

/* Up to TILE * m = 2^16 elements per group every sum of the inputs is exact: the bound is 0
 * (every size the grader uses, up to the GPU's 2^26).  Beyond, Higham's bound, which grows
 * with n and with the magnitudes: h = ceil(n / global) + TILE - 1 additions. */
START_TEST(bound_scales)
{
	ck_assert(kind_reduce_bound(1, TILE, 1.0) == 0);
	ck_assert(kind_reduce_bound(1 << 22, TILE, 1e6) == 0);
	ck_assert(kind_reduce_bound(1 << 26, TILE, 1e7) == 0);
	ck_assert(kind_reduce_bound(1 << 27, TILE, 1e8) == 0);          /* m = 256: 2^16 a group */
	int big = (1 << 27) + 1;                                          /* m = 257: inexact */
	double a = kind_reduce_bound(big, TILE, 500.0), b = kind_reduce_bound(big, TILE, 1000.0);
	ck_assert(a > 0 && fabs(b / a - 2.0) < 1e-9);
	ck_assert(kind_reduce_bound(1 << 30, TILE, 1.0) > kind_reduce_bound(big, TILE, 1.0));
	double u = ldexp(1.0, -24), h = 257 + TILE - 1;
	ck_assert(fabs(kind_reduce_bound(big, TILE, 1.0) - (h * u / (1 - h * u) +
	          2.0 * ((double)big + 2048) * ldexp(1.0, -53))) < 1e-15);
	ck_assert_uint_eq(kind_reduce_groups(1, TILE), 1);
	ck_assert_uint_eq(kind_reduce_groups(257, TILE), 2);
	ck_assert_uint_eq(kind_reduce_groups(1 << 26, TILE), 2048);
}
END_TEST

/* The inputs are multiples of 2^-8 with magnitudes in [0.5, 1), so any order is exact. */
START_TEST(inputs_make_sums_exact)
{
	ref_problem p;
	setup(&p, 1 << 22, 5);
	for (size_t i = 0; i < p.in_len[0]; i++) {
		float a = fabsf(p.in[0][i]) * 256.0f;
		ck_assert(a >= 128.0f && a < 256.0f && a == floorf(a));
	}
	for (int order = 0; order < 4; order++) {
		float *got = partials(&p, order);
		ref_result r;
		ref_compare(&p, got, TILE, &r);
		ck_assert_msg(r.passed && r.max_rel_error == 0, "order %d: error %g", order,
		              r.max_rel_error);
		free(got);
	}
	ref_free(&p);
}
END_TEST

/* At the CPU's timing size, 8 elements per work-item: one element doubled, or one of the four
 * loads of an unrolled loop shifted by one, fails (the Higham bound, 49 there, passed both
 * at some seeds). */
START_TEST(large_n_mistakes_fail)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		ref_problem p;
		setup(&p, 1 << 22, seed);
		size_t g = p.out_len * TILE, n = p.in_len[0];
		float keep = p.in[0][n / 3];
		p.in[0][n / 3] = 2 * keep;          /* counted twice */
		float *got = partials(&p, 2);
		p.in[0][n / 3] = keep;
		ref_result r;
		ref_compare(&p, got, TILE, &r);
		ck_assert_msg(!r.passed, "seed %d: a doubled element passed", (int)seed);
		free(got);
		/* in[4g-1] read as in[3g-1] (a shifted load): two elements swapped for others */
		float *copy = malloc(n * sizeof *copy);
		memcpy(copy, p.in[0], n * sizeof *copy);
		p.in[0][4 * g - 1] = copy[3 * g - 1];
		p.in[0][8 * g - 1] = copy[7 * g - 1];
		int same = copy[4 * g - 1] + copy[8 * g - 1] == copy[3 * g - 1] + copy[7 * g - 1];
		got = partials(&p, 0);
		memcpy(p.in[0], copy, n * sizeof *copy);
		ref_compare(&p, got, TILE, &r);
		ck_assert_msg(same || !r.passed, "seed %d: a shifted load passed", (int)seed);
		free(got);
		free(copy);
		ref_free(&p);
	}
}
END_TEST

/* A partial never written, or a NaN partial, fails whatever the sum. */
START_TEST(unwritten_partial_fails)
{
	ref_problem p;
	setup(&p, 1000, 3);
	float *got = partials(&p, 2);
	uint32_t bits = REF_UNWRITTEN_BITS;
	memcpy(&got[1], &bits, sizeof bits);
	ref_result r;
	ref_compare(&p, got, TILE, &r);
	ck_assert(!r.passed);
	ck_assert_uint_eq(r.unwritten, 1);
	ck_assert_ptr_nonnull(strstr(r.pattern, "never written"));
	free(got);
	ref_free(&p);
}
END_TEST

/* The lost-tail pattern is named. */
START_TEST(lost_tail_named)
{
	ref_problem p;
	setup(&p, 4099, 5);
	int full = 4099 / TILE * TILE;
	for (int i = full; i < 4099; i++)
		p.in[0][i] = 0;
	float *got = partials(&p, 2);
	ref_free(&p);
	setup(&p, 4099, 5);
	ref_result r;
	ref_compare(&p, got, TILE, &r);
	ck_assert(!r.passed);
	ck_assert_msg(strstr(r.pattern, "misses exactly the last 3 elements") != NULL, "%s", r.pattern);
	free(got);
	ref_free(&p);
}
END_TEST

/* Step 2 of the lesson (s[2*d*l] += s[2*d*l + d]), priced by the NVIDIA bank model for the
 * first warp at TILE = 256: 2-, 4-, 8-, 8-, 8-, 4-, 2-, 1-way for d = 1, 2, ..., 128 (from
 * d = 8 on fewer lanes stay active).  Sequential addressing (s[l] += s[l + d]) is 1-way at
 * every step. */
START_TEST(strided_conflicts_by_step)
{
	const bank_profile *bp = bank_profile_find("nvidia");
	static const int want[] = { 2, 4, 8, 8, 8, 4, 2, 1 };
	int k = 0;
	for (int d = 1; d < TILE; d *= 2, k++) {
		uint64_t addr[32], seq[32];
		unsigned char on[32], son[32];
		for (int l = 0; l < 32; l++) {
			addr[l] = 4u * (uint64_t)(2 * d * l);
			on[l] = 2 * d * l < TILE;
			seq[l] = 4u * (uint64_t)l;
			son[l] = l < TILE / 2 / d;
		}
		ck_assert_int_eq(bank_access(bp, addr, on, 32, 4, 0).n_way, want[k]);
		ck_assert_int_eq(bank_access(bp, seq, son, 32, 4, 0).n_way, 1);
	}
}
END_TEST

/* ---- the wide run (ref_draw_wide, kind_reduce_bound_any) ---- */

static void setup_wide(ref_problem *p, int n, uint64_t seed)
{
	ck_assert_int_eq(ref_setup_wide(p, &kind_reduction, 1, n, TILE, seed, 1), 0);
}

static int cmp_mag(const void *a, const void *b)
{
	float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
	return (x > y) - (x < y);
}

/* One work-item adds every element into partial[0], sorted by magnitude (ascending, then
 * descending: the worst of the plain orders); the other partials 0. */
static float *one_sorted(const ref_problem *p, int descending)
{
	size_t n = p->in_len[0];
	float *v = malloc(n * sizeof *v), *out = calloc(p->out_len, sizeof *out), s = 0;
	memcpy(v, p->in[0], n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_mag);
	for (size_t i = 0; i < n; i++)
		s += v[descending ? n - 1 - i : i];
	out[0] = s;
	free(v);
	return out;
}

/* Right float sums of the wide inputs pass in every order, the launch's and the sorted ones,
 * and stay far inside the bound (2 gamma_{n-1} sum |x|, order-independent). */
START_TEST(wide_any_order_passes)
{
	static const int wide[] = { 1, 2, 255, 257, 4099, 65537 };
	for (size_t s = 0; s < sizeof wide / sizeof wide[0]; s++)
		for (int order = 0; order < 6; order++) {
			ref_problem p;
			setup_wide(&p, wide[s], 21 + s);
			ck_assert(ref_bound(&p, 0) > 0);
			float *got = order < 4 ? partials(&p, order) : one_sorted(&p, order == 5);
			ref_result r;
			ref_compare(&p, got, TILE, &r);
			ck_assert_msg(r.passed, "n=%d order %d: %s", wide[s], order, r.pattern);
			free(got);
			ref_free(&p);
		}
}
END_TEST

/* Half-rounding of x (11 significant bits, subnormals down to 2^-24, ties to even). */
static float to_half(float x)
{
	float a = fabsf(x), q;
	int e;
	frexpf(a, &e);
	q = a < ldexpf(1, -14) ? ldexpf(1, -24) : ldexpf(1, e - 11);
	return copysignf(rintf(a / q) * q, x);
}

/* Lesson 5's lossy shortcuts, exact on the lesson's inputs, fail the wide run at every seed:
 * int sums of (int)(x * 2^s) for s = 8, 16, 24 (a long at 24), and elements through half. */
START_TEST(wide_rounding_fails)
{
	for (uint64_t seed = 1; seed <= 64; seed++) {
		ref_problem p;
		setup_wide(&p, 4099, seed);
		for (int how = 0; how < 4; how++) {
			float *got = calloc(p.out_len, sizeof *got);
			long long fixed = 0;
			float s = 0;
			for (size_t i = 0; i < p.in_len[0]; i++)
				if (how < 3)
					fixed += (long long)(p.in[0][i] * ldexpf(1, 8 + 8 * how));
				else
					s += to_half(p.in[0][i]);
			got[0] = how < 3 ? (float)fixed * ldexpf(1, -8 - 8 * how) : s;
			ref_result r;
			ref_compare(&p, got, TILE, &r);
			ck_assert_msg(!r.passed, "seed %d, shortcut %d passed", (int)seed, how);
			free(got);
		}
		ref_free(&p);
	}
	ck_assert(to_half(1.0009765625f) == 1.0009765625f && to_half(1.00048828125f) == 1.0f);
	ck_assert(to_half(ldexpf(1, -26)) == 0 && to_half(3 * ldexpf(1, -25)) == ldexpf(1, -23));
}
END_TEST

/* The wide bound is order-independent: gamma_{n-1} twice, plus the doubles' share; it does
 * not depend on TILE beyond the number of groups the host adds. */
START_TEST(wide_bound_any)
{
	double u = ldexp(1.0, -24), h = 4098;
	size_t g = kind_reduce_groups(4099, TILE);
	ck_assert(fabs(kind_reduce_bound_any(4099, TILE, 1.0) - (2 * h * u / (1 - h * u) +
	          2.0 * (4099.0 + g) * ldexp(1.0, -53)) - 1e-30) < 1e-15);
	ck_assert(kind_reduce_bound_any(1, TILE, 1.0) < 1e-15);
	ck_assert(kind_reduce_bound_any(1 << 24, TILE, 1.0) >= 2.0);
	ref_problem p;
	setup_wide(&p, 4099, 1);
	ck_assert(ref_bound(&p, 0) == kind_reduce_bound_any(4099, TILE, p.scale[0]));
	ck_assert(ref_bound(&p, 0) < 5e-4 * p.scale[0]);
	ref_free(&p);
}
END_TEST

Suite *reduce_suite(void)
{
	Suite *s = suite_create("reduce_bound");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, any_order_passes);
	tcase_add_test(tc, dropped_element_fails);
	tcase_add_test(tc, bound_scales);
	tcase_add_test(tc, inputs_make_sums_exact);
	tcase_add_test(tc, large_n_mistakes_fail);
	tcase_add_test(tc, unwritten_partial_fails);
	tcase_add_test(tc, lost_tail_named);
	tcase_add_test(tc, strided_conflicts_by_step);
	tcase_add_test(tc, wide_any_order_passes);
	tcase_add_test(tc, wide_rounding_fails);
	tcase_add_test(tc, wide_bound_any);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reduce_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
