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

static Suite *suite(void)
{
	Suite *s = suite_create("learner");
	TCase *tests = tcase_create("tests");
	TCase *all[] = { tests };
	for (int i = 0; i < 1; i++) {
		tcase_set_timeout(all[i], 120);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(tests, solved_starters_do_not_reach_the_tests);
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
