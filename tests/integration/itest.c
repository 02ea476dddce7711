/* itest.c — the integration tests' shared helpers (itest.h): one place that runs clgrade and
 * reads its reports, so each test file holds only its cases. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
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
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());   /* two binaries, one entry */
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	return ok ? rename(tmp, path) : -1;
}

/* CPU seconds (user + system) of this process's waited-for children so far. */
static double children_cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_CHILDREN, &r);
	return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

/* With ITEST_LOG set, one line per grading asked for, appended to that file: the binary, the
 * CPU seconds and wall seconds the grading cost here (0 when the cache answered), "run" or
 * "hit", and what was graded -- where the suite's time goes (tests/cpu-times.sh). */
static void log_grading(double cpu, double wall, int hit, const char *lesson, const char *kernel,
                        const char *extra)
{
	const char *path = getenv("ITEST_LOG");
	if (!path || !*path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	dprintf(fd, "%s\t%.2f\t%.2f\t%s\t%s %s %s\n", program_invocation_short_name, cpu, wall,
	        hit ? "hit" : "run", lesson, kernel && *kernel ? kernel : "(starter)", extra ? extra : "");
	close(fd);
}

/* The cached grading under key, when it is whole (its .meta, written last, is there). */
static int cache_read(const char *key, itest_graded *g)
{
	char path[4200];
	snprintf(path, sizeof path, "%s.meta", key);
	char *meta = itest_slurp(path);
	*g = (itest_graded){ 0, 0, NULL, NULL };
	int ok = meta && sscanf(meta, "%d %lf", &g->exit, &g->wall_s) == 2;
	free(meta);
	if (!ok)
		return 0;
	snprintf(path, sizeof path, "%s.txt", key);
	g->text = itest_slurp(path);
	snprintf(path, sizeof path, "%s.json", key);
	char *j = itest_slurp(path);
	g->json = j ? cJSON_Parse(j) : NULL;
	free(j);
	if (g->text && g->json)
		return 1;
	itest_done(g);
	return 0;
}

static void cache_write(const char *key, const itest_graded *g, const char *json)
{
	char meta[64], path[4200];
	snprintf(meta, sizeof meta, "%d %.6f\n", g->exit, g->wall_s);
	snprintf(path, sizeof path, "%s.txt", key);
	int ok = write_file(path, g->text) == 0;
	snprintf(path, sizeof path, "%s.json", key);
	ok = ok && write_file(path, json) == 0;
	snprintf(path, sizeof path, "%s.meta", key);   /* the meta file last: it marks the entry whole */
	if (ok)
		write_file(path, meta);
}

/* One real `clgrade check`, its JSON text left in *json (free it). */
static itest_graded run_clgrade(const char *env, const char *lesson, const char *kernel,
                                const char *extra, const char *html, char **json_text)
{
	char json[] = "/tmp/clgrade-it-XXXXXX", out[64], cmd[8192], page[4300] = "";
	int fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(out, sizeof out, "%s.txt", json);
	char quoted[4200] = "";       /* a path with no ' in it (test_html's hostile name) */
	if (kernel && *kernel)
		snprintf(quoted, sizeof quoted, "'%s'", kernel);
	if (html)
		snprintf(page, sizeof page, "--html '%s'", html);
	snprintf(cmd, sizeof cmd, "%s NO_COLOR=1 COLUMNS=400 build/clgrade check %s %s --seed 1 "
	         "--json %s %s %s > %s 2>&1", env ? env : "", lesson, quoted, json, page,
	         extra ? extra : "", out);
	double t0 = itest_now(), c0 = children_cpu();
	int st = system(cmd);
	itest_graded g = { WIFEXITED(st) ? WEXITSTATUS(st) : -1, itest_now() - t0, NULL,
	                   itest_slurp(out) };
	log_grading(children_cpu() - c0, g.wall_s, 0, lesson, kernel, extra);
	char *j = itest_slurp(json);
	g.json = j ? cJSON_Parse(j) : NULL;
	unlink(json);
	unlink(out);
	*json_text = j;
	return g;
}

/* extra with its "--timeout @hang" or "--timeout @N" (itest.h) replaced by the measured
 * "--timeout S", in buf; extra itself when it has none. */
static const char *measured_timeout(const char *extra, char *buf, size_t len)
{
	const char *at = extra ? strstr(extra, "--timeout @") : NULL;
	if (!at)
		return extra;
	const char *p = at + strlen("--timeout @");
	int min_s = strncmp(p, "hang", 4) == 0 ? 3 : atoi(p);
	p += strcspn(p, " ");
	snprintf(buf, len, "%.*s--timeout %d%s", (int)(at - extra), extra,
	         itest_hang_timeout(min_s > 0 ? min_s : 3, itest_base_s()), p);
	return buf;
}

/* A cached grading holds the entry's lock (flock on KEY.lock) while it looks and, on a miss,
 * while it grades: two binaries of one `make test` (tests/run.sh shares ITEST_CACHE among
 * them) asking for the same grading at once run it once, the second waiting for the first.
 * The lock goes with the process, so a test that fails or dies mid-grading frees it. */
static itest_graded grade(const char *env, const char *lesson, const char *kernel, const char *extra,
                          int cached, const char *html)
{
	char key[4096] = "", path[4200], page[4300];
	int lock = -1;
	itest_graded g;
	if (cached && cache_key(key, sizeof key, lesson, kernel, extra)) {
		snprintf(path, sizeof path, "%s.lock", key);
		lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
			;
		if (cache_read(key, &g)) {
			log_grading(0, 0, 1, lesson, kernel, extra);
			if (lock >= 0)
				close(lock);
			return g;
		}
	}
	char *j = NULL, timed[600];
	extra = measured_timeout(extra, timed, sizeof timed);
	/* a cached grading keeps its HTML page too (KEY.html, before the meta file marks the
	 * entry whole), for itest_grade_page; the page does not change the text or the JSON */
	if (*key)
		snprintf(page, sizeof page, "%s.%d.html", key, (int)getpid());
	g = run_clgrade(env, lesson, kernel, extra, *key ? page : html, &j);
	if (!g.text || !g.json) {
		if (lock >= 0)
			close(lock);
		ck_assert_msg(g.text != NULL, "no terminal output");
		ck_assert_msg(g.json != NULL, "no JSON report; terminal said:\n%s", g.text);
	}
	if (*key) {
		snprintf(path, sizeof path, "%s.html", key);
		if (rename(page, path) != 0)
			unlink(page);
		cache_write(key, &g, j);
	}
	free(j);
	if (lock >= 0)
		close(lock);
	return g;
}

itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra)
{
	return grade(NULL, lesson, kernel, extra, 1, NULL);
}

