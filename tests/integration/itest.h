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
 * Within one `make test` the same grading (lesson, kernel path and bytes, EXTRA, working
 * directory, CLGRADE_TEST_COMPROMISE) runs once: its exit, wall time, text and JSON are kept
 * in the cache folder ITEST_CACHE (tests/run.sh makes one for all the binaries it runs; a
 * binary run alone makes its own, itest_run; the seed is always 1) and given to every later
 * test, of any binary, that asks again; one asking while another grades it waits for it.
 * ITEST_LOG=FILE appends a line per grading asked for: binary, CPU s, wall s, run or hit.
 * Tests that time the grading itself use itest_grade_fresh, which always runs clgrade. */
itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra);
itest_graded itest_grade_fresh(const char *env, const char *lesson, const char *kernel,
                               const char *extra);   /* env: "VAR=value ..." or NULL */

/* As itest_grade, and the grading's HTML page (--html) copied to the file html: a cached
 * grading keeps its page (every cached grading runs with --html, which changes neither its
 * text nor its JSON), so a page test_html asks for is the report another binary's test made
 * of the same kernel with the same options; without a cache, clgrade writes html itself. */
itest_graded itest_grade_page(const char *lesson, const char *kernel, const char *extra,
                              const char *html);

/* Load-proof time limits.  itest_base_s: the wall time of an ordinary grading measured now,
 * in the calling test: lesson 1's l1_wrong_index.cl without the analysis and without PoCL's
 * cache (POCL_KERNEL_CACHE=0), i.e. what starting clgrade, one PoCL build of a lesson-1
 * kernel and its runs take on this machine at this moment.  itest_hang_timeout: the
 * --timeout S to give a hanging kernel so that its probe build (S on the grader's clock, slowed
 * by the analysis building and spinning beside it, and by a load that rises after base was
 * measured: a build killed at S = base was reported as CL_BUILD_PROGRAM_FAILURE under a load
 * of 13 on 2 cores) never meets the limit: at least min_s, at least twice base. */
double itest_base_s(void);
int itest_hang_timeout(int min_s, double base_s);

/* As itest_grade's EXTRA: "--timeout S" for a kernel that hangs, S = itest_hang_timeout(3,
 * itest_base_s()) measured when the grading runs (a fixed 3 s was met by the build itself on
 * a loaded machine).  Cached like any other under this EXTRA, whatever S was: what the
 * tests assert of a hang (runs fails, timed out, its explanation) does not depend on S. */
#define ITEST_HANG_TIMEOUT "--timeout @hang"
/* "--timeout @N" anywhere in EXTRA likewise: itest_hang_timeout(N, itest_base_s()) when it
 * runs, the rest of EXTRA kept. */

/* CLOCK_MONOTONIC in seconds. */
double itest_now(void);
void itest_done(itest_graded *g);

/* Run the suite (every integration test's main): EXIT_SUCCESS when no test failed.  Makes
 * the binary's grading cache (ITEST_CACHE) before the first fork and removes it after. */
#include <check.h>
int itest_run(Suite *s);

/* The criterion object with this id in the report's "criteria", or NULL. */
cJSON *itest_crit(const itest_graded *g, const char *id);

/* A criterion's "status" ("pass", "fail", "not_checked"), or "absent" when the report has no
 * such criterion; its "message", or "" when there is none. */
const char *itest_status(const itest_graded *g, const char *id);
const char *itest_message(const itest_graded *g, const char *id);

#endif
