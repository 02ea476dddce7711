/* gpumodel.c — a predicted GPU time from the analysis' figures (see gpumodel.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpumodel.h"

/* H200 (sm_90).  Sources: GUIDE.md "Predicted GPU time" (datasheet values and the
 * micro-benchmarks of tests/gpu/gpum-bench.c, run on an H200 through NVIDIA's OpenCL). */
static const gpum_profile profiles[] = {
	{ "nvidia-sm90", "NVIDIA H200", 1, 132, 32, 64, 1.98e9, 66.9e12,
	  3.96e12,     /* rd4 of gpum-bench: 3960.6 GB/s                                     */
	  2.23e12,     /* scatter: 8192^2 sectors x 32 B in 0.9628 ms                        */
	  145.3e-9,    /* chase over 4 MiB: 145.3 ns per dependent load                      */
	  0.457e-6,    /* fitted: lesson 5's baseline, 0.1135 ms = 2^28 B x L / (132 x 64 x 128 B) */
	  1.033e-6,    /* copy2d: (0.2732 ms - 0.016 ms of L1 pipe) / 249 waves             */
	  256e3 },     /* L1 + shared per SM: NVIDIA's H100 architecture whitepaper (GH100,  */
	               /* the H200's chip), 256 KB                                           */
};

int gpum_profile_count(void) { return (int)(sizeof profiles / sizeof profiles[0]); }

const gpum_profile *gpum_profile_at(int i)
{
	return i >= 0 && i < gpum_profile_count() ? &profiles[i] : NULL;
}

const gpum_profile *gpum_profile_find(const char *name)
{
	for (int i = 0; name && i < gpum_profile_count(); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Work-item executions of a site in the model launch -> in the timed one: a site a work-item
 * runs more than once per launch is in its loop and scales with the inner trip count too. */
static double scale(const cJSON *site, const gpum_launch *l)
{
	double per_item = l->items_m > 0 ? num(site, "accesses") / l->items_m : 0;
	double f = l->items_m > 0 ? l->items_t / l->items_m : 0;
	if (per_item >= 1.5 && l->trips_m > 0)
		f *= l->trips_t / l->trips_m;
	return f;
}

/* A site whose warps run with lanes idle; not one a group runs once (`if (l == 0)`). */
static void add_line(gpum_result *r, const cJSON *s, int local, int warp, double groups)
{
	double wi = num(s, "warp_instructions"), lanes = num(s, "lanes");
	if (wi <= 0 || lanes >= 0.999 * wi * warp || r->nlines >= GPUM_MAX_LINES ||
	    wi <= groups)
		return;
	gpum_line *g = &r->lines[r->nlines++];
	g->line = (int)num(s, "line");
	g->column = (int)num(s, "column");
	g->local = local;
	snprintf(g->access, sizeof g->access, "%s",
	         cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "access")) ?
	         cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "access")) : "?");
	g->efficiency = lanes / (wi * warp);
}

typedef struct tally {
	double groups;            /* groups priced in the model launch */
	double wavefronts, excess, store_sectors, loaded, lanes, winstr;
	double top_bytes, top_per_request;
	int top_mlp;
} tally;

static void tally_local(const cJSON *sites, const gpum_launch *l, int warp, tally *t,
                        gpum_result *r)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, sites) {
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(s, "profiles"), "nvidia");
		double f = scale(s, l);
		t->wavefronts += f * num(nv, "wavefronts");
		t->excess += f * (num(nv, "wavefronts") - num(nv, "ideal_wavefronts"));
		t->lanes += f * num(s, "lanes");
		t->winstr += f * num(s, "warp_instructions");
		add_line(r, s, 1, warp, t->groups);
	}
}

static void tally_global(const cJSON *sites, const gpum_launch *l, int warp, tally *t,
                         gpum_result *r)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, sites) {
		double f = scale(s, l), req = num(s, "warp_instructions");
		const char *acc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "access"));
		int load = acc && strcmp(acc, "load") == 0;
		t->wavefronts += f * num(s, "lines");
		t->lanes += f * num(s, "lanes");
		t->winstr += f * req;
		if (!load)
			t->store_sectors += f * num(s, "sectors");
		else {
			double bytes = f * num(s, "bytes");
			t->loaded += bytes;
			if (bytes > t->top_bytes && req > 0 && num(s, "accesses") > 0) {
				t->top_bytes = bytes;
				t->top_per_request = num(s, "bytes") / num(s, "accesses") *
				                     num(s, "lanes") / req;
				t->top_mlp = num(s, "mlp") > 0 ? (int)num(s, "mlp") : 1;
			}
		}
		add_line(r, s, 0, warp, t->groups);
	}
}

