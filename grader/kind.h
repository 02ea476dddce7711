/* kind.h — a lesson *kind* (matmul, transpose, ...) behind one interface.
 *
 * A kind is what a lesson's kernel computes.  Everything that depends on it lives in one file
 * grader/kind_<name>.c that fills one `kind` table: the inputs for a size and seed, the CPU
 * reference and its error bound, the NDRange geometry and scalar kernel arguments, the work
 * and traffic units the report prints, the diagnosis of a wrong result, and the sizes to check,
 * time and analyse.  The orchestration (check*.c), runner (clrun.c), criteria (criteria*.c) and
 * report (report*.c) only call through this table: none of them switches on the kind.
 *
 * A new lesson of an existing kind is one registry row (lesson.c) plus its content; a new kind
 * is one more kind_<name>.c and its `extern` below.  GUIDE.md "Adding a lesson" lists the files.
 *
 * Buffers: a problem has 1-2 float inputs and one float output (ref_problem in ref.h); the
 * kernel's arguments are the inputs, then the output, then the kind's scalar ints. */
#ifndef KIND_H
#define KIND_H

#include <stddef.h>
#include <stdint.h>

enum { LESSON_MAX_SIZES = 10, KIND_MAX_SCALARS = 4 };

/* The sentences of the grader's messages that depend on what the kernel computes, by
 * situation.  A kind words those it needs in its own terms (a matrix's rows and columns, a
 * reduction's n); NULL keeps the default of kind.c, which holds no word of any one kind. */
typedef enum kind_say_id {
	KS_GUARD,          /* the guard of a global access, e.g. "if (row < N && col < N)"       */
	KS_EDGE,           /* what the work-items past the end do wrong (diag_sizes)              */
	KS_EDGE_TRY,       /* ... and the try                                                    */
	KS_SIZE_TRY,       /* right at one size only: use the real size everywhere               */
	KS_DIVERGENCE_TRY, /* keep every work-item at every barrier                              */
	KS_STORE_OWN,      /* how a work-item finds the one element it stores                    */
	KS_SCALE,          /* how right a right result is, in correct's PASS line                */
	KS_PAD,            /* the padding fix of a strided __local access                        */
	KS_SWIZZLE,        /* the swizzle fix ("" : none for this kind's arrays)                 */
	KS_EDGE_PART,      /* what the last partial group of a size covers ("rows or columns")   */
	KS_ZERO_TRIP_TRY,  /* a loop that runs no turn at the smallest sizes                     */
	KS_LOCAL_TRY,      /* how to use __local memory at all (uses_local_memory)               */
	KS_OOB_TRY,        /* an out-of-bounds or uninitialised access Oclgrind found            */
	KS_SPEED_TRY,      /* what to look at when the measured speedup is under the bar        */
	KS_WORK_GROWS,     /* far more work than the lesson needs, as the checked sizes grow    */
	KS_INDEX_TRY,      /* an access under an if that still runs past its buffer: the index */
	KS_SPILL_TRY,      /* more registers per work-item than a GPU has: what to shrink      */
	KS_WIDE,           /* right on the exact inputs, wrong on the wide run's: where a value
	                      is rounded (half or fixed-point storage)                           */
	KS_WIDE_TRY,       /* ... and the try                                                    */
	KS_EXACT_TRY,      /* a wrong result whose cause the kind's pattern settles (pattern 2);
	                      "": KS_INDEX_TRY                                                   */
	KS_COUNT
} kind_say_id;

/* A problem size.  Matmul: rows = cols = N.  Transpose: the input is rows x cols. */
typedef struct lesson_size { int rows, cols; } lesson_size;

struct ref_problem;

/* One correctness run, as the size diagnosis sees it (diag_sizes). */
typedef struct diag_size { int rows, cols, right, nan; } diag_size;   /* nan: NaN or Inf came out */

/* What the Oclgrind analysis measured at its first size, rows x cols at TILE = tile, for a
 * kind's token_local. */
typedef struct kind_traffic {
	int rows, cols, tile;
	double global_per_unit;               /* global bytes loaded per work unit (traffic_units) */
	double local_loaded, local_stored;    /* __local bytes loaded and stored, every work-item */
} kind_traffic;

