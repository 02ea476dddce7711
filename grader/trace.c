/* trace.c — the analysis behind the Oclgrind tracer plugin (see trace.h): the run's
 * lifetime, its variables, and every access recorded into a per-thread site and report row.
 *
 * The plugin is a thin C++ adapter; every decision lives in plain C so that Check can test it
 * without Oclgrind.  The analysis is five files:
 *   - trace.c (this one): per kernel run, the variables (names and base addresses of __local
 *     variables and buffer arguments), and the sites (one per accessing instruction, variable
 *     and kind), each feeding one report row ("entry": one per line, column, variable and
 *     kind); the accesses of the current barrier interval of the current work-group are
 *     buffered here,
 *   - trace_price.c: those accesses priced (bank conflicts, sectors and lines) and dropped at
 *     every barrier and at the end of the group,
 *   - trace_finding.c: the findings parsed from Oclgrind's diagnostics (races, out of bounds),
 *   - trace_summary.c: the JSON summary the grader reads,
 *   - trace_merge.c and trace_skip.c: the grader's side (several runs' summaries merged; the
 *     condition that makes work-items skip a barrier).
 * Only per-row totals survive a work-group, so memory does not grow with the run.
 *
 * Threads.  Oclgrind runs whole work-groups on its worker threads.  Everything a group
 * touches (sites, rows, buffered accesses) lives in a per-thread "worker", found through a
 * thread-local cache, so accesses take no lock; the rows of all workers are merged when the
 * summary is written.  Variables are added before the groups that use them run; findings
 * and the worker list are guarded by one mutex. */
#include <stdatomic.h>
#include <string.h>

#include "trace_int.h"

static atomic_uint next_id = 1;
static _Thread_local struct { unsigned id; worker *w; } tls;

/* --- workers ------------------------------------------------------------------------ */

static void
worker_reset(worker *w)
{
	w->nsites = w->nentries = 0;
	if (w->hash)
		memset(w->hash, 0, sizeof(int) * (size_t)w->hashcap);
	w->last_site = -1;
	free(w->counts);
	w->counts = NULL;
	w->countrows = 0;
	w->nrecs = 0;
	w->group = 0;
	w->priced = 1;
	w->groups_run = w->groups_priced = w->loaded = w->stored = 0;
	w->load_rounds = 0;
	trace_arith_reset(w);
}

static void
worker_free(worker *w)
{
	free(w->sites);
	free(w->hash);
	free(w->entries);
	free(w->counts);
	free(w->recs);
	free(w->scratch);
	trace_arith_free(w);
	free(w);
}

/* The calling thread's worker, made on first use. */
static worker *
worker_of(trace *t)
{
	if (tls.id == t->id)
		return tls.w;
	pthread_t self = pthread_self();
	pthread_mutex_lock(&t->lock);
	worker *w;
	for (w = t->workers; w != NULL; w = w->next)
		if (pthread_equal(w->owner, self))
			break;
	if (w == NULL) {
		w = calloc(1, sizeof *w);
		if (w == NULL)
			oom();
		w->owner = self;
		w->last_site = -1;
		w->last_arith = -1;
		w->priced = 1;
		w->next = t->workers;
		t->workers = w;
	}
	pthread_mutex_unlock(&t->lock);
	tls.id = t->id;
	tls.w = w;
	return w;
}

worker *
trace_worker(trace *t)
{
	return worker_of(t);
}

/* --- lifetime ----------------------------------------------------------------------- */

trace *
trace_new(void)
{
	trace *t = calloc(1, sizeof *t);
	if (t == NULL)
		oom();
	t->id = atomic_fetch_add(&next_id, 1);
	pthread_mutex_init(&t->lock, NULL);
	t->code = irmlp_new();
	return t;
}

void
trace_free(trace *t)
{
	if (t == NULL)
		return;
	while (t->workers != NULL) {
		worker *w = t->workers;
		t->workers = w->next;
		worker_free(w);
	}
	if (tls.id == t->id)
		tls.id = 0;
	pthread_mutex_destroy(&t->lock);
	irmlp_free(t->code);
	free(t->vars);
	free(t->arith_lines);
	free(t);
}

void
trace_kernel_begin(trace *t, const char *kernel, const size_t local[3], const size_t groups[3])
{
	copy_str(t->kernel, sizeof t->kernel, kernel);
	for (int d = 0; d < 3; d++) {
		t->local[d] = local[d];
		t->groups[d] = groups[d];
	}
	t->nlanes = (uint32_t)lane_count(local);
	t->extent[0] = t->extent[1] = 0;
	t->begun = 1;
	t->ended = 0;
	t->nvars = 0;
	t->narith_lines = 0;
	t->private_bytes = 0;
	t->private_line = t->private_column = 0;
	irmlp_reset(t->code);
	pthread_mutex_lock(&t->lock);
	for (worker *w = t->workers; w != NULL; w = w->next)
		worker_reset(w);
	pthread_mutex_unlock(&t->lock);
}

struct irmlp *
trace_code(trace *t)
{
	return t->code;
}

