/* trace.c — the analysis behind the Oclgrind tracer plugin (see trace.h).
 *
 * The plugin is a thin C++ adapter; every decision lives here so that Check can test it
 * without Oclgrind.  Per kernel run this file keeps:
 *   - the variables (names and base addresses of __local variables and buffer arguments),
 *   - the sites (one per accessing instruction, variable and kind), each feeding one report
 *     row ("entry": one per line, column, variable and kind),
 *   - the accesses of the current barrier interval of the current work-group, priced and
 *     dropped at every barrier and at the end of the group,
 *   - the findings parsed from Oclgrind's diagnostics.
 * Only per-row totals survive a work-group, so memory does not grow with the run.
 *
 * Threads.  Oclgrind runs whole work-groups on its worker threads.  Everything a group
 * touches (sites, rows, buffered accesses) lives in a per-thread "worker", found through a
 * thread-local cache, so accesses take no lock; the rows of all workers are merged when the
 * summary is written.  Variables are added before the groups that use them run; findings
 * and the worker list are guarded by one mutex. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "bank.h"
#include "irmlp.h"
#include "trace.h"

#define ADDR_MASK ((UINT64_C(1) << TRACE_ADDR_BITS) - 1)

typedef struct variable {
	trace_space space;
	char name[128];
	uint64_t base, bytes;
} variable;

typedef struct profile_stat {
	uint64_t instructions, wavefronts, ideal;
	int n_way;
} profile_stat;

/* One report row: every instruction at one line:column on one variable, of one kind. */
typedef struct entry {
	trace_space space;
	trace_kind kind;
	int var;                        /* index into vars, -1 when unknown */
	int line, column;
	int merged;                     /* some access had no line of its own (trace_access) */
	uint32_t width;                 /* widest access seen, bytes */
	uint64_t accesses, bytes;
	profile_stat prof[TRACE_MAX_PROFILES];        /* __local */
	int worst_n_way, worst_nlanes;                /* worst instruction, profile 0 */
	uint32_t worst_group, worst_warp;
	uint64_t worst_addr[BANK_MAX_LANES];
	unsigned char worst_active[BANK_MAX_LANES];
	uint64_t requests, sectors, ideal_sectors;    /* __global */
	/* __global: the request with the most sectors (ties: lowest group, warp), for the
	 * report's drawing of a warp's sectors; g_nlanes 0 = none priced yet */
	int g_nlanes;
	uint32_t g_group, g_warp;
	uint64_t g_sectors, g_ideal;
	uint64_t g_offset[TRACE_GLOBAL_WARP];
	uint32_t g_size[TRACE_GLOBAL_WARP];
	unsigned char g_active[TRACE_GLOBAL_WARP];
	uint64_t lines;                               /* __global: 128-byte lines, every request */
	uint64_t warp_instructions, lanes;            /* priced warp instructions (__local: profile
	                                                 0's warps, __global: requests) and their
	                                                 active lanes: warp execution efficiency */
	int mlp;                                      /* __global loads: irmlp group size, 0 unknown */
} entry;

/* One accessing instruction (k counters and warps are per site). */
typedef struct site {
	const void *key;
	int var;
	trace_kind kind;
	int entry;
} site;

/* One buffered access of the current barrier interval. */
typedef struct rec {
	uint32_t site, k, lane, size;
	uint64_t offset;
} rec;

typedef struct finding {
	trace_finding f;
	int var;
	char message[384];
	uint64_t count;
} finding;

/* What one thread knows about the groups it ran. */
typedef struct worker {
	struct worker *next;
	pthread_t owner;

	site *sites;
	int nsites, capsites;
	int *hash;                      /* site index + 1, 0 = empty; open addressing */
	int hashcap;
	int last_site;                  /* one-entry cache in front of the hash */

	entry *entries;
	int nentries, capentries;

	uint32_t *counts;               /* counts[site * nlanes + lane]: executions since barrier */
	int countrows;                  /* sites the counts array has room for */

	rec *recs;
	size_t nrecs, caprecs;

	uint64_t *scratch;              /* global pricing: segments and intervals */
	size_t capscratch;

	uint32_t group;
	int priced;                     /* the current group is priced (trace_interior) */
	uint64_t groups_run, groups_priced, loaded, stored;
	uint64_t load_rounds;           /* barrier intervals of priced groups with a __global load */
	uint64_t fingerprint[2];        /* __local, __global: see access_mix */
} worker;

struct trace {
	unsigned id;                    /* unique, for the thread-local worker cache */
	pthread_mutex_t lock;           /* workers list, findings */

	char kernel[256];
	size_t local[3], groups[3];
	uint64_t extent[2];             /* trace_interior; 0 = every group priced */
	uint32_t nlanes;
	int begun, ended;

	variable *vars;
	int nvars, capvars;

	worker *workers;
	irmlp *code;                    /* the kernel's loads in flight (trace_code) */

	finding findings[TRACE_MAX_FINDINGS];
	int nfindings;
	uint64_t messages, dropped;
	int partial_findings;           /* findings in the last partial file written */
	double partial_at;              /* when it was written (CLOCK_MONOTONIC) */
};

static const char *kind_names[] = { "load", "store", "atomic", "atomic" };

static atomic_uint next_id = 1;
static _Thread_local struct { unsigned id; worker *w; } tls;

/* --- small helpers ---------------------------------------------------------------- */

static void
oom(void)
{
	fprintf(stderr, "cltrace: out of memory\n");
	abort();
}

