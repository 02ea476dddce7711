/* test_diagnoses.c — integration tests: each broken kernel of tests/fixtures/ written for a
 * diagnosis fails its criterion with the message that names the real cause, and never the
 * misleading one it used to get.  Real build/clgrade on real PoCL and real Oclgrind, run as a
 * subprocess; the JSON report and the terminal text are both read. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

/* `build/clgrade check LESSON KERNEL --seed 1 --json tmp EXTRA`, wide terminal text. */
static const char *field(const itest_graded *g, const char *id, const char *k)
{
	cJSON *c = itest_crit(g, id);
	const char *m = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, k)) : NULL;
	return m ? m : "";
}

#define FX "tests/fixtures/"

/* One fixture, its criterion, what its message must and must not say, and what its "try"
 * must not say.  NULL: nothing asked. */
static const struct diagnosis {
	const char *lesson, *file, *extra, *fails;
	const char *says, *says_too, *never, *try_never;
} cases[] = {
	/* C[i] += ... without setting C: the NaN fill propagates */
	{ "1", FX "l1_accumulate_into_c.cl", NULL, "correct",
	  "reads C before writing it (C starts as NaN)", "float acc", "no element of C was written",
	  "index arithmetic" },
	{ "1", FX "l1_accumulate_into_c.cl", NULL, "memory_safe", "global memory of 'C'",
	  "float acc = 0.0f;", NULL, "__local memory is written" },
	{ "1", FX "l1_accumulate_sum_into_c.cl", NULL, "correct",
	  "reads C before writing it (C starts as NaN)", NULL, "never written", NULL },
	/* missing edge guards: the edge, never "rows and cols mixed up" */
	{ "3", FX "l3_no_store_guard.cl", NULL, "correct", "a multiple of TILE=32", "guard",
	  "mixed up", "every use of rows and cols" },
	{ "3", FX "l3_no_guard_naive.cl", NULL, "correct", "a multiple of TILE=32", NULL,
	  "mixed up", "every use of rows and cols" },
	/* ... and "mixed up" when a non-square multiple of TILE is wrong, squares right */
	{ "3", FX "l3_guard_rows_cols_swapped.cl", NULL, "correct", "rows and cols are mixed up",
	  "every use of rows and cols", NULL, NULL },
	{ "3", FX "l3_square_only.cl", NULL, "correct", "rows and cols are mixed up", NULL, NULL,
	  NULL },
	/* a kernel whose arguments are not the lesson's */
	{ "2", FX "l2_local_pointer_args.cl", NULL, "builds",
	  "the lesson passes (A, B, C, N); your kernel takes 6 arguments",
	  "argument 5 (As) is a __local pointer", "CL_INVALID", NULL },
	{ "1", FX "l1_float_size_arg.cl", NULL, "builds",
	  "the lesson passes (A, B, C, N); your kernel takes 4 arguments",
	  "argument 4 (N) is float", "CL_INVALID", NULL },
	/* a link-time failure shows the runtime's own words, at the helper's declaration */
	{ "1", FX "l1_undefined_helper.cl", NULL, "builds", "l1_undefined_helper.cl:2:7: error:",
	  "dot_row", "CL_BUILD_PROGRAM_FAILURE", NULL },
	/* a race on __global memory is an indexing problem, not a missing barrier */
	{ "1", FX "l1_store_one_per_row.cl", NULL, "race_free",
	  "two work-items write one element of C", "global memory of 'C'", NULL,
	  "barrier(CLK_LOCAL_MEM_FENCE) after" },
	/* a barrier that fences only __global memory around a __local tile is named */
	{ "3", FX "l3_global_fence.cl", NULL, "race_free",
	  "l3_global_fence.cl:10: barrier(CLK_GLOBAL_MEM_FENCE) orders only __global memory",
	  "local memory of 'tile'", NULL, NULL },
	/* the transpose's conflict fix never says "swap the indices": that moves it to the store */
	{ "3", FX "l3_unpadded.cl", NULL, "conflict_free", "32-way",
	  "would only move the conflict to the store on line 9", NULL,
	  "so neighbouring lanes touch neighbouring words" },
	/* a timeout in a kernel without a barrier blames no barrier */
	{ "1", FX "l1_hang.cl", ITEST_HANG_TIMEOUT, "runs", "timed out", NULL, NULL, "barrier" },
};

