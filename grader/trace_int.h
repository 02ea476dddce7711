/* trace_int.h — what the files of the tracer's analysis share (trace.c, trace_price.c,
 * trace_finding.c, trace_summary.c; trace_merge.c and trace_skip.c need none of it): the
 * per-run state, the per-thread worker and its sites, report rows and buffered accesses.
 * Private to those files: the API is trace.h. */
#ifndef TRACE_INT_H
#define TRACE_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
	int mlp_group;                                /* that group's number (irmlp_group_of)     */
} entry;

/* One accessing instruction (k counters and warps are per site). */
typedef struct site {
	const void *key;
	int var;
	trace_kind kind;
	int entry;
	uint64_t runs;                  /* its executions, for loads in flight (trace_summary.c) */
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

	struct arith *arith;            /* floating-point instructions run (trace_arith.c) */
	int narith, caparith;
	int last_arith;                 /* one-entry cache in front of the search */
} worker;

/* One arithmetic instruction (its executions and the operations they did) or one access to
 * a private array in local memory (its executions and their bytes). */
typedef struct arith {
	const void *key;
	int is_private;
	uint64_t runs, amount;
	uint32_t *lanes;                /* executions per lane of the running group (arithmetic) */
	uint64_t warp_runs;             /* issues: per warp of each group, its busiest lane's    */
} arith;

typedef struct arith_line {
	const void *key;
	int line, column, pipe;
} arith_line;

/* The calling thread's worker (trace.c). */
worker *trace_worker(trace *t);

/* trace_arith.c: a worker's table emptied (a new kernel) and freed; the summary's list. */
void trace_arith_reset(worker *w);
/* ... a group's lanes counted into its warps' issues, and cleared (a group's end). */
void trace_arith_warps(worker *w, uint32_t nlanes);
void trace_arith_free(worker *w);
cJSON *trace_arith_json(trace *t, int is_private);

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
	irmlp *code;
	struct arith_line *arith_lines; /* trace_arith_site: every FP instruction's line */
	int narith_lines, caparith_lines;
	uint64_t private_bytes;         /* trace_private_bytes */
	int private_line, private_column;                    /* the kernel's loads in flight (trace_code) */

	finding findings[TRACE_MAX_FINDINGS];
	int nfindings;
	uint64_t messages, dropped;
	int partial_findings;           /* findings in the last partial file written */
	double partial_at;              /* when it was written (CLOCK_MONOTONIC) */
};

/* --- small helpers ---------------------------------------------------------------- */

static inline void
oom(void)
{
	fprintf(stderr, "cltrace: out of memory\n");
	abort();
}

static inline void *
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

static inline void
copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static inline int
lane_count(const size_t local[3])
{
	size_t n = local[0] * local[1] * local[2];
	return n > 0 && n < (1u << 20) ? (int)n : 0;
}

/* A name, or null when there is none. */
static inline void
add_name(cJSON *o, const char *key, const char *name)
{
	if (name)
		cJSON_AddStringToObject(o, key, name);
	else
		cJSON_AddNullToObject(o, key);
}

/* trace.c: the variable holding addr in space, -1 when none; addr's offset in variable var
 * (addr masked when var is -1 or below it); var's name, NULL when unknown. */
int trace_var_of(const trace *t, trace_space space, uint64_t addr);
uint64_t trace_offset_in(const trace *t, int var, uint64_t addr);
const char *trace_var_name(const trace *t, int var);
/* trace.c: is e the report row of (space, kind, var, line, column)? */
int trace_same_row(const entry *e, trace_space space, trace_kind kind, int var, int line,
                   int column);

/* trace_price.c: price every access the worker buffered since the last barrier (bank
 * conflicts of __local rows, sectors and lines of __global rows), then restart its counts. */
void trace_flush(worker *w, uint32_t nlanes);
/* trace_price.c: is (n_way, group, warp) worse than row e's worst __local instruction so far,
 * is (sectors, group, warp) worse than its worst __global request (ties: lowest group and
 * warp)?  And qsort's order of uint64_t. */
int trace_worse(const entry *e, int n_way, uint32_t group, uint32_t warp);
int trace_g_worse(const entry *e, uint64_t sectors, uint32_t group, uint32_t warp);
int trace_cmp_u64(const void *a, const void *b);

/* trace_finding.c: the findings as the summary's JSON array, in the order of their place.
 * Called with t->lock held. */
cJSON *trace_findings_json(const trace *t);

#endif
