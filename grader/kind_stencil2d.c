/* kind_stencil2d.c — the 2-D stencil kind (lesson 6): out[r][c] = the sum of in[r+dy][c+dx]
 * over the (2R+1) x (2R+1) box |dy| <= R, |dx| <= R (corners included), with in = 0 outside
 * the rows x cols image.  A 2-D NDRange of TILE x TILE groups (kind_matrix.c's): dimension 0
 * walks the columns, dimension 1 the rows, each rounded up to TILE; each group stages its
 * TILE x TILE inputs and the R around them (its halo, corners included) in __local memory.
 *
 * R is the lesson's, KIND_STENCIL_R (kind.h): the kernel files define it as `#define R 3`.
 * Exact results: the inputs are multiples of 2^-8 with magnitudes in [0.5, 1) and random
 * signs, so every partial sum of the 49 terms is a multiple of 2^-8 below 64 in magnitude: 14
 * significant bits, which a float holds whatever the order of the additions.  So the bound is
 * 0, and a term dropped or taken from the wrong input changes the output by at least 2^-8
 * (tests/unit/test_stencil2d.c).  The wide run's inputs (ref_draw_wide) need every bit of a
 * float instead, and are judged within bound_wide. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "ref.h"

enum { R = KIND_STENCIL_R, TAPS = (2 * R + 1) * (2 * R + 1) };

static void shape(ref_problem *p, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	p->rows = rows, p->cols = cols;
	p->n_in = 1;
	p->in_name[0] = "in", p->out_name = "out";
	p->in_len[0] = p->out_len = n;
	p->out_rows = rows, p->out_cols = cols;
	p->flops = (double)n * TAPS;          /* one add per term */
	p->bytes = 2.0 * n * sizeof(float);
}

/* a multiple of 2^-8 with magnitude in [0.5, 1), random sign: one random byte each */
static void draw(ref_problem *p, uint64_t seed)
{
	size_t n = p->in_len[0];
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = ref_rand(&seed);
		for (size_t j = 0; j < 8 && i + j < n; j++, x >>= 8)
			p->in[0][i + j] = (x & 128u ? -1.0f : 1.0f) * (float)(128 + (x & 127u)) / 256.0f;
	}
}

double kind_stencil_at(const float *in, int rows, int cols, int r, int c, double *scale)
{
	double s = 0, a = 0;
	for (int y = r - R; y <= r + R; y++)
		for (int x = c - R; x <= c + R; x++)
			if (y >= 0 && y < rows && x >= 0 && x < cols) {
				double v = in[(size_t)y * cols + x];
				s += v, a += fabs(v);
			}
	if (scale)
		*scale = a;
	return s;
}

static void reference(ref_problem *p)
{
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++) {
			size_t i = (size_t)r * p->cols + c;
			p->expect[i] = kind_stencil_at(p->in[0], p->rows, p->cols, r, c, &p->scale[i]);
		}
}

/* The wide run's inputs (ref_draw_wide) need every bit of a float: an output's float sum of
 * its at most TAPS terms, in any order, is off by gamma_{TAPS-1} times its scale (the sum of
 * |in| over the box; the 0 of a cell outside adds exactly); twice that.  The reference is
 * exact there (16 binades of 24-bit values, 49 terms: 46 bits, within a double's 53). */
static double bound_wide(double scale)
{
	double hu = (TAPS - 1) * 5.9604644775390625e-08;
	return 2 * hu / (1 - hu) * scale + 1e-30;
}

static double bound(const ref_problem *p, size_t i)
{
	return p->wide ? bound_wide(p->scale[i]) : 0.0;
}

static void element(const ref_problem *p, size_t i, double *expect, double *bnd)
{
	double scale;
	*expect = kind_stencil_at(p->in[0], p->rows, p->cols, (int)(i / p->cols),
	                          (int)(i % p->cols), &scale);
	*bnd = p->wide ? bound_wide(scale) : 0;
}

