/* trace_summary.c — the tracer's JSON summary, the one file the grader reads from an
 * Oclgrind run: geometry, variables, every report row of every worker merged (bank conflicts,
 * sectors, the worst warp of each row), the bytes moved, the access fingerprint and the
 * findings; written at the kernel's end (or when the run stops early).  See trace.c. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "trace_int.h"

static const char *kind_names[] = { "load", "store", "atomic", "atomic" };

static cJSON *
size3(const size_t v[3])
{
	cJSON *a = cJSON_CreateArray();
	for (int d = 0; d < 3; d++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[d]));
	return a;
}
static cJSON *
variables_json(const trace *t, trace_space space)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < t->nvars; i++) {
		if (t->vars[i].space != space)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", t->vars[i].name);
		cJSON_AddNumberToObject(o, "bytes", (double)t->vars[i].bytes);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static void
site_head(const trace *t, const entry *e, cJSON *o)
{
	cJSON_AddNumberToObject(o, "line", e->line);
	cJSON_AddNumberToObject(o, "column", e->column);
	add_name(o, "variable", trace_var_name(t, e->var));
	cJSON_AddStringToObject(o, "access", kind_names[e->kind]);
	cJSON_AddNumberToObject(o, "width", e->width);
	if (e->merged)
		cJSON_AddTrueToObject(o, "merged");
}

static cJSON *
worst_json(const entry *e)
{
	const bank_profile *p = bank_profile_at(0);
	int banks[BANK_MAX_LANES];
	cJSON *o = cJSON_CreateObject(), *offs = cJSON_CreateArray(), *bk = cJSON_CreateArray();

	bank_lanes(p, e->worst_addr, e->worst_nlanes, banks);
	cJSON_AddStringToObject(o, "profile", p->name);
	cJSON_AddNumberToObject(o, "n_way", e->worst_n_way);
	cJSON_AddNumberToObject(o, "group", e->worst_group);
	cJSON_AddNumberToObject(o, "warp", e->worst_warp);
	for (int l = 0; l < e->worst_nlanes; l++) {
		if (e->worst_active[l]) {
			cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)e->worst_addr[l]));
			cJSON_AddItemToArray(bk, cJSON_CreateNumber(banks[l]));
		} else {
			cJSON_AddItemToArray(offs, cJSON_CreateNull());
			cJSON_AddItemToArray(bk, cJSON_CreateNull());
		}
	}
	cJSON_AddItemToObject(o, "offsets", offs);
	cJSON_AddItemToObject(o, "banks", bk);
	return o;
}

static cJSON *
local_site_json(const trace *t, const entry *e)
{
	cJSON *o = cJSON_CreateObject(), *profs = cJSON_CreateObject();
	int np = bank_profile_count();

	if (np > TRACE_MAX_PROFILES)
		np = TRACE_MAX_PROFILES;
	site_head(t, e, o);
	cJSON_AddNumberToObject(o, "instructions", (double)e->prof[0].instructions);
	cJSON_AddNumberToObject(o, "warp_instructions", (double)e->warp_instructions);
	cJSON_AddNumberToObject(o, "lanes", (double)e->lanes);
	cJSON_AddNumberToObject(o, "accesses", (double)e->accesses);
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	for (int pi = 0; pi < np; pi++) {
		const profile_stat *ps = &e->prof[pi];
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "instructions", (double)ps->instructions);
		cJSON_AddNumberToObject(p, "n_way", ps->n_way);
		cJSON_AddNumberToObject(p, "wavefronts", (double)ps->wavefronts);
		cJSON_AddNumberToObject(p, "ideal_wavefronts", (double)ps->ideal);
		cJSON_AddItemToObject(profs, bank_profile_at(pi)->name, p);
	}
	cJSON_AddItemToObject(o, "profiles", profs);
	if (e->worst_nlanes > 0)
		cJSON_AddItemToObject(o, "worst_lanes", worst_json(e));
	return o;
}

/* The worst request of a __global site: each lane's first and last 32-byte sector, counted
 * from the lowest sector the request touches (null: a lane that takes no part), the distinct
 * sectors touched (same origin) and the ideal count (price_global_request). */