static void *
grow(void *p, size_t elem, int *cap, int need)
{
	if (need <= *cap)
		return p;
	int n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(p, elem * (size_t)n);
	if (q == NULL)
		oom();
	*cap = n;
	return q;
}

static void
copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int
lane_count(const size_t local[3])
{
	size_t n = local[0] * local[1] * local[2];
	return n > 0 && n < (1u << 20) ? (int)n : 0;
}

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
		w->priced = 1;
		w->next = t->workers;
		t->workers = w;
	}
	pthread_mutex_unlock(&t->lock);
	tls.id = t->id;
	tls.w = w;
	return w;
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
static int
var_of(const trace *t, trace_space space, uint64_t addr)
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

static uint64_t
offset_in(const trace *t, int var, uint64_t addr)
{
	if (var >= 0 && addr >= t->vars[var].base)
		return addr - t->vars[var].base;
	return addr & ADDR_MASK;
}

static const char *
var_name(const trace *t, int var)
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

static int
same_row(const entry *e, trace_space space, trace_kind kind, int var, int line, int column)
{
	return e->space == space && e->kind == kind && e->var == var && e->line == line &&
	       e->column == column;
}

static int
entry_of(worker *w, const trace_access *a, int var)
{
	for (int i = 0; i < w->nentries; i++)
		if (same_row(&w->entries[i], a->space, a->kind, var, a->line, a->column)) {
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
	w->sites[s] = (site){ a->site, var, a->kind, entry_of(w, a, var) };
	entry *e = &w->entries[w->sites[s].entry];
	int mlp = a->space == TRACE_GLOBAL ? irmlp_of(t_code, a->site) : 0;
	if (mlp > e->mlp)
		e->mlp = mlp;
	if (2 * w->nsites > w->hashcap)
		hash_grow(w);
	else
		hash_insert(w, s);
	counts_reserve(w, nlanes, s);
	return w->last_site = s;
}

/* --- pricing -------------------------------------------------------------------------- */

/* Is (n_way, group, warp) a worse instruction than the row's worst so far?  Ties go to the
 * lowest group and warp, so the picture does not depend on which thread ran what. */
static int
worse(const entry *e, int n_way, uint32_t group, uint32_t warp)
{
	if (e->worst_nlanes == 0 || n_way != e->worst_n_way)
		return e->worst_nlanes == 0 || n_way > e->worst_n_way;
	if (group != e->worst_group)
		return group < e->worst_group;
	return warp < e->worst_warp;
}

/* __local: one warp of one profile.  r[0..n) are one (site, k), sorted by lane, all in
 * the same warp; wide accesses are split into 16-byte pieces, one instruction each. */
static void
price_local_warp(const worker *w, entry *e, int pi, const bank_profile *p, const rec *r, int n)
{
	uint64_t addr[BANK_MAX_LANES] = { 0 }, piece[BANK_MAX_LANES];
	unsigned char active[BANK_MAX_LANES] = { 0 };
	uint32_t width = 0, warp = r[0].lane / (uint32_t)p->warp;
	int nl = p->warp < BANK_MAX_LANES ? p->warp : BANK_MAX_LANES;

	for (int i = 0; i < n; i++) {
		int l = (int)(r[i].lane % (uint32_t)p->warp);
		if (l >= nl)
			continue;
		addr[l] = r[i].offset;
		active[l] = 1;
		if (r[i].size > width)
			width = r[i].size;
	}
	if (width == 0)
		width = 1;
	if (pi == 0) {
		e->warp_instructions++;
		e->lanes += (uint64_t)n;
	}
	int is_store = e->kind != TRACE_LOAD;
	for (uint32_t off = 0; off < width; off += 16) {
		uint32_t pw = width - off < 16 ? width - off : 16;
		for (int l = 0; l < nl; l++)
			piece[l] = addr[l] + off;
		bank_cost c = bank_access(p, piece, active, nl, (int)pw, is_store);
		profile_stat *ps = &e->prof[pi];
		ps->instructions++;
		ps->wavefronts += (uint64_t)c.wavefronts;
		ps->ideal += (uint64_t)c.ideal_wavefronts;
		if (c.n_way > ps->n_way)
			ps->n_way = c.n_way;
		if (pi == 0 && worse(e, c.n_way, w->group, warp)) {
			e->worst_n_way = c.n_way;
			e->worst_nlanes = nl;
			e->worst_group = w->group;
			e->worst_warp = warp;
			memcpy(e->worst_addr, piece, sizeof(uint64_t) * (size_t)nl);
			memcpy(e->worst_active, active, (size_t)nl);
		}
	}
}

static void
price_local(const worker *w, entry *e, const rec *r, size_t n)
{
	int np = bank_profile_count();

	if (np > TRACE_MAX_PROFILES)
		np = TRACE_MAX_PROFILES;
	for (int pi = 0; pi < np; pi++) {
		const bank_profile *p = bank_profile_at(pi);
		uint32_t ws = (uint32_t)p->warp;
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && r[j].lane / ws == r[i].lane / ws; j++)
				;
			if (w->priced || j - i == ws)   /* an edge group: its full warps only */
				price_local_warp(w, e, pi, p, r + i, (int)(j - i));
		}
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t *
scratch(worker *w, size_t n)
{
	if (n > w->capscratch) {
		uint64_t *p = realloc(w->scratch, n * sizeof *p);
		if (p == NULL)
			oom();
		w->scratch = p;
		w->capscratch = n;
	}
	return w->scratch;
}

static uint64_t
last_sector(const rec *r)
{
	return (r->offset + (r->size ? r->size : 1) - 1) / TRACE_SECTOR;
}

/* Is a request of that many sectors, at (group, warp), the site's new worst?  As worse(). */
static int
g_worse(const entry *e, uint64_t sectors, uint32_t group, uint32_t warp)
{
	if (e->g_nlanes == 0 || sectors != e->g_sectors)
		return e->g_nlanes == 0 || sectors > e->g_sectors;
	if (group != e->g_group)
		return group < e->g_group;
	return warp < e->g_warp;
}

/* Keep r[0..n) (one request, sorted by lane) as the site's worst request when it is. */
static void
global_worst(const worker *w, entry *e, const rec *r, size_t n, uint64_t sectors, uint64_t ideal)
{
	uint32_t warp = r[0].lane / TRACE_GLOBAL_WARP;
	if (!g_worse(e, sectors, w->group, warp))
		return;
	e->g_nlanes = TRACE_GLOBAL_WARP, e->g_group = w->group, e->g_warp = warp;
	e->g_sectors = sectors, e->g_ideal = ideal;
	memset(e->g_active, 0, sizeof e->g_active);
	for (size_t i = 0; i < n; i++) {
		uint32_t l = r[i].lane % TRACE_GLOBAL_WARP;
		e->g_offset[l] = r[i].offset;
		e->g_size[l] = r[i].size ? r[i].size : 1;
		e->g_active[l] = 1;
	}
}

/* __global: one request of up to 32 lanes.  Sectors: distinct 32-byte segments touched
 * (buffers taken as 256-byte aligned); ideal: the segments the same number of distinct bytes
 * would span laid end to end from the lowest one, so a contiguous row that starts inside a
 * segment (a matrix whose row length is no multiple of 8 floats) is ideal as it is. */
static void
price_global_request(worker *w, entry *e, const rec *r, size_t n)
{
	size_t nseg = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		nseg += last_sector(&r[i]) - r[i].offset / TRACE_SECTOR + 1;
	uint64_t *s = scratch(w, nseg > 2 * n ? nseg : 2 * n);
	for (size_t i = 0; i < n; i++)
		for (uint64_t g = r[i].offset / TRACE_SECTOR; g <= last_sector(&r[i]); g++)
			s[m++] = g;
	qsort(s, m, sizeof *s, cmp_u64);
	uint64_t sectors = 0, lines = 0;
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || s[i] != s[i - 1])
			sectors++;
		if (i == 0 || s[i] / 4 != s[i - 1] / 4)   /* 4 sectors per 128-byte line */
			lines++;
	}

	/* Distinct bytes: the union of [offset, offset + size), as (start, end) pairs
	 * sorted by start; the lanes are distinct but their offsets need not be. */
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = r[i].offset;
		s[2 * i + 1] = r[i].offset + r[i].size;
	}
	qsort(s, n, 2 * sizeof *s, cmp_u64);
	uint64_t bytes = 0, lo = 0, hi = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = s[2 * i], b = s[2 * i + 1];
		if (i == 0 || a > hi) {
			bytes += hi - lo;
			lo = a;
			hi = b;
		} else if (b > hi) {
			hi = b;
		}
	}
	bytes += hi - lo;
	bytes += s[0] % TRACE_SECTOR;          /* s[0]: the lowest byte touched */
	uint64_t ideal = (bytes + TRACE_SECTOR - 1) / TRACE_SECTOR;
	e->requests++;
	e->sectors += sectors;
	e->ideal_sectors += ideal;
	global_worst(w, e, r, n, sectors, ideal);
	e->lines += lines;
	e->warp_instructions++;
	e->lanes += (uint64_t)n;
}