/* Does v still hold the grader's NaN fill (ref.h), never written by the kernel? */
static int unwritten(float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	return bits == REF_UNWRITTEN_BITS;
}

/* Is v within R of a group's edge (0 <= v % t < R, or >= t - R), the image's own ends apart? */
static int near_group_edge(int v, int n, int t)
{
	return t > 2 * R && v >= R && v < n - R && (v % t < R || v % t >= t - R);
}

void kind_stencil_places(const ref_problem *p, const float *got, kind_stencil_wrong *w)
{
	int t = p->tile;
	memset(w, 0, sizeof *w);
	w->first_r = w->first_c = -1;
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++) {
			size_t i = (size_t)r * p->cols + c;
			if (ref_element_ok(p, i, got[i]))
				continue;
			int image = r < R || r >= p->rows - R || c < R || c >= p->cols - R;
			int er = near_group_edge(r, p->rows, t), ec = near_group_edge(c, p->cols, t);
			w->nan += !isfinite(got[i]);
			w->unwritten += unwritten(got[i]);
			if (image)
				w->image_edge++;
			else if (er && ec)
				w->corner++;
			else if (er || ec)
				w->group_edge++;
			else
				w->elsewhere++;
			if (w->first_r < 0 && !image)
				w->first_r = r, w->first_c = c;
		}
}

/* ---- what box the kernel adds: its weights, fitted on the interior outputs ---------- */

enum { FK = R + 2, FD = 2 * FK + 1, FU = FD * FD, FIT_MAX = 4 * FU };

/* Output (r, c) far from the image's edges and from its group's: its box and the cells
 * around it are inside the image and come from its own group's staging. */
static int fit_place(const ref_problem *p, int r, int c)
{
	int t = p->tile;
	return r >= FK && r < p->rows - FK && c >= FK && c < p->cols - FK &&
	       (t <= 2 * FK || (r % t >= FK && r % t < t - FK && c % t >= FK && c % t < t - FK));
}

/* The integer weight of in[r + dy][c + dx] in each interior output, |dy|, |dx| <= FK, when one
 * set of them makes every fitted output exactly (a kernel linear in its inputs, the same at
 * every such place); 0 on success. */
static int fit_box(const ref_problem *p, const float *got, int wt[FD][FD])
{
	int n = 0, step = 1, places = 0;
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++)
			places += fit_place(p, r, c);
	if (places < 2 * FU)
		return -1;
	step = places / FIT_MAX + 1;
	static double a[FU * FU], b[FU], x[FIT_MAX][FU], y[FIT_MAX];
	for (int r = 0, k = 0; r < p->rows && n < FIT_MAX; r++)
		for (int c = 0; c < p->cols && n < FIT_MAX; c++) {
			if (!fit_place(p, r, c) || k++ % step)
				continue;
			float g = got[(size_t)r * p->cols + c];
			if (!isfinite(g))
				return -1;
			for (int dy = -FK; dy <= FK; dy++)
				for (int dx = -FK; dx <= FK; dx++)
					x[n][(dy + FK) * FD + dx + FK] =
					    p->in[0][(size_t)(r + dy) * p->cols + c + dx];
			y[n++] = g;
		}
	if (ref_lsq(&x[0][0], FU, y, n, FU, a, b) != 0)
		return -1;
	for (int i = 0; i < FU; i++) {
		if (fabs(b[i] - nearbyint(b[i])) > 1e-3 || fabs(b[i]) > 64)
			return -1;
		wt[i / FD][i % FD] = (int)nearbyint(b[i]);
	}
	for (int s = 0; s < n; s++) {   /* exact, or no such weights */
		double v = 0;
		for (int i = 0; i < FU; i++)
			v += wt[i / FD][i % FD] * x[s][i];
		if (v != y[s])
			return -1;
	}
	return 0;
}