static cJSON *
request_json(const entry *e)
{
	cJSON *o = cJSON_CreateObject(), *first = cJSON_CreateArray(), *last = cJSON_CreateArray();
	cJSON *touched = cJSON_CreateArray();
	uint64_t base = UINT64_MAX, seen[TRACE_GLOBAL_WARP * 2];
	int nseen = 0;
	for (int l = 0; l < e->g_nlanes; l++)
		if (e->g_active[l] && e->g_offset[l] / TRACE_SECTOR < base)
			base = e->g_offset[l] / TRACE_SECTOR;
	for (int l = 0; l < e->g_nlanes; l++) {
		if (!e->g_active[l]) {
			cJSON_AddItemToArray(first, cJSON_CreateNull());
			cJSON_AddItemToArray(last, cJSON_CreateNull());
			continue;
		}
		uint64_t a = e->g_offset[l] / TRACE_SECTOR - base;
		uint64_t b = (e->g_offset[l] + e->g_size[l] - 1) / TRACE_SECTOR - base;
		cJSON_AddItemToArray(first, cJSON_CreateNumber((double)a));
		cJSON_AddItemToArray(last, cJSON_CreateNumber((double)b));
		for (uint64_t g = a; g <= b && g <= a + 1; g++) {
			int k = 0;
			while (k < nseen && seen[k] != g)
				k++;
			if (k == nseen && nseen < TRACE_GLOBAL_WARP * 2)
				seen[nseen++] = g;
		}
	}
	qsort(seen, (size_t)nseen, sizeof *seen, trace_cmp_u64);
	for (int k = 0; k < nseen; k++)
		cJSON_AddItemToArray(touched, cJSON_CreateNumber((double)seen[k]));
	cJSON_AddNumberToObject(o, "group", e->g_group);
	cJSON_AddNumberToObject(o, "warp", e->g_warp);
	cJSON_AddNumberToObject(o, "sectors", (double)e->g_sectors);
	cJSON_AddNumberToObject(o, "ideal", (double)e->g_ideal);
	cJSON_AddItemToObject(o, "lane_first", first);
	cJSON_AddItemToObject(o, "lane_last", last);
	cJSON_AddItemToObject(o, "touched", touched);
	return o;
}

/* Loads in flight per irmlp group, from what ran: each load of a group counts what irmlp gave
 * it (irmlp_times) times how often it ran beside the group's most-run load, at most once
 * each time that one does; a load of the code that never ran counts nothing
 * (tests/attacks4/l5_dead_guarded_loads.cl: three loads under guards never true were in
 * flight with the one that runs).  Copies of an unrolled loop share a source line, so this
 * goes by instruction, not by report row.  Returns an array indexed by group number (0
 * unused; NULL when there is no group), each at least 1 where a load of it ran. */
static double *
group_flight(const trace *t)
{
	int ng = irmlp_groups(t->code);
	if (ng <= 0)
		return NULL;
	double *rate = calloc((size_t)ng + 1, sizeof *rate), *sum = calloc((size_t)ng + 1, sizeof *sum);
	const void **key = NULL;
	double *runs = NULL;
	int n = 0, cap = 0, capr = 0;
	if (rate == NULL || sum == NULL)
		oom();
	for (const worker *w = t->workers; w != NULL; w = w->next)   /* runs per instruction */
		for (int i = 0; i < w->nsites; i++) {
			const site *st = &w->sites[i];
			if (st->kind != TRACE_LOAD || irmlp_group_of(t->code, st->key) <= 0)
				continue;
			int j = 0;
			while (j < n && key[j] != st->key)
				j++;
			if (j == n) {
				key = grow(key, sizeof *key, &cap, n + 1);
				runs = grow(runs, sizeof *runs, &capr, n + 1);
				key[n] = st->key;
				runs[n++] = 0;
			}
			runs[j] += (double)st->runs;
		}
	for (int j = 0; j < n; j++) {                /* the most-run load's rate, per group */
		int g = irmlp_group_of(t->code, key[j]);
		double r = runs[j] / irmlp_times_of(t->code, key[j]);
		if (r > rate[g])
			rate[g] = r;
	}
	for (int j = 0; j < n; j++) {
		int g = irmlp_group_of(t->code, key[j]), times = irmlp_times_of(t->code, key[j]);
		double r = runs[j] / times;
		sum[g] += times * (rate[g] > 0 && r < rate[g] ? r / rate[g] : 1);
	}
	free(key);
	free(runs);
	free(rate);
	return sum;
}