/* The kernel's own arithmetic at the timed launch, per pipe (trace_arith.c: "pipe" fp32, sfu
 * or int): each instruction's operations scaled as a site's accesses are; the line of the
 * instruction with the largest share of the deciding pipe's time. */
static void tally_arith(const cJSON *sites, const gpum_profile *p, const gpum_launch *l,
                        gpum_result *r)
{
	static const char *names[GPUM_PIPES] = { "fp32", "sfu", "int" };
	/* operations a clock per SM, CUDA C++ Programming Guide, "Arithmetic Instructions",
	 * compute capability 9.0: FP32 128 (p->flops already counts an FMA as 2), special
	 * functions 16, 32-bit integer 64 */
	double rate[GPUM_PIPES] = { p->flops, p->sms * 16 * p->clock_hz, p->sms * 64 * p->clock_hz };
	double top_s[GPUM_PIPES] = { 0 };
	int line[GPUM_PIPES] = { 0 }, col[GPUM_PIPES] = { 0 };
	const cJSON *s;
	cJSON_ArrayForEach(s, sites) {
		const char *pn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "pipe"));
		int k = 0;
		while (pn && k < GPUM_PIPES && strcmp(pn, names[k]) != 0)
			k++;
		if (k == GPUM_PIPES)
			k = 0;
		/* at the warps' rate: an instruction issued for 32 lanes however few are active
		 * (an FMA chain under if ((l & 31) == 0) costs a whole warp's: the hostile review
		 * of 2026-12-05) */
		double runs = num(s, "accesses"), warps = num(s, "warp_runs");
		double lanes = runs > 0 && warps * 32 > runs ? warps * 32 / runs : 1;
		double f = scale(s, l) * num(s, "flops") * lanes;
		r->pipe_ops[k] += f;
		if (f > top_s[k]) {
			top_s[k] = f;
			line[k] = (int)num(s, "line");
			col[k] = (int)num(s, "column");
		}
	}
	r->counted_flops = r->pipe_ops[0];
	double best = 0;
	for (int k = 0; k < GPUM_PIPES; k++) {
		double t = (k == 0 ? fmax(l->flops_t, r->pipe_ops[0]) : r->pipe_ops[k]) / rate[k];
		if (k == 0 || t > best) {
			best = t;
			r->arith_pipe = k;
			r->flops_line = line[k];
			r->flops_column = col[k];
			r->flops_share = r->pipe_ops[k] > 0 ? top_s[k] / r->pipe_ops[k] : 0;
		}
	}
	r->arith_s = best;
}

/* Private arrays in local memory (trace_arith.c): a warp's access touches its lanes' words,
 * which NVIDIA interleaves lane by lane (one 128-byte line for 32 floats at one index); the
 * bytes are the traffic.  Returns that traffic at the timed launch. */
static double tally_private(const cJSON *sites, const gpum_launch *l, int warp, tally *t)
{
	double traffic = 0;
	const cJSON *s;
	cJSON_ArrayForEach(s, sites) {
		double f = scale(s, l), acc = num(s, "accesses"), bytes = num(s, "bytes");
		double per = acc > 0 ? bytes / acc : 4;
		t->wavefronts += f * acc / warp * ceil(warp * per / 128);
		traffic += f * bytes;
	}
	return traffic;
}

