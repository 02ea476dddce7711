/* itest.c — the integration tests' shared helpers (itest.h): one place that runs clgrade and
 * reads its reports, so each test file holds only its cases. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"

char *itest_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n)
		n = 0;
	s[n] = '\0';
	fclose(f);
	return s;
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra)
{
	char json[] = "/tmp/clgrade-it-XXXXXX", out[64], cmd[2048];
	int fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(out, sizeof out, "%s.txt", json);
	snprintf(cmd, sizeof cmd, "NO_COLOR=1 COLUMNS=400 build/clgrade check %s %s --seed 1 "
	         "--json %s %s > %s 2>&1", lesson, kernel, json, extra ? extra : "", out);
	double t0 = mono_s();
	int st = system(cmd);
	itest_graded g = { WIFEXITED(st) ? WEXITSTATUS(st) : -1, mono_s() - t0, NULL,
	                   itest_slurp(out) };
	char *j = itest_slurp(json);
	g.json = j ? cJSON_Parse(j) : NULL;
	free(j);
	unlink(json);
	unlink(out);
	ck_assert_msg(g.text != NULL, "no terminal output");
	ck_assert_msg(g.json != NULL, "no JSON report; terminal said:\n%s", g.text);
	return g;
}

void itest_done(itest_graded *g)
{
	cJSON_Delete(g->json);
	free(g->text);
}

cJSON *itest_crit(const itest_graded *g, const char *id)
{
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(g->json, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), id) == 0)
			return c;
	return NULL;
}

int itest_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
