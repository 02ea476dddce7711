/* test_learner.c — integration tests of the student's loop around the grader: the test suite
 * is independent of the student's work, `clgrade watch` re-grades on save, hints are revealed
 * one at a time and never hold the solution, a PASS points at the next lesson, lesson 4's
 * trade-off between two GPU profiles, `clgrade devices`, and the barrier fixture.  Real PoCL,
 * real Oclgrind, the real build/clgrade as a subprocess; runs inside build/pristine (see
 * tests/pristine.sh), like every test of `make test`. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

#define FX "tests/fixtures/"

/* Run a shell command; its exit status (-1 when it did not exit). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The checkout the tests were built from: build/clgrade is a link into it. */
static void source_root(char *buf, size_t len)
{
	char real[PATH_MAX];
	ck_assert_ptr_nonnull(realpath("build/clgrade", real));
	*strrchr(real, '/') = '\0';              /* .../build */
	*strrchr(real, '/') = '\0';              /* ... */
	snprintf(buf, len, "%s", real);
}

/* ---- make test is independent of the student's work ------------------------------------- */

/* A student who copied every solution over its starter: tests/pristine.sh still gives the
 * tests the starters as committed, and those still fail, while the student's files pass. */
START_TEST(solved_starters_do_not_reach_the_tests)
{
	char dir[] = "/tmp/clgrade-solved-XXXXXX", root[PATH_MAX], path[PATH_MAX];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	source_root(root, sizeof root);
	if (sh("git -C %s rev-parse HEAD >/dev/null 2>&1", root) != 0) {
		sh("rm -rf %s", dir);
		return;                               /* a tarball: pristine.sh says so itself */
	}
	ck_assert_int_eq(sh("git clone -q %s %s/suite && cd %s/suite && "
	                    "for f in kernels/solutions/*.cl; do cp $f kernels/starter/; done && "
	                    "mkdir build && for f in clgrade libcltrace.so liboclquiet.so oclgrind-icd; do "
	                    "ln -s %s/build/$f build/$f; done && "
	                    "sh tests/pristine.sh build/pristine > pristine.txt", root, dir, dir,
	                    root), 0);
	/* every pristine starter is the committed one, not the solution the student copied */
	ck_assert_int_eq(sh("cd %s/suite && for f in kernels/starter/*.cl; do "
	                    "git show HEAD:$f | cmp -s - build/pristine/$f || exit 1; "
	                    "cmp -s $f build/pristine/$f && exit 1; done; exit 0", dir), 0);
	/* graded: the student's lesson 1 passes, the pristine starter still fails (exit 1) */
	ck_assert_int_eq(sh("cd %s/suite && build/clgrade check 1 --no-analysis --seed 1 "
	                    "> student.txt 2>&1", dir), 0);
	ck_assert_int_eq(sh("cd %s/suite/build/pristine && build/clgrade check 1 --no-analysis "
	                    "--seed 1 > ../../starter.txt 2>&1", dir), 1);
	snprintf(path, sizeof path, "%s/suite/pristine.txt", dir);
	char *t = itest_slurp(path);
	ck_assert_msg(t && strstr(t, "as committed (git HEAD)"), "%s", t ? t : "");
	free(t);
	sh("rm -rf %s", dir);
}
END_TEST

/* ---- clgrade watch (make watch) --------------------------------------------------------------- */

static int count(const char *text, const char *what)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Wait until the file at path holds `want` times the string what; its text (to free), or
 * NULL after limit seconds. */
static char *wait_for(const char *path, const char *what, int want, int limit)
{
	for (int i = 0; i < limit * 10; i++) {
		char *t = itest_slurp(path);
		if (t && count(t, what) >= want)
			return t;
		free(t);
		usleep(100000);
	}
	return NULL;
}

/* Write text to path (created or truncated), in this process: no fork, no exec, so a burst
 * of such writes takes microseconds however loaded the machine (a shell per write once took
 * longer than the watch's 300 ms debounce: two re-grades for one burst). */
static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* Save a file the way editors do: write a new file, rename it into place. */
static void save_as_editor(const char *text, const char *to)
{
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s.swp", to);
	put_file(tmp, text);
	ck_assert_int_eq(rename(tmp, to), 0);
}

/* The student's loop: the first line names the watched file, the starter fails, a save of
 * the fix re-grades once (a burst of writes is one re-grade), PASS, and Ctrl-C leaves with 0. */