static void
price_global(worker *w, entry *e, const rec *r, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && r[j].lane / TRACE_GLOBAL_WARP == r[i].lane / TRACE_GLOBAL_WARP; j++)
			;
		if (w->priced || j - i == TRACE_GLOBAL_WARP)   /* an edge group: full requests only */
			price_global_request(w, e, r + i, j - i);
	}
}

static int
cmp_rec(const void *a, const void *b)
{
	const rec *x = a, *y = b;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* Price every instruction buffered since the last barrier, then restart the counts. */
static void
flush(worker *w, uint32_t nlanes)
{
	if (w->nrecs > 0) {
		int loads = 0;
		for (size_t i = 0; i < w->nrecs && !loads; i++) {
			const site *st = &w->sites[w->recs[i].site];
			loads = w->entries[st->entry].space == TRACE_GLOBAL && st->kind == TRACE_LOAD;
		}
		w->load_rounds += (uint64_t)(loads && w->priced);
		qsort(w->recs, w->nrecs, sizeof *w->recs, cmp_rec);
		for (size_t i = 0, j; i < w->nrecs; i = j) {
			for (j = i + 1; j < w->nrecs && w->recs[j].site == w->recs[i].site &&
			     w->recs[j].k == w->recs[i].k; j++)
				;
			entry *e = &w->entries[w->sites[w->recs[i].site].entry];
			if (e->space == TRACE_LOCAL)
				price_local(w, e, w->recs + i, j - i);
			else
				price_global(w, e, w->recs + i, j - i);
		}
		w->nrecs = 0;
	}
	if (w->counts)
		memset(w->counts, 0, sizeof(uint32_t) * (size_t)w->countrows * nlanes);
}

/* --- events ------------------------------------------------------------------------- */

void
trace_group_begin(trace *t, uint32_t group)
{
	worker *w = worker_of(t);
	flush(w, t->nlanes);
	w->group = group;
	w->priced = interior(t, group);
}

void
trace_barrier(trace *t)
{
	flush(worker_of(t), t->nlanes);
}

void
trace_group_end(trace *t)
{
	worker *w = worker_of(t);
	flush(w, t->nlanes);
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
 * trusted for its lines only then (check.c, sites_unoptimised). */
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

	int var = var_of(t, a->space, a->address);
	w->fingerprint[a->space == TRACE_LOCAL] += access_mix(t, a, var);
	int s = site_of(w, t->code, t->nlanes, a, var);
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
	                             offset_in(t, var, a->address) };
}