static int in_box(int dy, int dx) { return abs(dy) <= R && abs(dx) <= R; }

/* A box's offset: wt is the right box around (sy, sx); 1 when it is. */
static int shifted_box(int wt[FD][FD], int *sy, int *sx)
{
	for (*sy = -(FK - R); *sy <= FK - R; (*sy)++)
		for (*sx = -(FK - R); *sx <= FK - R; (*sx)++) {
			int same = 1;
			for (int dy = -FK; dy <= FK && same; dy++)
				for (int dx = -FK; dx <= FK && same; dx++)
					same = wt[dy + FK][dx + FK] == in_box(dy - *sy, dx - *sx);
			if (same)
				return 1;
		}
	return 0;
}

/* The box the kernel adds, in words, when it is not the lesson's: 1 when written. */
static int describe_box(int wt[FD][FD], char *buf, size_t len)
{
	int cells = 0, outside = 0, twice = 0, missing = 0, cross = 1, sy, sx;
	int row_gone[2 * R + 1] = { 0 }, col_gone[2 * R + 1] = { 0 }, first_dy = 0, first_dx = 0;
	for (int dy = -FK; dy <= FK; dy++)
		for (int dx = -FK; dx <= FK; dx++) {
			int v = wt[dy + FK][dx + FK], box = in_box(dy, dx);
			cells += v != 0;
			outside += v != 0 && !box;
			twice += box && (v > 1 || v < 0);
			missing += box && v == 0;
			cross = cross && (box ? v == ((dy == 0 || dx == 0) ? 1 : 0) : v == 0);
			if (v && !first_dy && !first_dx)
				first_dy = dy, first_dx = dx;
		}
	if (!missing && !outside && !twice)
		return 0;   /* the lesson's box: what is wrong is elsewhere */
	for (int k = -R; k <= R; k++) {
		row_gone[k + R] = col_gone[k + R] = 1;
		for (int j = -R; j <= R; j++) {
			row_gone[k + R] &= wt[k + FK][j + FK] == 0;
			col_gone[k + R] &= wt[j + FK][k + FK] == 0;
		}
	}
	char rows[64] = "", cols[64] = "";
	for (int k = -R; k <= R; k++) {
		if (row_gone[k + R])
			snprintf(rows + strlen(rows), sizeof rows - strlen(rows), "%s%+d", rows[0] ? ", " : "", k);
		if (col_gone[k + R])
			snprintf(cols + strlen(cols), sizeof cols - strlen(cols), "%s%+d", cols[0] ? ", " : "", k);
	}
	int lines = 0;
	for (int k = 0; k < 2 * R + 1; k++)
		lines += row_gone[k] * (2 * R + 1) + col_gone[k] * (2 * R + 1);
	if (shifted_box(wt, &sy, &sx))
		snprintf(buf, len, "every output adds a whole %dx%d box, but the one around in[row%+d]"
		         "[col%+d], not around its own cell: the box's reads (or the staged block) are "
		         "off by that much", 2 * R + 1, 2 * R + 1, sy, sx);
	else if (cells == 1 && !outside && !twice)
		snprintf(buf, len, "every output is one cell of its box, in[row%+d][col%+d], not the "
		         "sum of its %d: the sum is overwritten (sum = ...) instead of added to (sum "
		         "+= ...)", first_dy, first_dx, (2 * R + 1) * (2 * R + 1));
	else if (cross && !outside)
		snprintf(buf, len, "every output adds only the row and the column through its cell "
		         "(a cross of %d), not the %dx%d box: the box is every pair (dy, dx), two "
		         "nested loops", 4 * R + 1, 2 * R + 1, 2 * R + 1);
	else if (!outside && !twice && lines >= missing && (rows[0] || cols[0]))
		snprintf(buf, len, "every output adds its box without %s%s%s%s%s: a loop over the "
		         "box stops one short or starts one late (dy and dx each take the %d values "
		         "-%d to +%d)", rows[0] ? "its row dy = " : "", rows, rows[0] && cols[0] ?
		         " and " : "", cols[0] ? "its column dx = " : "", cols, 2 * R + 1, R, R);
	else
		snprintf(buf, len, "every output adds %d cells around its own, %d of the box's %d "
		         "missing, %d outside the box, %d counted other than once: each of the %dx%d "
		         "box's cells must be added exactly once", cells, missing,
		         (2 * R + 1) * (2 * R + 1), outside, twice, 2 * R + 1, 2 * R + 1);
	return 1;
}

