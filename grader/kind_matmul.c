/* kind_matmul.c — the matmul kind (lessons 1, 2 and 4): C = A·B for square N x N row-major
 * matrices, a 2-D NDRange of TILE x TILE groups (dimension 0 walks columns).  The reference is
 * computed in double; the bound grows with the dot product's length.
 *
 * Its register-blocked variant (kind_matmul_blocked, lesson 7) computes the same product with
 * the same reference, bound and words, but each work-item of a TILE x TILE group computes a
 * KIND_MATMUL_WPT x KIND_MATMUL_WPT block of C: a group covers (TILE * WPT)^2 elements, so the
 * NDRange is N / WPT per dimension, rounded up to a whole group. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmaload.h"
#include "kind.h"
#include "ref.h"

#define U 5.9604644775390625e-08  /* 2^-24, float's unit roundoff */

static void shape(ref_problem *p, int rows, int cols)
{
	size_t n = (size_t)rows * rows;
	(void)cols;
	p->rows = p->cols = rows;
	p->n_in = 2;
	p->in_name[0] = "A", p->in_name[1] = "B", p->out_name = "C";
	p->in_len[0] = p->in_len[1] = p->out_len = n;
	p->out_rows = p->out_cols = rows;
	p->flops = 2.0 * rows * (double)rows * rows;
	p->bytes = 3.0 * n * sizeof(float);
}

/* i-k-j order; scale = sum_k |a_ik||b_kj| */
static void reference(ref_problem *p)
{
	int n = p->rows;
	const float *a = p->in[0], *b = p->in[1];
	for (int i = 0; i < n; i++) {
		double *e = p->expect + (size_t)i * n, *s = p->scale + (size_t)i * n;
		for (int k = 0; k < n; k++) {
			double aik = a[(size_t)i * n + k], abs_aik = fabs(aik);
			const float *bk = b + (size_t)k * n;
			for (int j = 0; j < n; j++) {
				e[j] += aik * bk[j];
				s[j] += abs_aik * fabs(bk[j]);
			}
		}
	}
}

/* 2(K+1)u * sum_k |a_ik||b_kj|: any order of the K products and sums stays inside */
static double bound_of(int k, double scale)
{
	return 2.0 * (k + 1) * U * scale + 1e-30;
}

static double bound(const ref_problem *p, size_t i)
{
	return bound_of(p->rows, p->scale[i]);
}

static void element(const ref_problem *p, size_t i, double *expect, double *bnd)
{
	int r = (int)(i / p->out_cols), c = (int)(i % p->out_cols);
	double e = 0, scale = 0;
	for (int k = 0; k < p->rows; k++) {
		double a = p->in[0][(size_t)r * p->rows + k], b = p->in[1][(size_t)k * p->rows + c];
		e += a * b;
		scale += fabs(a * b);
	}
	*expect = e;
	*bnd = bound_of(p->rows, scale);
}

/* ---- which terms k the kernel adds: their weights, fitted on the output --------------- */

enum { FIT_N = 256, FIT_M = 3 };   /* up to N = 256 unknowns, three outputs per unknown */

/* The integer weight w[k] of A[i][k] * B[k][j] in every output C[i][j] when one set of them
 * makes each fitted output within twice its bound (a kernel that adds some terms, some
 * twice, the same ones for every element); 0 on success. */
static int fit_terms(const ref_problem *p, const float *got, int *w)
{
	int n = p->rows, m = FIT_M * n;
	if (n < 32 || n > FIT_N)
		return -1;
	static double a[FIT_N * FIT_N], b[FIT_N], x[FIT_M * FIT_N][FIT_N], y[FIT_M * FIT_N];
	size_t total = (size_t)n * n;
	for (int s = 0; s < m; s++) {     /* outputs spread over C */
		size_t e = (size_t)s * total / m + (size_t)(s * 7) % n;
		e %= total;
		int r = (int)(e / n), c = (int)(e % n);
		if (!isfinite(got[e]))
			return -1;
		for (int k = 0; k < n; k++)
			x[s][k] = (double)p->in[0][(size_t)r * n + k] * p->in[1][(size_t)k * n + c];
		y[s] = got[e];
	}
	if (ref_lsq(&x[0][0], FIT_N, y, m, n, a, b) != 0)
		return -1;
	for (int k = 0; k < n; k++) {
		if (fabs(b[k] - nearbyint(b[k])) > 0.05 || fabs(b[k]) > 4)
			return -1;
		w[k] = (int)nearbyint(b[k]);
	}
	for (int s = 0; s < m; s++) {
		double v = 0, sc = 0;
		for (int k = 0; k < n; k++)
			v += w[k] * x[s][k], sc += fabs(x[s][k]);
		if (fabs(v - y[s]) > 2 * bound_of(n, sc) + 1e-6 * fabs(y[s]))
			return -1;
	}
	return 0;
}

