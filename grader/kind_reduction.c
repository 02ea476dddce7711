/* kind_reduction.c — the reduction kind (lesson 5): the sum of n floats.  A 1-D NDRange of
 * work-groups of TILE work-items; each group writes one partial sum, partial[get_group_id(0)],
 * and the grader finishes on the host: it adds the partials in double and compares that total
 * with a double-precision reference.
 *
 * A problem is 1 x n (rows = 1, cols = n: dimension 0 walks the elements, as in the 2-D kinds).
 * The launch: groups = min(ceil(n / TILE), REDUCE_MAX_GROUPS), global size = groups * TILE.
 * Beyond REDUCE_MAX_GROUPS * TILE elements a work-item must sum several of them (a loop
 * striding by get_global_size(0)), which is also what lets a kernel read at full bandwidth.
 *
 * The bound (lessons/05-reduction/README.md, "Exact sums"): any float summation tree of height h over
 * x_1..x_n is off by at most gamma_h * sum |x_i|, gamma_h = h u / (1 - h u), u = 2^-24
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 4.2).  Under this
 * launch a value passes through at most h = m + TILE - 1 float additions: a work-item adds its
 * m = ceil(n / global size) elements in any order, then the group adds its TILE values in any
 * order (a tree, or one work-item adding them in turn).  The host's double additions and the
 * reference add 2 (n + groups) 2^-53 sum |x_i|.
 *
 * That bound is loose at large n (49 at n = 2^22), loose enough to pass a kernel that drops or
 * doubles a quarter of the input.  So the inputs are chosen to make every correct sum exact:
 * multiples of 2^-8 with magnitudes in [0.5, 1) and random signs.  A sum of k of them is a
 * multiple of 2^-8 below k in magnitude, which a float (24 bits) holds exactly while k <= 2^16;
 * the largest sum the launch forms is a group's, TILE * m elements.  While TILE * m <= 2^16
 * (n up to 2^27 at TILE = 256) every order of float additions is exact, the host's double
 * additions too, and the bound is 0: any element dropped, doubled or read from outside `in`
 * (a NaN guard) changes the total by at least 0.5 (tests/unit/test_reduce_bound.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kind.h"
#include "ref.h"

#define U  5.9604644775390625e-08   /* 2^-24, float's unit roundoff  */
#define UD 1.1102230246251565e-16   /* 2^-53, double's unit roundoff */

enum { REDUCE_MAX_GROUPS = 2048 };

size_t kind_reduce_groups(int n, int tile)
{
	size_t g = ((size_t)(n > 0 ? n : 1) + tile - 1) / tile;
	return g < REDUCE_MAX_GROUPS ? g : REDUCE_MAX_GROUPS;
}

/* Additions a value passes through in the worst order the launch allows. */
static double height(int n, int tile)
{
	size_t global = kind_reduce_groups(n, tile) * (size_t)tile;
	return (double)(((size_t)n + global - 1) / global) + tile - 1;
}

double kind_reduce_bound(int n, int tile, double abs_sum)
{
	if (height(n, tile) - tile + 1 <= 65536.0 / tile)   /* exact: see the top of this file */
		return 0;
	double h = height(n, tile), hu = h * U;
	size_t groups = kind_reduce_groups(n, tile);
	return hu / (1 - hu) * abs_sum + 2.0 * ((double)n + groups) * UD * abs_sum + 1e-30;
}

/* The wide run (ref_draw_wide): its inputs need every bit of a float, so no sum is exact and
 * the bound must hold in any order, whatever the kernel's launch does: each value passes
 * through at most n - 1 float additions (adding the 0 of a padding lane is exact), and a
 * group's partial sum of k of them is off by at most gamma_{k-1} sum |x| over its share
 * (Higham 4.2), so the total by gamma_{n-1} sum |x|; twice that, plus the host's double
 * additions and the reference's.  At the wide run's n = 4099: 4.9e-4 of sum |x|. */