/* Which term decides, and its words. */
static void limiter(gpum_result *r, double t_l1, double t_lat, double eff)
{
	int best = GPUM_L1;
	double top = r->term_ms[GPUM_L1] + r->term_ms[GPUM_LATENCY];
	for (int i = GPUM_STORES; i < GPUM_TERMS; i++)
		if (r->term_ms[i] > top)
			top = r->term_ms[i], best = i;
	if (best == GPUM_L1 && t_lat > t_l1)
		best = GPUM_LATENCY;
	r->limiter = (gpum_term)best;
	static const char *keys[] = { "l1_pipe", "latency", "scattered_stores", "flops", "dram",
	                              "loads_in_flight" };
	static const char *texts[] = {
		"the L1/shared-memory pipe: every warp's __global and __local accesses take turns there",
		"latency of few rounds: each group waits for its loads round after round, and too few "
		"groups are in flight to hide the wait",
		"scattered stores: each warp's store touches many 32-byte sectors, which the L2 must merge",
		"arithmetic: the FP32 units are busy",
		"DRAM bandwidth: the kernel reads and writes as fast as the memory delivers",
		"too few loads in flight: each warp waits for its load before it issues the next, so "
		"the memory idles (Little's law)",
	};
	r->limiter_key = keys[best];
	r->limiter_text = texts[best];
	if (best == GPUM_L1 && r->local_excess > 0.25 * r->wavefronts) {
		r->limiter_key = "bank_conflicts";
		r->limiter_text = "bank conflicts: __local accesses whose lanes share a bank take "
		                  "several turns of the shared-memory pipe";
	} else if (best == GPUM_FLOPS && r->arith_pipe == 1) {
		r->limiter_text = "special functions: sqrt, exp, sin and division run on the "
		                  "special-function units, 16 a clock per SM against 128 adds";
	} else if (best == GPUM_FLOPS && r->arith_pipe == 2) {
		r->limiter_text = "integer arithmetic: 64 operations a clock per SM against 128 float "
		                  "adds, and a division or remainder by a value not known at compile "
		                  "time takes about 20";
	} else if (best == GPUM_L1 && eff < 0.75) {
		r->limiter_key = "divergence";
		r->limiter_text = "divergence: warps issue their memory instructions with most lanes "
		                  "idle, so the pipe does the work of full warps for part of it";
	}
}

int gpum_predict(const gpum_profile *p, const cJSON *summary, const gpum_launch *l,
                 gpum_result *r)
{
	memset(r, 0, sizeof *r);
	if (!p || !summary || !l || l->groups_per_sm <= 0 || l->items_m <= 0)
		return -1;
	tally t = { 0 };
	t.groups = num(summary, "groups_priced");
	tally_local(cJSON_GetObjectItemCaseSensitive(summary, "local_sites"), l, p->warp, &t, r);
	tally_global(cJSON_GetObjectItemCaseSensitive(summary, "global_sites"), l, p->warp, &t, r);
	if (t.winstr <= 0)
		return -1;
	double priced = num(summary, "groups_priced");
	double rounds = priced > 0 ? num(summary, "load_rounds") / priced : 0;
	if (rounds >= 1.5 && l->trips_m > 0)
		rounds *= l->trips_t / l->trips_m;
	int wpg = (l->group_size + p->warp - 1) / p->warp;
	double waves = ceil(l->groups_t / ((double)p->sms * l->groups_per_sm));
	double per_sm = ceil(l->groups_t / p->sms);
	double resident = fmin(l->groups_per_sm, per_sm) * wpg;
	if (resident > p->max_warps_per_sm)
		resident = p->max_warps_per_sm;
	/* private arrays in local memory: priced at the DRAM's rate once the resident work-items'
	 * copies do not fit the L1 beside the groups' __local memory (the L2 between is not
	 * modelled: on the H200 acc[32] took 0.116 ms, acc[256] 0.392, both predicted slower,
	 * acc[8] 0.067 as predicted; tests/gpu/results/private-h200-2026-12-01.txt) */
	r->private_bytes = tally_private(cJSON_GetObjectItemCaseSensitive(summary, "private_sites"),
	                                 l, p->warp, &t);
	r->private_per_item = num(summary, "private_bytes");
	r->private_line = (int)num(summary, "private_line");
	r->private_column = (int)num(summary, "private_column");
	double footprint = num(summary, "private_bytes") * resident * p->warp;   /* per SM */
	double shared = num(summary, "local_bytes") * fmin(l->groups_per_sm, per_sm);
	r->private_dram = r->private_bytes > 0 && footprint > p->l1_bytes - shared;
	int reread = t.loaded > 2 * l->bytes_in_t;
	double t_l1 = t.wavefronts / (p->sms * p->clock_hz);
	double t_lat = waves * rounds * (reread ? p->l2_lat_s : p->round_s);
	double fly = p->sms * resident * t.top_mlp * t.top_per_request;
	r->term_ms[GPUM_L1] = 1e3 * t_l1;
	r->term_ms[GPUM_LATENCY] = 1e3 * t_lat;
	r->term_ms[GPUM_STORES] = 1e3 * 32 * t.store_sectors / p->store_bps;
	tally_arith(cJSON_GetObjectItemCaseSensitive(summary, "arith_sites"), p, l, r);
	r->flops_nominal = l->flops_t;
	r->term_ms[GPUM_FLOPS] = 1e3 * r->arith_s;
	r->term_ms[GPUM_DRAM] = 1e3 * (l->bytes_in_t + l->bytes_out_t +
	                               (r->private_dram ? r->private_bytes : 0)) / p->dram_bps;
	r->term_ms[GPUM_INFLIGHT] = fly > 0 ? 1e3 * l->bytes_in_t * p->mem_lat_s / fly : 0;
	r->wavefronts = t.wavefronts;
	r->local_excess = t.excess;
	r->rounds = rounds;
	r->waves = waves;
	r->in_flight = t.top_mlp * t.top_per_request;
	r->mlp = t.top_mlp;
	r->efficiency = t.lanes / (t.winstr * p->warp);
	limiter(r, t_l1, t_lat, r->efficiency);
	r->ms = r->term_ms[GPUM_L1] + r->term_ms[GPUM_LATENCY];
	for (int i = GPUM_STORES; i < GPUM_TERMS; i++)
		if (r->term_ms[i] > r->ms)
			r->ms = r->term_ms[i];
	r->ok = 1;
	return 0;
}