/* --- diagnostics -------------------------------------------------------------------- */

static const char *
classify(const char *first)
{
	if (strstr(first, "FATAL ERROR"))
		return "internal_error";    /* Oclgrind itself gave up: not the kernel's fault */
	if (strstr(first, "data race"))
		return "data_race";
	if (strncmp(first, "Work-group divergence detected", 30) == 0)
		return "barrier_divergence";
	if (strstr(first, "ninitialized"))
		return "uninitialized";
	if (strncmp(first, "Invalid read of size", 20) == 0 ||
	    strncmp(first, "Invalid write of size", 21) == 0 ||
	    strncmp(first, "Invalid memory load", 19) == 0 ||
	    strncmp(first, "Invalid memory store", 20) == 0 ||
	    (strncmp(first, "Index (", 7) == 0 && strstr(first, "exceeds static array size")))
		return "out_of_bounds";
	return "other";
}

static const char *
space_word(const char *first, const char *at)
{
	static const char *words[] = { "local", "global", "constant", "private" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(at - first) >= n + 1 && strncmp(at - n, words[i], n) == 0 && at[-n - 1] == ' ')
			return words[i];
	}
	return NULL;
}

int
trace_parse_message(const char *text, trace_finding *f)
{
	memset(f, 0, sizeof *f);
	f->kind = "other";
	if (text == NULL)
		return -1;
	while (*text == '\n' || *text == '\r' || *text == ' ' || *text == '\t')
		text++;
	if (*text == '\0')
		return -1;

	size_t n = strcspn(text, "\n");
	if (n >= sizeof f->first_line)
		n = sizeof f->first_line - 1;
	memcpy(f->first_line, text, n);
	while (n > 0 && (f->first_line[n - 1] == ' ' || f->first_line[n - 1] == '\t' ||
	                 f->first_line[n - 1] == '\r'))
		n--;
	f->first_line[n] = '\0';
	f->kind = classify(f->first_line);

	const char *at = strstr(f->first_line, " memory address 0x");
	if (at != NULL) {
		f->has_address = 1;
		f->address = strtoull(at + strlen(" memory address 0x"), NULL, 16);
		f->space = space_word(f->first_line, at);
	}

	int nloc = 0;
	for (const char *p = strstr(text, "At line "); p != NULL; p = strstr(p + 1, "At line ")) {
		int line, col;
		if (sscanf(p, "At line %d (column %d)", &line, &col) != 2)
			continue;
		if (nloc == 0) {
			f->line = line;
			f->column = col;
		} else if (nloc == 1 && strcmp(f->kind, "data_race") == 0) {
			f->other_line = line;
			f->other_column = col;
		}
		nloc++;
	}
	/* "First entity: Global(..) Local(..) Group(x,y,z)" ... "Second entity: ... Group(..)" */
	const char *g1 = strstr(text, " Group("), *g2 = g1 ? strstr(g1 + 1, " Group(") : NULL;
	if (g1 && g2 && strcmp(f->kind, "data_race") == 0)
		f->across_groups = strncmp(g1, g2, strcspn(g1, ")") + 1) != 0;
	return 0;
}

/* The first line with "<space> memory address 0x..." replaced by the variable's name. */
static void
readable(const trace *t, const trace_finding *f, int var, char *out, size_t len)
{
	const char *at = strstr(f->first_line, " memory address 0x");

	if (var < 0 || at == NULL) {
		copy_str(out, len, f->first_line);
		return;
	}
	const char *end = at + strlen(" memory address 0x");
	while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f') || (*end >= 'A' && *end <= 'F'))
		end++;
	const variable *v = &t->vars[var];
	uint64_t off = offset_in(t, var, f->address);
	char what[200];
	if (strcmp(f->kind, "out_of_bounds") == 0)
		snprintf(what, sizeof what, " memory of '%s', byte %" PRIu64 " (it has %" PRIu64 " bytes)",
		         v->name, off, v->bytes);
	else
		snprintf(what, sizeof what, " memory of '%s', byte %" PRIu64, v->name, off);
	snprintf(out, len, "%.*s%s%s", (int)(at - f->first_line), f->first_line, what, end);
}

static int
same_place(const trace_finding *a, const trace_finding *b)
{
	if (strcmp(a->kind, b->kind) != 0)
		return 0;
	if (a->line == b->line && a->column == b->column &&
	    a->other_line == b->other_line && a->other_column == b->other_column)
		return 1;
	return a->line == b->other_line && a->column == b->other_column &&
	       a->other_line == b->line && a->other_column == b->column;
}

static void
add_finding(trace *t, const trace_finding *f, int var)
{
	for (int i = 0; i < t->nfindings; i++) {
		finding *g = &t->findings[i];
		if (!same_place(&g->f, f) || (g->var >= 0 && var >= 0 && g->var != var))
			continue;
		g->count++;
		int across = g->f.across_groups | f->across_groups;
		if (g->var < 0 && var >= 0) {   /* a later message names the variable */
			g->var = var;
			g->f = *f;
			readable(t, f, var, g->message, sizeof g->message);
		}
		g->f.across_groups = across;
		return;
	}
	if (t->nfindings == TRACE_MAX_FINDINGS) {
		t->dropped++;
		return;
	}
	finding *g = &t->findings[t->nfindings++];
	g->f = *f;
	g->var = var;
	g->count = 1;
	readable(t, f, var, g->message, sizeof g->message);
}