double kind_reduce_bound_any(int n, int tile, double abs_sum)
{
	double hu = (n > 1 ? n - 1 : 0) * U;
	size_t groups = kind_reduce_groups(n, tile);
	if (hu >= 0.5)
		return 2 * abs_sum + 1e-30;   /* no float bound worth the name */
	return 2 * hu / (1 - hu) * abs_sum + 2.0 * ((double)n + groups) * UD * abs_sum + 1e-30;
}

/* A 1 x n problem: dimension 0 of the NDRange walks the n elements. */
static void shape(ref_problem *p, int rows, int cols)
{
	(void)rows;
	p->rows = 1, p->cols = cols;
	p->n_in = 1;
	p->in_name[0] = "in", p->out_name = "partial";
	p->in_len[0] = (size_t)cols;
	p->out_len = kind_reduce_groups(cols, p->tile);
	if (p->max_groups > 0 && p->out_len > (size_t)p->max_groups)
		p->out_len = (size_t)p->max_groups;   /* the launch's groups: one partial each */
	p->out_rows = 1, p->out_cols = (int)p->out_len;
	p->result_len = 1;
	p->bytes = (double)cols * sizeof(float);
}

/* a multiple of 2^-8 with magnitude in [0.5, 1), random sign (exact sums: see above): one
 * random byte each, 7 bits of magnitude and a sign, eight from one 64-bit draw (millions of
 * elements per check: ref_randf per element was a fifth of lesson 5's time) */
static void draw(ref_problem *p, uint64_t seed)
{
	float value[256];
	for (unsigned b = 0; b < 256; b++)
		value[b] = (b & 128u ? -1.0f : 1.0f) * (float)(128 + (b & 127u)) / 256.0f;
	size_t n = p->in_len[0];
	float *in = p->in[0];
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = ref_rand(&seed);
		for (size_t j = 0; j < 8 && i + j < n; j++, x >>= 8)
			in[i + j] = value[x & 0xffu];
	}
}

static void sums(const ref_problem *p, double *sum, double *abs_sum)
{
	double s = 0, a = 0;
	for (size_t i = 0; i < p->in_len[0]; i++)
		s += p->in[0][i], a += fabs(p->in[0][i]);
	*sum = s, *abs_sum = a;
}

static void reference(ref_problem *p)
{
	sums(p, &p->expect[0], &p->scale[0]);
}

static double bound(const ref_problem *p, size_t i)
{
	return (p->wide ? kind_reduce_bound_any : kind_reduce_bound)(p->cols, p->tile, p->scale[i]);
}

static void element(const ref_problem *p, size_t i, double *expect, double *bnd)
{
	double a;
	sums(p, expect, &a);
	*bnd = (p->wide ? kind_reduce_bound_any : kind_reduce_bound)(p->cols, p->tile, a);
}

/* The partial sums added on the host, in double. */
static void finish(const ref_problem *p, const float *got, double *result)
{
	double s = 0;
	for (size_t g = 0; g < p->out_len; g++)
		s += got[g];
	result[0] = s;
}

/* One element short, the last or the first: a bound one off (i < n - 1), whatever n; 1 when
 * written. */
static int one_short(const ref_problem *p, double got_sum, double total, double b, char *buf,
                     size_t len, char *try_, size_t tlen)
{
	int n = p->cols;
	for (int end = 0; n >= 2 && end < 2; end++) {
		int at = end ? 0 : n - 1;
		if (fabs(got_sum - (total - p->in[0][at])) > b)
			continue;
		snprintf(buf, len, "the sum misses exactly one element, the %s one, in[%d] (n=%d) -- "
		         "%s", end ? "first" : "last", at, n, end ? "the first element's index is 0: "
		         "a work-item's elements start at its get_global_id(0)" : "a bound stops one "
		         "short of n (i < n - 1, or i + 1 < n): the last element's index is n - 1, so "
		         "a load's guard is i < n");
		snprintf(try_, tlen, "%s", end ? "start each work-item at i = get_global_id(0)" :
		         "let every loop over the elements run while i < n (the last one, in[n - 1], "
		         "included), the tail loop after a four-load one too");
		return 1;
	}
	return 0;
}

