/* check.h — one `clgrade check`: lesson -> build -> run (sandboxed) -> verify/time -> analyse
 * -> view -> criteria, and the typed results every stage hands the next (check_report).  The
 * stages: check.c (the driver) and the files it names.  The report (report.h) only prints
 * what they decided. */
#ifndef CLGRADE_CHECK_H
#define CLGRADE_CHECK_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "clrun.h"
#include "confine.h"
#include "gpumodel.h"
#include "lesson.h"
#include "localmem.h"
#include "occ.h"
#include "ref.h"

enum { CHECK_MAX_RUNS = 12, CHECK_MAX_ANALYSES = 4 };

/* One run of the Oclgrind analysis: a size (lesson_analysis_size) at a TILE.  A banks-only
 * run (each other TILE of lesson 4's sweep) leaves Oclgrind's race and uninitialised-value
 * checkers off, which halves its cost; out-of-bounds accesses are still found. */
typedef struct check_analysis_run {
	int rows, cols, tile, banks_only;
	lesson_size lo, hi;       /* the range the size was drawn from (lesson_analysis_size_at) */
	int findings_only;        /* a multiple of the kernel's divisibility test (ptrcheck_size.c):
	                             its findings and its output count, not its sites */
} check_analysis_run;

typedef struct check_opts {
	const lesson *l;
	const char *kernel;       /* path of the student's file */
	const char *device;       /* substring, or NULL for the default */
	uint64_t seed;
	double timeout_s;         /* per sandboxed child */
	size_t mem_bytes;         /* RLIMIT_AS of each child; 0 = none */
	const char *profile;      /* bank profile for conflict_free ("nvidia") */
	int analysis;             /* run the Oclgrind analysis */
	size_t local_mem;         /* grade as if the device had this much __local memory (0: its own) */
	const char *within;       /* batch: the real path the file must have (the submissions
	                             folder's real path / the entry).  The file is then opened
	                             without following a link, and must be a regular file with one
	                             name, at exactly that real path when opened (a submission or a
	                             folder on its path swapped for a link while the batch runs, or
	                             a hard link, is refused, never read) */
} check_opts;

/* FNV-1a, 64 bits, over n bytes, continuing from h (start with CHECK_HASH_INIT): the
 * source_hash of batch's reports (check_report.source_hash, batch_hash_file). */
#define CHECK_HASH_INIT 1469598103934665603ull
unsigned long long check_hash(unsigned long long h, const void *p, size_t n);

/* One correctness run (a size, at a TILE). */
typedef struct check_run {
	int rows, cols, tile;
	int done;                 /* the run finished and was compared */
	cl_int err;               /* launch status */
	ref_result cmp;
	int violations;           /* buffers touched outside their bounds */
	int reads_output;         /* wrong because it reads the NaN-filled output before writing */
	char guard_msg[240];
} check_run;

/* One TILE of a sweep (lesson 4): local bytes, time, correctness. */
typedef struct check_tile {
	int tile, built, correct, timed;
	cl_int err;
	size_t local_bytes;
	double ms;
} check_tile;

/* One local size of the local-size experiment (lesson 4: the naive kernel, any shape). */
typedef struct check_local {
	int lx, ly, timed;
	int n;                    /* timed at N x N */
	double ms;
} check_local;

enum { CHECK_MAX_LOCALS = 3 };

/* The device run as the parent judged it (devrun_judge.c): the probe's facts and the parent's own
 * comparison of the bytes the run child handed back.  Nothing in it is the run child's word. */
