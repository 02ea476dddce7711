/* kind_transpose.c — the transpose kind (lesson 3): out (cols x rows) = in (rows x cols)
 * transposed, a 2-D NDRange of TILE x TILE groups (dimension 0 walks the input's columns).
 * A copy is exact, so the bound is 0. */
#include <math.h>
#include <stdio.h>

#include "kind.h"
#include "ref.h"

static void shape(ref_problem *p, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	p->rows = rows, p->cols = cols;
	p->n_in = 1;
	p->in_name[0] = "in", p->out_name = "out";
	p->in_len[0] = p->out_len = n;
	p->out_rows = cols, p->out_cols = rows;
	p->bytes = 2.0 * n * sizeof(float);
}

/* In 32 x 32 blocks: a row-by-row walk writes the output a column at a time, a cache miss per
 * element (85 ms of the parent's 320 at the timing size, perf record) */
static void reference(ref_problem *p)
{
	enum { B = 32 };
	for (int r0 = 0; r0 < p->rows; r0 += B)
		for (int c0 = 0; c0 < p->cols; c0 += B)
			for (int r = r0; r < r0 + B && r < p->rows; r++)
				for (int c = c0; c < c0 + B && c < p->cols; c++) {
					double v = p->in[0][(size_t)r * p->cols + c];
					p->expect[(size_t)c * p->rows + r] = v;
					p->scale[(size_t)c * p->rows + r] = fabs(v);
				}
}

static double bound(const ref_problem *p, size_t i) { (void)p, (void)i; return 0.0; }

/* out[c][r] = in[r][c], with out cols x rows */
static void element(const ref_problem *p, size_t i, double *expect, double *bnd)
{
	int r = (int)(i / p->out_cols), c = (int)(i % p->out_cols);
	*expect = p->in[0][(size_t)c * p->cols + r];
	*bnd = 0;
}

/* Is the output a plain copy of the input? */
static int pattern(const ref_problem *p, const float *got, char *buf, size_t len,
                   char *try_, size_t tlen)
{
	(void)try_, (void)tlen;
	if (p->out_rows < 2 && p->out_cols < 2)
		return 0;
	for (size_t i = 0; i < p->out_len; i++)
		if (got[i] != p->in[0][i])
			return 0;
	snprintf(buf, len, "the output is a plain copy of the input: the store index must swap row "
	         "and column (out is cols x rows: out[c * rows + r])");
	return 1;
}

static int scalars(const ref_problem *p, int v[KIND_MAX_SCALARS])
{
	v[0] = p->rows, v[1] = p->cols;
	return 2;
}

/* bytes moved by a perfect kernel: every element read once and written once */
static double work(int rows, int cols) { return 2.0 * rows * (double)cols * sizeof(float); }

static double elements(int rows, int cols) { return (double)rows * cols; }

const kind kind_transpose = {
	.name = "transpose",
	/* 32x96: a non-square multiple of TILE, where only a rows/cols mix-up is wrong */
	.sizes = { {1, 1}, {100, 37}, {37, 100}, {64, 64}, {32, 96}, {33, 65} },
	.wide_size = {100, 37},    /* non-square, partial tiles */
	.time_size = {2000, 2000},
	.time_size_gpu = {8192, 8192},
	.analysis_lo = {33, 65}, .analysis_hi = {63, 95},
	.model_size = {64, 96},
	.args = { "in", "out", "rows", "cols", NULL },
	.n_inputs = 1,
	.shape = shape,
	.reference = reference,
	.bound = bound,
	.element = element,
	.pattern = pattern,
	.geometry = kind_geometry_2d,
	.scalars = scalars,
	.group_size = kind_group_2d,
	.rate_unit = "GB/s",
	.rate_key = "gbps",
	.work = work,
	.traffic_key = "bytes_loaded_per_element",
	.traffic_units = elements,
	.mixup_msg = " -- square sizes are right and a non-square multiple of TILE is wrong, so "
	             "rows and cols are mixed up somewhere (in is rows x cols, out is cols x rows)",
	.mixup_try = "check every use of rows and cols: the input's row length is cols, the output's is rows",
	.coalesce_try = "make consecutive get_local_id(0) touch consecutive addresses in every "
	                "global load and store: read a tile along rows, transpose it in __local "
	                "memory, and write it along rows too",
	.cpu_speed_note = "padding and bank conflicts cannot show in the timing (conflict_free is "
	                  "judged by the GPU bank model instead) and the tile's staging often costs "
	                  "more than it saves",
	.dims = 2,
	.tile_2d = 1,
	.where = kind_where_2d,
	.say = {
		[KS_GUARD] = "if (row < rows && col < cols) on the load, and the swapped test on the store",
		[KS_EDGE] = "load or store outside the matrix, or skip work the edge needs",
		[KS_EDGE_TRY] = "guard every global load and store with the real size (rows and cols: "
		                "in is rows x cols, out is cols x rows), and let every work-item still "
		                "reach each barrier",
		[KS_SIZE_TRY] = "use rows and cols everywhere, and guard the last partial tile",
		[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach every barrier: do not "
		                      "return early or put the barrier under the edge guard; guard only "
		                      "the load into the tile and the store out of it",
		[KS_STORE_OWN] = " (out[col * rows + row] for the element in[row * cols + col] it read)",
		[KS_SCALE] = "every element equal to its input (a copy is exact; the scale: |value|)",
		[KS_PAD] = "pad each row by one element (tile[TILE][TILE+1]) to make the stride odd",
		[KS_SWIZZLE] = "XOR-swizzle the column (tile[r][c ^ r])",
		[KS_EDGE_PART] = "rows or columns",
		[KS_LOCAL_TRY] = "declare a __local tile (e.g. __local float tile[TILE][TILE + 1];), "
		                 "load it along rows, barrier, then store it along rows of out",
		[KS_WIDE] = "a value is rounded on its way through the tile -- a tile stored as half "
		            "(vstore_half/vload_half: 11 significant bits) or as fixed point (an int "
		            "scaled by a power of two) loses the low bits, and a copy must keep them all",
		[KS_WIDE_TRY] = "declare the tile __local float and copy each value as it is: no half "
		                "or int copy of it",
		[KS_WORK_GROWS] = "a loop nest deeper than the lesson's: the sizes grow to hundreds",
		[KS_INDEX_TRY] = "check every use of rows and cols: a row of in is cols long, a row "
		                 "of out is rows long",
		[KS_SPEED_TRY] = "check that both the load of in and the store to out are coalesced "
		                 "(each a row of the tile) and that the tile's column read is "
		                 "conflict-free",
	},
};
