/* check_cache.h — PoCL's kernel cache for one check.  Every check has its own, in its private
 * folder: the children that build and launch the student's kernel write it, so no entry a
 * student's code could have written is read by another check.  It starts as a copy of
 * build/pocl-seed (the grader's own kernels) and, for a text compiled before, of the probe's
 * kept builds (build/pocl-builds).  Used by the driver (check.c) before the device run. */
#ifndef CHECK_CACHE_H
#define CHECK_CACHE_H

#include "confine.h"
#include "devrun.h"

/* The check's cache folder, tmp/pocl, made; its path into buf. */
void check_cache_make(const char *tmp, char *buf, size_t len);
/* Fill build/pocl-seed once per lesson, device and baseline source (under a lock, in a child
 * confined like the run child, run_pol), then copy it into s->pocl_cache. */
void check_cache_seed(const check_opts *o, const devrun_src *s, const confine_policy *run_pol);
/* Copy build/pocl-seed as it is into s->pocl_cache, filling nothing (a control run starts
 * where the kernel's probe started: check_dev_control). */
void check_cache_seed_copy(const devrun_src *s);
/* 1 when a kept copy of the probe's builds of these texts was copied into s->pocl_cache. */
int check_cache_restore(const check_opts *o, const devrun_src *s);
/* Keep s->pocl_cache as the probe's builds of these texts (right after the probe, before any
 * student code has run in this check). */
void check_cache_keep(const check_opts *o, const devrun_src *s);

#endif