static cJSON *findings_json(const trace *t);

/* A run that finds much can be slow under Oclgrind, and a time limit kills it without a
 * word: so, at most twice a second while findings are new, the findings so far are written
 * to $CLTRACE_OUT as an incomplete summary ("complete": false, "partial": true, findings
 * only).  The run's end overwrites it.  Called with t->lock held. */
static void
write_partial(trace *t)
{
	const char *path = getenv("CLTRACE_OUT");
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = ts.tv_sec + ts.tv_nsec * 1e-9;
	if (!path || !*path || t->nfindings == t->partial_findings || now - t->partial_at < 0.5)
		return;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kernel", t->kernel);
	cJSON_AddBoolToObject(root, "complete", 0);
	cJSON_AddBoolToObject(root, "partial", 1);
	cJSON_AddItemToObject(root, "findings", findings_json(t));
	cJSON_AddNumberToObject(root, "messages", (double)t->messages);
	char *js = cJSON_Print(root);
	cJSON_Delete(root);
	FILE *f = js ? fopen(path, "w") : NULL;
	if (f) {
		fputs(js, f);
		fclose(f);
	}
	cJSON_free(js);
	t->partial_findings = t->nfindings;
	t->partial_at = now;
}

void
trace_message(trace *t, trace_msg_type type, const char *text)
{
	trace_finding f;

	if (trace_parse_message(text, &f) != 0)
		return;
	f.type = type;
	int var = -1;
	if (f.has_address && f.space != NULL && strcmp(f.space, "private") != 0)
		var = var_of(t, strcmp(f.space, "local") == 0 ? TRACE_LOCAL : TRACE_GLOBAL, f.address);
	pthread_mutex_lock(&t->lock);
	t->messages++;
	add_finding(t, &f, var);
	write_partial(t);
	pthread_mutex_unlock(&t->lock);
}

/* --- summary ------------------------------------------------------------------------ */

static cJSON *
size3(const size_t v[3])
{
	cJSON *a = cJSON_CreateArray();
	for (int d = 0; d < 3; d++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[d]));
	return a;
}

