/* cause.h — the root cause of a failing check, from every criterion's evidence at once.
 *
 * The criteria are judged one by one (criteria.c); each sees its own evidence.  Some
 * failures are only symptoms of another: a barrier that not every work-item reaches, or a
 * data race, makes results wrong and can make a native run write past a buffer; an
 * out-of-bounds access makes results wrong and can crash the host.  cause_apply looks at all
 * of them after the criteria, names the cause once (rep->cause), and makes each symptom say
 * what causes it and point there instead of guessing a fix of its own. */
#ifndef CLGRADE_CAUSE_H
#define CLGRADE_CAUSE_H

#include "check.h"

/* Find the cause among rep's failing criteria and rewrite the symptoms it explains.  Needs
 * rep->crit judged; a check with no failing cause criterion is left as it is. */
void cause_apply(const check_opts *o, check_report *rep);
/* Is finding f an access past a __local array (Oclgrind: "local memory", "exceeds static
 * array")? */
int cause_local_oob(const check_finding *f);

#endif
