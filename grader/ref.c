/* ref.c — the kind-independent CPU side: seeded inputs, the comparison with the kind's
 * reference within its bound, sampled checks of large problems, and the diagnosis of a wrong
 * result: a student learns more from "only the last partial tile is wrong" than from a list
 * of numbers.  The references and bounds themselves live in the kind files (kind.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ref.h"

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

void ref_draw_wide(ref_problem *p, uint64_t seed)
{
	for (int i = 0; i < p->n_in; i++)
		for (size_t j = 0; j < p->in_len[i]; j++) {
			uint64_t x = ref_rand(&seed);
			float m = 1.0f + (float)(x & 0x7fffffu) / 8388608.0f;   /* 24 significant bits */
			int e = REF_WIDE_EXP_LO + (int)((x >> 23) & 15u);
			p->in[i][j] = ((x >> 27) & 3u ? 1.0f : -1.0f) * ldexpf(m, e);
		}
}

void ref_shape(ref_problem *p, const kind *k, int rows, int cols, int tile, int wide)
{
	memset(p, 0, sizeof *p);
	p->kind = k;
	p->tile = tile;
	p->wide = wide;
	p->max_groups = wide ? k->wide_groups : 0;   /* before shape: the output's length */
	k->shape(p, rows, cols);
	if (!k->finish)
		p->result_len = p->out_len;
}

void *ref_alloc(size_t bytes)
{
	if (bytes < REF_HUGE_BYTES)
		return malloc(bytes ? bytes : 1);
	void *m = NULL;
	if (posix_memalign(&m, REF_HUGE_BYTES, bytes) != 0)
		return NULL;
	madvise(m, bytes, MADV_HUGEPAGE);   /* advice only: where refused, 4 KiB pages */
	return m;
}

static int setup(ref_problem *p, const kind *k, int rows, int cols, int tile, uint64_t seed,
                 int with_ref, int wide)
{
	ref_shape(p, k, rows, cols, tile, wide);
	for (int i = 0; i < p->n_in; i++) {
		p->in[i] = ref_alloc(p->in_len[i] * sizeof(float));
		if (!p->in[i])
			return -1;
		for (size_t j = 0; j < p->in_len[i] && !k->draw && !wide; j++)
			p->in[i][j] = ref_randf(&seed);
	}
	if (wide)
		ref_draw_wide(p, seed);
	else if (k->draw)
		k->draw(p, seed);
	if (!with_ref)
		return 0;
	p->expect = calloc(p->result_len ? p->result_len : 1, sizeof(double));
	p->scale = calloc(p->result_len ? p->result_len : 1, sizeof(double));
	if (!p->expect || !p->scale)
		return -1;
	k->reference(p);
	return 0;
}

int ref_setup(ref_problem *p, const kind *k, int rows, int cols, int tile, uint64_t seed)
{
	return setup(p, k, rows, cols, tile, seed, 1, 0);
}

int ref_setup_inputs(ref_problem *p, const kind *k, int rows, int cols, int tile,
                     uint64_t seed)
{
	return setup(p, k, rows, cols, tile, seed, 0, 0);
}

int ref_setup_wide(ref_problem *p, const kind *k, int rows, int cols, int tile, uint64_t seed,
                   int with_ref)
{
	return setup(p, k, rows, cols, tile, seed, with_ref, 1);
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
	return p->kind->bound(p, i);
}

static int unwritten(float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	return bits == REF_UNWRITTEN_BITS;
}

int ref_element_ok(const ref_problem *p, size_t i, float g)
{
	if (!isfinite(g))
		return 0;
	double bound = ref_bound(p, i);
	return bound == 0 ? (float)p->expect[i] == g : fabs(g - p->expect[i]) <= bound;
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
			if (!ref_element_ok(p, i, got[i]) && r < full_r && c < full_c)
				return 0;
		}
	return 1;
}

/* The kind's own pattern into r (its words, its try, and whether it settles the cause:
 * kind.h pattern's 2); 0 when it has none for this output. */
static int kind_pattern(const ref_problem *p, const float *got, ref_result *r)
{
	int w = p->kind->pattern ? p->kind->pattern(p, got, r->pattern, sizeof r->pattern, r->try_,
	                                            sizeof r->try_) : 0;
	r->exact = w == 2;
	return w;
}