void
trace_interior(trace *t, uint64_t x_extent, uint64_t y_extent)
{
	t->extent[0] = x_extent;
	t->extent[1] = y_extent;
}

/* Is linear group g wholly inside the extent? */
static int
interior(const trace *t, uint32_t g)
{
	if (t->extent[0] == 0 || t->groups[0] == 0 || t->groups[1] == 0)
		return 1;
	uint64_t gx = g % t->groups[0], gy = (g / t->groups[0]) % t->groups[1];
	return (gx + 1) * t->local[0] <= t->extent[0] && (gy + 1) * t->local[1] <= t->extent[1];
}

/* --- variables ---------------------------------------------------------------------- */

void
trace_variable(trace *t, trace_space space, const char *name, uint64_t base, uint64_t bytes)
{
	size_t klen = strlen(t->kernel);

	if (name == NULL)
		name = "";
	if (space == TRACE_LOCAL) {
		if (klen > 0 && strncmp(name, t->kernel, klen) == 0 && name[klen] == '.')
			name += klen + 1;
		else if (strchr(name, '.') != NULL)
			return;         /* another kernel's __local variable */
	}
	pthread_mutex_lock(&t->lock);
	int known = 0;
	for (int i = 0; i < t->nvars && !known; i++)
		known = t->vars[i].space == space && strcmp(t->vars[i].name, name) == 0 &&
		        t->vars[i].base == base;
	if (!known) {
		t->vars = grow(t->vars, sizeof *t->vars, &t->capvars, t->nvars + 1);
		variable *v = &t->vars[t->nvars++];
		v->space = space;
		copy_str(v->name, sizeof v->name, name);
		v->base = base;
		v->bytes = bytes;
	}
	pthread_mutex_unlock(&t->lock);
}

/* The variable holding addr: same space, same Oclgrind buffer, the highest base not
 * above addr (two arguments may share a buffer); -1 when none. */
int
trace_var_of(const trace *t, trace_space space, uint64_t addr)
{
	int best = -1;

	for (int i = 0; i < t->nvars; i++) {
		const variable *v = &t->vars[i];
		if (v->space != space || v->base >> TRACE_ADDR_BITS != addr >> TRACE_ADDR_BITS)
			continue;
		if (best < 0)
			best = i;
		else if (v->base <= addr && (t->vars[best].base > addr || v->base > t->vars[best].base))
			best = i;
	}
	return best;
}

uint64_t
trace_offset_in(const trace *t, int var, uint64_t addr)
{
	if (var >= 0 && addr >= t->vars[var].base)
		return addr - t->vars[var].base;
	return addr & ADDR_MASK;
}

const char *
trace_var_name(const trace *t, int var)
{
	return var >= 0 ? t->vars[var].name : NULL;
}

/* --- sites and report rows ---------------------------------------------------------- */

static unsigned
site_hash(const void *key, int var, trace_kind kind)
{
	uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
	h ^= (uint64_t)(unsigned)(var + 1) * UINT64_C(0xC2B2AE3D27D4EB4F) + (uint64_t)kind;
	return (unsigned)(h >> 32);
}

int
trace_same_row(const entry *e, trace_space space, trace_kind kind, int var, int line, int column)
{
	return e->space == space && e->kind == kind && e->var == var && e->line == line &&
	       e->column == column;
}

static int
entry_of(worker *w, const trace_access *a, int var)
{
	for (int i = 0; i < w->nentries; i++)
		if (trace_same_row(&w->entries[i], a->space, a->kind, var, a->line, a->column)) {
			w->entries[i].merged |= a->merged;
			return i;
		}
	w->entries = grow(w->entries, sizeof *w->entries, &w->capentries, w->nentries + 1);
	entry *e = &w->entries[w->nentries];
	memset(e, 0, sizeof *e);
	e->space = a->space;
	e->kind = a->kind;
	e->var = var;
	e->line = a->line;
	e->column = a->column;
	e->merged = a->merged;
	return w->nentries++;
}

static void
hash_insert(worker *w, int s)
{
	unsigned mask = (unsigned)w->hashcap - 1;
	unsigned h = site_hash(w->sites[s].key, w->sites[s].var, w->sites[s].kind) & mask;

	while (w->hash[h] != 0)
		h = (h + 1) & mask;
	w->hash[h] = s + 1;
}

static void
hash_grow(worker *w)
{
	int cap = w->hashcap ? w->hashcap * 2 : 256;

	free(w->hash);
	w->hash = calloc((size_t)cap, sizeof(int));
	if (w->hash == NULL)
		oom();
	w->hashcap = cap;
	for (int s = 0; s < w->nsites; s++)
		hash_insert(w, s);
}

/* Room in counts[] for site s, zeroed. */
static void
counts_reserve(worker *w, uint32_t nlanes, int s)
{
	if (s < w->countrows || nlanes == 0)
		return;
	int rows = w->countrows ? w->countrows * 2 : 16;
	while (rows <= s)
		rows *= 2;
	uint32_t *c = realloc(w->counts, sizeof(uint32_t) * (size_t)rows * nlanes);
	if (c == NULL)
		oom();
	memset(c + (size_t)w->countrows * nlanes, 0,
	       sizeof(uint32_t) * (size_t)(rows - w->countrows) * nlanes);
	w->counts = c;
	w->countrows = rows;
}