START_TEST(watch_regrades_on_save_until_pass)
{
	char dir[] = "/tmp/clgrade-watch-XXXXXX", kernel[300], out[300];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(kernel, sizeof kernel, "%s/matmul.cl", dir);
	snprintf(out, sizeof out, "%s/out.txt", dir);
	ck_assert_int_eq(sh("cp kernels/starter/01-naive-matmul.cl %s", kernel), 0);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("NO_COLOR", "1", 1);
		execl("build/clgrade", "clgrade", "watch", "1", kernel, "--no-analysis", "--seed", "1",
		      (char *)NULL);
		_exit(127);
	}
	char *t = wait_for(out, "verdict: FAIL", 1, 90);
	ck_assert_msg(t != NULL, "no first report");
	ck_assert_msg(strncmp(t, "watching ", 9) == 0 && strncmp(t + 9, kernel, strlen(kernel)) == 0,
	              "first line: %.*s", (int)strcspn(t, "\n"), t);
	free(t);
	/* a burst: three quick writes, then the fix saved by rename, all within the debounce
	 * (the texts read first, so that nothing between the writes waits on the disk) */
	char *starter = itest_slurp("kernels/starter/01-naive-matmul.cl");
	char *solution = itest_slurp("kernels/solutions/01-naive-matmul.cl");
	ck_assert(starter && solution);
	for (int i = 0; i < 3; i++)
		put_file(kernel, starter);
	save_as_editor(solution, kernel);
	free(starter);
	free(solution);
	t = wait_for(out, "verdict: PASS", 1, 90);
	ck_assert_msg(t != NULL, "no PASS after the save");
	free(t);
	sleep(1);                                   /* no second re-grade for the same burst */
	kill(pid, SIGINT);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	t = itest_slurp(out);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %d\n%s", st, t);
	ck_assert_msg(count(t, "verdict: ") == 2, "%d reports:\n%s", count(t, "verdict: "), t);
	ck_assert_ptr_nonnull(strstr(t, "stopped watching"));
	ck_assert_ptr_nonnull(strstr(t, "next: lesson 2"));
	free(t);
	/* a file that is not there is a usage error, not a silent wait */
	ck_assert_int_eq(sh("build/clgrade watch 1 %s/none.cl > /dev/null 2>&1", dir), 2);
	ck_assert_int_eq(sh("build/clgrade watch 99 > /dev/null 2>&1"), 2);
	sh("rm -rf %s", dir);
}
END_TEST

/* ---- the seeds' points: host-side device facts, barriers across work-groups ---------------- */

/* `clgrade devices` prints what lesson 4's host code queries, with PoCL's real values. */
START_TEST(devices_prints_the_host_side_facts)
{
	char out[] = "/tmp/clgrade-dev-XXXXXX";
	int fd = mkstemp(out);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(sh("build/clgrade devices > %s 2>&1", out), 0);
	char *t = itest_slurp(out);
	ck_assert_msg(strstr(t, "Portable Computing Language") && strstr(t, "compute units") &&
	              strstr(t, "local memory") && strstr(t, "type global (emulated in global memory") &&
	              strstr(t, "max work-group size") && strstr(t, "profiling timer resolution"),
	              "%s", t);
	/* the numbers are the device's: PoCL has at least one compute unit and a 1+ ns timer */
	const char *cu = strstr(t, "compute units"), *tr = strstr(t, "profiling timer resolution");
	ck_assert_int_ge(atoi(cu + strlen("compute units")), 1);
	ck_assert_int_ge(atoi(tr + strlen("profiling timer resolution")), 1);
	free(t);
	unlink(out);
}
END_TEST

/* Staging B in C and "waiting" with a barrier: a race between work-groups, named as such. */
START_TEST(barrier_across_work_groups_fails_race_free_with_why)
{
	char json[] = "/tmp/clgrade-bx-XXXXXX", txt[64];
	int fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(txt, sizeof txt, "%s.txt", json);
	int rc = sh("NO_COLOR=1 build/clgrade check 1 " FX "l1_barrier_across_groups.cl --seed 1 "
	            "--json %s > %s 2>&1", json, txt);
	char *t = itest_slurp(txt), *j = itest_slurp(json);
	cJSON *root = cJSON_Parse(j), *c, *race = NULL;
	ck_assert_msg(rc == 1 && root, "exit %d\n%s", rc, t);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), "race_free") == 0)
			race = c;
	ck_assert_ptr_nonnull(race);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(race, "status")), "fail");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(race, "message"));
	ck_assert_msg(strstr(m, "different work-groups, and a barrier only synchronises the "
	                     "work-items of one work-group"), "%s", m);
	/* the finding says so in the JSON too */
	int across = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "diagnostics"))
		across += cJSON_IsTrue(cJSON_GetObjectItem(c, "across_groups"));
	ck_assert_int_gt(across, 0);
	cJSON_Delete(root);
	free(t);
	free(j);
	unlink(json);
	unlink(txt);
	/* a race inside one work-group is not blamed on work-groups */
	rc = sh("NO_COLOR=1 build/clgrade check 2 " FX "l2_no_barrier2.cl --seed 1 --json %s > %s 2>&1",
	        json, txt);
	t = itest_slurp(txt);
	ck_assert_msg(rc == 1 && strstr(t, "✗ race_free") && !strstr(t, "different work-groups"),
	              "%s", t);
	free(t);
	unlink(json);
	unlink(txt);
}
END_TEST