typedef struct check_child {
	char stage[160];          /* what the run child was doing last (the parent's words for its slot) */
	int opened;
	char open_err[256];
	clrun_device dev;
	int built, build_errors;
	cl_int build_err;
	char build_log[12288];    /* rewritten against the student's file */
	int log_tile;             /* the TILE whose build wrote build_log */
	int kernel_found;
	char signature[600];      /* why the kernel's arguments are not the lesson's; "" if they are */
	size_t local_bytes;       /* __local bytes per work-group judged: the largest known source */
	lmem_source local_source; /* where local_bytes came from */
	size_t local_runtime;     /* what the runtime answered (CL_KERNEL_LOCAL_MEM_SIZE) */
	long local_declared;      /* what the kernel's declarations add up to; -1 unknown */
	size_t kernel_max_wg;
	size_t local_limit;       /* the __local budget judged against (device, or --local-mem) */
	int over_budget;          /* local_bytes > local_limit: not launched */
	int registers;            /* per work-item, from the compiler's own log; 0 = unknown */
	int spill_bytes;          /* ptxas' "N bytes spill stores" in that log; 0 = none/unknown */
	int nruns;
	check_run runs[CHECK_MAX_RUNS];
	int wide_planned;         /* the plan had a wide run (kind.h wide_size)                 */
	check_run wide;           /* ... judged: full-precision inputs, at one of the sizes above */
	int timed, baseline_failed;
	int time_rows, time_cols, time_reps;
	double kernel_ms, baseline_ms;
	double copy_ms;           /* the copy kernel of the same bytes (kind.h copy_floats), 0: none */
	int ntiles;
	check_tile tiles[LESSON_MAX_TILES];
	int nlocals;
	check_local locals[CHECK_MAX_LOCALS];
} check_child;

typedef enum { CRIT_PASS, CRIT_FAIL, CRIT_NOT_CHECKED } check_status;

/* ---- the Oclgrind analysis, as the criteria see it ----------------------------------------
 * check_sum.c reads the tracer's summary (trace.h schema) once into this typed form; the criteria
 * decide from it alone, and the report prints it.  No decision reads the note's prose. */
typedef enum {
	ANALYSIS_NOT_RUN,        /* nothing to analyse: the kernel did not build or never ran     */
	ANALYSIS_SKIPPED,        /* --no-analysis                                               */
	ANALYSIS_UNAVAILABLE,    /* Oclgrind or the tracer plugin is missing                    */
	ANALYSIS_FAILED,         /* Oclgrind ran but could not take the kernel through: what it saw
	                            up to there is in the counts and sites (summary set)         */
	ANALYSIS_DONE            /* the kernel ran through under Oclgrind                         */
} check_analysis_state;

/* Oclgrind's findings the criteria judge; the tracer's other kinds are only reported. */
typedef enum { FIND_OUT_OF_BOUNDS, FIND_UNINITIALIZED, FIND_DATA_RACE, FIND_BARRIER_DIVERGENCE,
               FIND_KINDS } check_find_kind;

enum { CHECK_FIND_KEEP = 3 };   /* findings kept per kind (the criteria quote at most 3) */

typedef struct check_finding {
	int order;                /* position among all findings (quotes keep Oclgrind's order) */
	int line, column, other_line;  /* other_line: a data race's second access, 0 if none */
	char message[256];
} check_finding;

/* A __local access site under the chosen bank profile. */
typedef struct check_site {
	int line, column;
	char variable[64], access[16];
	int n_way;                /* lanes of one warp on one bank; 1 = conflict-free          */
	int stride;               /* words per lane between active lanes of its worst warp; 0 unknown */
	int free_line;            /* a conflict-free access to the same variable (0: none) ...   */
	char free_access[16];     /* ... and whether it loads or stores                         */
	int free_broadcast;       /* ... and every lane of its worst warp reads one word        */
	int tile;                 /* the TILE of the analysis run it came from (0: not said)    */
	long row_step;            /* words between its warp's get_local_id(1) lines when only
	                             they conflict (bank_row_step; 0: not that pattern)         */
	/* the report's lane -> bank picture of its worst warp (picture = 0: none to draw) */
	int picture, nlanes;
	signed char bank[64];     /* -1: a lane that does not take part                         */
	int busy_bank, busy_lanes, busy_words, inactive;  /* bank_busiest() of that warp        */
} check_site;