/* Does each partial hold only its group's work-item 0's own elements (in[g * TILE], then a
 * global size on): the group's other values never reach s[0] (a tree that adds the wrong way,
 * partial written from a private sum)?  1 when written. */
static int item0_only(const ref_problem *p, const float *got, char *buf, size_t len,
                      char *try_, size_t tlen)
{
	int n = p->cols, t = p->tile;
	size_t groups = p->out_len, global = groups * (size_t)t;
	if (t < 2 || n < 2)
		return 0;
	int differs = 0;
	for (size_t g = 0; g < groups; g++) {
		double own = 0;
		for (size_t i = g * (size_t)t; i < (size_t)n; i += global)
			own += p->in[0][i];
		if ((double)got[g] != own)
			return 0;
		for (size_t i = g * (size_t)t + 1; i < (size_t)n && i < (g + 1) * (size_t)t; i++)
			differs = 1;   /* the group has another work-item with an element */
	}
	if (!differs)
		return 0;
	snprintf(buf, len, "each partial holds only its work-item 0's own elements (n=%d): the "
	         "other work-items' values never reach s[0] -- the tree must add each step's upper "
	         "half into the lower, s[l] += s[l + d] for l < d, and partial take s[0] after the "
	         "last step", n);
	snprintf(try_, tlen, "after the loads put each work-item's sum in s[l], barrier, then for d "
	         "from TILE / 2 down to 1: if (l < d) s[l] += s[l + d]; barrier; and let work-item 0 "
	         "write s[0] to partial[get_group_id(0)]");
	return 1;
}

/* What the missing amount matches: the tail past the last multiple of TILE (when a full group
 * exists); below one group a sum of 0, which a load stopping early and a tree losing the value
 * both give (so both are named); at n = 1 a whole multiple k >= 2 of the element, counted k
 * times (k work-items loaded it, or a tree step doubled it), else a wrong non-zero sum,
 * changed inside the group (its one load cannot be partly wrong); one element short, the last
 * or the first (2: a cause this run settles, kind.h); else elements missing or counted twice. */
static int pattern(const ref_problem *p, const float *got, char *buf, size_t len,
                   char *try_, size_t tlen)
{
	double total, a, tail = 0;
	int n = p->cols, full = n / p->tile * p->tile;
	sums(p, &total, &a);
	double got_sum;
	finish(p, got, &got_sum);
	double b = kind_reduce_bound(n, p->tile, a);
	for (int i = full; i < n; i++)
		tail += p->in[0][i];
	if (full > 0 && full < n && fabs(got_sum - (total - tail)) <= b) {
		snprintf(buf, len, "the sum misses exactly the last %d elements (from in[%d] on): n=%d "
		         "is not a multiple of the work-group size %d, and the loads past the last full "
		         "group were dropped -- guard each load with i < n instead of stopping early",
		         n - full, full, n, p->tile);
		return 1;
	}
	if (full == 0 && fabs(total) > b && fabs(got_sum) <= b) {
		snprintf(buf, len, "the sum misses all %d elements (n=%d, less than one group of %d): "
		         "none reached partial[0] -- either the load stops before n (at the last full "
		         "group, say) or a tree step loses the value (follow s[0] through the steps by "
		         "hand: each must keep its value and gain its partner's)", n, n, p->tile);
		return 1;
	}
	if (one_short(p, got_sum, total, b, buf, len, try_, tlen) ||
	    item0_only(p, got, buf, len, try_, tlen))
		return 2;
	double k = total != 0 ? nearbyint(got_sum / total) : 0;
	if (n == 1 && k >= 2 && k <= 65536 &&
	    fabs(got_sum - k * total) <= b + 1e-6 * fabs(got_sum)) {
		snprintf(buf, len, "at n=1 the partial sums add up to %.7g, exactly %.0f times the only "
		         "element (%.7g)%s -- either %.0f work-items loaded in[0] (each must start at its "
		         "own get_global_id(0)) or a tree step adds s[0] into itself", got_sum, k, total,
		         k == p->tile ? ", the work-group size" : "", k);
		return 1;
	}
	if (n == 1 && fabs(got_sum - total) > b) {
		snprintf(buf, len, "at n=1 work-item 0 loads the only element (%.7g), yet the "
		         "partial sums add up to %.7g: the value is changed inside the group, between "
		         "the load and partial[0] -- follow s[0] through the tree steps by hand: each "
		         "must keep its value and gain its partner's", total, got_sum);
		return 1;
	}
	if (isfinite(got_sum) && fabs(got_sum) > 0 && fabs(got_sum - total) > b)
		snprintf(buf, len, "the partial sums add up to %.7g, the input to %.7g (the bound for "
		         "n=%d is %.2g): some elements are missing or counted twice -- every element "
		         "must be loaded once (a loop striding by get_global_size(0)) and every value "
		         "of the group added into partial[get_group_id(0)]", got_sum, total, n, b);
	else
		return 0;
	return 1;
}