/* Are the outputs never written exactly the first 2R columns (dim 0) or rows (dim 1), all
 * else right?  Then every output lands 2R further on: the block's origin is + R, not - R. */
static int shifted_store(const ref_problem *p, const float *got, int dim)
{
	size_t first = 0;
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++) {
			size_t i = (size_t)r * p->cols + c;
			int v = dim ? r : c;
			if (v < 2 * R ? !unwritten(got[i]) : !ref_element_ok(p, i, got[i]))
				return 0;
			first += v < 2 * R;
		}
	return first > 0 && (dim ? p->rows : p->cols) > 2 * R;
}

/* Is every output the box around its cell mirrored on its group's diagonal (local row and
 * column swapped): the staged block read tile[lx + dx][ly + dy]? */
static int read_transposed(const ref_problem *p, const float *got)
{
	int t = p->tile, wrong = 0;
	if (t < 2 || p->rows < t || p->cols < t)
		return 0;
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++) {
			int mr = r / t * t + c % t, mc = c / t * t + r % t;
			double e = kind_stencil_at(p->in[0], p->rows, p->cols, mr, mc, NULL);
			if ((double)got[(size_t)r * p->cols + c] != e)
				return 0;
			wrong += !ref_element_ok(p, (size_t)r * p->cols + c, got[(size_t)r * p->cols + c]);
		}
	return wrong > 0;
}

static int pattern(const ref_problem *p, const float *got, char *buf, size_t len,
                   char *try_, size_t tlen)
{
	if (read_transposed(p, got)) {
		snprintf(buf, len, "every output is the box around the cell mirrored on its "
		         "work-group's diagonal (local row and column swapped): the staged block is "
		         "read with its indices the other way round from how it was stored");
		snprintf(try_, tlen, "read the block as it was staged, row first: tile[ly + dy][lx + "
		         "dx], the row from get_local_id(1)");
		return 2;
	}
	kind_stencil_wrong w;
	kind_stencil_places(p, got, &w);
	for (int dim = 0; dim < 2; dim++)
		if (shifted_store(p, got, dim)) {
			snprintf(buf, len, "only the first %d %s of out were never written, and every "
			         "other output is right: each work-item stores %d %s past its own "
			         "output, from a block staged as far past the group's -- the block's "
			         "first %s is the group's first minus R (get_group_id(%d) * TILE - R), "
			         "not plus R", 2 * R, dim ? "rows" : "columns", 2 * R, dim ? "rows" :
			         "columns", dim ? "row" : "column", dim);
			snprintf(try_, tlen, "stage the block from %s = get_group_id(%d) * TILE - R, "
			         "R before the group's first output, and store output (%s + R + %s)",
			         dim ? "by" : "bx", dim, dim ? "by" : "bx", dim ? "ly" : "lx");
			return 2;
		}
	int wt[FD][FD];
	if (w.elsewhere && fit_box(p, got, wt) == 0 && describe_box(wt, buf, len))
		return 2;   /* the kernel's own box, exact: no other size's guess */
	if (w.elsewhere)
		return 0;
	if (w.corner && !w.group_edge) {
		snprintf(buf, len, "only outputs within %d of a work-group's corner are wrong (%d, "
		         "first at row %d, column %d), its edges and inside are right: the %dx%d "
		         "corners of the halo are not staged -- the box reaches diagonally into the "
		         "neighbouring groups", R, w.corner, w.first_r, w.first_c, R, R);
		snprintf(try_, tlen, "stage the whole (TILE + 2R) x (TILE + 2R) block, its four "
		         "%dx%d corners too: rows and columns of the block both from 0 to TILE + 2R", R, R);
		return 2;   /* nothing else leaves exactly those wrong */
	}
	else if (w.corner || w.group_edge)
		snprintf(buf, len, "only outputs within %d of a work-group's edge are wrong (%d, "
		         "first at row %d, column %d), every output further in is right: the halo is "
		         "missing -- each group needs the %d rows and columns around its tile, corners "
		         "included", R, w.corner + w.group_edge, w.first_r, w.first_c, R);
	else if (w.image_edge && w.nan && w.unwritten == w.nan)
		snprintf(buf, len, "only outputs within %d of the image's edge are wrong, and they "
		         "were never written (still the grader's NaN fill): no work-item stores them "
		         "-- check which output each work-item writes (row and col, from the group's "
		         "TILE x TILE outputs, not from the staged block's corner) and the store's "
		         "guard", R);
	else if (w.image_edge && w.nan)
		snprintf(buf, len, "only outputs within %d of the image's edge are wrong, and NaN: "
		         "the halo reads in outside the image (the grader's guard zones hold NaN) -- "
		         "an input outside rows x cols counts as 0", R);
	else if (w.image_edge)
		snprintf(buf, len, "only outputs within %d of the image's edge are wrong: the halo "
		         "cells outside the image must be staged as 0, not skipped (a skipped cell "
		         "keeps whatever __local memory held)", R);
	else
		return 0;
	return 1;
}