typedef struct check_analysis {
	check_analysis_state state;
	int summary;              /* the tracer wrote a summary: counts and sites below are real */
	int uninit_checked;       /* Oclgrind's uninitialised-value checker ran over the kernel */
	int sites_unoptimised;    /* the optimiser merged accesses of several lines, so the sites
	                             (banks, coalescing) come from a -cl-opt-disable build (1),
	                             or that build accessed memory differently, so they stay
	                             the optimised build's, at neighbouring lines (-1)          */
	int nfind[FIND_KINDS];    /* findings per kind                                          */
	int races_global;         /* data races on __global memory (two work-items, one element) */
	int races_global_rw;      /* of those, read-write ones (one reads what another writes)  */
	int across_groups;        /* findings between work-items of different work-groups       */
	check_finding find[FIND_KINDS][CHECK_FIND_KEEP]; /* the first of each kind            */
	int local_sites, local_loads;   /* __local sites, and those that load                  */
	double global_loaded, global_stored; /* bytes, at the kind's analysis size             */
	double loaded_per_unit;   /* global bytes loaded per work unit of the kind (kind.h)     */
	int rows, cols;           /* the first run's size, where those bytes were counted       */
	double local_loaded, local_stored; /* __local bytes, every work-item of every run     */
	int has_worst;            /* a __local site exists: worst is the most conflicted        */
	check_site worst;
	int worst_at_launch;      /* worst is the GPU time model's launch's, at the lesson's TILE
	                             (the analysis ran at another: lesson 7's TILE 8)            */
} check_analysis;

/* A global load or store is coalesced when its 32-byte sectors per warp request are within
 * this factor of its ideal (trace_price.c: the same bytes laid end to end).  2x leaves room for a
 * warp split over two rows of a tile (TILE=16: two 64-byte runs) and for lesson 1's load of
 * A, two rows' words per warp (2 sectors where 1.1 would do); an access whose lanes stride
 * over rows needs 16-32 sectors per request, 3-8x its ideal.  The criterion `coalesced`
 * (criteria_an.c) and the report's marks (report_text.c, report_json.c) use it.  GUIDE.md "coalesced". */
#define CHECK_COALESCE_MARGIN 2.0
/* ... and by at least this many sectors per request: a load whose warp reads a few broadcast
 * words (a flat index whose warp spans 3 rows of A: 3 sectors where 1.2 would do) is not the
 * stride the criterion is about. */
#define CHECK_COALESCE_SLACK 2.0

/* Is a global access of spr sectors per request, ideal ideal, uncoalesced? */
static inline int check_uncoalesced(double spr, double ideal)
{
	return spr > CHECK_COALESCE_MARGIN * ideal && spr > ideal + CHECK_COALESCE_SLACK;
}

typedef struct check_crit {
	lesson_crit id;
	check_status status;
	char msg[600];            /* why (for ✗ and not-checked), or a short summary for ✓ */
	char try_[400];           /* what to try (for ✗) */
	int env;                  /* not checked because of the grading environment (no Oclgrind,
	                             speed not judged on this device type): left out of scores */
	int caused;               /* a symptom of rep->cause (cause.h): caused_by is the cause's */
	lesson_crit caused_by;
	int predicted;            /* judged from the GPU time model, not from a measurement     */
} check_crit;

/* The root cause of the failures (cause.h), when one criterion's finding explains others. */
typedef enum { CAUSE_NONE, CAUSE_DIVERGENCE, CAUSE_LOCAL_RACE, CAUSE_OUT_OF_BOUNDS,
               CAUSE_GLOBAL_RACE, CAUSE_UNINITIALIZED } check_cause_kind;