/* The terms the fitted weights leave out, in words: 1 when written. */
static int describe_terms(const int *w, int n, char *buf, size_t len, char *try_, size_t tlen)
{
	int ones = 0, zeros = 0, other = 0, last_one = -1, first_zero = -1;
	for (int k = 0; k < n; k++) {
		ones += w[k] == 1, zeros += w[k] == 0, other += w[k] != 0 && w[k] != 1;
		if (w[k] == 1)
			last_one = k;
		if (w[k] == 0 && first_zero < 0)
			first_zero = k;
	}
	if (!zeros && !other)
		return 0;
	if (other) {
		snprintf(buf, len, "C[i][j] adds some terms A[i][k] * B[k][j] more than once or "
		         "subtracts them (%d of the %d k): each k must be added exactly once", other, n);
		snprintf(try_, tlen, "let each k be added once: one loop over the tiles, and within "
		         "each the TILE values of k");
		return 1;
	}
	if (ones == 1) {
		snprintf(buf, len, "C[i][j] is one term, A[i][%d] * B[%d][j], not the sum over k: the "
		         "sum is overwritten (acc = ...) instead of added to (acc += ...)", last_one,
		         last_one);
		snprintf(try_, tlen, "start acc at 0 once, before the loops, and add every product "
		         "into it: acc += ...");
		return 1;
	}
	int tail = 1;   /* the terms from first_zero on all missing */
	for (int k = first_zero; k < n; k++)
		tail = tail && w[k] == 0;
	for (int per = 2; per <= 64 && per < n; per++)
		for (int c = 0; c < per; c++) {
			int match = 1;
			for (int k = 0; k < n && match; k++)
				match = (w[k] == 0) == (k % per == c);
			if (match) {
				snprintf(buf, len, "C[i][j] misses the terms k = %d, %d, %d, ...: one k in "
				         "every %d (k %% %d == %d), the others are right -- a loop over the "
				         "%d values of a step starts one late or stops one short", c, c + per,
				         c + 2 * per, per, per, c, per);
				snprintf(try_, tlen, "let the loop over k within a step take all its "
				         "values, from 0 to the step's length - 1 (k = 0; k < TILE)");
				return 1;
			}
		}
	if (tail) {
		snprintf(buf, len, "C[i][j] adds the terms k = 0 .. %d and none from k = %d on (N = "
		         "%d): the loop over k stops early", first_zero - 1,
		         first_zero, n);
		return 1;   /* the lesson's own try: tiles or not (KS_ZERO_TRIP_TRY) */
	}
	snprintf(buf, len, "C[i][j] adds %d of the %d terms A[i][k] * B[k][j], first missing k = "
	         "%d: every k must be added once", ones, n, first_zero);
	snprintf(try_, tlen, "check which values of k the loops reach: every one from 0 to N - 1, "
	         "once");
	return 1;
}

/* Is the output the transpose of the right answer (indices swapped)?  Else the terms it adds,
 * when a fit of their weights is exact (2: the cause settled). */
