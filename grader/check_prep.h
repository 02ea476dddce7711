/* check_prep.h — the check's first stage: the student's file read once (from one descriptor),
 * hashed, and preprocessed once per TILE the children build it at (preproc.h), in the parent
 * before any of the student's code runs.  Its results go into the check's context
 * (check_ctx.h) and the report's refusal or grader error; it calls no later stage. */
#ifndef CHECK_PREP_H
#define CHECK_PREP_H

#include "check_ctx.h"

/* The student's file.  NULL with err set when it cannot be read at all (the grader cannot
 * run: exit 2); a file that is read but is no kernel source (binary, UTF-16, over 256 KiB)
 * comes back as "" with refused set: a `builds` finding, not a grader failure. */
char *check_prep_read(const check_opts *o, char *err, size_t errlen, char *refused,
                      size_t rlen);

/* What to try about a refusal (rep->refused), by what refused the kernel: the pointer check
 * (ptrcheck.h), a #line directive, inline assembly, a #pragma or a directive made by a macro
 * (preproc.h), a file that is no kernel source; else an #include outside the lesson folder. */
const char *check_prep_try(const char *refused);

/* Preprocess the source once per TILE the children build it at (preproc.h) into c->pre.
 * 0; 1 when it is refused (rep->refused); 2 when the grader could not (rep->grader_error).
 * A preprocessor that runs out of time or memory is judged by a control run (below). */
int check_prep_run(const check_opts *o, const char *source, const char *tmp, check_ctx *c,
                   check_report *rep);

/* The __local bytes the kernel declares, at the lesson's TILE and at each TILE of a sweep,
 * into c->declared and c->declared_at: from the text alone. */
void check_prep_declared(const check_opts *o, const char *source, check_ctx *c);

/* Control runs: when a stage fails for want of time or memory, the lesson's reference
 * solution goes through the same stage under the same limits.  If it fails too, the
 * environment is at fault (exit 2, NOT GRADED); if it passes, the kernel is (its criteria
 * fail, with the reason).  So no kernel can turn its FAIL into NOT GRADED by being heavy only
 * where the grader looks.  The preprocessor's is here; the build's is check_dev_control, the
 * analysis' check_an_control.
 * The lesson's reference solution, read by the parent (malloc'd), or NULL. */
char *check_prep_solution(const check_opts *o);

#endif