static int scalars(const ref_problem *p, int v[KIND_MAX_SCALARS])
{
	v[0] = p->rows, v[1] = p->cols;
	return 2;
}

/* Staged, a full group loads (TILE + 2R)^2 / TILE^2 floats per output from global memory
 * (1.41 at TILE 32, R 3) and reads its TAPS terms per output from __local.  A kernel that
 * still loads a quarter of its terms from global memory holds a token in __local, not the
 * inputs; one that loads fewer but reads fewer than half of the terms from __local stages
 * the inputs and adds a smaller box from them. */
static int token_local(const kind_traffic *t, char *msg, size_t len, const char **try_)
{
	double outputs = (double)t->rows * t->cols;
	double per_output = outputs > 0 ? t->local_loaded / sizeof(float) / outputs : 0;
	double global = t->global_per_unit / sizeof(float);
	if (global < TAPS / 4.0 && per_output >= TAPS / 2.0)
		return 0;
	if (global < TAPS / 4.0) {   /* staged: the box it adds from the tile is too small */
		*try_ = "add every one of the box's (2R + 1) x (2R + 1) terms from the tile: dy and dx "
		        "from -R to R around the work-item's own cell";
		snprintf(msg, len, "at %dx%d the kernel loads %.2f floats per output from global "
		         "memory, so it stages its inputs, but reads only %.2f per output from __local "
		         "memory where the %dx%d box has %d terms: it adds fewer cells than the box",
		         t->rows, t->cols, global, per_output, 2 * R + 1, 2 * R + 1, TAPS);
		return 1;
	}
	*try_ = "stage the group's (TILE + 2R) x (TILE + 2R) inputs in a __local array once, "
	        "barrier, then let every work-item add its box from there";
	snprintf(msg, len, "at %dx%d the kernel loads %.2f floats per output from global memory "
	         "and reads %.2f per output from __local memory (a staged kernel: about %.2f and "
	         "%d): the box's inputs do not go through __local memory", t->rows, t->cols, global,
	         per_output, (double)(t->tile + 2 * R) * (t->tile + 2 * R) / (t->tile * t->tile),
	         TAPS);
	return 1;
}