typedef struct check_cause {
	check_cause_kind kind;
	lesson_crit crit;         /* the criterion that names it (it fails)                      */
	int line;                 /* in the student's file                                       */
	char what[200];           /* "the barrier at line 17 that not every work-item reaches"   */
	int local;                /* CAUSE_OUT_OF_BOUNDS: past a __local array, which no size
	                             pattern locates                                             */
	int nexplains;            /* the criteria it explains (their caused_by is crit)          */
} check_cause;

/* The kernel through one occupancy profile (occ.h), computed by check_view.c for the report. */
typedef struct check_occ {
	const char *profile;      /* "nvidia-sm90" (static)                                     */
	int fits;                 /* it launches: groups_per_cu and occupancy are set            */
	int groups_per_cu;
	double occupancy;
	const char *limiter;      /* what limits it, or what does not fit (static)               */
	const char *status, *unit;/* "ok" / "does_not_fit"; the unit of needed/available          */
	long needed, available;
	int registers_used;       /* the device compiler's register count was used               */
} check_occ;

enum { CHECK_MAX_OCC = 16 };

/* The prediction at one TILE of a sweep (lesson 4): shown, never judged. */
typedef struct check_predicted_tile {
	int tile;
	gpum_result kernel;       /* kernel.ok 0: not predicted at this TILE                     */
} check_predicted_tile;

/* The GPU time model (gpumodel.h, gpum_check.c): the student's kernel and the lesson's
 * baseline analysed once more under Oclgrind at the kind's model size (checkers off), their
 * figures scaled to the lesson's GPU timing size and priced on one profile. */
typedef struct check_predicted {
	int ok;                   /* both predicted                                             */
	const gpum_profile *profile;
	int rows, cols;           /* the GPU timing size predicted at                           */
	gpum_result kernel, baseline;
	double speedup;           /* baseline.ms / kernel.ms                                    */
	char why[200];            /* ok 0: why there is none ("" when the model did not run)    */
	int ntiles;               /* lesson 4: the sweep's TILEs, in its order                  */
	check_predicted_tile tiles[LESSON_MAX_TILES];
} check_predicted;

/* Model runs (gpum_run.c): the student's kernel at the lesson's TILE (0), the baseline (1),
 * then, with a TILE sweep (lesson 4), the student's kernel at each other TILE of it. */
enum { CHECK_MODEL_RUNS = 2 + LESSON_MAX_TILES };


/* The view (check_view.c, after every stage has run): the figures the renderers print that
 * are computed from the stages' results, so that the text, JSON and Gradescope renderers only
 * format.  One row per TILE of a sweep (lesson 4), on each judged profile (tilechoice.h). */
enum { CHECK_VIEW_PROFILES = 2 };
typedef struct check_view_tile {
	long local_bytes;         /* __local bytes per group at this TILE (tile_local_bytes)    */
	double bytes_per_flop;    /* global bytes loaded per FLOP: 4 / TILE (two floats per
	                             TILE-long dot-product step of a TILE x TILE tile)           */
	occ_result occ[CHECK_VIEW_PROFILES];  /* tile_occupancy on tile_profiles[k]             */
	int registers[CHECK_VIEW_PROFILES], assumed[CHECK_VIEW_PROFILES]; /* tile_registers   */
} check_view_tile;

typedef struct check_view {
	double kernel_rate;       /* the kind's rate (kind.h rate_unit) of the timed kernel      */
	double baseline_rate;     /* ... of the naive baseline (0: none timed)                   */
	double speedup;           /* baseline_ms / kernel_ms (0: no baseline)                    */
	double measured_over_predicted; /* kernel_ms / the model's kernel ms (0: not both)       */
	int sweep_registers, sweep_assumed; /* the TILE sweep's header: tile_profiles[0]'s      */
	check_view_tile tiles[LESSON_MAX_TILES]; /* as rep->child.tiles                          */
} check_view;

