/* trace_arith.c — the kernel's own floating-point work, and its accesses to private arrays a
 * GPU keeps in local memory (off-chip), per instruction, for the GPU time
 * model (trace.h, trace_flops).  The kind's nominal FLOPs (ref_problem.flops) say what the
 * problem needs, not what the kernel does: a kernel that runs 512 dependent FMAs per element
 * that add nothing (tests/fixtures/l5_alu_chain.cl, 0.35x the baseline on the H200) is priced
 * by what it executes.  Each worker keeps its own table (no lock on the hot path); the summary
 * adds them up by instruction. */
#include <string.h>

#include "trace_int.h"

/* The worker's row of inst, made on first use: a linear search behind a one-entry cache (a
 * kernel has a few hundred floating-point instructions at most, a loop runs the same one). */
static arith *
arith_of(worker *w, const void *inst, int is_private)
{
	if (w->last_arith >= 0 && w->last_arith < w->narith && w->arith[w->last_arith].key == inst)
		return &w->arith[w->last_arith];
	for (int i = 0; i < w->narith; i++)
		if (w->arith[i].key == inst) {
			w->last_arith = i;
			return &w->arith[i];
		}
	if (w->narith == w->caparith) {
		int cap = w->caparith ? w->caparith * 2 : 64;
		arith *p = realloc(w->arith, (size_t)cap * sizeof *p);
		if (p == NULL)
			oom();
		w->arith = p;
		w->caparith = cap;
	}
	w->arith[w->narith] = (arith){ inst, is_private, 0, 0, NULL, 0 };
	w->last_arith = w->narith;
	return &w->arith[w->narith++];
}

void
trace_flops(trace *t, const void *inst, uint32_t flops, uint32_t lane)
{
	arith *a = arith_of(trace_worker(t), inst, 0);
	a->runs++;
	a->amount += flops;
	if (lane < t->nlanes) {
		if (a->lanes == NULL && (a->lanes = calloc(t->nlanes, sizeof *a->lanes)) == NULL)
			oom();
		a->lanes[lane]++;
	}
}

void
trace_arith_warps(worker *w, uint32_t nlanes)
{
	for (int i = 0; i < w->narith; i++) {
		arith *a = &w->arith[i];
		for (uint32_t l0 = 0; a->lanes != NULL && l0 < nlanes; l0 += 32) {
			uint32_t most = 0;
			for (uint32_t l = l0; l < l0 + 32 && l < nlanes; l++) {
				most = a->lanes[l] > most ? a->lanes[l] : most;
				a->lanes[l] = 0;
			}
			a->warp_runs += most;
		}
	}
}

void
trace_arith_free(worker *w)
{
	for (int i = 0; i < w->narith; i++)
		free(w->arith[i].lanes);
	free(w->arith);
}

void
trace_private(trace *t, const void *inst, uint32_t bytes)
{
	arith *a = arith_of(trace_worker(t), inst, 1);
	a->runs++;
	a->amount += bytes;
}

void
trace_private_bytes(trace *t, uint64_t bytes, int line, int column)
{
	t->private_bytes = bytes;
	t->private_line = line;
	t->private_column = column;
}

void
trace_arith_site(trace *t, const void *inst, int line, int column, int pipe)
{
	if (t->narith_lines == t->caparith_lines) {
		int cap = t->caparith_lines ? t->caparith_lines * 2 : 64;
		arith_line *p = realloc(t->arith_lines, (size_t)cap * sizeof *p);
		if (p == NULL)
			oom();
		t->arith_lines = p;
		t->caparith_lines = cap;
	}
	t->arith_lines[t->narith_lines++] = (arith_line){ inst, line, column, pipe };
}

static const arith_line *
line_of(const trace *t, const void *inst)
{
	for (int i = 0; i < t->narith_lines; i++)
		if (t->arith_lines[i].key == inst)
			return &t->arith_lines[i];
	return NULL;
}

void
trace_arith_reset(worker *w)
{
	for (int i = 0; i < w->narith; i++)
		free(w->arith[i].lanes);
	w->narith = 0;
	w->last_arith = -1;
}

/* Every worker's rows of one list (arithmetic, or private accesses) added up by instruction:
 * [{"line", "column", "accesses": runs, "flops" (or "bytes")}], the
 * largest first.  The caller holds t->lock. */
cJSON *
trace_arith_json(trace *t, int is_private)
{
	arith *all = NULL;
	int n = 0, cap = 0;
	for (worker *w = t->workers; w != NULL; w = w->next)
		for (int i = 0; i < w->narith; i++) {
			if (w->arith[i].is_private != is_private)
				continue;
			int j = 0;
			while (j < n && all[j].key != w->arith[i].key)
				j++;
			if (j == n) {
				if (n == cap) {
					cap = cap ? cap * 2 : 64;
					arith *p = realloc(all, (size_t)cap * sizeof *p);
					if (p == NULL)
						oom();
					all = p;
				}
				all[n++] = (arith){ w->arith[i].key, is_private, 0, 0, NULL, 0 };
			}
			all[j].runs += w->arith[i].runs;
			all[j].amount += w->arith[i].amount;
			all[j].warp_runs += w->arith[i].warp_runs;
		}
	for (int i = 1; i < n; i++)            /* by amount, largest first (insertion sort) */
		for (int j = i; j > 0 && all[j].amount > all[j - 1].amount; j--) {
			arith tmp = all[j];
			all[j] = all[j - 1];
			all[j - 1] = tmp;
		}
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		const arith_line *at = line_of(t, all[i].key);
		cJSON_AddNumberToObject(o, "line", at ? at->line : 0);
		cJSON_AddNumberToObject(o, "column", at ? at->column : 0);
		if (!is_private) {
			static const char *pipes[] = { "fp32", "sfu", "int" };
			cJSON_AddStringToObject(o, "pipe", pipes[at && at->pipe >= 0 && at->pipe < 3 ?
			                                         at->pipe : 0]);
		}
		cJSON_AddNumberToObject(o, "accesses", (double)all[i].runs);
		if (!is_private && all[i].warp_runs)
			cJSON_AddNumberToObject(o, "warp_runs", (double)all[i].warp_runs);
		cJSON_AddNumberToObject(o, is_private ? "bytes" : "flops", (double)all[i].amount);
		cJSON_AddItemToArray(a, o);
	}
	free(all);
	return a;
}