START_TEST(fixture_names_the_real_cause)
{
	const struct diagnosis *d = &cases[_i];
	itest_graded g = itest_grade(d->lesson, d->file, d->extra);
	const char *st = field(&g, d->fails, "status"), *msg = field(&g, d->fails, "message");
	const char *try_ = field(&g, d->fails, "try");
	ck_assert_msg(strcmp(st, "fail") == 0, "%s: %s expected fail, got %s\n%s", d->file, d->fails,
	              st, g.text);
	ck_assert_int_eq(g.exit, 1);
	ck_assert_msg(strstr(msg, d->says), "%s: \"%s\" lacks \"%s\"", d->file, msg, d->says);
	ck_assert_msg(strstr(g.text, d->says), "%s: terminal lacks \"%s\":\n%s", d->file, d->says,
	              g.text);
	if (d->says_too)
		ck_assert_msg(strstr(msg, d->says_too) || strstr(try_, d->says_too),
		              "%s: \"%s\" / \"%s\" lacks \"%s\"", d->file, msg, try_, d->says_too);
	if (d->never)
		ck_assert_msg(!strstr(g.text, d->never), "%s: report says \"%s\":\n%s", d->file,
		              d->never, g.text);
	if (d->try_never)
		ck_assert_msg(!strstr(try_, d->try_never), "%s: try \"%s\" says \"%s\"", d->file, try_,
		              d->try_never);
	itest_done(&g);
}
END_TEST

/* A kernel with the wrong arguments is never launched: nothing else is judged on it, and
 * nothing blames its __local memory. */
START_TEST(wrong_signature_leaves_the_rest_unchecked)
{
	itest_graded g = itest_grade("2", FX "l2_local_pointer_args.cl", NULL);
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(g.json, "criteria")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
		if (strcmp(id, "builds") != 0)
			ck_assert_msg(strcmp(st, "not_checked") == 0, "%s is %s", id, st);
	}
	ck_assert_ptr_null(strstr(g.text, "uses no __local memory"));
	ck_assert_ptr_nonnull(strstr(g.text, "does not take the lesson's arguments"));
	itest_done(&g);
}
END_TEST

/* The lane -> bank picture: lanes that share a word are named as a broadcast, not as
 * "different addresses"; inactive lanes are drawn as inactive, not as bank 0. */
START_TEST(lane_picture_broadcast)
{
	itest_graded g = itest_grade("2", FX "l2_transposed_tile_broadcast.cl", NULL);
	ck_assert_str_eq(field(&g, "conflict_free", "status"), "fail");
	ck_assert_ptr_nonnull(strstr(field(&g, "conflict_free", "message"), ":21:32: load of Bs is "
	                             "8-way"));
	ck_assert_ptr_nonnull(strstr(g.text, "one warp of the worst access (line 21, Bs)"));
	ck_assert_ptr_nonnull(strstr(g.text, "lanes 16-31:  0 16  0 16"));
	ck_assert_ptr_nonnull(strstr(g.text, "hit by 16 lanes at 8 different words; lanes that "
	                                     "share a word get it in one broadcast"));
	ck_assert_ptr_null(strstr(g.text, "different addresses"));
	ck_assert_str_eq(field(&g, "correct", "status"), "pass");
	itest_done(&g);
}
END_TEST

START_TEST(lane_picture_inactive_lanes)
{
	itest_graded g = itest_grade("3", FX "l3_half_warp_conflict.cl", NULL);
	ck_assert_str_eq(field(&g, "conflict_free", "status"), "fail");
	ck_assert_ptr_nonnull(strstr(field(&g, "conflict_free", "message"), ":12:45: load of tile "
	                             "is 16-way"));
	ck_assert_ptr_nonnull(strstr(g.text, "lanes  0-15:  0  .  0  ."));
	ck_assert_ptr_nonnull(strstr(g.text, "does not take part in this access: 16 of 32"));
	ck_assert_ptr_nonnull(strstr(g.text, "bank 0 is hit by 16 lanes at 16 different words"));
	/* the stride is per lane, between the active ones: 32 words, not 64 */
	ck_assert_ptr_nonnull(strstr(field(&g, "conflict_free", "try"), "32 words apart"));
	ck_assert_str_eq(field(&g, "correct", "status"), "pass");
	itest_done(&g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("diagnoses");
	TCase *t = tcase_create("diagnoses");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, fixture_names_the_real_cause, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(t, wrong_signature_leaves_the_rest_unchecked);
	tcase_add_test(t, lane_picture_broadcast);
	tcase_add_test(t, lane_picture_inactive_lanes);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