typedef struct kind {
	const char *name;                     /* "matmul": for messages and tests             */

	/* ---- sizes ---- */
	lesson_size sizes[LESSON_MAX_SIZES]; /* correctness sizes, {0,0}-terminated; include 1
	                                        and sizes that are not multiples of TILE      */
	lesson_size wide_size;                /* the wide run's size, one of sizes[]: the inputs
	                                         need every bit of a float (ref_draw_wide), the
	                                         bound holds for any floats; {0,0}: no such run */
	int wide_groups;                      /* ... launched with at most this many work-groups
	                                         (0: the kind's launch), so that each work-item
	                                         takes many elements there too                   */
	lesson_size time_size;                /* timing size on a CPU (checked as well)        */
	lesson_size time_size_gpu;            /* on a GPU: large enough to dwarf launch cost    */
	lesson_size sweep_size;               /* a TILE sweep's timing size on a CPU, where its
	                                         times judge nothing ({0,0}: time_size); on a
	                                         GPU it is time_size_gpu (kind_sweep_size)      */
	lesson_size analysis_lo, analysis_hi; /* Oclgrind analysis sizes are drawn from the seed
	                                         within [lo, hi] per dimension (never a TILE
	                                         multiple: lesson_analysis_size); a square range
	                                         draws square sizes                              */
	lesson_size model_size;               /* the GPU time model's analysis launch (gpumodel.h):
	                                         a multiple of TILE in each dimension with at least
	                                         two tiles, so every group is interior and loops
	                                         run more than once                              */
	int model_groups;                     /* ... at most this many work-groups (0: the kind's
	                                         launch), so that each work-item loops many times */

	/* ---- problem (CPU side, ref.c calls these) ---- */
	/* Shape of a problem of rows x cols at TILE p->tile: set p->rows/cols, n_in, in_len[],
	 * in_name[], out_len, out_name, out_rows/out_cols, flops and bytes, and result_len when
	 * finish is set.  Inputs are drawn by ref.c (see draw). */
	void (*shape)(struct ref_problem *p, int rows, int cols);
	/* Draw the inputs from seed; NULL: every input uniform in [-1, 1) (ref_randf). */
	void (*draw)(struct ref_problem *p, uint64_t seed);
	/* Reference into p->expect (double) and per element the bound's scale into p->scale
	 * (result_len of each). */
	void (*reference)(struct ref_problem *p);
	/* Largest |got - expect| accepted for output element i (0: the float must equal the
	 * reference exactly).  Uses p->scale. */
	double (*bound)(const struct ref_problem *p, size_t i);
	/* Reference and bound of element i computed on the spot, for problems set up without
	 * their reference (too large for the CPU): see ref_check_sample. */
	void (*element)(const struct ref_problem *p, size_t i, double *expect, double *bound);
	/* The values compared with the reference, made on the host from the raw output (e.g. the
	 * partial sums added in double): p->result_len of them.  NULL: the output itself is
	 * compared element by element (result_len = out_len). */
	void (*finish)(const struct ref_problem *p, const float *got, double *result);
	/* A wrong-result pattern only this kind knows (e.g. "rows and columns swapped"): write
	 * it into buf and return 1, else 0; 2 where this run alone settles the cause (one
	 * element short: ref_result.exact), so the verdict names it over the other sizes'
	 * guesses, with its try in try_ where the pattern has one of its own.  Called after the generic "nothing written" and "all zero" patterns, before
	 * the generic ones.  May be NULL. */
	int (*pattern)(const struct ref_problem *p, const float *got, char *buf, size_t len,
	               char *try_, size_t tlen);

	/* ---- the kernel's parameters ---- */
	/* Their names in the order the grader passes them, NULL-terminated: the n_inputs input
	 * buffers, the output buffer, then the scalar ints (the signature check names them). */
	const char *args[KIND_MAX_SCALARS + 4];
	int n_inputs;

	/* ---- launch (clrun.c calls these) ---- */
	/* NDRange for a problem at TILE: fills global[] and local[], returns the dimensions. */
	int (*geometry)(const struct ref_problem *p, int tile, size_t global[3], size_t local[3]);
	/* Scalar int arguments after the buffers, into v[KIND_MAX_SCALARS]; returns how many. */
	int (*scalars)(const struct ref_problem *p, int v[KIND_MAX_SCALARS]);
	/* Work-items per work-group at TILE (occupancy, messages). */
	int (*group_size)(int tile);

	/* ---- units the report prints ---- */
	const char *rate_unit;                /* "GFLOP/s" or "GB/s"                            */
	const char *rate_key;                 /* JSON timing key: "gflops" or "gbps"            */
	double (*work)(int rows, int cols);   /* FLOP or bytes of one launch at this size       */
	/* Floats a copy kernel moves (read and write) in the same timing run, to show the kernel's
	 * bandwidth beside the device's; NULL: no copy is timed. */
	double (*copy_floats)(int rows, int cols);
	const char *traffic_key;              /* JSON key of global bytes loaded per unit       */
	double (*traffic_units)(int rows, int cols); /* the unit count at the analysis size   */
	const char *traffic_text;             /* text line (printf of the per-unit value), or NULL */
	/* FMAs the launch of rows x cols at TILE = tile performs, padding included (fmaload.h:
	 * __local bytes loaded per FMA); NULL: the finding is not shown. */
	double (*fma_count)(int rows, int cols, int tile);

	/* ---- criteria ---- */
	/* Given what the analysis measured (kind_traffic), is __local only a token (the kernel
	 * still loads as the naive one does, or its values do not go through __local)?  Writes the
	 * finding and returns 1.  May be NULL. */
	int (*token_local)(const kind_traffic *t, char *msg, size_t len, const char **try_);
	/* When a non-square multiple of TILE is wrong while the square sizes are right (rows and
	 * cols mixed up): the remark and the try; NULL when the kind has no such mix-up. */
	const char *mixup_msg, *mixup_try;
	/* The kind's own reading of which sizes are right and which wrong (diag_sizes): writes
	 * " -- why" into extra and the try, returns 1; 0 leaves it to the generic reading.  May
	 * be NULL. */
	int (*sizes_pattern)(const diag_size *s, int n, int tile, char *extra, size_t elen,
	                     char *try_, size_t tlen);
	/* Why speed is not judged on a CPU device, for this kind. */
	const char *cpu_speed_note;
	/* What to try when a global access is not coalesced (the criterion `coalesced`). */
	const char *coalesce_try;

	/* ---- words ---- */
	int dims;                             /* 1: a size is n = cols (rows 1); 2: rows x cols */
	int tile_2d;                          /* its __local arrays are 2-D tiles: swapping an
	                                         access's two indices is a fix to talk about   */
	const char *say[KS_COUNT];            /* kind_say                                       */
	/* Where output element (r, c) is, for a message ("row 3, column 5"); NULL: kind.c's
	 * default by dims. */
	void (*where)(int r, int c, char *buf, size_t len);
} kind;

