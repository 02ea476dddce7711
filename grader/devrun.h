/* devrun.h — the device side of a check, split where trust ends.
 *
 * On a CPU device (PoCL) the student's kernel is native code that can read and write its
 * whole process: nothing a process that launched it says may be believed.  So the device run
 * is two children, and the parent judges:
 *
 *   devrun_probe_main  builds the kernel (at every TILE it will be launched at) and reads
 *                      the device's and the kernel's facts
 *                      (names, limits, CL_KERNEL_LOCAL_MEM_SIZE, argument info, the raw
 *                      compiler log, register counts), but never launches anything.  It also
 *                      fills the check's private kernel cache, so the next child loads what
 *                      it builds instead of compiling it.
 *   devrun_run_main    launches the student's kernel on the runs the parent planned and hands
 *                      back only bytes whose sizes the parent fixed: every buffer of every
 *                      run, guard zones included, and raw timing samples.  It decides
 *                      nothing; a lie in that page can only make a kernel fail.
 *
 * The parent plans the runs (devrun_plan), and after each child ends copies its page out of
 * shared memory (the child is dead and its process group killed by then) and judges it:
 * devrun_judge compares every output with the parent's own CPU reference, reads the guard
 * zones and the inputs, and takes the medians.  No string from the run child is printed. */
#ifndef DEVRUN_H
#define DEVRUN_H

#include <stdint.h>

#include "check.h"
#include "clrun.h"
#include "diag.h"
#include "ref.h"

enum { DEVRUN_MAX_BUILDS = LESSON_MAX_TILES + 1, DEVRUN_MAX_SLOTS = CHECK_MAX_RUNS + LESSON_MAX_TILES,
       DEVRUN_REPS = 16, DEVRUN_LOG = 12288,
       DEVRUN_WINDOW_GPU_MS = 500, DEVRUN_WINDOW_CPU_MS = 100 };

/* The kernel's source and build inputs, as the parent prepared them (read-only for children). */
typedef struct devrun_src {
	const check_opts *o;
	const char *pre[DEVRUN_MAX_BUILDS];     /* preprocessed text per TILE ("" refused)      */
	int pre_tile[DEVRUN_MAX_BUILDS], npre;
	const char *pocl_cache;                 /* POCL_CACHE_DIR                                */
	const char *wg_method;                  /* POCL_WORK_GROUP_METHOD, or NULL               */
} devrun_src;

/* __local bytes per work-group of the GPU the lessons target (NVIDIA's OpenCL on an H200:
 * CL_DEVICE_LOCAL_MEM_SIZE 49152, GUIDE.md "Compatibility"): a CPU device's budget unless
 * --local-mem sets one. */
#define DEVRUN_GPU_LOCAL 49152u

/* One build the probe made. */
typedef struct devrun_build {
	int tile, finished;
	cl_int err;
	int kernel_found;
	size_t local_runtime, max_wg;
	int registers;                          /* ptxas's count on NVIDIA; 0 unknown            */
	int spill_bytes;                        /* ptxas's "N bytes spill stores"; 0 none         */
	int nargs;                              /* -1: the runtime does not say                  */
	diag_arg args[16];
	char log[DEVRUN_LOG];                   /* the compiler's raw log                       */
} devrun_build;

/* The probe child's page: believed (it never launched student code). */
typedef struct devrun_probe {
	int opened;
	char open_err[256];
	clrun_device dev;
	int nbuilds;
	devrun_build b[DEVRUN_MAX_BUILDS];      /* b[0]: the lesson's TILE                      */
	int finished;
} devrun_probe;

typedef enum { SLOT_CORRECT, SLOT_TIME, SLOT_SWEEP } devrun_slot_kind;

/* One planned launch, fixed by the parent before the run child starts. */
typedef struct devrun_slot {
	devrun_slot_kind kind;
	int rows, cols, tile;
	uint64_t seed;
	int nbuf;
	size_t len[3];                          /* payload floats per buffer (inputs, output)    */
	size_t off;                             /* arena offset of buffer 0: whole buffers follow
	                                           one another, each len + 2 GUARD_FLOATS       */
	size_t reread_off;                      /* SLOT_CORRECT: the output payload again, from a
	                                           launch on a zeroed output (what reads it)     */
	int window_ms;                          /* SLOT_TIME: launches for about this long       */
	int warm_up;                            /* SLOT_TIME, SLOT_SWEEP: an untimed first launch
	                                           of each kernel at the timing size             */
	int wide;                               /* SLOT_CORRECT: the wide run's inputs
	                                           (ref_setup_wide), judged into check_child.wide */
} devrun_slot;

/* What the run child wrote for a slot: numbers only, each checked before use. */
typedef struct devrun_slot_out {
	int reached, done, reread;
	cl_int err;
	int reps;
	double ks[DEVRUN_REPS], bs[DEVRUN_REPS], cs[DEVRUN_REPS];
	int base_ok, copy_ok;
} devrun_slot_out;

