/* test_edges.c — integration tests of the analysis at the edges (issue 8): the real
 * build/clgrade on real PoCL and real Oclgrind, grading the edge mutants of tests/fixtures/
 * (barriers skipped by edge work-items, reads past the end, duplicate writes, uncoalesced
 * stores, accesses merged across if/else; conflicts at every TILE of lesson 4's sweep and
 * lesson 3's 1-way bar are test_sweep.c's), the seeded analysis
 * sizes, the time limit and the grader's own failures.  Each test runs clgrade as a
 * subprocess and reads its JSON report and terminal text. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

#define FX "tests/fixtures/"

/* `build/clgrade check LESSON KERNEL --seed 1 --json tmp EXTRA`, all it says, and its wall time. */
static double num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number \"%s\"", k);
	return v->valuedouble;
}

/* ---- the edge mutants: each fails (or passes) its criterion, for its cause ---- */

static const struct edge {
	const char *lesson, *file, *extra;
	const char *fails;        /* the criterion it must fail (or NULL) */
	const char *says;         /* ...with this in its message (or NULL) */
	const char *passes;       /* a criterion it must pass (or NULL) */
	const char *never;        /* text its failing message must not hold (or NULL) */
} edges[] = {
	{ "2", FX "l2_return_before_barrier.cl", NULL, "race_free",
	  "`row >= N || col >= N` holds return at line 11", NULL, NULL },
	{ "2", FX "l2_barrier_in_guard.cl", NULL, "race_free",
	  "inside `if (row < N && col < N)` (line 10)", NULL, NULL },
	{ "1", FX "l1_loads_before_guard.cl", NULL, "memory_safe", "Invalid read", "correct", NULL },
	{ "2", FX "l2_le_in_load_guard.cl", NULL, "memory_safe", NULL, "race_free", NULL },
	{ "3", FX "l3_no_load_guard.cl", NULL, "memory_safe", "of 'in'", "correct", NULL },
	{ "1", FX "l1_linear_guard.cl", NULL, "race_free", "Write-write data race", NULL, NULL },
	{ "1", FX "l1_duplicate_writes.cl", NULL, "race_free", "Write-write data race", "correct", NULL },
	{ "3", FX "l3_token_round_trip.cl", NULL, "coalesced", "store to out needs 32.0 sectors",
	  "conflict_free", NULL },
	{ "3", "kernels/starter/03-transpose-padding.cl", NULL, "coalesced", "32.0 sectors", NULL, NULL },
	{ "3", FX "l3_swizzle.cl", NULL, NULL, NULL, "coalesced", NULL },
	{ "4", FX "l4_conflicts_at_chosen_tile.cl", "--timeout 60", "conflict_free", "at TILE=32", "correct", NULL },
	{ "3", FX "l3_local_in_branches.cl", NULL, "conflict_free", "l3_local_in_branches.cl:15:49", NULL,
	  ":0:0" },
	{ "3", FX "l3_hoisted_branch_loads.cl", NULL, "conflict_free", "l3_hoisted_branch_loads.cl:13:13",
	  "coalesced", ":0:0" },
	{ "1", FX "l1_store_in_branches.cl", NULL, NULL, NULL, "race_free", NULL },
	/* a write-write race between groups from a wrong store guard is an indexing problem */
	{ "3", FX "l3_store_with_load_guard.cl", NULL, "race_free", "an indexing problem", NULL,
	  "two kernel launches" },
	/* PoCL gets a barrier inside a uniform if wrong; Oclgrind does not: named, not the edges */
	{ "3", FX "l3_uniform_if_barrier.cl", NULL, "correct", "PoCL can get a barrier inside `if ("
	  "rows > 0 && cols > 0)`", NULL, "partial last tile" },
	/* a different path in the edge groups: their full warps are priced */
	{ "3", FX "l3_edge_groups_naive.cl", NULL, "coalesced", "the store to out needs 32.0", NULL,
	  NULL },
	{ "4", FX "l4_conflict_outside_group0.cl", "--timeout 60", "conflict_free", "-way", NULL, NULL },
	/* an unoptimised build that accesses memory differently is not believed */
	{ "3", FX "l3_opt_switch.cl", NULL, "conflict_free", "32-way", NULL, NULL },
	/* lessons 1 and 2 judge coalescing too: their text teaches col on dimension 0 */
	{ "1", FX "l1_rows_on_dim0.cl", NULL, "coalesced", "the load of A needs 16.0 sectors", "correct",
	  NULL },
	{ "2", FX "l2_tile_loads_down_columns.cl", NULL, "coalesced", "the load of A needs 17.9 sectors",
	  "conflict_free", NULL },
	{ "1", "kernels/solutions/01-naive-matmul.cl", NULL, NULL, NULL, "coalesced", NULL },
	{ "1", FX "l1_flat_index.cl", NULL, NULL, NULL, "coalesced", NULL },
	/* the uninitialised-value checker aborts on it: the aborted run's output is not judged */
	{ "1", FX "l1_flat_local_split.cl", NULL, NULL, NULL, "correct", NULL },
	/* a kernel that does nothing at the analysis sizes: the analysed launch is verified */
	{ "3", FX "l3_skip_analysis.cl", NULL, "correct", "the size the Oclgrind analysis ran at",
	  NULL, NULL },
	{ "2", "kernels/solutions/02-tiled-matmul.cl", NULL, NULL, NULL, "coalesced", NULL },
};

