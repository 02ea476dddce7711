/* test_trust.c — the trust boundary: a process that launched the student's kernel is believed
 * in nothing.  On PoCL a kernel is native code that can rewrite its whole process; rather than
 * write such a kernel for every family (the pointer tricks that did it are now refused at
 * build), the run child is told to behave as a taken-over one would (CLGRADE_TEST_COMPROMISE,
 * devrun_run.c): it forges its whole result page, forges right answers for a wrong kernel, leaves
 * a grandchild that tries to leave the process group, or claims its work done and spins.  The
 * verdicts must not move, the limits must hold, and nothing may outlive the check.  Real
 * build/clgrade, real PoCL and Oclgrind. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define FX "tests/fixtures/"

static itest_graded compromised(const char *how, const char *lesson, const char *kernel,
                                const char *extra)
{
	setenv("CLGRADE_TEST_COMPROMISE", how, 1);
	itest_graded g = itest_grade(lesson, kernel, extra);
	unsetenv("CLGRADE_TEST_COMPROMISE");
	return g;
}

static const char *status(const itest_graded *g, const char *id)
{
	cJSON *c = itest_crit(g, id);
	cJSON *p = c ? cJSON_GetObjectItem(c, "passed") : NULL;
	return !c ? "absent" : cJSON_IsTrue(p) ? "pass" : cJSON_IsFalse(p) ? "fail" : "not_checked";
}

/* A forged page (success everywhere, pristine inputs and guards, a wrong output, timings of a
 * microsecond) cannot pass `correct`; the starter of every lesson stays FAIL. */
START_TEST(forged_page_fails)
{
	static const char *cases[][2] = {
		{ "1", "kernels/solutions/01-naive-matmul.cl" },
		{ "3", "kernels/solutions/03-transpose-padding.cl" },
		{ "5", "kernels/solutions/05-reduction.cl" },
	};
	for (int i = 0; i < 3; i++) {
		itest_graded g = compromised("page", cases[i][0], cases[i][1], "--no-analysis");
		ck_assert_msg(g.exit == 1, "%s: exit %d", cases[i][1], g.exit);
		ck_assert_str_eq(status(&g, "correct"), "fail");
		ck_assert_ptr_nonnull(strstr(g.text, "verdict: FAIL"));
		itest_done(&g);
	}
}
END_TEST

/* A wrong kernel whose process forges the reference's own answers natively: the interpreter's
 * run, judged by the parent, disagrees, and `correct` fails on it. */
START_TEST(forged_right_answers_caught_by_the_interpreter)
{
	itest_graded g = compromised("right", "3", FX "l3_guard_rows_cols_swapped.cl", "");
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(status(&g, "correct"), "fail");
	cJSON *c = itest_crit(&g, "correct");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "Oclgrind analysis ran at"), "%s", m);
	itest_done(&g);
}
END_TEST

/* Live (not zombie) processes named clgrade-forked. */
static int forked_alive(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) != NULL) {
		char path[300], buf[512];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t k = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[k] = '\0';
		char *name = strstr(buf, "(clgrade-forked)");
		n += name && name[16] == ' ' && name[17] != 'Z' && name[17] != 'X';
	}
	if (d)
		closedir(d);
	return n;
}

/* A grandchild that calls setsid and setpgid (refused) and sleeps: gone when the check ends. */
START_TEST(no_process_outlives_the_check)
{
	itest_graded g = compromised("fork", "3", "kernels/starter/03-transpose-padding.cl",
	                             "--no-analysis");
	ck_assert_int_eq(g.exit, 1);
	itest_done(&g);
	ck_assert_int_eq(forked_alive(), 0);
}
END_TEST

/* ... and when the grader itself is killed with SIGKILL while the grandchild sleeps: the
 * watchdog (sandbox.c) kills the process groups the grader left. */
START_TEST(no_process_outlives_a_killed_grader)
{
	pid_t g = fork();
	ck_assert_int_ge(g, 0);
	if (g == 0) {
		setenv("CLGRADE_TEST_COMPROMISE", "fork", 1);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl("build/clgrade", "clgrade", "check", "3", "kernels/starter/03-transpose-padding.cl",
		      "--no-analysis", (char *)NULL);
		_exit(127);
	}
	int seen = 0;
	for (int i = 0; i < 600 && !seen; i++) {
		usleep(50000);
		seen = forked_alive();
	}
	kill(g, SIGKILL);
	waitpid(g, NULL, 0);
	ck_assert_msg(seen, "the grandchild never started");
	int left = 1;
	for (int i = 0; i < 40 && left; i++) {   /* the watchdog acts at once; allow 2 s */
		usleep(50000);
		left = forked_alive();
	}
	ck_assert_int_eq(left, 0);
}
END_TEST

/* A child that says it is done and spins is stopped by the parent's clock: --timeout S (at
 * least 4, at least twice an ordinary check now, so that the probe's build never meets it on
 * a loaded machine) and no analysis, so nothing but the parent's limit can end it (the
 * kernel would run forever). */
START_TEST(a_lying_child_cannot_stretch_the_limit)
{
	itest_graded g = compromised("hang", "1", "kernels/solutions/01-naive-matmul.cl",
	                             "--no-analysis --timeout @4");
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(status(&g, "runs"), "fail");
	cJSON *c = itest_crit(&g, "runs");
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
	ck_assert_msg(m && strstr(m, "timed out"), "%s", m ? m : "(none)");
	/* the limit is 4 s from the child's start, and before that the probe's build: far less
	 * than the old S + child-reported build time that let a kernel run for minutes */
	ck_assert_msg(g.wall_s < 60, "took %.1f s", g.wall_s);
	itest_done(&g);
}
END_TEST

