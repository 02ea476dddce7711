/* ref.h — the CPU side of a lesson: seeded inputs, the reference result, the comparison,
 * and what a mismatch pattern usually means.  What depends on the lesson's kind (shape,
 * reference, bound, kind-specific patterns) comes from its kind (kind.h); this module holds
 * the rest.  No OpenCL here: Check tests it directly. */
#ifndef REF_H
#define REF_H

#include <stddef.h>
#include <stdint.h>
#include "kind.h"

/* Bit pattern the output is pre-filled with: an element still holding it was never written. */
#define REF_UNWRITTEN_BITS 0x7fc0deadu

typedef struct ref_problem {
	const kind *kind;
	int tile;                /* the TILE it is launched at (the kind's geometry may need it) */
	int rows, cols;          /* matmul: rows = cols = N; transpose: input is rows x cols */
	int n_in;                /* input buffers */
	float *in[2];
	size_t in_len[2];
	const char *in_name[2];  /* "A", "B" / "in" */
	size_t out_len;
	const char *out_name;    /* "C" / "out" */
	int out_rows, out_cols;  /* shape of the output */
	size_t result_len;       /* values compared: out_len, or what the kind's finish makes */
	double *expect;          /* reference, computed in double */
	double *scale;           /* per element: error scale (sum |a||b| for matmul; |ref| else) */
	double flops;            /* 2N^3 for matmul; 0 for transpose */
	double bytes;            /* bytes a perfect kernel moves (transpose: 2*rows*cols*4) */
	int max_groups;          /* the GPU time model's launch: at most this many work-groups
	                            (kind.h model_groups; 0: the kind's own launch) */
	int wide;                /* the full-precision inputs (ref_draw_wide), not the kind's draw:
	                            the kind's bound must hold for any floats (never 0 for a sum) */
} ref_problem;

/* Allocate inputs (the kind's draw, else uniform in [-1,1), from seed) for a launch at TILE
 * tile and compute the reference.  0 on success. */
int ref_setup(ref_problem *p, const kind *k, int rows, int cols, int tile, uint64_t seed);
/* The same inputs without the reference (expect = scale = NULL): for timing at sizes whose
 * CPU reference would cost seconds; ref_compare must not be called on it. */
int ref_setup_inputs(ref_problem *p, const kind *k, int rows, int cols, int tile,
                     uint64_t seed);
/* The same with the full-precision inputs of the wide run (ref_draw_wide) in place of the
 * kind's draw; with_ref: the reference too.  0 on success. */
int ref_setup_wide(ref_problem *p, const kind *k, int rows, int cols, int tile, uint64_t seed,
                   int with_ref);
void ref_free(ref_problem *p);
/* Only the shape of that problem (lengths, rows and columns of inputs and output; wide: the
 * wide run's, whose launch may have fewer groups, kind.h wide_groups): nothing allocated,
 * nothing drawn, nothing to free.  For planning a launch's buffers. */
void ref_shape(ref_problem *p, const kind *k, int rows, int cols, int tile, int wide);
/* malloc for a problem's arrays; from REF_HUGE_BYTES up, aligned to it and advised to the
 * kernel as huge pages (a lesson-5 check touches about 250 MB of fresh arrays, and 4 KiB page
 * faults were a tenth of its time: GUIDE.md, "What the trust boundary costs").  Free with
 * free(). */
#define REF_HUGE_BYTES ((size_t)2 << 20)
void *ref_alloc(size_t bytes);

/* The wide run's inputs: every value needs all 24 bits of a float's mantissa (23 random
 * fraction bits), its magnitude is spread over 16 binades, [2^-41, 2^-25) (below half's
 * smallest subnormal and below the quantum of any fixed point that 32-bit ints can afford
 * for values near 1), and one in four is negative (signs mixed, yet a value lost anywhere
 * shifts a sum instead of cancelling).  Scaling by a power of two changes no float rounding,
 * so a float kernel is as right here as on values near 1; half or fixed-point storage
 * rounds them to 0 or to a few bits. */
#define REF_WIDE_EXP_LO (-41)
#define REF_WIDE_EXP_HI (-25)
void ref_draw_wide(ref_problem *p, uint64_t seed);

/* Error bound of element i, from the kind: matmul 2(K+1)u * sum_k |a_ik||b_kj| (u = 2^-24),
 * which grows with the dot-product length K; transpose 0 (a copy is exact). */
double ref_bound(const ref_problem *p, size_t i);

/* Is g an acceptable value for output element i (finite and within ref_bound)? */
int ref_element_ok(const ref_problem *p, size_t i, float g);

typedef struct ref_result {
	int passed;
	size_t bad;              /* elements outside the bound (NaN/Inf always count) */
	size_t unwritten;        /* elements still holding REF_UNWRITTEN_BITS */
	size_t nonfinite;        /* other NaN/Inf elements the kernel wrote */
	double max_rel_error;    /* max |got-ref| / scale over finite elements */
	int first_row, first_col;/* first bad element (row-major order), -1 when none */
	double got, expected;
	char pattern[320];       /* what this pattern usually means; "" when passed */
	int all_zero;            /* every element came out 0 */
	int exact;               /* the kind's pattern settles the cause (kind.h pattern: 2) */
	char try_[240];          /* its own try, where it has one ("" otherwise)                 */
} ref_result;

/* Compare the kernel's output with the reference; tile is the lesson's TILE (to recognise
 * "only the last partial tile is wrong"). */
void ref_compare(const ref_problem *p, const float *got, int tile, ref_result *r);

/* Check a problem set up without its reference (ref_setup_inputs) on `samples` elements
 * drawn from seed, computed here in double, plus every element for "never written": for
 * sizes whose full CPU reference would take seconds.  Fills r as ref_compare does. */
void ref_check_sample(const ref_problem *p, const float *got, int samples, uint64_t seed,
                      ref_result *r);

/* The least-squares fit of m rows x (row s at x + s * stride, n values) to y: the normal
 * equations in a (n x n) and b, solved by Gaussian elimination; the n weights in b.  The
 * kinds' patterns fit what a wrong kernel computes on exact inputs.  0, or -1 when singular. */
int ref_lsq(const double *x, int stride, const double *y, int m, int n, double *a, double *b);

/* Deterministic generator: splitmix64 step, and a float in [-1, 1). */
uint64_t ref_rand(uint64_t *state);
float ref_randf(uint64_t *state);

#endif