typedef struct check_report {
	check_opts opts;
	char refused[600];        /* #include policy refusal, "" if none */
	int size_tests;           /* comparisons of the size with constants (ptrcheck_size.c)      */
	char size_test_at[640];   /* the first one's "path:L:C"                                    */
	const char *size_test_what;  /* what the first one does, "compares its size with a constant" */
	unsigned size_div_mask;   /* bit k: a test of the size's divisibility by 2^k, kept apart   */
	char size_div_at[640];    /* the first of those                                            */
	int group_tests;          /* comparisons of a group's (or a global) id with a constant     */
	char group_test_at[640];
	const char *group_test_what; /* "a group's id" or "a work-item's global id"               */
	char size_note[900];      /* what the size tests leave unchecked (criteria.c), or ""       */
	char source_hash[17];     /* check_hash of the bytes graded, "%016llx"; "" if none read */
	char *source;             /* the bytes graded, for the HTML page's source view (html.h);
	                             NULL when none were read or the grader failed; check_free */
	/* lesson 4: what the compiler sees for each CHOSEN_* name (tile_probe_names) at the end
	 * of the file, from the preprocessor (preproc.h, probe); choice_probed 0: not known */
	char choice_val[4][64];
	int choice_probed;
	int choice_vary_tile[4];  /* another TILE of the sweep where the value differs (0: none) */
	char choice_vary_val[4][64]; /* ... and the value there */
	check_child child;
	char run_end[200];        /* how the child ended when it did not exit normally */
	int child_crashed, child_timed_out;
	int nanalyses;            /* the analysis runs planned, in order (the default TILE first) */
	check_analysis_run analyses[CHECK_MAX_ANALYSES];
	cJSON *analysis;          /* the tracer's summaries of every run, merged (trace_merge), or
	                             NULL: printed only */
	check_analysis an;        /* the same, typed: what the criteria decide from */
	double analysis_s;        /* wall seconds the analysis took (all its runs) */
	long local_analysis;      /* __local bytes Oclgrind allocated; -1 without an analysis */
	char analysis_note[400];  /* why there is no analysis, or what it missed (for people) */
	int analysis_failed;      /* Oclgrind ran but could not take the kernel through */
	int analysis_grader;      /* the grader could not finish the analysis (Oclgrind would not
	                             start, out of memory, its own time limit on a kernel that
	                             runs fine): criteria that need it not_checked, exit 2 */
	char analysis_failure[160];
	char analysis_wrong[320];  /* the analysed launch's result was wrong: the pattern ("" when
	                              right); at rep->analyses[analysis_wrong_at]               */
	int analysis_wrong_at;
	int work_group;           /* work-items per group at the lesson's TILE (the kind's geometry) */
	int reg_estimate;         /* registers per work-item estimated from the text (regest.h); -1 */
	int nocc;                 /* occupancy of the kernel per profile (kernel_found only)      */
	check_occ occ[CHECK_MAX_OCC];
	double copy_gbps;         /* the copy kernel timed beside it: bytes read + written per s */
	double of_copy;           /* the kernel's GB/s over the copy's (kinds timed in GB/s)     */
	int ncrit;
	check_crit crit[CRIT_COUNT];
	check_cause cause;        /* kind CAUSE_NONE: no failure explains another               */
	int correct_from_branch;  /* correct's try reads a divisibility test's branch into the
	                             sizes (a guess: an analysis finding's try goes first)       */
	int correct_settled;      /* correct's wrong run names its own cause (ref_result.exact):
	                             no finding of the analysis is taken for it (cause.c)        */
	int added_unset;          /* the first uninitialised value is a __local array's first write,
	                             a compound one (`s[l] += x`): it reads the array before anything
	                             wrote it; or a private sum declared without a value is added
	                             into (diag_unset_sum; criteria_mem.c): either explains wrong
	                             results                                                     */
	int grader_failed;        /* the grader could not finish its own work (a build killed by
	                             --memory): exit 2, the criteria it left not_checked */
	int verdict_pass;
	int exit_code;            /* 0 pass, 1 fail, 2 the grader could not run */
	char grader_error[400];
	char confine_note[200];   /* what of the sandbox this kernel lacks (confine.h), "" if none */
	/* control runs (check_prep.c, check_dev.c, check_an.c): the lesson's solution through a stage that ran out of time or
	 * memory, under the same limits: 1 it went through (the kernel is at fault), -1 it did
	 * not (the environment is), 0 not needed */
	int control_build, control_analysis;
	double model_cut_s;       /* > 0: the model's launches were cut off after this long        */
	int model_control;        /* then 1: the solution's ran through in as long; -1: not; 0: not
	                             asked (a GPU, or no speedup to judge)                          */
	char pocl_note[600];      /* PoCL miscompiled the kernel; the runs are workitemrepl's (check_dev.c) */
	cJSON *model[CHECK_MODEL_RUNS]; /* the model runs' trace summaries, NULL where none       */
	int model_tile[CHECK_MODEL_RUNS]; /* ... the TILE each ran at (0: not run)               */
	double model_s;           /* seconds the model runs took in the analysis child          */
	check_predicted pred;
	check_view view;          /* the renderers' figures (check_view.c)                       */
} check_report;

