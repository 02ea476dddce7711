/* test_stencil_halo.c — integration tests of lesson 6 (06-stencil-halo), what a fixture's
 * first line cannot say: the reference solution passes every criterion, speed judged from
 * the predicted H200 times against the measured bar; the starter (the naive stencil) fails
 * uses_local_memory and nothing before it, and is predicted no faster than the baseline.
 * Real build/clgrade on real PoCL and Oclgrind, as every integration test. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "itest.h"

static const char *field(const itest_graded *g, const char *id, const char *k)
{
	cJSON *c = itest_crit(g, id);
	const char *m = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, k)) : NULL;
	return m ? m : "";
}

static const char *status(const itest_graded *g, const char *id) { return field(g, id, "status"); }

static double predicted(const itest_graded *g, const char *key)
{
	cJSON *t = cJSON_GetObjectItem(g->json, "timing");
	cJSON *p = t ? cJSON_GetObjectItem(t, "predicted") : NULL;
	cJSON *v = p ? cJSON_GetObjectItem(p, key) : NULL;
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

START_TEST(solution_passes_every_criterion)
{
	itest_graded g = itest_grade("6", "kernels/solutions/06-stencil-halo.cl", NULL);
	ck_assert_msg(g.exit == 0, "exit %d:\n%s", g.exit, g.text);
	const char *ids[] = { "builds", "runs", "correct", "memory_safe", "race_free",
	                      "uses_local_memory", "conflict_free", "coalesced", "speedup" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		ck_assert_msg(strcmp(status(&g, ids[i]), "pass") == 0, "%s: %s", ids[i], g.text);
	ck_assert_msg(strstr(field(&g, "speedup", "message"), "the bar on a GPU is 1.05x"), "%s",
	              g.text);
	ck_assert_msg(strstr(field(&g, "conflict_free", "message"), "1-way"), "%s", g.text);
	ck_assert_msg(predicted(&g, "speedup") >= 1.05, "%s", g.text);
	ck_assert_ptr_nonnull(strstr(g.text, "predicted on NVIDIA H200 at 6143x8191"));
	ck_assert_msg(!strstr(g.text, "uninitialised-value checker failed"), "%s", g.text);
	itest_done(&g);
}
END_TEST

START_TEST(starter_fails_uses_local_memory)
{
	itest_graded g = itest_grade("6", "kernels/starter/06-stencil-halo.cl", NULL);
	ck_assert_int_eq(g.exit, 1);
	const char *pass[] = { "builds", "runs", "correct", "memory_safe", "race_free", "coalesced" };
	for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++)
		ck_assert_msg(strcmp(status(&g, pass[i]), "pass") == 0, "%s: %s", pass[i], g.text);
	ck_assert_str_eq(status(&g, "uses_local_memory"), "fail");
	ck_assert_str_eq(status(&g, "speedup"), "fail");
	double x = predicted(&g, "speedup");
	ck_assert_msg(x > 0.9 && x < 1.05, "predicted %.3f: %s", x, g.text);
	itest_done(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stencil_halo");
	TCase *tc = tcase_create("lesson6");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, solution_passes_every_criterion);
	tcase_add_test(tc, starter_fails_uses_local_memory);
	suite_add_tcase(s, tc);
	return itest_run(s);
}