static void diagnose(const ref_problem *p, const float *got, int tile, ref_result *r)
{
	size_t n = p->out_len, zeros = 0;
	for (size_t i = 0; i < n; i++)
		zeros += got[i] == 0.0f;
	if (p->wide)   /* the patterns read exact inputs; the wide run's reading is the caller's */
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements are wrong, first at %s: "
		         "got %.7g, expected %.7g", r->bad, n,
		         KIND_WHERE(p->kind, r->first_row, r->first_col), r->got, r->expected);
	else if (r->unwritten == n)
		snprintf(r->pattern, sizeof r->pattern, "no element of %s was written (all still hold the "
		         "grader's NaN fill): does the kernel store its result, and is the store's guard right?",
		         p->out_name);
	else if (zeros == n && (r->all_zero = 1))
		snprintf(r->pattern, sizeof r->pattern, "every element of %s is 0: the kernel stores "
		         "without accumulating anything", p->out_name);
	else if (kind_pattern(p, got, r)) {
		/* the kind's own pattern, written */
	}
	else if (r->nonfinite && r->bad > r->nonfinite + r->unwritten)   /* finite ones wrong too */
		snprintf(r->pattern, sizeof r->pattern, "the kernel wrote NaN or Inf into %zu elements "
		         "(reading outside a buffer: the grader's guard zones around every buffer hold "
		         "NaN; or a value never written), and %zu of %zu elements are wrong in all, "
		         "first at %s: got %.7g, expected %.7g", r->nonfinite, r->bad, n,
		         KIND_WHERE(p->kind, r->first_row, r->first_col), r->got, r->expected);
	else if (r->nonfinite)
		snprintf(r->pattern, sizeof r->pattern, "the kernel wrote NaN or Inf into %zu elements: "
		         "reading outside a buffer (the grader's guard zones around every buffer hold "
		         "NaN), or a value never written", r->nonfinite);
	else if (edge_only(p, got, tile))
		snprintf(r->pattern, sizeof r->pattern, "only the last partial tile is wrong (%s "
		         "from %d on): edge handling -- %d is not a multiple of TILE=%d, so loads "
		         "past the edge must read 0 and stores past it must be skipped",
		         kind_say(p->kind, KS_EDGE_PART), (p->out_rows % tile) ? p->out_rows / tile * tile : p->out_cols / tile * tile,
		         (p->out_rows % tile) ? p->out_rows : p->out_cols, tile);
	else if (r->unwritten)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements were never written (still "
		         "the grader's NaN fill), first at %s: some work-items return, skip their "
		         "store, or store to another work-item's element", r->unwritten, n,
		         KIND_WHERE(p->kind, r->first_row, r->first_col));
	else
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements are wrong, first at %s: "
		         "got %.7g, expected %.7g", r->bad, n,
		         KIND_WHERE(p->kind, r->first_row, r->first_col), r->got, r->expected);
}

/* Count the raw output's unwritten and non-finite elements; the first unwritten one. */
static void scan_raw(const ref_problem *p, const float *got, ref_result *r)
{
	for (size_t i = 0; i < p->out_len; i++) {
		if (unwritten(got[i]) && r->unwritten++ == 0)
			r->first_row = (int)(i / p->out_cols), r->first_col = (int)(i % p->out_cols);
		else if (!unwritten(got[i]) && !isfinite(got[i]))
			r->nonfinite++;
	}
}

/* A kind that finishes on the host (kind.h): the raw output must be written and finite,
 * then each finished value is compared with the reference (expect = NULL: computed on the
 * spot, kind->element). */
static void compare_finished(const ref_problem *p, const float *got, ref_result *r)
{
	scan_raw(p, got, r);
	double *res = malloc((p->result_len ? p->result_len : 1) * sizeof(double));
	if (!res) {
		r->bad = 1;
		snprintf(r->pattern, sizeof r->pattern, "out of memory while comparing");
		return;
	}
	p->kind->finish(p, got, res);
	for (size_t i = 0; i < p->result_len; i++) {
		double e, bound, scale;
		if (p->expect)
			e = p->expect[i], bound = ref_bound(p, i), scale = p->scale[i];
		else
			p->kind->element(p, i, &e, &bound), scale = 0;
		if (isfinite(res[i]) && scale > 0 && fabs(res[i] - e) / scale > r->max_rel_error)
			r->max_rel_error = fabs(res[i] - e) / scale;
		if (isfinite(res[i]) && fabs(res[i] - e) <= bound)
			continue;
		if (r->bad++ == 0)
			r->got = res[i], r->expected = e;
	}
	free(res);
	if (r->unwritten)
		r->bad += r->unwritten;
	r->passed = r->bad == 0 && !r->nonfinite;
	if (r->passed)
		return;
	if (r->unwritten)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %zu elements of %s were never written "
		         "(still the grader's NaN fill), first %s[%d]: every work-group must write its "
		         "result", r->unwritten, p->out_len, p->out_name, p->out_name,
		         r->first_row * p->out_cols + r->first_col);
	else if (r->nonfinite)
		snprintf(r->pattern, sizeof r->pattern, "the kernel wrote NaN or Inf into %zu elements "
		         "of %s: reading outside a buffer, or a value never written",
		         r->nonfinite, p->out_name);
	else if (p->wide || !kind_pattern(p, got, r))
		snprintf(r->pattern, sizeof r->pattern, "got %.9g, expected %.9g", r->got, r->expected);
}

