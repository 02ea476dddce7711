/* trace_price.c — the tracer's pricing: the accesses one worker buffered in a barrier
 * interval, sorted into warp instructions and priced per report row.  __local rows: the bank
 * conflicts of each warp under every bank profile (bank.c) and the row's worst instruction;
 * __global rows: the 32-byte sectors and 128-byte lines each warp request touches against the
 * fewest it could, and the request with the most.  See trace.c for the rest of the analysis. */
#include <string.h>

#include "trace_int.h"

/* Is (n_way, group, warp) a worse instruction than the row's worst so far?  Ties go to the
 * lowest group and warp, so the picture does not depend on which thread ran what. */
int
trace_worse(const entry *e, int n_way, uint32_t group, uint32_t warp)
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
		if (pi == 0 && trace_worse(e, c.n_way, w->group, warp)) {
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

int
trace_cmp_u64(const void *a, const void *b)
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

/* Is a request of that many sectors, at (group, warp), the site's new worst?  As trace_worse(). */
int
trace_g_worse(const entry *e, uint64_t sectors, uint32_t group, uint32_t warp)
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
	if (!trace_g_worse(e, sectors, w->group, warp))
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
	qsort(s, m, sizeof *s, trace_cmp_u64);
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
	qsort(s, n, 2 * sizeof *s, trace_cmp_u64);
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
void
trace_flush(worker *w, uint32_t nlanes)
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

