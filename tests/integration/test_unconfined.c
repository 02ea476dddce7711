/* test_unconfined.c — a Linux kernel without Landlock or without seccomp (issue 9): `check`
 * still grades and says so in its report, and `batch` refuses to run unless --unconfined.
 *
 * No kernel is rebuilt: the test withholds the mechanism from the real build/clgrade with a
 * seccomp filter of its own, installed in the forked child before exec and inherited by
 * everything clgrade starts.  Without Landlock: landlock_create_ruleset, _add_rule and
 * _restrict_self answer ENOSYS, exactly what a kernel built without it answers.  Without
 * seccomp: prctl(PR_GET_SECCOMP / PR_SET_SECCOMP) answers EINVAL and seccomp() ENOSYS, as on a
 * kernel built without CONFIG_SECCOMP (the test's own filter, installed first, stays). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

enum withheld { NO_LANDLOCK, NO_SECCOMP };

static int withhold(enum withheld w)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int rc = f ? 0 : -1;
	if (w == NO_LANDLOCK) {
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_create_ruleset), 0);
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_add_rule), 0);
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_restrict_self), 0);
	} else {
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(seccomp), 0);
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
		                       SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP));
		rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
		                       SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP));
	}
	rc |= seccomp_load(f);
	seccomp_release(f);
	return rc;
}

/* Run argv with the mechanism withheld; stdout+stderr into *text.  Returns the exit status. */
static int run_without(enum withheld w, char *const argv[], char **text)
{
	char log[] = "/tmp/clgrade-unconfined-XXXXXX";
	int fd = mkstemp(log);
	ck_assert_int_ge(fd, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("NO_COLOR", "1", 1);
		setenv("COLUMNS", "400", 1);
		if (withhold(w) != 0)
			_exit(99);
		execv(argv[0], argv);
		_exit(98);
	}
	int st;
	waitpid(pid, &st, 0);
	close(fd);
	*text = itest_slurp(log);
	unlink(log);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) < 98, "could not start %s under the filter",
	              argv[0]);
	return WEXITSTATUS(st);
}

static const char *what[] = { "no Landlock", "no seccomp" };

/* check grades, and its text and JSON say the kernel ran without the full sandbox. */
START_TEST(check_grades_and_says_so)
{
	char json[] = "/tmp/clgrade-unconfined-json-XXXXXX";
	close(mkstemp(json));
	char *argv[] = { "build/clgrade", "check", "1", "kernels/solutions/01-naive-matmul.cl",
	                 "--seed", "1", "--json", json, NULL };
	char *text;
	int rc = run_without(_i, argv, &text);
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, text);
	ck_assert_msg(strstr(text, "ran without the full sandbox") && strstr(text, what[_i]),
	              "the text does not say it ran unconfined (%s):\n%s", what[_i], text);
	char *j = itest_slurp(json);
	cJSON *r = cJSON_Parse(j ? j : "");
	const char *sb = cJSON_GetStringValue(cJSON_GetObjectItem(r, "sandbox"));
	ck_assert_msg(sb && strstr(sb, what[_i]), "JSON sandbox: %s", sb ? sb : "(none)");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "verdict")), "pass");
	cJSON_Delete(r);
	free(j);
	free(text);
	unlink(json);
}
END_TEST

/* With both present the same check says "confined" and has no such note. */
START_TEST(check_confined_says_confined)
{
	itest_graded g = itest_grade("1", "kernels/solutions/01-naive-matmul.cl", NULL);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(g.json, "sandbox")), "confined");
	ck_assert_ptr_null(strstr(g.text, "ran without the full sandbox"));
	itest_done(&g);
}
END_TEST

/* batch refuses (exit 2, nothing graded, the reason and the flag named), then grades with
 * --unconfined. */
START_TEST(batch_refuses_unless_unconfined)
{
	char dir[] = "/tmp/clgrade-unconfined-batch-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char subs[256], out[256], csv[300], cmd[1200];
	snprintf(subs, sizeof subs, "%s/subs", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(csv, sizeof csv, "%s/grades.csv", out);
	mkdir(subs, 0700);
	snprintf(cmd, sizeof cmd, "cp kernels/solutions/01-naive-matmul.cl %s/alice.cl", subs);
	ck_assert_int_eq(system(cmd), 0);

	char *refuse[] = { "build/clgrade", "batch", "1", subs, "--out", out, NULL };
	char *text;
	int rc = run_without(_i, refuse, &text);
	ck_assert_msg(rc == 2, "batch, %s: exit %d\n%s", what[_i], rc, text);
	ck_assert_msg(strstr(text, "--unconfined") && strstr(text, what[_i]), "%s", text);
	ck_assert_int_ne(access(csv, F_OK), 0);
	free(text);

	/* without the analysis: what is asserted is that it grades, not what Oclgrind finds
	 * (check_grades_and_says_so grades with it, unconfined) */
	char *allow[] = { "build/clgrade", "batch", "1", subs, "--out", out, "--unconfined",
	                  "--no-analysis", NULL };
	rc = run_without(_i, allow, &text);
	ck_assert_msg(rc == 0, "batch --unconfined: exit %d\n%s", rc, text);
	char *grades = itest_slurp(csv);
	ck_assert_msg(grades && strstr(grades, "alice"), "no row for alice:\n%s", grades ? grades : "");
	free(grades);
	free(text);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("unconfined");
	TCase *t = tcase_create("withheld");
	tcase_set_timeout(t, 180);
	tcase_add_loop_test(t, check_grades_and_says_so, NO_LANDLOCK, NO_SECCOMP + 1);
	tcase_add_test(t, check_confined_says_confined);
	tcase_add_loop_test(t, batch_refuses_unless_unconfined, NO_LANDLOCK, NO_SECCOMP + 1);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
