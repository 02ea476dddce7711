/* criteria.h — the criteria stage of a check: each criterion of the lesson judged from the
 * typed results of the stages before it (rep->child, rep->an, rep->view, rep->pred), with
 * its message and what to try; then the root cause among the failures (cause.h), the verdict
 * and the exit code.  The renderers print what it decided. */
#ifndef CRITERIA_H
#define CRITERIA_H

#include "check.h"

/* Judge every criterion of o->l into rep->crit (source: the student's file as written), then
 * rep->cause, rep->verdict_pass and rep->exit_code. */
void crit_eval(const check_opts *o, const char *source, check_report *rep);

/* ---- shared by the criteria's own files (criteria.c, criteria_an.c) ------------------- */

/* What to try when the analysis could not run the kernel through. */
#define CRIT_ANALYSIS_TRY "make the kernel run under Oclgrind, the simulator that checks races, " \
	"bounds and banks: `oclgrind` must be able to build and launch it at the lesson's small " \
	"analysis size within the time limit"

/* Set criterion c (NULL: the lesson has none): its status, what to try (NULL: nothing), and
 * its message from fmt. */
void crit_set(check_crit *c, check_status st, const char *try_, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Quote the first findings of kinds k1 and k2 (k2 < 0: none), in Oclgrind's order, as
 * "file:line:col: message (with line N)"; returns how many there are in all. */
int crit_findings(const check_report *rep, check_find_kind k1, int k2, char *buf, size_t len);

/* correct, right natively (done: the native runs that finished) and wrong at the size the
 * Oclgrind analysis ran at (criteria_an.c). */
void crit_correct_analysis_wrong(const check_opts *o, check_report *rep, int done);

/* The analysis' criteria (criteria_an.c), each setting its own check_crit of rep. */
void crit_memory(const check_opts *o, const char *source, check_report *rep);
void crit_races(const check_opts *o, const char *source, check_report *rep);
void crit_local(const check_opts *o, check_report *rep);
void crit_conflicts(const check_opts *o, const char *source, check_report *rep);
void crit_coalesced(const check_opts *o, check_report *rep);

#endif
