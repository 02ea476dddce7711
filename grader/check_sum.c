/* check_sum.c — the tracer's summary into the typed analysis (check_sum.h): findings per
 * kind, the worst __local site with its lane picture, global and __local bytes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bank.h"
#include "check_sum.h"

static const char *find_names[FIND_KINDS] = {
	"out_of_bounds", "uninitialized", "data_race", "barrier_divergence",
};

static int num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void copy_str(char *dst, size_t len, cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
	snprintf(dst, len, "%s", v ? v : "");
}

/* Words per lane between the active lanes of a site's worst warp: the first nonzero step. */
static int lane_stride(cJSON *site)
{
	cJSON *offs = cJSON_GetObjectItem(cJSON_GetObjectItem(site, "worst_lanes"), "offsets");
	int prev = -1, prev_lane = -1, stride = 0;
	for (int i = 0; i < cJSON_GetArraySize(offs) && !stride; i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		if (!cJSON_IsNumber(o))
			continue;   /* an inactive lane: the stride is per lane between active ones */
		if (prev >= 0)
			stride = (o->valueint - prev) / 4 / (i - prev_lane);
		prev = o->valueint, prev_lane = i;
	}
	return stride;
}

/* Do the active lanes of a site's worst warp read at most two words (a broadcast, or two
 * halves of a warp on two rows' words)?  Then however its indices are ordered it is at most
 * 2-way, which conflict_free passes. */
static int lane_broadcast(cJSON *site)
{
	cJSON *offs = cJSON_GetObjectItem(cJSON_GetObjectItem(site, "worst_lanes"), "offsets");
	int words[2], nwords = 0, active = 0;
	for (int i = 0; i < cJSON_GetArraySize(offs); i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		if (!cJSON_IsNumber(o))
			continue;
		active++;
		int w = o->valueint / 4, seen = 0;
		for (int k = 0; k < nwords; k++)
			seen |= words[k] == w;
		if (!seen && nwords == 2)
			return 0;
		if (!seen)
			words[nwords++] = w;
	}
	return active > 2;
}

int check_sum_nfindings(const cJSON *summary)
{
	const cJSON *f;
	int n = 0;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(summary, "findings")) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind"));
		for (int i = 0; k && i < FIND_KINDS; i++)
			n += strcmp(k, find_names[i]) == 0;
	}
	return n;
}

static void summarize_findings(cJSON *summary, check_analysis *an)
{
	cJSON *f;
	int order = 0;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(summary, "findings")) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind"));
		order++;
		an->across_groups += cJSON_IsTrue(cJSON_GetObjectItem(f, "across_groups"));
		for (int i = 0; k && i < FIND_KINDS; i++) {
			if (strcmp(k, find_names[i]) != 0)
				continue;
			if (an->nfind[i] < CHECK_FIND_KEEP) {
				check_finding *x = &an->find[i][an->nfind[i]];
				const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(f, "message"));
				x->order = order;
				x->line = num(f, "line"), x->column = num(f, "column");
				x->other_line = num(f, "other_line");
				snprintf(x->message, sizeof x->message, "%s", m ? m : k);
			}
			an->nfind[i]++;
			const char *space = cJSON_GetStringValue(cJSON_GetObjectItem(f, "space"));
			int global = i == FIND_DATA_RACE && space && strcmp(space, "global") == 0;
			const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(f, "message"));
			an->races_global += global;
			an->races_global_rw += global && m && strstr(m, "Read-write") != NULL;
		}
	}
}

/* The lane -> bank picture of one warp of a site (its worst_lanes) and its busiest bank. */
static void lane_picture(cJSON *site, check_site *w)
{
	cJSON *wl = cJSON_GetObjectItem(site, "worst_lanes"), *banks = cJSON_GetObjectItem(wl, "banks");
	cJSON *offs = cJSON_GetObjectItem(wl, "offsets");
	const char *prof = cJSON_GetStringValue(cJSON_GetObjectItem(wl, "profile"));
	const bank_profile *bp = bank_profile_find(prof ? prof : "?");
	int n = cJSON_GetArraySize(banks);
	w->picture = 0;
	if (!cJSON_IsArray(banks) || !bp || n > BANK_MAX_LANES || cJSON_GetArraySize(offs) != n)
		return;
	uint64_t addr[BANK_MAX_LANES] = { 0 };
	unsigned char active[BANK_MAX_LANES] = { 0 };
	for (int i = 0; i < n; i++) {
		cJSON *b = cJSON_GetArrayItem(banks, i), *o = cJSON_GetArrayItem(offs, i);
		active[i] = cJSON_IsNumber(b) && cJSON_IsNumber(o);
		addr[i] = active[i] ? (uint64_t)o->valuedouble : 0;
		w->bank[i] = active[i] ? (signed char)b->valueint : -1;
	}
	bank_busy b = bank_busiest(bp, addr, active, n);
	w->row_step = bank_row_step(bp, addr, active, n, w->tile);
	w->picture = 1, w->nlanes = n;
	w->busy_bank = b.bank, w->busy_lanes = b.lanes, w->busy_words = b.words;
	w->inactive = b.inactive;
}