static int
site_of(worker *w, const irmlp *t_code, uint32_t nlanes, const trace_access *a, int var)
{
	int s = w->last_site;
	if (s >= 0 && w->sites[s].key == a->site && w->sites[s].var == var && w->sites[s].kind == a->kind)
		return s;
	if (w->hashcap > 0) {
		unsigned mask = (unsigned)w->hashcap - 1;
		for (unsigned h = site_hash(a->site, var, a->kind) & mask; w->hash[h] != 0; h = (h + 1) & mask) {
			site *p = &w->sites[w->hash[h] - 1];
			if (p->key == a->site && p->var == var && p->kind == a->kind)
				return w->last_site = w->hash[h] - 1;
		}
	}
	w->sites = grow(w->sites, sizeof *w->sites, &w->capsites, w->nsites + 1);
	s = w->nsites++;
	w->sites[s] = (site){ a->site, var, a->kind, entry_of(w, a, var), 0 };
	entry *e = &w->entries[w->sites[s].entry];
	int mlp = a->space == TRACE_GLOBAL ? irmlp_of(t_code, a->site) : 0;
	if (mlp > e->mlp) {
		e->mlp = mlp;
		e->mlp_group = irmlp_group_of(t_code, a->site);
	}
	if (2 * w->nsites > w->hashcap)
		hash_grow(w);
	else
		hash_insert(w, s);
	counts_reserve(w, nlanes, s);
	return w->last_site = s;
}

/* --- events ------------------------------------------------------------------------- */

void
trace_group_begin(trace *t, uint32_t group)
{
	worker *w = worker_of(t);
	trace_flush(w, t->nlanes);
	w->group = group;
	w->priced = interior(t, group);
}

void
trace_barrier(trace *t)
{
	trace_flush(worker_of(t), t->nlanes);
}

void
trace_group_end(trace *t)
{
	worker *w = worker_of(t);
	trace_flush(w, t->nlanes);
	trace_arith_warps(w, t->nlanes);
	w->groups_run++;
	w->groups_priced += w->priced;
}

void
trace_copy_bytes(trace *t, trace_space space, int is_store, uint64_t bytes)
{
	worker *w = worker_of(t);

	if (space != TRACE_GLOBAL)
		return;
	if (is_store)
		w->stored += bytes;
	else
		w->loaded += bytes;
}

/* One access as a 64-bit value for the fingerprint, a sum over every access (so the order in
 * which work-items run does not matter): what it does (load or store), which work-item of the
 * group, which variable (by name) and where in it, and its size.  Two builds of one kernel
 * that access the same memory the same way have the same sums: the unoptimised analysis is
 * trusted for its lines only then (check_an.c, sites_unoptimised). */
static uint64_t
access_mix(const trace *t, const trace_access *a, int var)
{
	uint64_t h = UINT64_C(1469598103934665603);
	const char *name = var >= 0 ? t->vars[var].name : "?";
	uint64_t off = var >= 0 ? a->address - t->vars[var].base : a->address;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
	uint64_t v[4] = { (uint64_t)(a->kind == TRACE_STORE), a->lane, off, a->size };
	for (int i = 0; i < 4; i++) {
		h ^= v[i] + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
		h *= UINT64_C(0xBF58476D1CE4E5B9);
		h ^= h >> 31;
	}
	return h;
}

void
trace_record(trace *t, const trace_access *a)
{
	worker *w = worker_of(t);

	if (a->space == TRACE_GLOBAL) {
		if (a->kind == TRACE_STORE || a->kind == TRACE_ATOMIC_STORE)
			w->stored += a->size;
		else
			w->loaded += a->size;
	}
	if (a->kind == TRACE_ATOMIC_STORE)
		return;         /* the store half of an atomic: priced with its load half */

	int var = trace_var_of(t, a->space, a->address);
	w->fingerprint[a->space == TRACE_LOCAL] += access_mix(t, a, var);
	int s = site_of(w, t->code, t->nlanes, a, var);
	w->sites[s].runs++;
	entry *e = &w->entries[w->sites[s].entry];
	e->accesses++;
	e->bytes += a->size;
	if (a->size > e->width)
		e->width = a->size;
	if (a->lane >= t->nlanes)
		return;

	uint32_t *k = &w->counts[(size_t)s * t->nlanes + a->lane];
	if (w->nrecs == w->caprecs) {
		size_t cap = w->caprecs ? w->caprecs * 2 : 4096;
		rec *p = realloc(w->recs, cap * sizeof *p);
		if (p == NULL)
			oom();
		w->recs = p;
		w->caprecs = cap;
	}
	w->recs[w->nrecs++] = (rec){ (uint32_t)s, (*k)++, a->lane, a->size,
	                             trace_offset_in(t, var, a->address) };
}