static int pattern(const ref_problem *p, const float *got, char *buf, size_t len,
                   char *try_, size_t tlen)
{
	static int w[FIT_N];
	if (fit_terms(p, got, w) == 0 && describe_terms(w, p->rows, buf, len, try_, tlen))
		return 2;
	if (p->out_rows < 2)
		return 0;
	for (int r = 0; r < p->out_rows; r++)
		for (int c = 0; c < p->out_cols; c++) {
			size_t i = (size_t)r * p->out_cols + c, t = (size_t)c * p->out_cols + r;
			if (!isfinite(got[i]) || fabs(got[i] - p->expect[t]) > bound(p, t))
				return 0;
		}
	snprintf(buf, len, "row and column are swapped: the result is the transpose of the right "
	         "one (get_global_id(0) walks columns, get_global_id(1) rows)");
	snprintf(try_, tlen, "store C[row * N + col] with row from dimension 1 and col from "
	         "dimension 0, and read A along row, B along col");
	return 2;
}

static int scalars(const ref_problem *p, int v[KIND_MAX_SCALARS])
{
	v[0] = p->rows;
	return 1;
}

static double work(int rows, int cols) { (void)cols; return 2.0 * rows * (double)rows * rows; }

static int token_local(const kind_traffic *t, char *msg, size_t len, const char **try_)
{
	double per_flop = t->global_per_unit;
	int tile = t->tile;
	if (per_flop <= 8.0 / tile)
		return 0;
	*try_ = "each element of A and B should come from global memory once per tile and then be "
	        "read TILE times from __local memory; check that the inner loop reads only the tiles";
	snprintf(msg, len, "the kernel uses __local memory but still loads %.2f bytes from global "
	         "memory per FLOP (the naive kernel: 4.00; tiles of TILE=%d: %.2f)", per_flop, tile,
	         4.0 / tile);
	return 1;
}

/* The words of a matmul lesson without tiles, __local memory or barriers (lesson 1). */
const char *const kind_matmul_untiled[KS_COUNT] = {
	[KS_EDGE] = "load or store outside the matrix: the global size is rounded up to a multiple "
	            "of the 16 x 16 work-group",
	[KS_EDGE_TRY] = "guard every load and store with the real size N (if (row < N && col < N)): "
	                "work-items past the edge exist",
	[KS_SIZE_TRY] = "use N everywhere, with no size of your own",
	[KS_ZERO_TRIP_TRY] = "let the dot product run over every k: k < N (at N = 1, one turn)",
	[KS_OOB_TRY] = "check the index of that access against the matrix's size: k runs from 0 to "
	               "N - 1 (k < N, not k <= N), and a work-item past the edge must not load or store",
	[KS_WIDE] = "a value of A or B, a product or the sum is rounded somewhere -- half-precision "
	            "or fixed-point arithmetic (ints or longs scaled by a power of two) loses the low "
	            "bits",
	[KS_WIDE_TRY] = "multiply and add in float: acc += A[row * N + k] * B[k * N + col], with no "
	                "int, long or half copy of a value",
};

/* What both matmul tables share: C = A x B of N x N floats, its reference and bound, its
 * scalar argument and 2-D groups, and its units (FLOPs); the tables differ in their launch,
 * sizes and words. */
#define MATMUL_PROBLEM \
	.args = { "A", "B", "C", "N", NULL }, .n_inputs = 2, .shape = shape, .reference = reference, \
	.bound = bound, .element = element, .pattern = pattern
#define MATMUL_UNITS \
	.scalars = scalars, .group_size = kind_group_2d, .rate_unit = "GFLOP/s", \
	.rate_key = "gflops", .work = work, .traffic_key = "bytes_loaded_per_flop", \
	.traffic_units = work

