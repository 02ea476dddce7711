/* check_ctx.h — what the stages of one check (check.c) hand each other: the student's text
 * as read and as every compiler sees it (check_prep.c), the PoCL cache (check_cache.c), and
 * what the device run (check_dev.c) and the analysis child (check_an.c) are given.  Written
 * by the driver and the preprocessing stage, read by the children: data flows one way. */
#ifndef CHECK_CTX_H
#define CHECK_CTX_H

#include <stdio.h>
#include <time.h>

#include "check.h"

enum { CHECK_PRE_MAX = LESSON_MAX_TILES + 1 };

typedef struct check_ctx {
	const check_opts *o;
	const char *source;       /* the student's file as written (for messages) */
	const char *pre[CHECK_PRE_MAX]; /* ... as every compiler sees it, per TILE (preproc.h) */
	const char *pre_err[CHECK_PRE_MAX]; /* or why the preprocessor refused it at that TILE */
	int pre_tile[CHECK_PRE_MAX], npre;
	const char *pocl_cache;   /* POCL_CACHE_DIR */
	const check_report *rep;  /* analysis: the runs planned (rep->analyses) */
	const char *trace_out;    /* analysis: the folder the tracer writes its summaries into */
	int no_uninit;            /* analysis: leave Oclgrind's uninitialised-value checker off */
	int unoptimised;          /* analysis: build with -cl-opt-disable, checkers off (for the
	                             lines of accesses the optimiser merged) */
	long declared;            /* __local bytes the kernel declares at the lesson's TILE (-1: ?) */
	long declared_at[LESSON_MAX_TILES]; /* the same at each TILE of a sweep */
	int model;                /* analysis: the GPU time model's launches after the analysed
	                             ones (gpum_run.c); 2: all but the baseline's (kept) */
} check_ctx;

/* The preprocessed text for TILE=tile ("" when there is none: an empty program fails). */
static inline const char *check_pre_for(const check_ctx *c, int tile)
{
	for (int i = 0; i < c->npre; i++)
		if (c->pre_tile[i] == tile && c->pre[i])
			return c->pre[i];
	return "";
}

/* --memory bounds the check as a whole: with the analysis beside it, each child gets half,
 * on top of what its runtime holds once open. */
static inline size_t check_memory_share(const check_opts *o)
{
	return o->analysis ? o->mem_bytes / 2 : o->mem_bytes;
}

/* What `make` builds for the analysis, under the suite's root. */
#define CHECK_OCLGRIND_ICD_DIR "build/oclgrind-icd"
#define CHECK_TRACER_PLUGIN    "build/libcltrace.so"
#define CHECK_OCLGRIND_QUIET   "build/liboclquiet.so"   /* grader/oclgrind_quiet.cpp */

/* rel under the suite's root (lesson_root). */
static inline void check_root_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", lesson_root(), rel);
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double check_mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

#endif