static int geometry(const ref_problem *p, int tile, size_t global[3], size_t local[3])
{
	local[0] = (size_t)tile;
	size_t groups = kind_reduce_groups(p->cols, tile);
	if (p->max_groups > 0 && groups > (size_t)p->max_groups)
		groups = (size_t)p->max_groups;
	global[0] = groups * (size_t)tile;
	return 1;
}

static int scalars(const ref_problem *p, int v[KIND_MAX_SCALARS])
{
	v[0] = p->cols;
	return 1;
}

static int group_size(int tile) { return tile; }

/* The group's values go through __local memory.  A tree over TILE values reads TILE - 1 or
 * more from there, one work-item adding them in turn TILE; a group that first adds pairs in
 * registers and runs the tree over TILE / 2 values reads TILE / 2 - 1 (the tree's partner
 * reads, the running sum kept in a register).  So each full group of the analysis size must
 * read at least TILE / 4 values from __local; a kernel that adds from global memory and keeps
 * a token in __local reads one or two. */
static int token_local(const kind_traffic *t, char *msg, size_t len, const char **try_)
{
	double need = (double)(t->cols / t->tile) * (t->tile / 4) * sizeof(float);
	if (t->local_loaded >= need)
		return 0;
	*try_ = "store each work-item's value in a __local array, barrier, then add the group's "
	        "values from there (a tree, halving the active work-items each step)";
	snprintf(msg, len, "the kernel reads %.0f values from __local memory at n=%d, fewer than "
	         "%.0f (a quarter of each full group's %d values): the group's values do not go "
	         "through __local memory, it holds only a token", t->local_loaded / 4, t->cols,
	         need / 4, t->tile);
	return 1;
}

/* Right and wrong sizes, in the reduction's terms: each work-item loads one element while n
 * fits the global size, several beyond it; a size of one work-group has no second partial
 * sum.  Right while every work-item loads at most one element and wrong past that: the loop
 * over i, i + g, i + 2g, ... (g = get_global_size(0)); right in one group and wrong in two:
 * a group's partial sum, or its share, is lost. */