const kind kind_matmul = {
	.name = "matmul",
	.sizes = { {1, 1}, {17, 17}, {100, 100}, {256, 256} },
	/* K = 256, the largest size: a kernel that rounds only the terms past some k (a loop
	 * counter against a constant, no size test) meets the wide inputs up to there */
	.wide_size = {256, 256},
	.time_size = {480, 480},
	.time_size_gpu = {2048, 2048},
	/* lesson 4's sweep on a CPU: three launches at each TILE, shown and not judged; at 480
	 * they cost a check about a second (GUIDE.md, "TILE sweep") */
	.sweep_size = {256, 256},
	/* 2 x 2 groups at TILE=16, the last row and column partial: lesson 4's run at TILE=32
	 * moves to 33..63 (lesson_analysis_size_at) */
	.analysis_lo = {17, 17}, .analysis_hi = {31, 31},
	.model_size = {32, 32},
	MATMUL_PROBLEM,
	.geometry = kind_geometry_2d,
	MATMUL_UNITS,
	.traffic_text = "  global bytes loaded per FLOP: %.3f (naive: 4.000; tiling divides it by TILE)\n",
	.token_local = token_local,
	.cpu_speed_note = "tiling's fewer global loads do not reliably beat the CPU's caches (the "
	                  "reference solution measures 0.7-1.0x here)",
	.coalesce_try = "make that access's index step by 1 from one lane to the next: with col = "
	                "get_global_id(0) and row = get_global_id(1), read B[k * N + col] (not "
	                "B[col * N + k]) and write C[row * N + col]; in a tiled kernel let "
	                "get_local_id(0) walk along a row of A and of B when loading each tile",
	.dims = 2,
	.tile_2d = 1,
	.where = kind_where_2d,
	.say = {
		[KS_GUARD] = "if (row < N && col < N)",
		[KS_EDGE] = "load or store outside the matrix, or skip work the edge needs",
		[KS_EDGE_TRY] = "let the loop over tiles cover the partial last one ((N + TILE - 1) / "
		                "TILE tiles, not N / TILE), guard every global load and store with the "
		                "real size N, load 0 for a tile element past the edge, and let every "
		                "work-item still reach each barrier",
		[KS_SIZE_TRY] = "use N everywhere, and let the loop over tiles cover a partial last tile "
		                "((N + TILE - 1) / TILE tiles, not N / TILE)",
		[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach every barrier: do not "
		                      "return early or put the barriers under the edge guard; keep every "
		                      "work-item in the tile loop, load 0 outside the matrix, and guard "
		                      "only the loads and the final store",
		[KS_STORE_OWN] = " (row from get_global_id(1), column from get_global_id(0))",
		[KS_SCALE] = "every element within its rounding bound (the scale: sum|a*b| over its "
		             "dot product)",
		[KS_PAD] = "pad each row by one element (tile[TILE][TILE+1]) to make the stride odd",
		[KS_SWIZZLE] = "XOR-swizzle the column (tile[r][c ^ r])",
		[KS_EDGE_PART] = "rows or columns",
		[KS_LOCAL_TRY] = "declare a __local tile (e.g. __local float tile[TILE][TILE];), load "
		                 "it cooperatively, barrier, then compute from it",
		[KS_WIDE] = "a value of A or B is rounded somewhere -- tiles stored in __local as "
		            "half (vstore_half/vload_half: 11 significant bits) or as fixed point (an int "
		            "scaled by a power of two) lose the low bits",
		[KS_WIDE_TRY] = "declare the tiles __local float and multiply and add in float: no "
		                "half or int copy of a value",
		[KS_WORK_GROWS] = "a loop nest deeper than the lesson's: the sizes grow to hundreds",
		[KS_INDEX_TRY] = "a row of each matrix is N long, so the element (row, col) is at "
		                 "row * N + col, and k runs from 0 to N - 1",
		[KS_SPEED_TRY] = "each element loaded into __local memory must be reused TILE times; "
		                 "check that the tile loads are coalesced and the inner loop reads only "
		                 "__local memory",
	},
};

/* ---- lesson 7: register blocking ---- */

enum { WPT = KIND_MATMUL_WPT };

/* TILE x TILE work-items, each WPT x WPT elements of C: groups of (TILE * WPT)^2 elements. */
static int geometry_blocked(const ref_problem *p, int tile, size_t global[3], size_t local[3])
{
	size_t block = (size_t)tile * WPT;
	local[0] = local[1] = (size_t)tile;
	global[0] = kind_round_up((size_t)p->cols, block) / WPT;
	global[1] = kind_round_up((size_t)p->rows, block) / WPT;
	return 2;
}

/* The FMAs of the launch: every group's whole block, over k rounded up to TILE. */
static double fma_blocked(int rows, int cols, int tile)
{
	(void)cols;
	double p = (double)kind_round_up((size_t)rows, (size_t)tile * WPT);
	return p * p * (double)kind_round_up((size_t)rows, (size_t)tile);
}

/* Tiles of a group's whole block, TILE * WPT wide, load 4 / (TILE * WPT) bytes per FLOP; a
 * kernel that loads twice that still reuses too little of each element it loads.  Which
 * mistake it is, the __local bytes per FMA tell (fmaload.h): 8, lesson 2's, when the tiles
 * are TILE x TILE and each FMA reads its two floats from them; 8 / WPT, the whole block's,
 * when the block is read from the tiles and the extra bytes are loaded beside them (a tile
 * loaded twice, loads past the edge); less when values of the register block come from
 * global memory instead. */
static int token_local_blocked(const kind_traffic *t, char *msg, size_t len, const char **try_)
{
	double per_flop = t->global_per_unit, block = (double)t->tile * WPT;
	double fmas = fma_blocked(t->rows, t->cols, t->tile);
	double per_fma = fmas > 0 ? t->local_loaded / fmas : 0;
	if (per_flop <= 8.0 / block)
		return 0;
	int small = per_fma >= FMAL_LESSON2 / 2;
	int whole = !small && per_fma >= 0.9 * FMAL_LESSON2 / WPT;   /* the block from the tiles */
	*try_ = small ? "stage the group's whole block: a tile of TILE * WPT rows of A and one of "
	                "TILE * WPT columns of B per step of k, each element loaded from global "
	                "memory once per group, then let each work-item read 2 x WPT values of "
	                "them per k and use each WPT times from registers"
	      : whole ? "load each element of a tile from global memory once per group and step, "
	                "and none past the matrix's edge (load 0 there instead)"
	              : "read every value of the register block from the __local tiles, which hold "
	                "the group's whole block: global memory only fills the tiles";
	snprintf(msg, len, "the kernel loads %.3f bytes from global memory per FLOP (the naive "
	         "kernel: 4.000; lesson 2's tiles of TILE=%d: %.3f; tiles of the whole %d x %d block: "
	         "%.3f), and %.2f bytes from __local memory per FMA (lesson 2's: %.2f; a %d x %d block: "
	         "%.2f): %s", per_flop, t->tile, 4.0 / t->tile, (int)block, (int)block, 4.0 / block,
	         per_fma, FMAL_LESSON2, WPT, WPT, FMAL_LESSON2 / WPT,
	         small ? "its tiles are too small to be reused: each FMA reads two floats from "
	                 "__local memory, as in lesson 2"
	       : whole ? "the register block is read from the tiles, so the extra global bytes "
	                 "are loaded beside them: a tile loaded more than once, or loads past the "
	                 "matrix's edge"
	               : "values of the register block come from global memory, not from the tiles");
	return 1;
}

/* Right only at sizes far below a group's block (N < TILE * WPT / 4, 17 at TILE=16): most of
 * the block lies past N there, neither loaded nor stored, so a mistake in its far rows and
 * columns cannot show, and being right there says nothing about a hard-coded size. */
static int sizes_blocked(const diag_size *s, int n, int tile, char *extra, size_t elen,
                         char *try_, size_t tlen)
{
	const diag_size *right = NULL;
	int wrong = 0, block = tile * WPT;
	for (int i = 0; i < n; i++) {
		if (s[i].right && s[i].rows * 4 >= block)
			return 0;
		if (s[i].right && (!right || s[i].rows > right->rows))
			right = &s[i];
		wrong += !s[i].right;
	}
	if (!right || !wrong || right->rows <= 1)
		return 0;
	snprintf(extra, elen, " -- right only at sizes far smaller than a work-group's %d x %d "
	         "block (up to %dx%d), where most of the block lies past N: a mistake in its far "
	         "rows and columns cannot show there", block, block, right->rows, right->cols);
	snprintf(try_, tlen, "check what only a larger N reaches: a path taken only for whole "
	         "blocks (float4 loads), every row and column of each work-item's %d x %d block, "
	         "the band of C on its way out, and every step of k", WPT, WPT);
	return 1;
}

const kind kind_matmul_blocked = {
	.name = "matmul_blocked",
	/* at TILE=8 (64 x 64 blocks): 17 no whole group; 100 one whole group and partial ones; 200 and
	 * 256 several of each, and whole ones; 132 (at TILE=16, one whole 128 x 128 block) a
	 * multiple of 4 but not of 8, so a float4 path taken for a whole block meets a last step of
	 * k that is half outside the matrix (the analysis' sizes are never multiples of 8) */
	.sizes = { {1, 1}, {17, 17}, {100, 100}, {132, 132}, {200, 200}, {256, 256} },
	/* a whole 128 x 128 block at TILE=16 (the float4 path) and partial ones */
	.wide_size = {200, 200},
	.time_size = {512, 512},
	.time_size_gpu = {4096, 4096},
	/* 2 x 2 groups of 64 x 64 at TILE=8, the last row and column partial, so the interior
	 * group's loops run and edge work-items exist */
	.analysis_lo = {65, 65}, .analysis_hi = {79, 79},
	.model_size = {128, 128},
	MATMUL_PROBLEM,
	.geometry = geometry_blocked,
	MATMUL_UNITS,
	.traffic_text = "  global bytes loaded per FLOP: %.3f (naive: 4.000; a block of TILE * WPT "
	                "divides it by TILE * WPT)\n",
	.fma_count = fma_blocked,
	.token_local = token_local_blocked,
	.sizes_pattern = sizes_blocked,
	.cpu_speed_note = "a CPU has no register file of a GPU's size to hold 64 accumulators per "
	                  "work-item, and its caches serve the tiles anyway: the predicted H200 time "
	                  "judges the blocking instead",
	.coalesce_try = "let consecutive work-items load consecutive elements (or float4s) of a row "
	                "of A and of B when staging the tiles, and store C's rows the same way",
	.dims = 2,
	.tile_2d = 1,
	.where = kind_where_2d,
	.say = {
		[KS_GUARD] = "if (row < N && col < N)",
		[KS_EDGE] = "load or store outside the matrix: a work-item's block, or its group's "
		            "tile, runs past the last row or column",
		[KS_EDGE_TRY] = "guard each element of the work-item's block (row < N && col < N) when "
		                "storing C, load 0 for a tile element past the edge, let the loop over k "
		                "cover a partial last step, and use float4 loads only where all four "
		                "elements are inside the matrix",
		[KS_SIZE_TRY] = "use N everywhere, and let the loop over k cover a partial last step",
		[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach every barrier: keep "
		                      "every work-item in the loop over k, load 0 outside the matrix, "
		                      "and guard only the loads and the final stores",
		[KS_STORE_OWN] = " (a WPT x WPT block per work-item: rows from get_group_id(1) and "
		                 "get_local_id(1), columns from get_group_id(0) and get_local_id(0))",
		[KS_SCALE] = "every element within its rounding bound (the scale: sum|a*b| over its "
		             "dot product)",
		[KS_PAD] = "pad each row of the tile by one float4 (tile[K][TILE * WPT + 4]) so that "
		           "consecutive rows start in different banks",
		[KS_SWIZZLE] = "XOR-swizzle the column (tile[r][c ^ r])",
		[KS_EDGE_PART] = "rows or columns",
		[KS_LOCAL_TRY] = "declare __local tiles of the group's whole block (a K x TILE * WPT "
		                 "tile of A and one of B), load them cooperatively, barrier, then compute "
		                 "the work-item's block from them",
		[KS_SPEED_TRY] = "keep the work-item's WPT x WPT accumulators in registers (constant "
		                 "indices after #pragma unroll), read each value of A and B from "
		                 "__local memory once per step of k and use it WPT times",
		[KS_WIDE] = "a value of A or B is rounded somewhere -- tiles stored in __local as "
		            "half (vstore_half/vload_half: 11 significant bits) or as fixed point (an int "
		            "scaled by a power of two) lose the low bits",
		[KS_WIDE_TRY] = "declare the tiles __local float and multiply and add in float: no "
		                "half or int copy of a value",
		[KS_SPILL_TRY] = "keep the lesson's WPT x WPT block per work-item (64 accumulators and "
		                 "2 x WPT values of A and B per step of k fit in NVIDIA's 255 "
		                 "registers): a larger block spills to local memory, off-chip",
	},
};