void ref_compare(const ref_problem *p, const float *got, int tile, ref_result *r)
{
	memset(r, 0, sizeof *r);
	r->first_row = r->first_col = -1;
	if (p->kind->finish) {
		compare_finished(p, got, r);
		return;
	}
	for (size_t i = 0; i < p->out_len; i++) {
		float g = got[i];
		if (unwritten(g))
			r->unwritten++;
		else if (!isfinite(g))
			r->nonfinite++;
		else if (p->scale[i] > 0 && fabs(g - p->expect[i]) / p->scale[i] > r->max_rel_error)
			r->max_rel_error = fabs(g - p->expect[i]) / p->scale[i];
		if (ref_element_ok(p, i, g))
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

void ref_check_sample(const ref_problem *p, const float *got, int samples, uint64_t seed,
                      ref_result *r)
{
	memset(r, 0, sizeof *r);
	r->first_row = r->first_col = -1;
	if (p->kind->finish) {          /* few finished values: every one is checked */
		compare_finished(p, got, r);
		return;
	}
	for (size_t i = 0; i < p->out_len; i++)
		if (unwritten(got[i]) && r->unwritten++ == 0)
			r->first_row = (int)(i / p->out_cols), r->first_col = (int)(i % p->out_cols);
	for (int s = 0; s < samples && p->out_len; s++) {
		size_t i = ref_rand(&seed) % p->out_len;
		double e, bound;
		p->kind->element(p, i, &e, &bound);
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
		         "size, first at %s", r->unwritten, p->out_len,
		         KIND_WHERE(p->kind, r->first_row, r->first_col));
	else if (!r->passed)
		snprintf(r->pattern, sizeof r->pattern, "%zu of %d sampled elements are wrong at this "
		         "size, first at %s: got %.7g, expected %.7g", r->bad, samples,
		         KIND_WHERE(p->kind, r->first_row, r->first_col), r->got, r->expected);
}

/* Solve the n x n system a x = b in place, x into b (Gaussian elimination with partial
 * pivoting).  0, or -1 when a is singular. */
static int ref_solve(double *a, double *b, int n)
{
	for (int c = 0; c < n; c++) {
		int piv = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r * n + c]) > fabs(a[piv * n + c]))
				piv = r;
		if (fabs(a[piv * n + c]) < 1e-9)
			return -1;
		for (int k = 0; piv != c && k < n; k++) {
			double t = a[c * n + k];
			a[c * n + k] = a[piv * n + k], a[piv * n + k] = t;
		}
		double t = b[c];
		b[c] = b[piv], b[piv] = t;
		for (int r = c + 1; r < n; r++) {
			double f = a[r * n + c] / a[c * n + c];
			for (int k = c; k < n; k++)
				a[r * n + k] -= f * a[c * n + k];
			b[r] -= f * b[c];
		}
	}
	for (int c = n - 1; c >= 0; c--) {
		for (int k = c + 1; k < n; k++)
			b[c] -= a[c * n + k] * b[k];
		b[c] /= a[c * n + c];
	}
	return 0;
}

int ref_lsq(const double *x, int stride, const double *y, int m, int n, double *a, double *b)
{
	memset(a, 0, sizeof(double) * n * n), memset(b, 0, sizeof(double) * n);
	for (int s = 0; s < m; s++) {
		const double *row = x + (size_t)s * stride;
		for (int i = 0; i < n; i++) {
			b[i] += row[i] * y[s];
			for (int j = 0; j < n; j++)
				a[i * n + j] += row[i] * row[j];
		}
	}
	return ref_solve(a, b, n);
}
