/* test_stencil2d.c — the 2-D stencil kind's CPU reference and bound (kind_stencil2d.c): the
 * box sum with zeros outside the image, worked by hand; right sums in any order of the
 * additions equal the double reference exactly (the bound is 0), a dropped term never does;
 * on the wide run's inputs they stay within its bound, where half or fixed-point staging fails;
 * and where wrong outputs lie (a group's corner, its edge, the image's edge) is read as the
 * lesson's fixtures need it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "ref.h"

enum { TILE = 32, R = KIND_STENCIL_R };

/* A 4 x 5 image of 1..20: every box of radius 3 reaches past the image, so each output is
 * the sum of the rows and columns its box covers inside it, by hand. */
START_TEST(reference_by_hand)
{
	float in[20];
	for (int i = 0; i < 20; i++)
		in[i] = (float)(i + 1);
	double scale;
	/* (0, 0): rows 0..3, cols 0..3: the whole image but column 4 (5 + 10 + 15 + 20 = 50) */
	ck_assert(kind_stencil_at(in, 4, 5, 0, 0, &scale) == 210 - 50);
	ck_assert(scale == 160);
	/* (3, 4): rows 0..3, cols 1..4: all but column 0 (1 + 6 + 11 + 16 = 34) */
	ck_assert(kind_stencil_at(in, 4, 5, 3, 4, NULL) == 210 - 34);
	/* (1, 2): every input */
	ck_assert(kind_stencil_at(in, 4, 5, 1, 2, NULL) == 210);
	/* a 1 x 1 image: the box is the one input */
	float one = -0.75f;
	ck_assert(kind_stencil_at(&one, 1, 1, 0, 0, &scale) == -0.75 && scale == 0.75);
}
END_TEST

/* A 9 x 9 image with one input of 1 at (4, 4): the outputs within R of it (the box, corners
 * included) are 1, the others 0. */
START_TEST(reference_box_has_corners)
{
	float in[81] = { 0 };
	in[4 * 9 + 4] = 1;
	for (int r = 0; r < 9; r++)
		for (int c = 0; c < 9; c++) {
			int inside = abs(r - 4) <= R && abs(c - 4) <= R;
			ck_assert_msg(kind_stencil_at(in, 9, 9, r, c, NULL) == inside, "(%d, %d)", r, c);
		}
}
END_TEST

static void setup(ref_problem *p, int rows, int cols, uint64_t seed)
{
	ck_assert_int_eq(ref_setup(p, &kind_stencil2d, rows, cols, TILE, seed), 0);
	ck_assert_uint_eq(p->out_len, (size_t)rows * cols);
}

/* Every output summed in float forward, backward and row by row (as a kernel might) equals
 * the reference: the bound is 0 and it holds.  Leaving out any one term never does. */
START_TEST(bound_zero_holds_in_any_order)
{
	ref_problem p;
	setup(&p, 45, 61, 7);
	for (size_t i = 0; i < p.out_len; i++)
		ck_assert(ref_bound(&p, i) == 0);
	for (size_t i = 0; i < p.in_len[0]; i++) {
		float a = fabsf(p.in[0][i]);
		ck_assert(a >= 0.5f && a < 1.0f && a * 256 == floorf(a * 256));
	}
	for (int r = 0; r < p.rows; r++)
		for (int c = 0; c < p.cols; c++) {
			float v[(2 * R + 1) * (2 * R + 1)];
			int n = 0;
			for (int y = r - R; y <= r + R; y++)
				for (int x = c - R; x <= c + R; x++)
					v[n++] = y >= 0 && y < p.rows && x >= 0 && x < p.cols ?
					         p.in[0][y * p.cols + x] : 0.0f;
			float fwd = 0, bwd = 0, rows = 0;
			for (int k = 0; k < n; k++)
				fwd += v[k], bwd += v[n - 1 - k];
			for (int y = 0; y <= 2 * R; y++) {
				float s = 0;
				for (int x = 0; x <= 2 * R; x++)
					s += v[y * (2 * R + 1) + x];
				rows += s;
			}
			size_t i = (size_t)r * p.cols + c;
			ck_assert(ref_element_ok(&p, i, fwd) && ref_element_ok(&p, i, bwd) &&
			          ref_element_ok(&p, i, rows));
			for (int k = 0; k < n; k++)
				if (v[k] != 0)
					ck_assert(!ref_element_ok(&p, i, fwd - v[k]));
		}
	ref_free(&p);
}
END_TEST

/* The right output as a float array, for the pattern tests to spoil. */
static float *right(const ref_problem *p)
{
	float *g = malloc(p->out_len * sizeof(float));
	for (size_t i = 0; i < p->out_len; i++)
		g[i] = (float)p->expect[i];
	return g;
}

START_TEST(places_read_corner_edge_image)
{
	ref_problem p;
	setup(&p, 100, 137, 3);
	float *g = right(&p);
	kind_stencil_wrong w;
	kind_stencil_places(&p, g, &w);
	ck_assert_int_eq(w.image_edge + w.corner + w.group_edge + w.elsewhere, 0);
	g[33 * 137 + 30] += 1;    /* row 33 (1 past a group's edge), col 30 (2 before one) */
	g[40 * 137 + 62] += 1;    /* col 62: 2 before the edge at 64, row 40 well inside  */
	g[1 * 137 + 50] += 1;     /* row 1: within R of the image's top                   */
	kind_stencil_places(&p, g, &w);
	ck_assert_int_eq(w.corner, 1);
	ck_assert_int_eq(w.group_edge, 1);
	ck_assert_int_eq(w.image_edge, 1);
	ck_assert_int_eq(w.elsewhere, 0);
	ck_assert_int_eq(w.first_r, 33);
	ck_assert_int_eq(w.first_c, 30);
	g[50 * 137 + 50] += 1;    /* row 50, col 50: 18 from every group edge             */
	kind_stencil_places(&p, g, &w);
	ck_assert_int_eq(w.elsewhere, 1);
	free(g);
	ref_free(&p);
}
END_TEST

