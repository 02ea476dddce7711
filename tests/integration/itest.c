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

double itest_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* FNV-1a over a string, continued from h. */
static unsigned long long fnv(unsigned long long h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;         /* a separator: "ab","c" differs from "a","bc" */
}

/* The cache entry's path prefix for this grading (lesson, kernel path and its bytes, options,
 * working directory), or 0 when this binary has no cache (ITEST_CACHE unset). */
static int cache_key(char *buf, size_t len, const char *lesson, const char *kernel,
                     const char *extra)
{
	const char *dir = getenv("ITEST_CACHE");
	if (!dir || !*dir)
		return 0;
	char cwd[4096];
	unsigned long long h = 14695981039346656037ULL;
	h = fnv(h, lesson);
	h = fnv(h, kernel);
	h = fnv(h, extra ? extra : "");
	h = fnv(h, getcwd(cwd, sizeof cwd) ? cwd : "?");
	h = fnv(h, getenv("CLGRADE_TEST_COMPROMISE"));   /* test_trust: a compromised run child */
	char *src = kernel && *kernel ? itest_slurp(kernel) : NULL;
	h = fnv(h, src ? src : "(none)");
	free(src);
	snprintf(buf, len, "%s/%016llx", dir, h);
	return 1;
}

static int write_file(const char *path, const char *text)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	return ok ? rename(tmp, path) : -1;
}

static itest_graded grade(const char *env, const char *lesson, const char *kernel, const char *extra,
                          int cached)
{
	char key[4096] = "", path[4200];
	if (cached && cache_key(key, sizeof key, lesson, kernel, extra)) {
		snprintf(path, sizeof path, "%s.meta", key);
		char *meta = itest_slurp(path);
		itest_graded g = { 0, 0, NULL, NULL };
		if (meta && sscanf(meta, "%d %lf", &g.exit, &g.wall_s) == 2) {
			snprintf(path, sizeof path, "%s.txt", key);
			g.text = itest_slurp(path);
			snprintf(path, sizeof path, "%s.json", key);
			char *j = itest_slurp(path);
			g.json = j ? cJSON_Parse(j) : NULL;
			free(j);
			if (g.text && g.json) {
				free(meta);
				return g;
			}
			itest_done(&g);
		}
		free(meta);
	}
	char json[] = "/tmp/clgrade-it-XXXXXX", out[64], cmd[2048];
	int fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(out, sizeof out, "%s.txt", json);
	snprintf(cmd, sizeof cmd, "%s NO_COLOR=1 COLUMNS=400 build/clgrade check %s %s --seed 1 "
	         "--json %s %s > %s 2>&1", env ? env : "", lesson, kernel, json, extra ? extra : "",
	         out);
	double t0 = itest_now();
	int st = system(cmd);
	itest_graded g = { WIFEXITED(st) ? WEXITSTATUS(st) : -1, itest_now() - t0, NULL,
	                   itest_slurp(out) };
	char *j = itest_slurp(json);
	g.json = j ? cJSON_Parse(j) : NULL;
	unlink(json);
	unlink(out);
	ck_assert_msg(g.text != NULL, "no terminal output");
	ck_assert_msg(g.json != NULL, "no JSON report; terminal said:\n%s", g.text);
	if (*key) {                               /* the meta file last: it marks the entry whole */
		char meta[64];
		snprintf(meta, sizeof meta, "%d %.6f\n", g.exit, g.wall_s);
		snprintf(path, sizeof path, "%s.txt", key);
		int ok = write_file(path, g.text) == 0;
		snprintf(path, sizeof path, "%s.json", key);
		ok = ok && write_file(path, j) == 0;
		snprintf(path, sizeof path, "%s.meta", key);
		if (ok)
			write_file(path, meta);
	}
	free(j);
	return g;
}

itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra)
{
	if (extra && strcmp(extra, ITEST_HANG_TIMEOUT) == 0) {
		char t[32];
		snprintf(t, sizeof t, "--timeout %d", itest_hang_timeout(3, itest_base_s()));
		return grade(NULL, lesson, kernel, t, 0);
	}
	return grade(NULL, lesson, kernel, extra, 1);
}

itest_graded itest_grade_fresh(const char *env, const char *lesson, const char *kernel,
                               const char *extra)
{
	return grade(env, lesson, kernel, extra, 0);
}

double itest_base_s(void)
{
	itest_graded g = grade("POCL_KERNEL_CACHE=0", "1", "tests/fixtures/l1_wrong_index.cl",
	                       "--no-analysis", 0);
	ck_assert_msg(g.exit == 1, "the baseline grading (l1_wrong_index.cl) exited %d:\n%s", g.exit,
	              g.text);
	double s = g.wall_s;
	itest_done(&g);
	return s;
}

int itest_hang_timeout(int min_s, double base_s)
{
	int s = (int)(base_s + 0.999);
	return s > min_s ? s : min_s;
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
	/* One cache of graded reports for this binary's run (see itest_grade), made here in the
	 * parent, before any fork, and removed at the end; the children only read and write
	 * files in it.  Check runs the test cases one after another, so no two write an entry at
	 * once.  ITEST_CACHE= (empty) turns it off. */
	char dir[] = "/tmp/clgrade-itcache-XXXXXX";
	int own = getenv("ITEST_CACHE") == NULL && mkdtemp(dir) != NULL;
	if (own)
		setenv("ITEST_CACHE", dir, 1);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (own) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "itest: could not remove %s\n", dir);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
