/* ref.c — CPU references (matmul in double, i-k-j order; transpose), the error bound that
 * grows with the dot product, and the diagnosis of a wrong result: a student learns more
 * from "only the last partial tile is wrong" than from a list of numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

#define U 5.9604644775390625e-08  /* 2^-24, float's unit roundoff */

uint64_t ref_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

float ref_randf(uint64_t *s)
{
	return (float)((double)(ref_rand(s) >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static void matmul_ref(ref_problem *p)
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

static void transpose_ref(ref_problem *p)
{
	for (int r = 0; r < p->rows; r++)
		for (int c = 0; c < p->cols; c++) {
			double v = p->in[0][(size_t)r * p->cols + c];
			p->expect[(size_t)c * p->rows + r] = v;
			p->scale[(size_t)c * p->rows + r] = fabs(v);
		}
}

static int setup(ref_problem *p, lesson_kind kind, int rows, int cols, uint64_t seed, int with_ref)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->rows = rows;
	p->cols = kind == KIND_MATMUL ? rows : cols;
	size_t n = (size_t)p->rows * p->cols;
	if (kind == KIND_MATMUL) {
		p->n_in = 2;
		p->in_name[0] = "A", p->in_name[1] = "B", p->out_name = "C";
		p->out_rows = p->out_cols = rows;
		p->flops = 2.0 * rows * (double)rows * rows;
		p->bytes = 3.0 * n * sizeof(float);
	} else {
		p->n_in = 1;
		p->in_name[0] = "in", p->out_name = "out";
		p->out_rows = p->cols, p->out_cols = p->rows;
		p->bytes = 2.0 * n * sizeof(float);
	}
	p->out_len = n;
	for (int i = 0; i < p->n_in; i++) {
		p->in_len[i] = n;
		p->in[i] = malloc(n * sizeof(float));
		if (!p->in[i])
			return -1;
		for (size_t j = 0; j < n; j++)
			p->in[i][j] = ref_randf(&seed);
	}
	if (!with_ref)
		return 0;
	p->expect = calloc(n, sizeof(double));
	p->scale = calloc(n, sizeof(double));
	if (!p->expect || !p->scale)
		return -1;
	if (kind == KIND_MATMUL)
		matmul_ref(p);
	else
		transpose_ref(p);
	return 0;
}

int ref_setup(ref_problem *p, lesson_kind kind, int rows, int cols, uint64_t seed)
{
	return setup(p, kind, rows, cols, seed, 1);
}

int ref_setup_inputs(ref_problem *p, lesson_kind kind, int rows, int cols, uint64_t seed)
{
	return setup(p, kind, rows, cols, seed, 0);
}

void ref_free(ref_problem *p)
{
	for (int i = 0; i < 2; i++)
		free(p->in[i]);
	free(p->expect);
	free(p->scale);
	memset(p, 0, sizeof *p);
}

double ref_bound(const ref_problem *p, size_t i)
{
	if (p->kind != KIND_MATMUL)
		return 0.0;
	return 2.0 * (p->rows + 1) * U * p->scale[i] + 1e-30;
}

static int unwritten(float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	return bits == REF_UNWRITTEN_BITS;
}

static int element_ok(const ref_problem *p, size_t i, float g)
{
	if (!isfinite(g))
		return 0;
	if (p->kind != KIND_MATMUL)
		return (float)p->expect[i] == g;
	return fabs(g - p->expect[i]) <= ref_bound(p, i);
}

/* Is the output the transpose of the right answer (indices swapped)? */
static int is_swapped(const ref_problem *p, const float *got)
{
	if (p->out_rows < 2 && p->out_cols < 2)
		return 0;
	for (int r = 0; r < p->out_rows; r++)
		for (int c = 0; c < p->out_cols; c++) {
			size_t i = (size_t)r * p->out_cols + c;
			if (p->kind == KIND_MATMUL) {
				size_t t = (size_t)c * p->out_cols + r;
				if (!isfinite(got[i]) || fabs(got[i] - p->expect[t]) > ref_bound(p, t))
					return 0;
			} else if (got[i] != p->in[0][i]) {  /* a plain copy of the input */
				return 0;
			}
		}
	return 1;
}

/* Are all bad elements in the last partial tile row or column? */
static int edge_only(const ref_problem *p, const float *got, int tile)
{
	if (tile <= 1)
		return 0;
	int full_r = p->out_rows / tile * tile, full_c = p->out_cols / tile * tile;
	if ((full_r == p->out_rows && full_c == p->out_cols) || full_r == 0 || full_c == 0)
		return 0;   /* no partial tile, or no full one to compare it with */
	for (int r = 0; r < p->out_rows; r++)
		for (int c = 0; c < p->out_cols; c++) {
			size_t i = (size_t)r * p->out_cols + c;
			if (!element_ok(p, i, got[i]) && r < full_r && c < full_c)
				return 0;
		}
	return 1;
}

static void diagnose(const ref_problem *p, const float *got, int tile, ref_result *r)
{
	size_t n = p->out_len, zeros = 0;
	for (size_t i = 0; i < n; i++)
		zeros += got[i] == 0.0f;
	const char *what = p->kind == KIND_MATMUL ? "row and column are swapped: the result is the "
	    "transpose of the right one (get_global_id(0) walks columns, get_global_id(1) rows)"
	    : "the output is a plain copy of the input: the store index must swap row and column "
	    "(out is cols x rows: out[c * rows + r])";
	if (r->unwritten == n)
		snprintf(r->pattern, sizeof r->pattern, "no element of %s was written (all still hold the "
		         "grader's NaN fill): does the kernel store its result, and is the store's guard right?",
		         p->out_name);
	else if (zeros == n)
		snprintf(r->pattern, sizeof r->pattern, "every element of %s is 0: the kernel stores "
		         "without accumulating anything", p->out_name);
	else if (is_swapped(p, got))
		snprintf(r->pattern, sizeof r->pattern, "%s", what);
	else if (r->nonfinite)
		snprintf(r->pattern, sizeof r->pattern, "the kernel wrote NaN or Inf into %zu elements: "
		         "reading uninitialised __local memory, or reading outside a buffer (the grader's "
		         "guard zones around every buffer hold NaN)", r->nonfinite);
	else if (edge_only(p, got, tile))
		snprintf(r->pattern, sizeof r->pattern, "only the last partial tile is wrong (rows or "
		         "columns from %d on): edge handling -- %d is not a multiple of TILE=%d, so loads "
		         "past the edge must read 0 and stores past it must be skipped",
		         (p->out_rows % tile) ? p->out_rows / tile * tile : p->out_cols / tile * tile,
		         (p->out_rows % tile) ? p->out_rows : p->out_cols, tile);
	else if (r->unwritten)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements were never written (still "
		         "the grader's NaN fill), first at row %d, column %d: some work-items return or "
		         "skip their store", r->unwritten, n, r->first_row, r->first_col);
	else
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements are wrong, first at row %d, "
		         "column %d: got %.7g, expected %.7g", r->bad, n, r->first_row, r->first_col,
		         r->got, r->expected);
}

void ref_compare(const ref_problem *p, const float *got, int tile, ref_result *r)
{
	memset(r, 0, sizeof *r);
	r->first_row = r->first_col = -1;
	for (size_t i = 0; i < p->out_len; i++) {
		float g = got[i];
		if (unwritten(g))
			r->unwritten++;
		else if (!isfinite(g))
			r->nonfinite++;
		else if (p->scale[i] > 0 && fabs(g - p->expect[i]) / p->scale[i] > r->max_rel_error)
			r->max_rel_error = fabs(g - p->expect[i]) / p->scale[i];
		if (element_ok(p, i, g))
			continue;
		if (r->bad++ == 0) {
			r->first_row = (int)(i / p->out_cols);
			r->first_col = (int)(i % p->out_cols);
			r->got = g;
			r->expected = p->expect[i];
		}
	}
	r->passed = r->bad == 0;
	if (!r->passed)
		diagnose(p, got, tile, r);
}

/* Reference value and error bound of output element i, computed on the spot. */
static void element_ref(const ref_problem *p, size_t i, double *expect, double *bound)
{
	int r = (int)(i / p->out_cols), c = (int)(i % p->out_cols);
	if (p->kind != KIND_MATMUL) {            /* out[c][r] = in[r][c], with out cols x rows */
		*expect = p->in[0][(size_t)c * p->cols + r];
		*bound = 0;
		return;
	}
	double e = 0, scale = 0;
	for (int k = 0; k < p->rows; k++) {
		double a = p->in[0][(size_t)r * p->rows + k], b = p->in[1][(size_t)k * p->rows + c];
		e += a * b;
		scale += fabs(a * b);
	}
	*expect = e;
	*bound = 2.0 * (p->rows + 1) * U * scale + 1e-30;
}

void ref_check_sample(const ref_problem *p, const float *got, int samples, uint64_t seed,
                      ref_result *r)
{
	memset(r, 0, sizeof *r);
	r->first_row = r->first_col = -1;
	for (size_t i = 0; i < p->out_len; i++)
		if (unwritten(got[i]) && r->unwritten++ == 0)
			r->first_row = (int)(i / p->out_cols), r->first_col = (int)(i % p->out_cols);
	for (int s = 0; s < samples && p->out_len; s++) {
		size_t i = ref_rand(&seed) % p->out_len;
		double e, bound;
		element_ref(p, i, &e, &bound);
		int ok = isfinite(got[i]) && (bound == 0 ? (float)e == got[i] : fabs(got[i] - e) <= bound);
		if (ok)
			continue;
		if (r->bad++ == 0 && !r->unwritten) {
			r->first_row = (int)(i / p->out_cols), r->first_col = (int)(i % p->out_cols);
			r->got = got[i], r->expected = e;
		}
	}
	r->bad += r->unwritten;
	r->passed = r->bad == 0;
	if (r->unwritten)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements were never written at this "
		         "size, first at row %d, column %d", r->unwritten, p->out_len, r->first_row,
		         r->first_col);
	else if (!r->passed)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %d sampled elements are wrong at this "
		         "size, first at row %d, column %d: got %.7g, expected %.7g", r->bad, samples,
		         r->first_row, r->first_col, r->got, r->expected);
}