cJSON *gpum_json(const gpum_profile *p, const gpum_result *r)
{
	static const char *names[] = { "l1_pipe_ms", "latency_ms", "scattered_stores_ms",
	                               "flops_ms", "dram_ms", "loads_in_flight_ms" };
	cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "profile", p->name);
	cJSON_AddBoolToObject(o, "validated", p->validated);
	cJSON_AddNumberToObject(o, "kernel_ms", r->ms);
	cJSON_AddStringToObject(o, "limiter", r->limiter_key);
	cJSON_AddStringToObject(o, "limiter_text", r->limiter_text);
	for (int i = 0; i < GPUM_TERMS; i++)
		cJSON_AddNumberToObject(b, names[i], r->term_ms[i]);
	cJSON_AddNumberToObject(b, "wavefronts", r->wavefronts);
	cJSON_AddNumberToObject(b, "bank_conflict_wavefronts", r->local_excess);
	cJSON_AddNumberToObject(b, "load_rounds", r->rounds);
	cJSON_AddNumberToObject(b, "waves", r->waves);
	cJSON_AddNumberToObject(b, "loads_in_flight", r->mlp);
	cJSON_AddNumberToObject(b, "bytes_in_flight_per_warp", r->in_flight);
	cJSON_AddNumberToObject(b, "warp_efficiency", r->efficiency);
	cJSON_AddNumberToObject(b, "counted_flops", r->counted_flops);
	cJSON_AddNumberToObject(b, "sfu_ops", r->pipe_ops[1]);
	cJSON_AddNumberToObject(b, "int_div_ops", r->pipe_ops[2]);
	cJSON_AddNumberToObject(b, "private_bytes", r->private_bytes);
	cJSON_AddBoolToObject(b, "private_in_dram", r->private_dram);
	if (r->private_line > 0) {
		cJSON_AddNumberToObject(b, "private_line", r->private_line);
		cJSON_AddNumberToObject(b, "private_column", r->private_column);
	}
	if (r->flops_line > 0) {
		cJSON_AddNumberToObject(b, "flops_line", r->flops_line);
		cJSON_AddNumberToObject(b, "flops_column", r->flops_column);
		cJSON_AddNumberToObject(b, "flops_share", r->flops_share);
	}
	cJSON_AddItemToObject(o, "breakdown", b);
	cJSON *lines = cJSON_AddArrayToObject(o, "warp_efficiency");
	for (int i = 0; i < r->nlines; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "line", r->lines[i].line);
		cJSON_AddNumberToObject(x, "column", r->lines[i].column);
		cJSON_AddStringToObject(x, "space", r->lines[i].local ? "local" : "global");
		cJSON_AddStringToObject(x, "access", r->lines[i].access);
		cJSON_AddNumberToObject(x, "efficiency", r->lines[i].efficiency);
		cJSON_AddItemToArray(lines, x);
	}
	return o;
}