static int sizes_pattern(const diag_size *s, int n, int tile, char *extra, size_t elen,
                         char *try_, size_t tlen)
{
	int one_right = 0, one_wrong = 0, many_wrong = 0, group_right = 0, groups_wrong = 0;
	int group_wrong = 0;
	int first_many_wrong = 0, nan = 0;
	size_t g = 0;
	for (int i = 0; i < n; i++) {
		size_t gs = kind_reduce_groups(s[i].cols, tile) * (size_t)tile;
		int many = (size_t)s[i].cols > gs;
		if (many && !s[i].right && !first_many_wrong)
			first_many_wrong = s[i].cols, g = gs, nan = s[i].nan;
		one_right += !many && s[i].right, one_wrong += !many && !s[i].right;
		many_wrong += many && !s[i].right;
		group_right += s[i].cols <= tile && s[i].right;
		group_wrong += s[i].cols <= tile && !s[i].right;
		groups_wrong += s[i].cols > tile && !many && !s[i].right;
	}
	if (one_right && !one_wrong && many_wrong && nan) {
		snprintf(extra, elen, " -- right at every n up to the global size (%zu work-items, "
		         "one element each) and NaN at n=%d, where each work-item adds several: the "
		         "loop over i, i + get_global_size(0), ... loads past the end of in (the NaN is "
		         "the grader's guard zone after it)", g, first_many_wrong);
		snprintf(try_, tlen, "guard every load of the loop with its own index (if (i + 3 * g "
		         "< n) guards in[i + 3 * g]), not with the first one's or a <=");
		return 1;
	}
	if (one_right && !one_wrong && many_wrong) {
		snprintf(extra, elen, " -- right at every n up to the global size (%zu work-items, "
		         "one element each) and wrong at n=%d, where each work-item adds several: the "
		         "loop over i, i + get_global_size(0), i + 2 * get_global_size(0), ... skips or "
		         "repeats elements", g, first_many_wrong);
		snprintf(try_, tlen, "let each work-item add every element i, i + g, i + 2g, ... below "
		         "n (g = get_global_size(0)), each exactly once; a loop that loads several per "
		         "turn must guard every load with its own index < n");
		return 1;
	}
	if (group_right && !group_wrong && groups_wrong) {
		snprintf(extra, elen, " -- right within one work-group (n <= %d) and wrong with two "
		         "or more: the groups do not add different elements (each work-item must start "
		         "at its get_global_id(0), not its local id), or one group's result does not "
		         "reach partial[get_group_id(0)]", tile);
		snprintf(try_, tlen, "let the loop start at get_global_id(0) and step by "
		         "get_global_size(0), so the groups add different elements, and let every "
		         "group write its sum to partial[get_group_id(0)]");
		return 1;
	}
	return 0;
}

/* bytes a perfect kernel reads: every element once */
static double work(int rows, int cols) { (void)rows; return (double)cols * sizeof(float); }

static double elements(int rows, int cols) { (void)rows; return (double)cols; }

static double copy_floats(int rows, int cols) { (void)rows; return (double)cols; }