/* What the drawn lane -> bank grid of a site's worst warp needs beyond the tracer's banks
 * (bank.h): each lane's role ("roles": conflict, broadcast, alone, inactive) and, when the fix
 * the report proposes is padding (an even lane stride, and a kind whose __local arrays are
 * 2-D tiles: pads), the same warp after it ("padded":
 * the stride, the padded row, each lane's bank and the n-way there).  Added to the site's
 * worst_lanes, so the JSON carries them (report_json.c copies worst_lanes). */
static void annotate_lanes(cJSON *site, int pads)
{
	cJSON *wl = cJSON_GetObjectItem(site, "worst_lanes"), *offs = cJSON_GetObjectItem(wl, "offsets");
	const char *prof = cJSON_GetStringValue(cJSON_GetObjectItem(wl, "profile"));
	const char *acc = cJSON_GetStringValue(cJSON_GetObjectItem(site, "access"));
	const bank_profile *bp = bank_profile_find(prof ? prof : "?");
	int n = cJSON_GetArraySize(offs), width = num(site, "width"), store = !acc || strcmp(acc, "load");
	if (!bp || !cJSON_IsArray(offs) || n > BANK_MAX_LANES || cJSON_HasObjectItem(wl, "roles"))
		return;
	uint64_t addr[BANK_MAX_LANES] = { 0 }, fixed[BANK_MAX_LANES];
	unsigned char active[BANK_MAX_LANES] = { 0 };
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		active[i] = cJSON_IsNumber(o);
		addr[i] = active[i] ? (uint64_t)o->valuedouble : 0;
	}
	width = width < 1 ? 4 : width > 16 ? 16 : width;
	bank_lane_role role[BANK_MAX_LANES];
	bank_roles(bp, addr, active, n, width, store, role);
	cJSON_AddNumberToObject(wl, "bank_count", bp->banks);
	cJSON *roles = cJSON_AddArrayToObject(wl, "roles");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(roles, cJSON_CreateString(bank_role_name(role[i])));
	int stride = lane_stride(site);
	if (!pads || num(wl, "n_way") <= 1 || !bank_padded(addr, n, stride, fixed))
		return;   /* pads 0: the kind's fix is no padding (a 1-D tree: sequential addressing) */
	cJSON *pd = cJSON_AddObjectToObject(wl, "padded"), *banks = cJSON_AddArrayToObject(pd, "banks");
	int bk[BANK_MAX_LANES];
	bank_lanes(bp, fixed, n, bk);
	bank_roles(bp, fixed, active, n, width, store, role);
	cJSON *froles = cJSON_AddArrayToObject(pd, "roles");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(banks, active[i] ? cJSON_CreateNumber(bk[i]) : cJSON_CreateNull());
		cJSON_AddItemToArray(froles, cJSON_CreateString(bank_role_name(role[i])));
	}
	cJSON_AddNumberToObject(pd, "stride", stride);
	cJSON_AddNumberToObject(pd, "row_words", stride + 1);
	cJSON_AddNumberToObject(pd, "n_way", bank_access(bp, fixed, active, n, width, store).n_way);
}