/* What correct's message says (ref_compare) for outputs wrong only near groups' corners, only
 * near the image's edge, and elsewhere too. */
START_TEST(pattern_names_the_cause)
{
	ref_problem p;
	ref_result res;
	setup(&p, 100, 137, 5);
	float *g = right(&p);
	for (int r = 0; r < p.rows; r++)
		for (int c = 0; c < p.cols; c++)
			if ((r % TILE < R || r % TILE >= TILE - R) && (c % TILE < R || c % TILE >= TILE - R)
			    && r >= R && c >= R && r < p.rows - R && c < p.cols - R)
				g[r * p.cols + c] += 0.5f;
	ref_compare(&p, g, TILE, &res);
	ck_assert(!res.passed);
	ck_assert_msg(strstr(res.pattern, "corners of the halo are not staged"), "%s", res.pattern);
	free(g);
	g = right(&p);
	for (int c = 0; c < p.cols; c++)
		g[c] += 1, g[(p.rows - 1) * p.cols + c] += 1;
	ref_compare(&p, g, TILE, &res);
	ck_assert_msg(strstr(res.pattern, "must be staged as 0, not skipped"), "%s", res.pattern);
	g[50 * p.cols + 50] += 1;
	ref_compare(&p, g, TILE, &res);
	ck_assert_msg(!strstr(res.pattern, "staged"), "%s", res.pattern);
	free(g);
	ref_free(&p);
}
END_TEST

static int cmp_mag(const void *a, const void *b)
{
	float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
	return (x > y) - (x < y);
}

/* On the wide inputs (ref_draw_wide) the bound, 2 gamma_48 times the box's sum of |in|, holds
 * for every output summed in float forward, backward, row by row and by magnitude (both
 * ways); a tile staged in fixed point (8 and 23 fraction bits) or as half fails every output,
 * and one that keeps only 11 significant bits (half's, whatever the range) fails most. */
START_TEST(wide_bound_holds_and_shortcuts_fail)
{
	ref_problem p;
	ck_assert_int_eq(ref_setup_wide(&p, &kind_stencil2d, 45, 61, TILE, 5, 1), 0);
	size_t bad[4] = { 0 };
	for (int r = 0; r < p.rows; r++)
		for (int c = 0; c < p.cols; c++) {
			float v[(2 * R + 1) * (2 * R + 1)], fwd = 0, bwd = 0, rows = 0, up = 0, down = 0;
			float lossy[4] = { 0 };
			int n = 0;
			for (int y = r - R; y <= r + R; y++)
				for (int x = c - R; x <= c + R; x++)
					v[n++] = y >= 0 && y < p.rows && x >= 0 && x < p.cols ?
					         p.in[0][y * p.cols + x] : 0.0f;
			for (int k = 0; k < n; k++) {
				int e;
				fwd += v[k], bwd += v[n - 1 - k];
				lossy[0] += (float)(int)(v[k] * 256.0f) / 256.0f;
				lossy[1] += (float)(int)(v[k] * 8388608.0f) / 8388608.0f;
				lossy[2] += fabsf(v[k]) < ldexpf(1, -25) ? 0.0f : v[k];   /* half's range */
				frexpf(v[k], &e);
				lossy[3] += rintf(ldexpf(v[k], 11 - e)) * ldexpf(1, e - 11);
			}
			for (int y = 0; y <= 2 * R; y++) {
				float s = 0;
				for (int x = 0; x <= 2 * R; x++)
					s += v[y * (2 * R + 1) + x];
				rows += s;
			}
			qsort(v, n, sizeof *v, cmp_mag);
			for (int k = 0; k < n; k++)
				up += v[k], down += v[n - 1 - k];
			size_t i = (size_t)r * p.cols + c;
			ck_assert(ref_bound(&p, i) > 0);
			ck_assert(ref_element_ok(&p, i, fwd) && ref_element_ok(&p, i, bwd) &&
			          ref_element_ok(&p, i, rows) && ref_element_ok(&p, i, up) &&
			          ref_element_ok(&p, i, down));
			for (int k = 0; k < 4; k++)
				bad[k] += !ref_element_ok(&p, i, lossy[k]);
		}
	for (int k = 0; k < 3; k++)
		ck_assert_uint_eq(bad[k], p.out_len);
	ck_assert_uint_gt(bad[3], p.out_len / 2);
	ref_free(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stencil2d");
	TCase *t = tcase_create("reference");
	tcase_add_test(t, reference_by_hand);
	tcase_add_test(t, reference_box_has_corners);
	tcase_add_test(t, bound_zero_holds_in_any_order);
	tcase_add_test(t, wide_bound_holds_and_shortcuts_fail);
	tcase_add_test(t, places_read_corner_edge_image);
	tcase_add_test(t, pattern_names_the_cause);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