/* k's sentence for situation id: its own, else the kind-agnostic default (kind.c). */
const char *kind_say(const kind *k, kind_say_id id);
/* A size in k's words: "17x23", or "n=257" for a 1-D kind; into buf, which it returns. */
const char *kind_size_text(const kind *k, int rows, int cols, char *buf, size_t len);
#define KIND_SIZE(k, rows, cols) kind_size_text((k), (rows), (cols), (char[48]){ 0 }, 48)
/* Output element (r, c) in k's words ("element 1029" for a 1-D kind): into buf, returned. */
const char *kind_where(const kind *k, int r, int c, char *buf, size_t len);
#define KIND_WHERE(k, r, c) kind_where((k), (r), (c), (char[64]){ 0 }, 64)

extern const kind kind_matmul, kind_transpose, kind_reduction, kind_stencil2d;
/* Lesson 7's matmul (kind_matmul.c): each work-item of a TILE x TILE group computes a
 * KIND_MATMUL_WPT x KIND_MATMUL_WPT block of C; the NDRange is N / WPT per dimension, rounded
 * up to whole groups. */
enum { KIND_MATMUL_WPT = 8 };
extern const kind kind_matmul_blocked;
/* Lesson-level words (lesson.h say) a kind offers for lessons it serves in a simpler form. */
extern const char *const kind_matmul_untiled[KS_COUNT];

/* The reduction's launch and bound (kind_reduction.c): work-groups for n elements at TILE,
 * and the largest |sum - reference| accepted given sum |x_i|. */
size_t kind_reduce_groups(int n, int tile);
double kind_reduce_bound(int n, int tile, double abs_sum);
/* ... for any floats, in any order of the additions (the wide run's inputs) */
double kind_reduce_bound_any(int n, int tile, double abs_sum);

/* The 2-D stencil's radius (kind_stencil2d.c): the box is (2R+1) x (2R+1).  The lesson's
 * kernel files define the same R; a grader built with -DKIND_STENCIL_R=N grades R = N kernels
 * (how R = 1 and R = 2 were measured: tests/gpu/l6-bundle.sh, GUIDE.md "Speedup thresholds"). */
#ifndef KIND_STENCIL_R
#define KIND_STENCIL_R 3
#endif
/* The stencil at output (r, c) of a rows x cols image, in double, 0 outside; *scale (may be
 * NULL): the sum of |in| over the box. */
double kind_stencil_at(const float *in, int rows, int cols, int r, int c, double *scale);
/* Where a stencil's wrong outputs lie (its pattern): within R of the image's edge, within R
 * of a work-group's corner or edge (both, or one dimension), or elsewhere; nan: non-finite;
 * unwritten: of those, the ones still holding the grader's NaN fill (REF_UNWRITTEN_BITS);
 * first_r/first_c: the first wrong one off the image's edge (-1: none). */
typedef struct kind_stencil_wrong {
	int image_edge, corner, group_edge, elsewhere, nan, first_r, first_c, unwritten;
} kind_stencil_wrong;
void kind_stencil_places(const struct ref_problem *p, const float *got, kind_stencil_wrong *w);

/* Round x up to a multiple of m (m > 0). */
size_t kind_round_up(size_t x, size_t m);

/* The 2-D NDRange of DESIGN's matrix lessons: TILE x TILE groups, dimension 0 over cols,
 * dimension 1 over rows, each rounded up to TILE; and its work-group size, TILE * TILE. */
int kind_geometry_2d(const struct ref_problem *p, int tile, size_t global[3], size_t local[3]);
int kind_group_2d(int tile);
/* The size a TILE sweep is timed at: time_size_gpu on a GPU, sweep_size (or time_size) on a
 * CPU. */
lesson_size kind_sweep_size(const kind *k, int gpu);
/* Element (r, c) of a matrix kind's output: "row r, column c" (kind.where). */
void kind_where_2d(int r, int c, char *buf, size_t len);

#endif