/* The worst __local site under the profile, and the load count. */
static void summarize_sites(cJSON *summary, const char *profile, check_analysis *an)
{
	cJSON *s, *worst = NULL;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, "local_sites")) {
		const char *access = cJSON_GetStringValue(cJSON_GetObjectItem(s, "access"));
		cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"), profile);
		int n = num(p, "n_way");
		an->local_sites++;
		an->local_loads += access && strcmp(access, "store") != 0;
		cJSON *bytes = cJSON_GetObjectItem(s, "bytes");
		double b = cJSON_IsNumber(bytes) ? bytes->valuedouble : 0;
		if (access && strcmp(access, "store") == 0)
			an->local_stored += b;
		else
			an->local_loaded += b;
		if (n <= an->worst.n_way)
			continue;
		an->has_worst = 1;
		worst = s;
		an->worst.n_way = n;
		an->worst.line = num(s, "line"), an->worst.column = num(s, "column");
		copy_str(an->worst.variable, sizeof an->worst.variable, s, "variable");
		copy_str(an->worst.access, sizeof an->worst.access, s, "access");
		an->worst.tile = num(s, "tile");
		an->worst.stride = lane_stride(s);
		lane_picture(s, &an->worst);
	}
	if (worst)      /* the report marks the site it draws as the worst (report_text.c, html.c) */
		cJSON_AddTrueToObject(worst, "worst");
	/* the first conflict-free access to the worst site's variable, in the same run (TILE) */
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, "local_sites")) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(s, "variable"));
		cJSON *nw = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"),
		                                                    profile), "n_way");
		double wi = num(s, "warp_instructions");
		if (!worst || s == worst || an->worst.free_line || !v || !an->worst.variable[0] ||
		    num(s, "tile") != an->worst.tile ||
		    strcmp(v, an->worst.variable) || !cJSON_IsNumber(nw) || nw->valueint != 1 ||
		    (wi > 0 && num(s, "lanes") / wi < 16))
			continue;   /* conflict-free with a few lanes (a halo's 3), or never in a full
			               warp (n_way 0), tells no direction */
		an->worst.free_line = num(s, "line");
		copy_str(an->worst.free_access, sizeof an->worst.free_access, s, "access");
		an->worst.free_broadcast = lane_broadcast(s);
	}
}

void check_sum_analysis(const check_opts *o, check_report *rep)
{
	check_analysis *an = &rep->an;
	if (!o->analysis)
		an->state = ANALYSIS_SKIPPED;
	else if (an->state == ANALYSIS_NOT_RUN && rep->analysis_failed)
		an->state = ANALYSIS_FAILED;
	else if (an->state == ANALYSIS_NOT_RUN && rep->analysis)
		an->state = ANALYSIS_DONE;
	/* global bytes: the first run's (the lesson's TILE, at the kind's analysis size) */
	cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0);
	cJSON *gb = cJSON_GetObjectItem(run ? run : rep->analysis, "global_bytes");
	const kind *k = o->l->kind;
	lesson_size as = rep->nanalyses ? (lesson_size){ rep->analyses[0].rows, rep->analyses[0].cols }
	                                : lesson_analysis_size(o->l, o->seed);
	an->summary = rep->analysis != NULL;
	if (!an->summary)
		return;
	summarize_findings(rep->analysis, an);
	cJSON *site;
	cJSON_ArrayForEach(site, cJSON_GetObjectItem(rep->analysis, "local_sites"))
		annotate_lanes(site, k->tile_2d);
	summarize_sites(rep->analysis, o->profile, an);
	/* analysed at another TILE than the launch's (lesson 7: 8 for 16), a warp spans other
	 * rows of the group: the banks are judged at the launch's, in the model's launch */
	if (lesson_analysis_tile(o->l) != o->l->tile && rep->model[0]) {
		check_analysis at = { 0 };
		summarize_sites(rep->model[0], o->profile, &at);
		if (at.has_worst) {
			an->worst = at.worst;
			an->worst.tile = o->l->tile;
			an->worst_at_launch = 1;
		}
	}
	an->global_loaded = cJSON_IsNumber(cJSON_GetObjectItem(gb, "loaded")) ?
	                    cJSON_GetObjectItem(gb, "loaded")->valuedouble : 0;
	an->global_stored = cJSON_IsNumber(cJSON_GetObjectItem(gb, "stored")) ?
	                    cJSON_GetObjectItem(gb, "stored")->valuedouble : 0;
	an->loaded_per_unit = an->global_loaded / k->traffic_units(as.rows, as.cols);
	an->rows = as.rows, an->cols = as.cols;
}


void check_sum_local(check_report *rep)
{
	check_child *ch = &rep->child;
	/* the first run's: the lesson's TILE (later runs are at the other TILEs of a sweep) */
	cJSON *run0 = cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0);
	cJSON *lb = run0 ? cJSON_GetObjectItem(run0, "local_bytes") : NULL;
	if (!ch->kernel_found || !cJSON_IsNumber(lb))
		return;
	rep->local_analysis = (long)lb->valuedouble;
	ch->local_bytes = lmem_pick(ch->local_runtime, ch->local_declared, rep->local_analysis,
	                            &ch->local_source);
}