static void
add_name(cJSON *o, const char *key, const char *name)
{
	if (name)
		cJSON_AddStringToObject(o, key, name);
	else
		cJSON_AddNullToObject(o, key);
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
	add_name(o, "variable", var_name(t, e->var));
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
	qsort(seen, (size_t)nseen, sizeof *seen, cmp_u64);
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

static cJSON *
global_site_json(const trace *t, const entry *e)
{
	cJSON *o = cJSON_CreateObject();

	site_head(t, e, o);
	cJSON_AddNumberToObject(o, "requests", (double)e->requests);
	cJSON_AddNumberToObject(o, "sectors", (double)e->sectors);
	cJSON_AddNumberToObject(o, "ideal_sectors", (double)e->ideal_sectors);
	cJSON_AddNumberToObject(o, "lines", (double)e->lines);
	cJSON_AddNumberToObject(o, "warp_instructions", (double)e->warp_instructions);
	cJSON_AddNumberToObject(o, "lanes", (double)e->lanes);
	if (e->mlp > 0)
		cJSON_AddNumberToObject(o, "mlp", e->mlp);
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
	if (b->worst_nlanes > 0 && worse(a, b->worst_n_way, b->worst_group, b->worst_warp)) {
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
	if (b->g_nlanes > 0 && g_worse(a, b->g_sectors, b->g_group, b->g_warp)) {
		a->g_nlanes = b->g_nlanes, a->g_group = b->g_group, a->g_warp = b->g_warp;
		a->g_sectors = b->g_sectors, a->g_ideal = b->g_ideal;
		memcpy(a->g_offset, b->g_offset, sizeof a->g_offset);
		memcpy(a->g_size, b->g_size, sizeof a->g_size);
		memcpy(a->g_active, b->g_active, sizeof a->g_active);
	}
	a->lines += b->lines;
	a->warp_instructions += b->warp_instructions;
	a->lanes += b->lanes;
	if (b->mlp > a->mlp)
		a->mlp = b->mlp;
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
			while (j < nrows && !same_row(&rows[j], e->space, e->kind, e->var, e->line, e->column))
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
			cJSON_AddItemToArray(glob, global_site_json(t, order[i]));
	}
	free(order);
	free(rows);
	cJSON_AddItemToObject(root, "local_sites", loc);
	cJSON_AddItemToObject(root, "global_sites", glob);
}

static const char *type_names[] = { "debug", "info", "warning", "error" };

/* Findings by place, so that the report does not depend on thread timing. */
static int
cmp_finding(const void *a, const void *b)
{
	const finding *x = *(const finding *const *)a, *y = *(const finding *const *)b;
	int c;

	if (x->f.line != y->f.line)
		return x->f.line < y->f.line ? -1 : 1;
	if (x->f.column != y->f.column)
		return x->f.column < y->f.column ? -1 : 1;
	if ((c = strcmp(x->f.kind, y->f.kind)) != 0)
		return c;
	if (x->f.other_line != y->f.other_line)
		return x->f.other_line < y->f.other_line ? -1 : 1;
	return x->var < y->var ? -1 : x->var > y->var;
}

static cJSON *
findings_json(const trace *t)
{
	cJSON *a = cJSON_CreateArray();
	const finding *order[TRACE_MAX_FINDINGS];

	for (int i = 0; i < t->nfindings; i++)
		order[i] = &t->findings[i];
	qsort(order, (size_t)t->nfindings, sizeof *order, cmp_finding);
	for (int i = 0; i < t->nfindings; i++) {
		const finding *g = order[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", g->f.kind);
		cJSON_AddStringToObject(o, "severity",
		                        (unsigned)g->f.type < 4 ? type_names[g->f.type] : "error");
		cJSON_AddNumberToObject(o, "line", g->f.line);
		cJSON_AddNumberToObject(o, "column", g->f.column);
		if (strcmp(g->f.kind, "data_race") == 0) {
			cJSON_AddNumberToObject(o, "other_line", g->f.other_line);
			cJSON_AddNumberToObject(o, "other_column", g->f.other_column);
			cJSON_AddBoolToObject(o, "across_groups", g->f.across_groups);
		}
		add_name(o, "variable", var_name(t, g->var));
		if (g->f.space)
			cJSON_AddStringToObject(o, "space", g->f.space);
		cJSON_AddStringToObject(o, "message", g->message);
		cJSON_AddNumberToObject(o, "count", (double)g->count);
		cJSON_AddItemToArray(a, o);
	}
	return a;
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
		flush(w, t->nlanes);    /* a group that never ended */
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
	cJSON_AddNumberToObject(gb, "loaded", (double)loaded);
	cJSON_AddNumberToObject(gb, "stored", (double)stored);
	cJSON_AddItemToObject(root, "global_bytes", gb);
	/* the access fingerprints (access_mix), as hex: a double would round them */
	char hex[40];
	snprintf(hex, sizeof hex, "%016llx %016llx", (unsigned long long)fp[1],
	         (unsigned long long)fp[0]);
	cJSON_AddStringToObject(root, "fingerprint", hex);
	cJSON_AddItemToObject(root, "findings", findings_json(t));
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

/* --- merging the summaries of several runs ------------------------------------------ */

static double
jnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *
jstr(const cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	return s ? s : "";
}

/* Add n to o[key] (created when missing). */
static void
add_num(cJSON *o, const char *key, double n)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		cJSON_SetNumberValue(v, v->valuedouble + n);
	else
		cJSON_AddNumberToObject(o, key, n);
}

static void
max_num(cJSON *o, const char *key, double n)
{
	if (n > jnum(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(n));
}

static int
same_keys(const cJSON *a, const cJSON *b, const char *const keys[])
{
	for (int i = 0; keys[i]; i++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, keys[i]);
		const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, keys[i]);
		if (cJSON_IsNumber(x) || cJSON_IsNumber(y)) {
			if (jnum(a, keys[i]) != jnum(b, keys[i]))
				return 0;
		} else if (strcmp(jstr(a, keys[i]), jstr(b, keys[i])) != 0) {
			return 0;
		}
	}
	return 1;
}

static cJSON *
find_row(cJSON *list, const cJSON *row, const char *const keys[])
{
	cJSON *r;
	cJSON_ArrayForEach(r, list)
		if (same_keys(r, row, keys))
			return r;
	return NULL;
}

static void
merge_site(cJSON *a, const cJSON *b)
{
	static const char *sums[] = { "instructions", "accesses", "requests", "sectors",
	                              "ideal_sectors", "bytes", "lines", "warp_instructions",
	                              "lanes" };
	for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
		if (cJSON_HasObjectItem(b, sums[i]))
			add_num(a, sums[i], jnum(b, sums[i]));
	max_num(a, "width", jnum(b, "width"));
	max_num(a, "mlp", jnum(b, "mlp"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "merged")) &&
	    !cJSON_HasObjectItem(a, "merged"))
		cJSON_AddTrueToObject(a, "merged");
	cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "profiles"), *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(b, "profiles")) {
		cJSON *q = cJSON_GetObjectItemCaseSensitive(pa, p->string);
		if (q == NULL) {
			cJSON_AddItemToObject(pa, p->string, cJSON_Duplicate(p, 1));
			continue;
		}
		add_num(q, "instructions", jnum(p, "instructions"));
		add_num(q, "wavefronts", jnum(p, "wavefronts"));
		add_num(q, "ideal_wavefronts", jnum(p, "ideal_wavefronts"));
		max_num(q, "n_way", jnum(p, "n_way"));
	}
	const cJSON *wb = cJSON_GetObjectItemCaseSensitive(b, "worst_lanes");
	const cJSON *wa = cJSON_GetObjectItemCaseSensitive(a, "worst_lanes");
	if (wb && (!wa || jnum(wb, "n_way") > jnum(wa, "n_way"))) {
		if (wa)
			cJSON_DeleteItemFromObjectCaseSensitive(a, "worst_lanes");
		cJSON_AddItemToObject(a, "worst_lanes", cJSON_Duplicate(wb, 1));
	}
	const cJSON *rb = cJSON_GetObjectItemCaseSensitive(b, "worst_request");
	const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a, "worst_request");
	if (rb && (!ra || jnum(rb, "sectors") > jnum(ra, "sectors"))) {
		if (ra)
			cJSON_DeleteItemFromObjectCaseSensitive(a, "worst_request");
		cJSON_AddItemToObject(a, "worst_request", cJSON_Duplicate(rb, 1));
	}
}

/* The run's work-group width, written into each of its sites as "tile". */
static void
tag_tiles(cJSON *run)
{
	const cJSON *ls = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(run, "local_size"), 0);
	double tile = cJSON_IsNumber(ls) ? ls->valuedouble : 0;
	static const char *lists[] = { "local_sites", "global_sites" };
	for (int l = 0; l < 2; l++) {
		cJSON *s;
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(run, lists[l]))
			if (!cJSON_HasObjectItem(s, "tile"))
				cJSON_AddNumberToObject(s, "tile", tile);
	}
}