/* ---- lesson 4: a real trade-off ------------------------------------------------------------ */

/* Choosing the largest TILE for the 1536-thread sm_86 fails tile_choice with the numbers; the
 * sweep table shows both profiles, the register assumption, and the local-size experiment. */
START_TEST(l4_largest_tile_for_sm86_fails_tile_choice)
{
	char json[] = "/tmp/clgrade-l4-XXXXXX", txt[64];
	int fd = mkstemp(json);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(txt, sizeof txt, "%s.txt", json);
	int rc = sh("NO_COLOR=1 COLUMNS=200 build/clgrade check 4 " FX "l4_largest_tile.cl --seed 1 "
	            "--no-analysis --timeout 60 --json %s > %s 2>&1", json, txt);
	char *t = itest_slurp(txt), *j = itest_slurp(json);
	cJSON *root = cJSON_Parse(j);
	ck_assert_msg(rc == 1 && root, "exit %d\n%s", rc, t);
	const char *msg = NULL;
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), "tile_choice") == 0) {
			ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")), "fail");
			msg = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
		} else if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")), "fail") == 0) {
			ck_abort_msg("%s fails too:\n%s", cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), t);
		}
	ck_assert_msg(msg && strstr(msg, "TILE=32 on sm_86: 1 group of 1024 work-items per SM = 32 "
	              "of its 48 warp slots, 67% occupancy") &&
	              strstr(msg, "another TILE of the sweep reaches a higher occupancy") &&
	              !strstr(msg, "TILE=16"),   /* the answer is never given away */
	              "%s", msg ? msg : t);
	ck_assert_msg(strstr(t, "✗ tile_choice") && strstr(t, "sm_86 occ/groups/limit") &&
	              strstr(t, "occupancy at 32 registers per work-item, assumed") &&
	              strstr(t, "local-size experiment") && strstr(t, "32x8: "), "%s", t);
	/* the JSON carries what the table shows: both profiles per TILE, the three local sizes */
	cJSON *tiles = cJSON_GetObjectItem(root, "tiles");
	ck_assert_int_eq(cJSON_GetArraySize(tiles), 3);
	cJSON *occ32 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(tiles, 2), "occupancy"), 1);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(occ32, "profile")), "nvidia-sm86");
	ck_assert_int_eq(cJSON_GetObjectItem(occ32, "groups_per_cu")->valueint, 1);
	cJSON *ls = cJSON_GetObjectItem(root, "local_sizes");
	ck_assert_int_eq(cJSON_GetArraySize(ls), 3);
	cJSON *l;
	cJSON_ArrayForEach(l, ls)
		ck_assert_msg(cJSON_GetObjectItem(l, "kernel_ms") != NULL, "a local size was not timed\n%s", t);
	cJSON_Delete(root);
	free(t);
	free(j);
	unlink(json);
	unlink(txt);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("learner");
	TCase *tests = tcase_create("tests"), *l4 = tcase_create("lesson4"), *w = tcase_create("watch");
	TCase *seeds = tcase_create("seeds");
	TCase *all[] = { tests, l4, w, seeds };
	for (int i = 0; i < 4; i++) {
		tcase_set_timeout(all[i], 120);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(tests, solved_starters_do_not_reach_the_tests);
	tcase_add_test(l4, l4_largest_tile_for_sm86_fails_tile_choice);
	tcase_add_test(w, watch_regrades_on_save_until_pass);
	tcase_add_test(seeds, devices_prints_the_host_side_facts);
	tcase_add_test(seeds, barrier_across_work_groups_fails_race_free_with_why);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