/* Right only at sizes smaller than the box in one dimension (every output's box reaches
 * outside the image there, so its outer rows or columns are the zeros outside it): such a
 * size says nothing about a hard-coded size, and a wrong box or staging hides there. */
static int small_pattern(const diag_size *s, int n, char *extra, size_t elen, char *try_,
                         size_t tlen)
{
	const diag_size *small = NULL;
	int wrong = 0;
	for (int i = 0; i < n; i++) {
		int in_box = s[i].rows <= 2 * R || s[i].cols <= 2 * R;
		if (s[i].right && !in_box)
			return 0;
		if (s[i].right && (!small || small->rows * small->cols == 1))
			small = &s[i];
		wrong += !s[i].right;
	}
	if (!small || !wrong || small->rows * small->cols == 1)
		return 0;
	snprintf(extra, elen, " -- right only at sizes smaller than the %dx%d box in one dimension "
	         "(%dx%d), where the box's outer rows or columns lie outside the image and count as "
	         "0 whatever the kernel adds there", 2 * R + 1, 2 * R + 1, small->rows, small->cols);
	snprintf(try_, tlen, "check that every output adds all %d inputs of its box (dy and dx "
	         "each from 0 to 2R on the staged block) and that every cell of the (TILE + 2R) x "
	         "(TILE + 2R) block is staged", TAPS);
	return 1;
}

/* Right within one work-group (rows and cols <= TILE: the halo is all zeros outside the
 * image) and wrong with several groups: the halo between groups is missing.  Not so when a
 * size of several whole groups (a multiple of TILE) is right: a missing halo is wrong there
 * too, and what goes wrong only with a partial group is the edge's (diag_sizes says so). */
static int sizes_pattern(const diag_size *s, int n, int tile, char *extra, size_t elen,
                         char *try_, size_t tlen)
{
	int one_right = 0, one_wrong = 0, many_wrong = 0, whole_right = 0;
	for (int i = 0; i < n; i++) {
		int one = s[i].rows <= tile && s[i].cols <= tile;
		one_right += one && s[i].right, one_wrong += one && !s[i].right;
		many_wrong += !one && !s[i].right;
		whole_right += !one && s[i].right && s[i].rows % tile == 0 && s[i].cols % tile == 0;
	}
	if (small_pattern(s, n, extra, elen, try_, tlen))
		return 1;
	if (!one_right || one_wrong || !many_wrong || whole_right)
		return 0;
	snprintf(extra, elen, " -- right at every size within one work-group (at most %dx%d), "
	         "where the halo is the zeros outside the image, and wrong with two groups or more, "
	         "where it is the neighbouring groups' inputs", tile, tile);
	snprintf(try_, tlen, "stage the %d rows above and below the group's tile and the %d "
	         "columns left and right of it, corners included (0 only outside the image), "
	         "before the barrier", R, R);
	return 1;
}

/* bytes a perfect kernel moves: every input read once, every output written once */
static double work(int rows, int cols) { return 2.0 * rows * (double)cols * sizeof(float); }

static double elements(int rows, int cols) { return (double)rows * cols; }

