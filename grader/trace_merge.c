/* trace_merge.c — the summaries of several tracer runs of one kernel (one per TILE, or per
 * size) merged into one: sites matched by line, column, variable and kind, their counts
 * added and worst cases kept, each run's geometry listed.  The grader's side of trace.h: it
 * reads summaries only, never a live run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "trace.h"

static void
oom(void)
{
	fprintf(stderr, "cltrace: out of memory\n");
	abort();
}

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

/* a[key] becomes a copy of b[key] when b has one that is worse by the number `by` (a warp's
 * picture: the most conflicted lanes, the request of the most sectors). */
static void
keep_worse(cJSON *a, const cJSON *b, const char *key, const char *by)
{
	const cJSON *vb = cJSON_GetObjectItemCaseSensitive(b, key);
	const cJSON *va = cJSON_GetObjectItemCaseSensitive(a, key);
	if (!vb || (va && jnum(vb, by) <= jnum(va, by)))
		return;
	if (va)
		cJSON_DeleteItemFromObjectCaseSensitive(a, key);
	cJSON_AddItemToObject(a, key, cJSON_Duplicate(vb, 1));
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
	keep_worse(a, b, "worst_lanes", "n_way");
	keep_worse(a, b, "worst_request", "sectors");
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
trace_merge_findings(cJSON *into, const cJSON *run)
{
	static const char *finding_keys[] = { "kind", "line", "column", "other_line", "other_column",
	                                      "variable", NULL };
	cJSON *fdst = cJSON_GetObjectItemCaseSensitive(into, "findings"), *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(run, "findings")) {
		cJSON *same = find_row(fdst, x, finding_keys);
		if (same)
			add_num(same, "count", jnum(x, "count"));
		else if (fdst)
			cJSON_AddItemToArray(fdst, cJSON_Duplicate(x, 1));
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "complete")))
		cJSON_ReplaceItemInObjectCaseSensitive(into, "complete", cJSON_CreateFalse());
}

void
trace_merge(cJSON *into, const cJSON *run)
{
	static const char *site_keys[] = { "line", "column", "variable", "access", "tile", NULL };
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
	trace_merge_findings(into, r);   /* and the completeness */
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
	cJSON *runs = cJSON_GetObjectItemCaseSensitive(into, "runs");
	if (runs == NULL)
		runs = cJSON_AddArrayToObject(into, "runs");
	cJSON_AddItemToArray(runs, run_geometry(r));
	cJSON_Delete(r);
}

