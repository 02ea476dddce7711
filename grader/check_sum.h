/* check_sum.h — the analysis, typed: the tracer's merged summary (rep->analysis, the trace.h
 * schema) read once into rep->an (check.h, check_analysis), which the criteria decide from.
 * It also adds to the summary what the drawn lane -> bank grid needs (bank.h) and marks the
 * worst site, so the JSON carries them.  It reads only the analysis stage's output. */
#ifndef CHECK_SUM_H
#define CHECK_SUM_H

#include "check.h"

/* rep->analysis (the tracer's JSON) into rep->an, once, and the analysis's final state. */
void check_sum_analysis(const check_opts *o, check_report *rep);
/* Oclgrind allocates the kernel's __local variables itself: where the analysis ran, its
 * bytes count too (rep->local_analysis; rep->child.local_bytes is the largest known source,
 * lmem_pick). */
void check_sum_local(check_report *rep);
/* The findings of the checked kinds (out of bounds, uninitialised, races, barrier divergence)
 * in a tracer summary, before check_sum_analysis has run: the PoCL-miscompile test needs them
 * while the run children are still being judged. */
int check_sum_nfindings(const cJSON *summary);

#endif