static cJSON *
global_site_json(const trace *t, const entry *e, const double *flight)
{
	cJSON *o = cJSON_CreateObject();

	site_head(t, e, o);
	cJSON_AddNumberToObject(o, "requests", (double)e->requests);
	cJSON_AddNumberToObject(o, "sectors", (double)e->sectors);
	cJSON_AddNumberToObject(o, "ideal_sectors", (double)e->ideal_sectors);
	cJSON_AddNumberToObject(o, "lines", (double)e->lines);
	cJSON_AddNumberToObject(o, "warp_instructions", (double)e->warp_instructions);
	cJSON_AddNumberToObject(o, "lanes", (double)e->lanes);
	if (e->mlp > 0) {
		/* what ran of its group; the code's figure beside it */
		double f = flight && e->mlp_group > 0 ? flight[e->mlp_group] : 0;
		int mlp = f >= 1 ? (int)lround(f) : e->mlp;
		cJSON_AddNumberToObject(o, "mlp", mlp < e->mlp ? mlp : e->mlp);
		cJSON_AddNumberToObject(o, "mlp_code", e->mlp);
	}
	cJSON_AddNumberToObject(o, "accesses", (double)e->accesses);
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	if (e->g_nlanes > 0)
		cJSON_AddItemToObject(o, "worst_request", request_json(e));
	return o;
}

static int
cmp_entry(const void *a, const void *b)
{
	const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->var < y->var ? -1 : x->var > y->var;
}

/* Add row b (of another worker) into row a. */
static void
merge_row(entry *a, const entry *b)
{
	a->accesses += b->accesses;
	a->bytes += b->bytes;
	a->merged |= b->merged;
	if (b->width > a->width)
		a->width = b->width;
	for (int pi = 0; pi < TRACE_MAX_PROFILES; pi++) {
		a->prof[pi].instructions += b->prof[pi].instructions;
		a->prof[pi].wavefronts += b->prof[pi].wavefronts;
		a->prof[pi].ideal += b->prof[pi].ideal;
		if (b->prof[pi].n_way > a->prof[pi].n_way)
			a->prof[pi].n_way = b->prof[pi].n_way;
	}
	if (b->worst_nlanes > 0 && trace_worse(a, b->worst_n_way, b->worst_group, b->worst_warp)) {
		a->worst_n_way = b->worst_n_way;
		a->worst_nlanes = b->worst_nlanes;
		a->worst_group = b->worst_group;
		a->worst_warp = b->worst_warp;
		memcpy(a->worst_addr, b->worst_addr, sizeof a->worst_addr);
		memcpy(a->worst_active, b->worst_active, sizeof a->worst_active);
	}
	a->requests += b->requests;
	a->sectors += b->sectors;
	a->ideal_sectors += b->ideal_sectors;
	if (b->g_nlanes > 0 && trace_g_worse(a, b->g_sectors, b->g_group, b->g_warp)) {
		a->g_nlanes = b->g_nlanes, a->g_group = b->g_group, a->g_warp = b->g_warp;
		a->g_sectors = b->g_sectors, a->g_ideal = b->g_ideal;
		memcpy(a->g_offset, b->g_offset, sizeof a->g_offset);
		memcpy(a->g_size, b->g_size, sizeof a->g_size);
		memcpy(a->g_active, b->g_active, sizeof a->g_active);
	}
	a->lines += b->lines;
	a->warp_instructions += b->warp_instructions;
	a->lanes += b->lanes;
	if (b->mlp > a->mlp) {
		a->mlp = b->mlp;
		a->mlp_group = b->mlp_group;
	}
}

/* The rows of all workers, one per (space, kind, variable, line, column). */
static entry *
merged_rows(const trace *t, int *n)
{
	entry *rows = NULL;
	int nrows = 0, cap = 0;

	for (const worker *w = t->workers; w != NULL; w = w->next) {
		for (int i = 0; i < w->nentries; i++) {
			const entry *e = &w->entries[i];
			int j = 0;
			while (j < nrows && !trace_same_row(&rows[j], e->space, e->kind, e->var, e->line, e->column))
				j++;
			if (j == nrows) {
				rows = grow(rows, sizeof *rows, &cap, nrows + 1);
				rows[nrows++] = *e;
			} else {
				merge_row(&rows[j], e);
			}
		}
	}
	*n = nrows;
	return rows;
}

static void
sites_json(const trace *t, cJSON *root)
{
	cJSON *loc = cJSON_CreateArray(), *glob = cJSON_CreateArray();
	int n;
	entry *rows = merged_rows(t, &n);
	double *flight = group_flight(t);
	const entry **order = malloc(sizeof *order * (size_t)(n + 1));

	if (order == NULL)
		oom();
	for (int i = 0; i < n; i++)
		order[i] = &rows[i];
	qsort(order, (size_t)n, sizeof *order, cmp_entry);
	for (int i = 0; i < n; i++) {
		if (order[i]->space == TRACE_LOCAL)
			cJSON_AddItemToArray(loc, local_site_json(t, order[i]));
		else
			cJSON_AddItemToArray(glob, global_site_json(t, order[i], flight));
	}
	free(flight);
	free(order);
	free(rows);
	cJSON_AddItemToObject(root, "local_sites", loc);
	cJSON_AddItemToObject(root, "global_sites", glob);
}