static cJSON *
run_geometry(const cJSON *run)
{
	cJSON *o = cJSON_CreateObject();
	static const char *keys[] = { "local_size", "num_groups", "groups_run", "groups_priced",
	                              "complete", "global_bytes", "local_bytes" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(run, keys[i]);
		if (v)
			cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(v, 1));
	}
	return o;
}

/* into's "fingerprint" += r's, each half mod 2^64 (the sum of every access of every run) */
static void
add_fingerprint(cJSON *into, const cJSON *r)
{
	const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(into, "fingerprint"));
	const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "fingerprint"));
	unsigned long long a0, a1, b0, b1;
	char hex[40];
	if (!a || !b || sscanf(a, "%llx %llx", &a0, &a1) != 2 || sscanf(b, "%llx %llx", &b0, &b1) != 2)
		return;
	snprintf(hex, sizeof hex, "%016llx %016llx", a0 + b0, a1 + b1);
	cJSON_ReplaceItemInObjectCaseSensitive(into, "fingerprint", cJSON_CreateString(hex));
}

cJSON *
trace_merge_first(const cJSON *run)
{
	cJSON *m = cJSON_Duplicate(run, 1);
	if (m == NULL)
		oom();
	tag_tiles(m);
	cJSON *runs = cJSON_AddArrayToObject(m, "runs");
	cJSON_AddItemToArray(runs, run_geometry(run));
	return m;
}

void
trace_merge(cJSON *into, const cJSON *run)
{
	static const char *site_keys[] = { "line", "column", "variable", "access", "tile", NULL };
	static const char *finding_keys[] = { "kind", "line", "column", "other_line", "other_column",
	                                      "variable", NULL };
	static const char *lists[] = { "local_sites", "global_sites" };
	cJSON *r = cJSON_Duplicate(run, 1), *x, *next;

	if (r == NULL)
		oom();
	tag_tiles(r);
	for (int l = 0; l < 2; l++) {
		cJSON *dst = cJSON_GetObjectItemCaseSensitive(into, lists[l]);
		for (x = cJSON_GetObjectItemCaseSensitive(r, lists[l]) ?
		         cJSON_GetObjectItemCaseSensitive(r, lists[l])->child : NULL; x; x = next) {
			next = x->next;
			cJSON *same = find_row(dst, x, site_keys);
			if (same)
				merge_site(same, x);
			else if (dst)
				cJSON_AddItemToArray(dst, cJSON_Duplicate(x, 1));
		}
	}
	cJSON *fdst = cJSON_GetObjectItemCaseSensitive(into, "findings");
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "findings")) {
		cJSON *same = find_row(fdst, x, finding_keys);
		if (same)
			add_num(same, "count", jnum(x, "count"));
		else if (fdst)
			cJSON_AddItemToArray(fdst, cJSON_Duplicate(x, 1));
	}
	cJSON *vdst = cJSON_GetObjectItemCaseSensitive(into, "local_variables");
	static const char *name_key[] = { "name", NULL };
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "local_variables")) {
		cJSON *same = find_row(vdst, x, name_key);
		if (same)
			max_num(same, "bytes", jnum(x, "bytes"));
		else if (vdst)
			cJSON_AddItemToArray(vdst, cJSON_Duplicate(x, 1));
	}
	max_num(into, "local_bytes", jnum(r, "local_bytes"));
	cJSON *gb = cJSON_GetObjectItemCaseSensitive(into, "global_bytes");
	const cJSON *rb = cJSON_GetObjectItemCaseSensitive(r, "global_bytes");
	add_num(gb, "loaded", jnum(rb, "loaded"));
	add_fingerprint(into, r);
	add_num(gb, "stored", jnum(rb, "stored"));
	static const char *sums[] = { "groups_run", "groups_priced", "messages", "findings_dropped" };
	for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
		add_num(into, sums[i], jnum(r, sums[i]));
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "complete")))
		cJSON_ReplaceItemInObjectCaseSensitive(into, "complete", cJSON_CreateFalse());
	cJSON *runs = cJSON_GetObjectItemCaseSensitive(into, "runs");
	if (runs == NULL)
		runs = cJSON_AddArrayToObject(into, "runs");
	cJSON_AddItemToArray(runs, run_geometry(r));
	cJSON_Delete(r);
}

/* --- why some work-items skip a barrier ----------------------------------------------- */

/* The source with comments and string literals blanked (newlines kept); the caller frees. */
static char *
code_only(const char *src)
{
	size_t n = strlen(src);
	char *s = malloc(n + 1);
	if (s == NULL)
		oom();
	memcpy(s, src, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && s[i + 1] == '*') {
			s[i++] = ' ';
			s[i++] = ' ';
			while (i < n && !(s[i] == '*' && s[i + 1] == '/'))
				if (s[i] != '\n')
					s[i++] = ' ';
				else
					i++;
			if (i < n)
				s[i] = s[i + 1] = ' ', i++;
		} else if (s[i] == '"' || s[i] == '\'') {
			char q = s[i];
			for (i++; i < n && s[i] != q && s[i] != '\n'; i++)
				s[i] = ' ';
		}
	}
	return s;
}

static int
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Is the identifier word at s[i]? */
static int
word_at(const char *s, size_t i, const char *word)
{
	size_t n = strlen(word);
	return (i == 0 || !ident_char(s[i - 1])) && strncmp(s + i, word, n) == 0 && !ident_char(s[i + n]);
}

