/* test_sweep.c — bank conflicts judged where the lesson says (issue 18, item 5): lesson 4 at
 * every TILE of its sweep, lesson 3 at its 1-way bar.  The real build/clgrade on real PoCL and
 * Oclgrind, as test_edges.c (these rows were its, and are a binary of their own so that the
 * suite's two longest binaries do not run one after the other: each lesson-4 row is three
 * analyses). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "itest.h"

#define FX "tests/fixtures/"

static double num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number \"%s\"", k);
	return v->valuedouble;
}

/* Lesson 4 is analysed at every TILE of its sweep, so a tile row of a fixed 32 floats fails at
 * TILE=8 (it passed when only 16 and the chosen 32 ran), and is told to size the row with
 * TILE, not to pad or swap; lesson 3 wants its column read 1-way, so a padding of two fails
 * 2-way.  Each fails conflict_free and nothing else; the solutions pass it. */
static const struct coverage {
	const char *lesson, *file, *extra;
	int fails;                /* conflict_free must fail (else pass), the only failure    */
	const char *says[2];      /* in conflict_free's message (NULL: nothing asked)       */
	const char *try_says;     /* in its try (or NULL)                                   */
	const char *try_never[2]; /* never in its try: the false causes                     */
} coverages[] = {
	{ "4", FX "l4_literal_row_a.cl", "--timeout 60", 1,
	  { "store of As is 4-way", "at TILE=8 (the analysis ran at TILE=8, 16 and 32)" },
	  "make the last dimension of As TILE long", { "neighbouring lanes are", "swapping" } },
	{ "4", FX "l4_literal_row_b.cl", "--timeout 60", 1,
	  { "store of Bs is 4-way", "at TILE=8 (the analysis ran at TILE=8, 16 and 32)" },
	  "make the last dimension of Bs TILE long", { "neighbouring lanes are", "swapping" } },
	{ "3", FX "l3_pad_two.cl", NULL, 1, { "load of tile is 2-way", "conflict-free is 1" },
	  "34 words apart", { "last dimension", NULL } },
	{ "4", "kernels/solutions/04-tile-budget.cl", "--timeout 60", 0,
	  { "1-way", "(the analysis ran at TILE=8, 16 and 32)" }, NULL, { NULL, NULL } },
	{ "3", "kernels/solutions/03-transpose-padding.cl", NULL, 0, { "1-way", NULL }, NULL,
	  { NULL, NULL } },
};

START_TEST(conflicts_judged_where_the_lesson_says)
{
	const struct coverage *e = &coverages[_i];
	itest_graded g = itest_grade(e->lesson, e->file, e->extra);
	const char *msg = itest_message(&g, "conflict_free");
	cJSON *c = itest_crit(&g, "conflict_free");
	const char *try_ = cJSON_GetStringValue(cJSON_GetObjectItem(c, "try"));
	ck_assert_msg(strcmp(itest_status(&g, "conflict_free"), e->fails ? "fail" : "pass") == 0,
	              "%s: conflict_free is %s\n%s", e->file, itest_status(&g, "conflict_free"), g.text);
	ck_assert_int_eq(g.exit, e->fails ? 1 : 0);
	cJSON *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(g.json, "criteria")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(x, "id"));
		if (strcmp(id, "conflict_free") != 0)
			ck_assert_msg(strcmp(itest_status(&g, id), "fail") != 0, "%s: %s fails too", e->file, id);
	}
	for (int i = 0; i < 2; i++)
		ck_assert_msg(!e->says[i] || strstr(msg, e->says[i]), "%s: \"%s\" lacks \"%s\"",
		              e->file, msg, e->says[i]);
	ck_assert_msg(!e->try_says || (try_ && strstr(try_, e->try_says)), "%s: try \"%s\" lacks "
	              "\"%s\"", e->file, try_ ? try_ : "", e->try_says);
	for (int i = 0; i < 2; i++)
		ck_assert_msg(!e->try_never[i] || !try_ || !strstr(try_, e->try_never[i]),
		              "%s: try \"%s\" says \"%s\"", e->file, try_, e->try_never[i]);
	if (strcmp(e->lesson, "4") == 0) {   /* one analysis run per TILE of the sweep */
		cJSON *sizes = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "analysis"), "sizes");
		ck_assert_int_eq(cJSON_GetArraySize(sizes), 3);
		int seen = 0;
		cJSON_ArrayForEach(x, sizes)
			seen |= (int)num(x, "tile");
		ck_assert_int_eq(seen, 8 | 16 | 32);
		/* the text says which TILE each site and the lane picture are from */
		ck_assert_msg(strstr(g.text, "line:col   TILE  variable"), "%s", g.text);
		ck_assert_msg(!e->fails || strstr(g.text, ", TILE=8): lane -> bank"), "%s", g.text);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "local_memory"),
		                                          "sites"))
			ck_assert_int_gt((int)num(x, "tile"), 0);
	}
	itest_done(&g);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *t = tcase_create("coverage");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, conflicts_judged_where_the_lesson_says, 0,
	                    (int)(sizeof coverages / sizeof coverages[0]));
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
