/* check_an.h — the analysis stage of a check: the student's kernel run again, in a confined
 * child, under Oclgrind with our tracer (trace.h) at the sizes the lesson plans, beside the
 * device run.  It hands the driver the tracer's merged summary (rep->analysis, cJSON, read
 * into its typed form by check_sum.c) and how the child ended; it never reads the device
 * run's results. */
#ifndef CHECK_AN_H
#define CHECK_AN_H

#include "check_ctx.h"
#include "sandbox.h"

/* The analysis in flight: a child running the kernel under Oclgrind with our tracer. */
typedef struct check_an {
	int running;
	int confine_failed;       /* a grader failure, never the student's */
	check_ctx c;
	sandbox_child child;
	sandbox_limits lim;
	double t0, t1;            /* when it started and ended (CLOCK_MONOTONIC) */
	int timed_out;            /* stopped by the time limit: the kernel's fault only if the
	                             kernel also hangs outside Oclgrind (see check_lesson) */
	double model_s;           /* > 0: the time limit cut the model's launches off after this
	                             many seconds of their own */
	char dir[4096], log[4200];
} check_an;

/* Plan the runs (rep->analyses) and start the analysis child in the private folder tmp under
 * pol, or say in rep->analysis_note why there is none (a->running 0). */
void check_an_start(const check_ctx *main_ctx, const char *tmp, const confine_policy *pol,
                    check_report *rep, check_an *a);
/* Wait for the analysis and read its summaries into rep->analysis: the retry without the
 * uninitialised-value checker, the analysed launches' outputs judged against the parent's own
 * reference (rep->analysis_wrong), the model's summaries (gpum_run_collect), the sites again
 * from an unoptimised build when the optimiser merged lines, and how it failed (the kernel's:
 * rep->analysis_failed; the grader's: rep->analysis_grader).  Nothing when not running. */
void check_an_finish(check_report *rep, check_an *a);
/* The control run (check_prep.h): 1 when the lesson's solution runs through every planned
 * analysis run under the analysis' limits (its own time limit, the same --memory); -1 when
 * it does not. */
int check_an_control(check_report *rep, check_an *a);
/* The same for the model's launches alone, when the kernel's were cut off (a->model_s): 1
 * when the solution's run through within the seconds the kernel's had, -1 when not. */
int check_an_model_control(check_report *rep, check_an *a);

#endif