static cJSON *
profiles_json(void)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < bank_profile_count() && i < TRACE_MAX_PROFILES; i++) {
		const bank_profile *p = bank_profile_at(i);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "label", p->label);
		cJSON_AddNumberToObject(o, "banks", p->banks);
		cJSON_AddNumberToObject(o, "warp", p->warp);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *
trace_summary(trace *t)
{
	cJSON *root = cJSON_CreateObject(), *gb = cJSON_CreateObject();
	uint64_t local_bytes = 0, groups_run = 0, priced = 0, loaded = 0, stored = 0, fp[2] = { 0 };
	uint64_t rounds = 0;

	pthread_mutex_lock(&t->lock);
	for (worker *w = t->workers; w != NULL; w = w->next) {
		trace_flush(w, t->nlanes);    /* a group that never ended */
		groups_run += w->groups_run;
		priced += w->groups_priced;
		rounds += w->load_rounds;
		loaded += w->loaded;
		stored += w->stored;
		fp[0] += w->fingerprint[0];
		fp[1] += w->fingerprint[1];
	}
	for (int i = 0; i < t->nvars; i++)
		if (t->vars[i].space == TRACE_LOCAL)
			local_bytes += t->vars[i].bytes;
	cJSON_AddStringToObject(root, "kernel", t->kernel);
	cJSON_AddItemToObject(root, "local_size", size3(t->local));
	cJSON_AddItemToObject(root, "num_groups", size3(t->groups));
	cJSON_AddNumberToObject(root, "groups_run", (double)groups_run);
	cJSON_AddNumberToObject(root, "groups_priced", (double)priced);
	cJSON_AddNumberToObject(root, "load_rounds", (double)rounds);
	cJSON_AddBoolToObject(root, "complete", t->ended);
	cJSON_AddItemToObject(root, "profiles", profiles_json());
	cJSON_AddItemToObject(root, "local_variables", variables_json(t, TRACE_LOCAL));
	cJSON_AddNumberToObject(root, "local_bytes", (double)local_bytes);
	cJSON_AddItemToObject(root, "global_variables", variables_json(t, TRACE_GLOBAL));
	sites_json(t, root);
	cJSON_AddItemToObject(root, "arith_sites", trace_arith_json(t, 0));
	cJSON_AddItemToObject(root, "private_sites", trace_arith_json(t, 1));
	cJSON_AddNumberToObject(root, "private_bytes", (double)t->private_bytes);
	cJSON_AddNumberToObject(root, "private_line", t->private_line);
	cJSON_AddNumberToObject(root, "private_column", t->private_column);
	cJSON_AddNumberToObject(gb, "loaded", (double)loaded);
	cJSON_AddNumberToObject(gb, "stored", (double)stored);
	cJSON_AddItemToObject(root, "global_bytes", gb);
	/* the access fingerprints (access_mix), as hex: a double would round them */
	char hex[40];
	snprintf(hex, sizeof hex, "%016llx %016llx", (unsigned long long)fp[1],
	         (unsigned long long)fp[0]);
	cJSON_AddStringToObject(root, "fingerprint", hex);
	cJSON_AddItemToObject(root, "findings", trace_findings_json(t));
	cJSON_AddNumberToObject(root, "messages", (double)t->messages);
	cJSON_AddNumberToObject(root, "findings_dropped", (double)t->dropped);
	pthread_mutex_unlock(&t->lock);
	return root;
}

int
trace_write(trace *t, const char *path)
{
	cJSON *root = trace_summary(t);
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	if (s == NULL)
		return -1;
	FILE *f = fopen(path, "w");
	int rc = -1;
	if (f != NULL) {
		rc = fputs(s, f) < 0 || fputc('\n', f) == EOF ? -1 : 0;
		if (fclose(f) != 0)
			rc = -1;
	}
	if (rc != 0)
		fprintf(stderr, "cltrace: cannot write %s\n", path);
	cJSON_free(s);
	return rc;
}

static int
write_env(trace *t)
{
	const char *path = getenv("CLTRACE_OUT");
	return path && *path ? trace_write(t, path) : 0;
}

int
trace_kernel_end(trace *t)
{
	t->ended = 1;
	int rc = write_env(t);
	t->begun = 0;
	t->nfindings = t->partial_findings = 0;
	t->partial_at = 0;
	t->messages = t->dropped = 0;
	return rc;
}

int
trace_finish(trace *t)
{
	if (!t->begun || t->ended)
		return 0;
	int rc = write_env(t);
	t->begun = 0;
	return rc;
}