/* The run child's page, in shared memory the parent mapped (sized by devrun_page_bytes). */
typedef struct devrun_page {
	int go;                                 /* parent: 0 wait, 1 time and sweep, 2 stop     */
	int corrected;                          /* child: the correctness slots are done         */
	int at;                                 /* child: the slot it is in (-1: none yet)       */
	int nlocals;
	double local_ms[CHECK_MAX_LOCALS][3];   /* raw samples per local size */
	int local_ok[CHECK_MAX_LOCALS];
	devrun_slot_out out[DEVRUN_MAX_SLOTS];
	float arena[];
} devrun_page;

typedef struct devrun_plan {
	int nslots, ncorrect;                   /* slots [0, ncorrect) are SLOT_CORRECT          */
	int wide;                               /* the wide run's slot, the last correctness one
	                                           (kind.h wide_size); -1: none                  */
	devrun_slot s[DEVRUN_MAX_SLOTS];
	size_t arena_floats;
	int locals;                             /* lesson 4: time the baseline at local sizes   */
	int local_shape[CHECK_MAX_LOCALS][2];
	int local_n;
	int locals_warm;                        /* an untimed launch per local size first (a GPU;
	                                           on a CPU the seeding child launched each)     */
} devrun_plan;

/* Lay out the runs of o's lesson on a device of type dev_type ("CPU", "GPU"): the kind's
 * correctness sizes, the timing size, and each TILE of a sweep.  0, or -1 out of memory. */
int devrun_plan_make(const check_opts *o, const char *dev_type, devrun_plan *pl);
size_t devrun_page_bytes(const devrun_plan *pl);
/* The problem of slot sl (its inputs; with_ref: its reference too), as both children and the
 * parent set it up: the kind's draw, or the wide run's (ref_setup_wide).  0 on success. */
int devrun_slot_setup(const devrun_slot *sl, const kind *k, int with_ref, ref_problem *p);
/* The correctness slots that are not the wide run: check_child.runs holds one per slot. */
int devrun_sizes(const devrun_plan *pl);
/* Every correctness run of the plan, the wide one too, launched, right and within its
 * buffers, as judged into ch. */
int devrun_all_right(const devrun_plan *pl, const check_child *ch);

/* The children (sandbox.h's fn): arg is a devrun_ctx. */
typedef struct devrun_ctx {
	const devrun_src *src;
	const devrun_plan *plan;
	devrun_probe *probe;                    /* devrun_probe_main's page                      */
	devrun_page *page;                      /* devrun_run_main's page                        */
	size_t mem_share;                       /* RLIMIT_AS on top of the runtime, CPU only; 0 */
	const char *compromise;                 /* tests: CLGRADE_TEST_COMPROMISE (devrun_run.c) */
} devrun_ctx;
/* Load the CPU runtime (PoCL) in the parent, in a thread, while the preprocessors run: the
 * children that open the device then find it mapped and relocated.  Join before forking any
 * child that does more than exec: a fork in the middle of a dlopen leaves the loader's lock
 * taken in the child. */
void devrun_preload_start(void);
void devrun_preload_join(void);
int devrun_probe_main(void *arg);
/* The seeding child: POCL_CACHE_DIR (src->pocl_cache) filled with the grader's own kernels of
 * the lesson, launched once each (no student code: the only writer of the shared seed). */
int devrun_seed_main(void *arg);
int devrun_run_main(void *arg);

/* Parent side.  The probe's facts into ch (device, builds, log rewritten against the
 * student's file, signature, local bytes, budget); refused[] holds the preprocessor's
 * refusal per TILE (NULL none). */
void devrun_take_probe(const devrun_probe *pr, const devrun_src *src, const char *source,
                       const char *const *refused, long declared, const long *declared_at,
                       check_child *ch);

/* The problems of slots [from, to) with their references (sampled at a GPU's timing size: gpu
 * set), set up by the parent while the run child works or waits, into r (NULL: a new array of
 * pl->nslots, zeroed; free with devrun_refs_free).  A slot that could not be set up is left
 * zeroed, and judged by setting it up then.  NULL out of memory. */
ref_problem *devrun_refs_make(const devrun_plan *pl, const check_opts *o, int from, int to,
                              int gpu, ref_problem *r);
void devrun_refs_free(const devrun_plan *pl, ref_problem *r);

/* Judge the correctness slots of a copied page against refs (devrun_refs_make; NULL: set up
 * here): fills ch->runs[0 .. ncorrect).  1 when every one of them launched and is right (the
 * kernel may be timed). */
int devrun_judge_correct(const devrun_plan *pl, const devrun_page *pg, const check_opts *o,
                         const ref_problem *refs, check_child *ch);
/* Judge the timing slot and the sweep against refs (as devrun_judge_correct): ch->runs (the timed run), kernel_ms, baseline_ms,
 * copy_ms, tiles[], locals[]. */
void devrun_judge_rest(const devrun_plan *pl, const devrun_page *pg, const check_opts *o,
                       const ref_problem *refs, check_child *ch);

/* "running at 17x17", "timing at 480x480": what the child was doing at slot `at`. */
void devrun_stage(const devrun_plan *pl, const kind *k, int at, char *buf, size_t len);

#endif
