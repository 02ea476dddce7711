/* itest.h — what the integration tests share: run the real build/clgrade as a subprocess and
 * read back its JSON report and terminal text.  Every integration test binary links itest.c. */
#ifndef ITEST_H
#define ITEST_H

#include <cjson/cJSON.h>

/* A whole file as a NUL-terminated string (free it), or NULL when it cannot be read. */
char *itest_slurp(const char *path);

/* One `clgrade check`: its exit status, wall time, parsed JSON report and terminal text. */
typedef struct itest_graded {
	int exit;
	double wall_s;
	cJSON *json;
	char *text;
} itest_graded;

/* `NO_COLOR=1 COLUMNS=400 build/clgrade check LESSON KERNEL --seed 1 --json TMP EXTRA`; fails
 * the calling test when there is no text or no JSON report.  Free with itest_done.
 * Within one test binary the same grading (lesson, kernel path and bytes, EXTRA, working
 * directory) runs once: its exit, wall time, text and JSON are kept in the binary's cache
 * folder (itest_run; the seed is always 1) and given to every later test that asks again.
 * Tests that time the grading itself use itest_grade_fresh, which always runs clgrade. */
itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra);
itest_graded itest_grade_fresh(const char *env, const char *lesson, const char *kernel,
                               const char *extra);   /* env: "VAR=value ..." or NULL */

/* Load-proof time limits.  itest_base_s: the wall time of an ordinary grading measured now,
 * in the calling test: lesson 1's l1_wrong_index.cl without the analysis and without PoCL's
 * cache (POCL_KERNEL_CACHE=0), i.e. what starting clgrade, one PoCL build of a lesson-1
 * kernel and its runs take on this machine at this moment.  itest_hang_timeout: the
 * --timeout S to give a hanging kernel so that its build (allowed up to 2 S by the grader,
 * and slowed by the analysis spinning beside it) never meets the limit, however loaded the
 * machine: at least min_s, at least base. */
double itest_base_s(void);
int itest_hang_timeout(int min_s, double base_s);

/* As itest_grade's EXTRA: "--timeout S" for a kernel that hangs, S = itest_hang_timeout(3,
 * itest_base_s()) measured in the calling test (a fixed 3 s was met by the build itself on a
 * loaded machine).  Such a grading is never cached. */
#define ITEST_HANG_TIMEOUT "--timeout @hang"

/* CLOCK_MONOTONIC in seconds. */
double itest_now(void);
void itest_done(itest_graded *g);

/* Run the suite (every integration test's main): EXIT_SUCCESS when no test failed.  Makes
 * the binary's grading cache (ITEST_CACHE) before the first fork and removes it after. */
#include <check.h>
int itest_run(Suite *s);

/* The criterion object with this id in the report's "criteria", or NULL. */
cJSON *itest_crit(const itest_graded *g, const char *id);

#endif