START_TEST(edge_mutant_gets_its_verdict)
{
	const struct edge *e = &edges[_i];
	itest_graded g = itest_grade(e->lesson, e->file, e->extra);
	if (e->fails) {
		ck_assert_msg(strcmp(itest_status(&g, e->fails), "fail") == 0, "%s: %s expected fail, got %s\n%s",
		              e->file, e->fails, itest_status(&g, e->fails), g.text);
		ck_assert_int_eq(g.exit, 1);
		if (e->says)
			ck_assert_msg(strstr(itest_message(&g, e->fails), e->says) != NULL, "%s: \"%s\" lacks \"%s\"",
			              e->file, itest_message(&g, e->fails), e->says);
		if (e->never)
			ck_assert_msg(strstr(g.text, e->never) == NULL, "%s: the report shows \"%s\":\n%s",
			              e->file, e->never, g.text);
	}
	if (e->passes)
		ck_assert_msg(strcmp(itest_status(&g, e->passes), "pass") == 0, "%s: %s expected pass, got %s (%s)",
		              e->file, e->passes, itest_status(&g, e->passes), itest_message(&g, e->passes));
	/* every analysed size has edge work-items: no dimension is a multiple of the TILE */
	cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "analysis"), "sizes")) {
		int r = (int)num(s, "rows"), c = (int)num(s, "cols"), t = (int)num(s, "tile");
		ck_assert_msg(r % t && c % t, "%s: analysed at %dx%d, TILE=%d", e->file, r, c, t);
		if (strcmp(e->lesson, "3") == 0)
			ck_assert_int_ne(r, c);
	}
	ck_assert_int_ge(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "analysis"),
	                                                        "sizes")), 1);
	ck_assert_ptr_nonnull(strstr(g.text, "analysis under Oclgrind at "));
	itest_done(&g);
}
END_TEST

/* ---- accesses the optimiser merges across if/else keep their own lines ---- */

static const struct merged {
	const char *lesson, *file;
	const char *table;        /* "local_memory" or "global_memory" */
	int lines[4];             /* each must have a site of its own (0-ended) */
	int never[4];             /* lines (the if's, 0) that must have none (0-ended, 0 implied) */
} mergeds[] = {
	{ "3", FX "l3_local_in_branches.cl", "local_memory", { 9, 11, 15, 17 }, { 8, 14 } },
	{ "3", FX "l3_local_in_branches.cl", "global_memory", { 15, 17 }, { 12, 14 } },
	{ "3", FX "l3_hoisted_branch_loads.cl", "local_memory", { 9, 13 }, { 12 } },
	{ "1", FX "l1_store_in_branches.cl", "global_memory", { 14, 16 }, { 13 } },
};

static int has_site(cJSON *sites, int line)
{
	cJSON *s;
	cJSON_ArrayForEach(s, sites)
		if ((int)num(s, "line") == line)
			return 1;
	return 0;
}

START_TEST(merged_accesses_keep_their_lines)
{
	const struct merged *m = &mergeds[_i];
	itest_graded g = itest_grade(m->lesson, m->file, NULL);
	cJSON *an = cJSON_GetObjectItem(g.json, "analysis");
	ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(an, "sites_unoptimised")),
	              "%s: the sites should come from the unoptimised build", m->file);
	ck_assert_ptr_nonnull(strstr(g.text, "-cl-opt-disable"));
	cJSON *sites = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, m->table), "sites");
	for (int i = 0; i < 4 && m->lines[i]; i++)
		ck_assert_msg(has_site(sites, m->lines[i]), "%s: no %s site at line %d:\n%s", m->file,
		              m->table, m->lines[i], g.text);
	ck_assert_msg(!has_site(sites, 0), "%s: a %s site at line 0", m->file, m->table);
	for (int i = 0; i < 4 && m->never[i]; i++)
		ck_assert_msg(!has_site(sites, m->never[i]), "%s: a %s site at line %d (the if's)",
		              m->file, m->table, m->never[i]);
	itest_done(&g);
}
END_TEST

/* A kernel whose -cl-opt-disable code accesses memory differently (type punning the optimiser
 * folds): the unoptimised sites are rejected, the optimised verdicts stand. */
