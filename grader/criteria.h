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

#endif
