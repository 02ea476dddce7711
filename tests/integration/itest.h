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
 * the calling test when there is no text or no JSON report.  Free with itest_done. */
itest_graded itest_grade(const char *lesson, const char *kernel, const char *extra);
void itest_done(itest_graded *g);

/* Run the suite (every integration test's main): EXIT_SUCCESS when no test failed. */
#include <check.h>
int itest_run(Suite *s);

/* The criterion object with this id in the report's "criteria", or NULL. */
cJSON *itest_crit(const itest_graded *g, const char *id);

#endif