itest_graded itest_grade_fresh(const char *env, const char *lesson, const char *kernel,
                               const char *extra)
{
	return grade(env, lesson, kernel, extra, 0, NULL);
}

/* cp from to; 0 on success. */
static int copy_file(const char *from, const char *to)
{
	char *s = itest_slurp(from);
	int ok = s && write_file(to, s) == 0;
	free(s);
	return ok ? 0 : -1;
}

itest_graded itest_grade_page(const char *lesson, const char *kernel, const char *extra,
                              const char *html)
{
	char key[4096], path[4200];
	if (!cache_key(key, sizeof key, lesson, kernel, extra))
		return grade(NULL, lesson, kernel, extra, 0, html);   /* no cache: the page itself */
	itest_graded g = grade(NULL, lesson, kernel, extra, 1, NULL);
	snprintf(path, sizeof path, "%s.html", key);
	ck_assert_msg(copy_file(path, html) == 0, "no HTML page for %s; terminal said:\n%s", kernel,
	              g.text);
	return g;
}

double itest_base_s(void)
{
	/* an ordinary check: never a compromised one (test_trust sets CLGRADE_TEST_COMPROMISE
	 * around the gradings it measures a limit for; empty is none, check.c) */
	itest_graded g = grade("POCL_KERNEL_CACHE=0 CLGRADE_TEST_COMPROMISE=", "1",
	                       "tests/fixtures/l1_wrong_index.cl", "--no-analysis", 0, NULL);
	ck_assert_msg(g.exit == 1, "the baseline grading (l1_wrong_index.cl) exited %d:\n%s", g.exit,
	              g.text);
	double s = g.wall_s;
	itest_done(&g);
	return s;
}

int itest_hang_timeout(int min_s, double base_s)
{
	int s = (int)(2 * base_s + 0.999);
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
	/* One cache of graded reports (see itest_grade): the suite's when ITEST_CACHE names one
	 * (tests/run.sh makes one for all the binaries of a `make test`), else this binary's,
	 * made here in the parent, before any fork, and removed at the end; the children only
	 * read and write files in it, each entry under its lock.  ITEST_CACHE= (empty) turns it
	 * off. */
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

const char *itest_status(const itest_graded *g, const char *id)
{
	cJSON *c = itest_crit(g, id);
	const char *s = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")) : "absent";
	return s ? s : "absent";
}

const char *itest_message(const itest_graded *g, const char *id)
{
	cJSON *c = itest_crit(g, id);
	const char *m = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, "message")) : NULL;
	return m ? m : "";
}
