/* check_dev.h — the device run of a check (devrun.h does the children's work): a confined
 * probe child that builds the kernel at every TILE and never launches, then a confined run
 * child that launches it on the chosen device and hands back bytes, which the parent judges
 * against its own references into rep->child.  The analysis (check_an.h) runs beside it and
 * is finished while the run child does its correctness runs, so timing never shares the CPU
 * with it. */
#ifndef CHECK_DEV_H
#define CHECK_DEV_H

#include "check_an.h"
#include "devrun.h"

/* The device run's inputs, from the check's context (wg_method: PoCL's work-group method,
 * NULL for its default). */
void check_dev_source(const check_ctx *c, devrun_src *s, const char *wg_method);

/* The probe child: builds at every TILE, never launches.  Its page, copied (malloc'd), or
 * NULL; *st how it ended.  While it builds, the parent lays out the plan of a CPU device and
 * makes its references (*guess, *refs; NULL: not wanted): the probe's device is nearly always
 * the CPU, and the parent has nothing else to do. */
devrun_probe *check_dev_probe(const check_opts *o, const devrun_src *s, const confine_policy *pol,
                              sandbox_status *st, devrun_plan *guess, ref_problem **refs);

/* The run child on the plan pl: launches, hands back bytes; the parent judges them into
 * rep->child.  The analysis an (NULL: none) ends while it runs its correctness slots; it
 * waits for the parent's word before timing.  Its limit is the parent's: S for the
 * correctness runs plus the time it waited for the analysis, then S for timing and the sweep.
 * refs are the references (NULL: made here), freed here.  0, or -1 when it could not be
 * started. */
int check_dev_run(const check_opts *o, const devrun_src *s, const devrun_plan *pl,
                  ref_problem *refs, const confine_policy *pol, check_an *an,
                  check_report *rep, sandbox_status *st);

/* How a child ended, into the report: a crash or a hang while it did `what`. */
void check_dev_end(const sandbox_status *st, const char *what, check_report *rep);

/* The control run of the build (check_prep.h): 1 when the solution builds at the same TILEs
 * within the probe's limits; -1 when it does not. */
int check_dev_control(const check_opts *o, const check_ctx *c, const check_confinement *cc);

/* Native results wrong where the interpreter, which follows the OpenCL rules, computed the
 * right one and found nothing wrong: PoCL miscompiles some constructs (a barrier inside an if
 * every work-item takes; the classic `tid % (2*s)` reduction tree, pocl issue 1390).  Run the
 * kernel again with PoCL's other work-group method (workitemrepl, a fresh cache); when every
 * run agrees with the interpreter now, those runs are judged and the report names PoCL's
 * miscompile.  Otherwise the first runs stand (a kernel right under one runtime and wrong under
 * the other fails).  Only for work-groups of at most 256 work-items. */
int check_dev_miscompiled(const check_report *rep);
/* ... then the kernel again under workitemrepl: rep->child and rep->pocl_note replaced when
 * every correctness run agrees with the interpreter now. */
void check_dev_workitemrepl(const check_opts *o, const check_ctx *c,
                            const check_confinement *cc, check_report *rep);

#endif