const kind kind_reduction = {
	.name = "reduction",
	/* 1; below one group; one past a group; a prime; then up to m = 2, 3, 4 and 6 elements per
	 * work-item (g = REDUCE_MAX_GROUPS * 256 = 524288 work-items): a prime past g; 2g + 351441,
	 * where a loop that loads 4 per trip guarded by i + 2g < n reads up to in[i + 3g], past the
	 * end; 3g + 261, where one guarded by i + 3g <= n reads in[n] (and a dropped fourth load
	 * is more than the last partial group); 5g + 7, where such a loop runs its tail */
	.sizes = { {1, 1}, {1, 255}, {1, 257}, {1, 4099}, {1, 1000003}, {1, 1400017}, {1, 1573125},
	           {1, 2621447} },
	/* 2^22 + 261: 9 elements per work-item, so a loop that stops after 8 drops some (a checked
	 * size too), and more than the last partial group */
	/* 17 groups, the last partial: cheap (a millisecond), and its bound tight (bound_any) */
	.wide_size = {1, 4099},
	/* four groups: 4 or 5 elements per work-item, so that a kernel exact only for its first
	 * one (`(int)(x * 256)` added from the second on) meets the wide inputs there too; no
	 * more than the largest size gives a work-item (2621447 over 2048 groups: 5), so that a
	 * kernel dropping the elements past some count fails a size of the lesson's inputs
	 * first, where the patterns name it (l5_fixed8_loads), not the wide run */
	.wide_groups = 4,
	.time_size = {1, (1 << 22) + 261},
	.time_size_gpu = {1, 1 << 26},
	/* three groups, the last one partial (never a multiple of TILE: lesson_analysis_size) */
	.analysis_lo = {1, 513}, .analysis_hi = {1, 767},
	.model_size = {1, 1 << 14}, .model_groups = 2,  /* 32 elements per work-item */
	.args = { "in", "partial", "n", NULL },
	.n_inputs = 1,
	.shape = shape,
	.draw = draw,
	.reference = reference,
	.bound = bound,
	.element = element,
	.finish = finish,
	.pattern = pattern,
	.geometry = geometry,
	.scalars = scalars,
	.group_size = group_size,
	.rate_unit = "GB/s",
	.rate_key = "gbps",
	.work = work,
	.copy_floats = copy_floats,
	.traffic_key = "bytes_loaded_per_element",
	.traffic_units = elements,
	.token_local = token_local,
	.cpu_speed_note = "the sum is bound by the CPU's memory bandwidth, as the naive baseline's "
	                  "is: what sets the tree's versions apart on a GPU (divergent warps, bank "
	                  "conflicts) does not exist there, and the ratio can fall either side of 1x",
	.sizes_pattern = sizes_pattern,
	.dims = 1,
	.say = {
		[KS_GUARD] = "if (i < n)",
		[KS_EDGE] = "load past the end of in (the last group is partial), or drop the elements "
		            "the last work-items own",
		[KS_EDGE_TRY] = "guard every load with i < n and add 0 for a value past the end; every "
		                "work-item must still reach each barrier",
		[KS_SIZE_TRY] = "use n everywhere: a loop striding by get_global_size(0) loads every "
		                "element once, whatever n is",
		[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach every barrier: "
		                      "return only after the last one (a work-item past n adds 0), and "
		                      "keep the barrier outside the if of the tree step (if (l < d) "
		                      "s[l] += s[l + d]; then barrier(CLK_LOCAL_MEM_FENCE) for every "
		                      "work-item)",
		[KS_STORE_OWN] = " (partial[get_group_id(0)], written once, by one work-item of the group)",
		[KS_SCALE] = "the sum within its bound (the scale: the sum of |x|; the inputs are "
		             "multiples of 2^-8, so the bound is 0 where the sum is exact)",
		[KS_PAD] = "let neighbouring lanes use neighbouring words: sequential addressing "
		           "(s[l] += s[l + d], with d halving from the group size)",
		[KS_SWIZZLE] = "",
		[KS_EDGE_PART] = "elements",
		[KS_LOCAL_TRY] = "store each work-item's sum in a __local array of TILE floats, barrier, "
		                 "then add the group's values from there",
		[KS_WORK_GROWS] = "a grid-stride loop that steps by less than get_global_size(0), so "
		                  "the groups revisit each other's elements, or a loop nest deeper than "
		                  "the lesson's: n grows past a million",
		[KS_INDEX_TRY] = "a work-item's elements are i, i + g, i + 2g, ... (g = "
		                 "get_global_size(0)) while they stay below n, and partial has one "
		                 "element per work-group",
		[KS_WIDE] = "a value or a partial sum is rounded somewhere on its way to partial -- "
		            "half-precision or fixed-point storage ((int)(x * 256.0f) summed as ints, "
		            "vstore_half) loses the low bits, and 0.001f becomes 0",
		[KS_WIDE_TRY] = "add the elements as floats, in registers and in a __local float "
		                "array: no int, long or half copy of a value or of a partial sum",
		[KS_SPEED_TRY] = "keep several loads in flight per work-item (a loop that loads a few "
		                 "elements per turn), no divergent tree steps, and sequential "
		                 "addressing in the tree",
	},
};
