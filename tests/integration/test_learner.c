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

#define FX "tests/fixtures/"

static char *slurp(const char *path)
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
	                    "mkdir build && for f in clgrade libcltrace.so oclgrind-icd; do "
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
	char *t = slurp(path);
	ck_assert_msg(t && strstr(t, "as committed (git HEAD)"), "%s", t ? t : "");
	free(t);
	sh("rm -rf %s", dir);
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
	            "--no-analysis --json %s > %s 2>&1", json, txt);
	char *t = slurp(txt), *j = slurp(json);
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
	              "of its 48 warp slots, 67% occupancy") && strstr(msg, "TILE=16 reaches 100%"),
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
	TCase *tests = tcase_create("tests"), *l4 = tcase_create("lesson4");
	TCase *all[] = { tests, l4 };
	for (int i = 0; i < 2; i++) {
		tcase_set_timeout(all[i], 120);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(tests, solved_starters_do_not_reach_the_tests);
	tcase_add_test(l4, l4_largest_tile_for_sm86_fails_tile_choice);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