const kind kind_stencil2d = {
	.name = "stencil2d",
	/* First 100x137, 4 x 5 groups, the last partial in each dimension: interior groups with
	 * neighbours on every side, so a missing halo, corner or image edge each shows apart
	 * (correct reports the first wrong size).  Then 1x1; 2x5, smaller than the box; one
	 * group; square and non-square multiples of TILE (a rows/cols mix-up); two partial
	 * groups; a tall thin image. */
	.sizes = { {100, 137}, {1, 1}, {2, 5}, {31, 20}, {64, 64}, {64, 96}, {33, 65},
	           {301, 7} },
	.wide_size = {100, 137},   /* interior groups and edges; 0.7 M additions */
	.time_size = {509, 763},
	.time_size_gpu = {6143, 8191},
	/* 2 x 2 groups, the last partial in each dimension: the fewest that have edge work-items
	 * in both dimensions at TILE 32 (every work-item adds 49 terms: the analysis' cost) */
	.analysis_lo = {33, 34}, .analysis_hi = {47, 63},
	.model_size = {64, 64},
	.args = { "in", "out", "rows", "cols", NULL },
	.n_inputs = 1,
	.shape = shape,
	.draw = draw,
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
	.token_local = token_local,
	.mixup_msg = " -- square sizes are right and a non-square multiple of TILE is wrong, so "
	             "rows and cols are mixed up somewhere (in and out are rows x cols: a row is "
	             "cols floats long)",
	.mixup_try = "check every use of rows and cols: the row length of in and out is cols",
	.sizes_pattern = sizes_pattern,
	.coalesce_try = "let consecutive get_local_id(0) touch consecutive floats of one row: of "
	                "in when staging (the halo as well as the tile), of out when storing (col "
	                "from get_local_id(0)): a warp is one row of the group, and its 32 lanes "
	                "should use 32 neighbouring floats",
	.cpu_speed_note = "a CPU's caches already serve the box's repeated reads, as they do the "
	                  "naive baseline's: staging the halo in __local saves nothing there, and "
	                  "the kernel can come out faster or slower than the baseline",
	.dims = 2,
	.tile_2d = 1,
	.where = kind_where_2d,
	.say = {
		[KS_GUARD] = "0 <= y && y < rows && 0 <= x && x < cols on each load of in[y * cols "
		             "+ x], and row < rows && col < cols on the store",
		[KS_EDGE] = "load outside the image, store outside out, or skip outputs the edge needs",
		[KS_EDGE_TRY] = "guard each load of in with the image's bounds, staging 0 for a cell "
		                "outside, and the store with row < rows && col < cols; every "
		                "work-item must still reach the barrier",
		[KS_SIZE_TRY] = "use rows and cols everywhere, with no size of your own, and stage 0 "
		                "for every halo cell outside the image: the last groups may be "
		                "partial",
		[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach the barrier after "
		                      "the staging, also those outside the image, and as often: keep "
		                      "the barrier out of every if and out of the staging loops (their "
		                      "trip counts differ between work-items: put it after the loops), "
		                      "and guard only the loads of in and the store to out",
		[KS_STORE_OWN] = " (out[row * cols + col], its box added from the staged block)",
		[KS_SCALE] = "every output equal to its reference (the inputs are multiples of 2^-8, "
		             "so every correct sum is exact)",
		[KS_PAD] = "stage the block row-major, so that the 32 lanes of a warp (one row of "
		           "the group) use 32 neighbouring words",
		[KS_SWIZZLE] = "",
		[KS_EDGE_PART] = "rows or columns",
		[KS_LOCAL_TRY] = "declare __local float tile[TILE + 2 * R][TILE + 2 * R]; stage the "
		                 "group's block and its halo into it, barrier, then add each box "
		                 "from the tile",
		[KS_WIDE] = "a value is rounded somewhere between in and out -- a block staged in "
		            "__local as half (vstore_half/vload_half: 11 significant bits) or as fixed "
		            "point (an int scaled by a power of two) loses the low bits",
		[KS_WIDE_TRY] = "stage the block and its halo in a __local float array and add each "
		                "box in float: no half or int copy of a value",
		[KS_EXACT_TRY] = "add each of the box's (2R + 1) x (2R + 1) cells exactly once: sum "
		                 "+= tile[ly + dy][lx + dx] for every dy and every dx from 0 to 2R, "
		                 "the block staged from in[by][bx], R above and left of the group's "
		                 "first output",
		[KS_SPEED_TRY] = "check that the staging reads in along rows (coalesced), that the "
		                 "tile's reads are conflict-free, and that the box is added from "
		                 "__local memory, not from in",
	},
};