/* The prediction from rep->model[] and rep->occ (gpum_check.c). */
void gpum_check(const check_opts *o, check_report *rep);

/* The model launches (gpum_run.c).  The size kind k's model launch has at TILE tile: */
lesson_size gpum_model_size(const kind *k, int tile);
/* The TILE of each model run of lesson l (0: none); how many runs (0: the kind has no model). */
int gpum_run_plan(const lesson *l, int tiles[CHECK_MODEL_RUNS]);
/* In the analysis child, after the analysed launches: the marker, then every run of the plan
 * on cl (a context with the checkers off), src[i] the preprocessed text at run i's TILE;
 * summaries into dir. */
void gpum_run_mark(const char *dir);
void gpum_run_all(clrun *cl, const check_opts *o, const char *const *src, int cached,
                  const char *dir);
/* In the parent, before the analysis: the baseline's kept summary into rep->model[1]; 1 when
 * there was one (the child then skips the baseline's run). */
int gpum_run_cached(check_report *rep);
/* In the parent: did the child reach the model runs (the marker, removed)?  Then what the
 * child did after it is the model's alone.  gpum_run_collect reads the summaries. */
int gpum_run_marked(const char *dir);
/* The marker's path in dir (its time: when the model's launches began). */
void gpum_run_mark_path(const char *dir, char *buf, size_t len);
void gpum_run_collect(check_report *rep, const char *dir);

/* Grade one kernel.  Fills rep (free with check_free); returns rep->exit_code. */
int check_lesson(const check_opts *o, check_report *rep);
void check_free(check_report *rep);

/* How the check's two children are confined (confine.h).  The check's private folder tmp
 * holds one folder per child, each writable by that child alone: run/ for the build-and-run
 * child (the student's native code on PoCL; it also writes PoCL's cache) and an/ for the
 * analysis child (Oclgrind, which interprets the kernel: the trace summaries and the log the
 * parent reads).  So native kernel code cannot forge or pin the analysis' results.  Both read
 * the runtime's files, the lesson folder and what `make` built.  check_confine makes the two
 * folders and fills cc: 0, or -1 with errno. */
typedef struct check_confinement {
	char run[4200], an[4200];
	confine_policy run_pol, an_pol;
	confine_storage run_st, an_st;
} check_confinement;
int check_confine(const check_opts *o, const char *tmp, const char *cache,
                  check_confinement *cc);

/* The criterion id of rep, or NULL when the lesson has none (cause.c). */
check_crit *check_crit_find(check_report *rep, lesson_crit id);
/* Criterion id of the failure to fix first: the cause (rep->cause) when one explains others,
 * else the first failing criterion; NULL when it passed (cause.c). */
const char *check_first_failure(const check_report *rep);

#endif