static int
line_of(const char *s, size_t i)
{
	int line = 1;
	for (size_t k = 0; k < i; k++)
		line += s[k] == '\n';
	return line;
}

/* The condition in the parentheses that open at s[i] ('('), whitespace collapsed, into out;
 * returns the index after the closing ')'. */
static size_t
paren_text(const char *s, size_t i, char *out, size_t len)
{
	int depth = 0;
	size_t k = 0, start = i;
	for (; s[i]; i++) {
		depth += s[i] == '(';
		depth -= s[i] == ')';
		if (i > start && depth == 0)
			break;
		if (i == start)
			continue;
		char c = s[i] == '\n' || s[i] == '\t' ? ' ' : s[i];
		if (c == ' ' && (k == 0 || out[k - 1] == ' '))
			continue;
		if (k + 1 < len)
			out[k++] = c;
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	if (len)
		out[k] = '\0';
	return s[i] ? i + 1 : i;
}

/* End (exclusive) of the statement that starts at s[i]: a block, or up to its ';'. */
static size_t
statement_end(const char *s, size_t i)
{
	while (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')
		i++;
	int paren = 0, brace = 0;
	for (; s[i]; i++) {
		paren += (s[i] == '(') - (s[i] == ')');
		if (s[i] == '{')
			brace++;
		if (s[i] == '}' && --brace == 0 && paren == 0)
			return i + 1;
		if (s[i] == ';' && paren == 0 && brace == 0)
			return i + 1;
	}
	return i;
}

/* Does s[from, to) hold the word, at line `line` when line > 0?  Returns its index + 1, or 0. */
static size_t
word_in(const char *s, size_t from, size_t to, const char *word, int line)
{
	for (size_t i = from; i < to; i++)
		if (word_at(s, i, word) && (line <= 0 || line_of(s, i) == line))
			return i + 1;
	return 0;
}

static int
barrier_call_in(const char *s, size_t from, size_t to, int line)
{
	return word_in(s, from, to, "barrier", line) || word_in(s, from, to, "work_group_barrier", line);
}

int
trace_skip_condition(const char *source, int barrier_line, char *cond, size_t len, int *cond_line)
{
	enum { MAXIF = 256 };
	struct { size_t end; char cond[160]; } ifs[MAXIF];
	int nifs = 0, found = 0, ret_line = 0;
	size_t inner = 0;
	char c[160], ret_cond[160] = "";
	char *s = code_only(source);

	cond[0] = '\0';
	*cond_line = 0;
	for (size_t i = 0; s[i]; i++) {
		int is_else = word_at(s, i, "else");
		if (!is_else && !word_at(s, i, "if"))
			continue;
		size_t j = i + (is_else ? 4 : 2);
		while (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r')
			j++;
		if (is_else && word_at(s, j, "if"))
			continue;                   /* "else if": its if comes next */
		if (is_else) {                  /* the negation of the if that ended last */
			int last = -1;
			for (int k = 0; k < nifs; k++)
				if (ifs[k].end <= i && (last < 0 || ifs[k].end > ifs[last].end))
					last = k;
			snprintf(c, sizeof c, "!(%s)", last >= 0 ? ifs[last].cond : "?");
		} else if (s[j] == '(') {
			j = paren_text(s, j, c, sizeof c);
		} else {
			continue;
		}
		size_t end = statement_end(s, j);
		if (!is_else && nifs < MAXIF) {
			ifs[nifs].end = end;
			snprintf(ifs[nifs].cond, sizeof ifs[nifs].cond, "%s", c);
			nifs++;
		}
		if (barrier_call_in(s, j, end, barrier_line)) {
			if (!found || i > inner) {      /* the innermost if around the barrier */
				snprintf(cond, len, "%s", c);
				*cond_line = line_of(s, i);
				inner = i;
				found = 1;
			}
			continue;
		}
		size_t r = word_in(s, j, end, "return", 0);
		if (r && line_of(s, r - 1) < barrier_line && line_of(s, r - 1) >= ret_line) {
			ret_line = line_of(s, r - 1);
			snprintf(ret_cond, sizeof ret_cond, "%s", c);
		}
	}
	free(s);
	if (found)
		return 1;
	if (ret_line) {
		snprintf(cond, len, "%s", ret_cond);
		*cond_line = ret_line;
		return 2;
	}
	return 0;
}

/* Does s[from, to) hold code (anything but blanks and braces) on line `line`? */
static int
code_on_line(const char *s, size_t from, size_t to, int line)
{
	int l = line_of(s, from);
	for (size_t i = from; i < to && l <= line; i++) {
		if (s[i] == '\n')
			l++;
		else if (l == line && !strchr(" \t\r{}", s[i]))
			return 1;
	}
	return 0;
}

int
trace_guard_condition(const char *source, int line, char *cond, size_t len, int *cond_line)
{
	char c[160];
	size_t inner = 0;
	int found = 0;
	char *s = code_only(source);

	cond[0] = '\0';
	*cond_line = 0;
	for (size_t i = 0; s[i]; i++) {
		if (!word_at(s, i, "if"))
			continue;
		size_t j = i + 2;
		while (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r')
			j++;
		if (s[j] != '(')
			continue;
		j = paren_text(s, j, c, sizeof c);
		size_t end = statement_end(s, j);
		if (code_on_line(s, j, end, line) && (!found || i > inner)) {
			snprintf(cond, len, "%s", c);
			*cond_line = line_of(s, i);
			inner = i;
			found = 1;
		}
	}
	free(s);
	return found;
}