START_TEST(unoptimised_build_that_differs_is_rejected)
{
	itest_graded g = itest_grade("3", FX "l3_opt_switch.cl", NULL);
	cJSON *an = cJSON_GetObjectItem(g.json, "analysis");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(an, "sites_unoptimised")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(an, "sites_unoptimised_rejected")));
	ck_assert_ptr_nonnull(strstr(g.text, "accessed memory differently"));
	itest_done(&g);
}
END_TEST

/* The solutions have no merged access: their analysis is the single optimised one. */
START_TEST(solutions_need_no_unoptimised_build)
{
	static const char *sols[] = { "1", "kernels/solutions/01-naive-matmul.cl",
	                              "3", "kernels/solutions/03-transpose-padding.cl" };
	itest_graded g = itest_grade(sols[2 * _i], sols[2 * _i + 1], NULL);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "analysis"),
	                                            "sites_unoptimised")));
	ck_assert_ptr_null(strstr(g.text, "-cl-opt-disable"));
	itest_done(&g);
}
END_TEST

/* ---- time limit and the grader's own failures ---- */

/* A kernel that hangs is stopped by --timeout S, and fails runs (its fault).  The grader
 * stops it S seconds after its build: its limit X is S plus the build's time (the report
 * says "timed out after X s"), so the check takes X plus what any check takes to start and
 * end.  A fixed "under S + 2 s" failed on a loaded machine (8.5 s at S = 4: a slow build).
 * So the bounds are measured, in this test, just before: base, an ordinary check's wall time
 * now (itest_base_s: start, one uncached PoCL build, the runs), and S at least 4 and at least
 * twice base (itest_hang_timeout), so the build never meets the limit.  Asserted: the limit came
 * from S (S <= X <= 3 S: the build may take 2 S) and not from the default 20 s (X < 20);
 * the check ran into it (wall >= S: the kernel never ends by itself) and ended promptly
 * after it (wall < X + 2 base + 1 s: the report after the limit is at most an ordinary
 * check's work, and the load may rise after base was measured, as S allows too). */
START_TEST(hang_is_stopped_within_the_timeout)
{
	double base = itest_base_s();
	int s = itest_hang_timeout(4, base);
	char extra[32];
	snprintf(extra, sizeof extra, "--timeout %d", s);
	itest_graded g = itest_grade_fresh(NULL, "1", FX "l1_hang.cl", extra);
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(itest_status(&g, "runs"), "fail");
	const char *m = strstr(itest_message(&g, "runs"), "timed out after ");
	double x = 0;
	ck_assert_msg(m && sscanf(m, "timed out after %lf s", &x) == 1, "runs: %s",
	              itest_message(&g, "runs"));
	ck_assert_msg(x >= s && x <= 3 * s + 0.05 && x < 20, "the limit was %.2f s with --timeout %d "
	              "(the default is 20 s)", x, s);
	ck_assert_msg(g.wall_s >= s, "a hanging kernel ended after %.1f s, before its --timeout %d",
	              g.wall_s, s);
	ck_assert_msg(g.wall_s < x + 2 * base + 1, "a hanging kernel took %.1f s with a limit of %.2f s "
	              "(--timeout %d; an ordinary check took %.1f s)", g.wall_s, x, s, base);
	itest_done(&g);
}
END_TEST

/* Memory the --memory limit denies is the grader's failure, never the student's: the build
 * (PoCL's compiler) or the analysis (Oclgrind's threads) runs out, whichever comes first at
 * 150 MiB, and leaves its criteria not_checked with "the grader could not", exit 2, "error". */
START_TEST(memory_limit_is_the_graders)
{
	itest_graded g = itest_grade("2", "kernels/solutions/02-tiled-matmul.cl", "--memory 150");
	ck_assert_int_eq(g.exit, 2);
	ck_assert_ptr_nonnull(strstr(g.text, "the grader could not"));
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(g.json, "verdict")), "error");
	ck_assert_ptr_nonnull(strstr(g.text, "NOT GRADED"));
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(g.json, "criteria"))
		ck_assert_str_ne(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")), "fail");
	itest_done(&g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("edges");
	TCase *m = tcase_create("mutants"), *t = tcase_create("limits");
	tcase_set_timeout(m, 120);
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(m, edge_mutant_gets_its_verdict, 0, (int)(sizeof edges / sizeof edges[0]));
	tcase_add_loop_test(m, merged_accesses_keep_their_lines, 0,
	                    (int)(sizeof mergeds / sizeof mergeds[0]));
	tcase_add_loop_test(m, solutions_need_no_unoptimised_build, 0, 2);
	tcase_add_test(m, unoptimised_build_that_differs_is_rejected);
	tcase_add_test(t, hang_is_stopped_within_the_timeout);
	tcase_add_test(t, memory_limit_is_the_graders);
	suite_add_tcase(s, m);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