/* Kernels that once turned a FAIL into NOT GRADED or were blamed for PoCL's bug: each with
 * the exit code and the criterion it must have, and words its report must hold. */
static const struct verdict {
	const char *lesson, *file, *extra;
	int exit;
	const char *crit, *status, *says;
} verdicts[] = {
	/* heavy only under the interpreter: the solution finishes there, so the kernel fails.
	 * --timeout max(4, twice an ordinary check now) (itest.h): a fixed 4 s let the solution's
	 * own control analysis run out of time on a loaded machine (memory_safe not_checked);
	 * the fixture's 20 million interpreted turns stay far past either */
	{ "5", FX "l5_slow_under_interpreter.cl", "--timeout @4", 1, "memory_safe", "fail",
	  "did not finish under Oclgrind" },
	/* the compiler gives up, or runs out of memory at the first launch: the kernel's FAIL */
	{ "1", FX "l1_huge_expression.cl", NULL, 1, "builds", "fail", NULL },
	{ "1", FX "l1_constant_128mib.cl", NULL, 1, "builds", "fail", NULL },
	/* a masked float4 over-read: right sums, out of bounds at the odd analysed size */
	{ "5", FX "l5_float4_overread.cl", "--seed 2", 1, "memory_safe", "fail", "Invalid read" },
	/* PoCL's miscompile of a legal tree: judged on workitemrepl's runs, and named (correct
	 * passes; its one load per turn fails the predicted speedup, as the H200 would).
	 * --timeout 60: the workitemrepl rerun builds the 256-work-item group once per work-item,
	 * about 10 s of CPU, within one --timeout; under a load of 20 the default 20 s ran out and
	 * the first (miscompiled) runs stood: correct failed (94 s wall, 16.4 s CPU at 60) */
	{ "5", FX "l5_pocl_miscompiled_tree.cl", "--timeout 60", 1, "correct", "pass", NULL },
};

START_TEST(resource_use_is_the_kernels_own)
{
	const struct verdict *v = &verdicts[_i];
	itest_graded g = itest_grade(v->lesson, v->file, v->extra);
	ck_assert_msg(g.exit == v->exit, "%s: exit %d, not %d", v->file, g.exit, v->exit);
	ck_assert_msg(strcmp(status(&g, v->crit), v->status) == 0, "%s: %s is %s", v->file, v->crit,
	              status(&g, v->crit));
	cJSON *c = itest_crit(&g, v->crit);
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
	if (v->says)
		ck_assert_msg(m && strstr(m, v->says), "%s: %s says \"%s\"", v->file, v->crit, m);
	if (v->exit == 0 && strstr(v->file, "miscompiled"))
		ck_assert_ptr_nonnull(strstr(g.text, "PoCL miscompile"));
	ck_assert_ptr_null(strstr(g.text, "NOT GRADED"));
	itest_done(&g);
}
END_TEST

/* A child's exit status is its word too: exit 0 after one run (skipping the rest, which once
 * passed `correct` on the runs that came back) and exit 126 (the status of a child the
 * sandbox could not confine: NOT GRADED) are the kernel's failures. */
START_TEST(an_exit_status_is_not_believed)
{
	static const char *how[] = { "exit0", "exit126" };
	itest_graded g = compromised(how[_i], "1", "kernels/solutions/01-naive-matmul.cl",
	                             "--no-analysis");
	ck_assert_msg(g.exit == 1, "%s: exit %d", how[_i], g.exit);
	ck_assert_str_eq(status(&g, "runs"), "fail");
	ck_assert_ptr_null(strstr(g.text, "NOT GRADED"));
	itest_done(&g);
}
END_TEST

/* The attack review's kernels that need no native power, and one that does. */
START_TEST(native_only_and_invisible_text)
{
	itest_graded g = compromised("right", "1", FX "l1_no_oclgrind_build.cl", "");
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(status(&g, "correct"), "fail");
	itest_done(&g);
	g = itest_grade("1", FX "l1_invisible_identifier.cl", "");
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(status(&g, "builds"), "fail");
	static const char *raw[] = { "\xe2\x81\xa0", "\xe2\x80\x8b", "\xe2\x81\xae" };
	char *json = cJSON_PrintUnformatted(g.json);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(!strstr(g.text, raw[i]), "a raw format character in the text report");
		ck_assert_msg(!strstr(json, raw[i]), "a raw format character in the JSON");
	}
	ck_assert_ptr_nonnull(strstr(g.text, "\\u{2060}"));
	free(json);
	itest_done(&g);
}
END_TEST

static Suite *trust_suite(void)
{
	Suite *s = suite_create("trust");
	TCase *t = tcase_create("boundary");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, forged_page_fails);
	tcase_add_test(t, forged_right_answers_caught_by_the_interpreter);
	tcase_add_test(t, no_process_outlives_the_check);
	tcase_add_test(t, no_process_outlives_a_killed_grader);
	tcase_add_test(t, native_only_and_invisible_text);
	tcase_add_test(t, a_lying_child_cannot_stretch_the_limit);
	tcase_add_loop_test(t, an_exit_status_is_not_believed, 0, 2);
	tcase_add_loop_test(t, resource_use_is_the_kernels_own, 0,
	                    (int)(sizeof verdicts / sizeof verdicts[0]));
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(trust_suite());
}
