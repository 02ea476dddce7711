/* report_json.c — the JSON report (report_json in report.h; keys as in GUIDE.md, "The JSON
 * report"), through libcjson, from what the stages decided and the view computed. */

#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "fmaload.h"
#include "regest.h"
#include "report.h"
#include "tilechoice.h"

/* Lesson 4: a TILE's occupancy on each judged profile, as tile_choice sees it (the view's
 * row v). */
static void json_tile_occupancy(cJSON *o, const check_view_tile *v)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "occupancy");
	for (int k = 0; k < TILE_NPROFILES; k++) {
		const occ_profile *p = occ_profile_find(tile_profiles[k].profile);
		occ_result r = v->occ[k];
		int assumed = v->assumed[k], regs = v->registers[k];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "profile", p->name);
		cJSON_AddStringToObject(x, "status", occ_status_name(r.status));
		cJSON_AddNumberToObject(x, "groups_per_cu", r.groups_per_cu);
		cJSON_AddNumberToObject(x, "occupancy", r.occupancy);
		cJSON_AddStringToObject(x, "limiter", occ_limiter_name(r.limiter));
		cJSON_AddNumberToObject(x, "registers", regs);
		cJSON_AddBoolToObject(x, "registers_assumed", assumed);
		cJSON_AddItemToArray(arr, x);
	}
}

static cJSON *size_pair(int r, int c)
{
	int v[2] = { r, c };
	return cJSON_CreateIntArray(v, 2);
}

static void json_correctness(cJSON *root, const check_report *rep)
{
	const check_child *ch = &rep->child;
	cJSON *c = cJSON_AddObjectToObject(root, "correctness"), *sizes = cJSON_AddArrayToObject(c, "sizes");
	double maxerr = 0;
	const check_run *bad = NULL;
	for (int i = 0; i < ch->nruns; i++) {
		const check_run *r = &ch->runs[i];
		cJSON_AddItemToArray(sizes, size_pair(r->rows, r->cols));
		if (r->done && r->cmp.max_rel_error > maxerr)
			maxerr = r->cmp.max_rel_error;
		if (r->done && !r->cmp.passed && !bad)
			bad = r;
	}
	cJSON_AddNumberToObject(c, "max_rel_error", maxerr);
	if (ch->wide_planned) {   /* the full-precision run (ref.h ref_draw_wide), judged apart */
		cJSON *w = cJSON_AddObjectToObject(c, "wide");
		cJSON_AddItemToObject(w, "size", size_pair(ch->wide.rows, ch->wide.cols));
		cJSON_AddBoolToObject(w, "done", ch->wide.done);
		cJSON_AddBoolToObject(w, "passed", ch->wide.done && ch->wide.cmp.passed && !ch->wide.violations);
		cJSON_AddNumberToObject(w, "max_rel_error", ch->wide.cmp.max_rel_error);
	}
	if (!bad) {
		cJSON_AddNullToObject(c, "first_mismatch");
		return;
	}
	cJSON *m = cJSON_AddObjectToObject(c, "first_mismatch");
	cJSON_AddItemToObject(m, "size", size_pair(bad->rows, bad->cols));
	cJSON_AddNumberToObject(m, "row", bad->cmp.first_row);
	cJSON_AddNumberToObject(m, "col", bad->cmp.first_col);
	cJSON_AddNumberToObject(m, "got", bad->cmp.got);
	cJSON_AddNumberToObject(m, "expected", bad->cmp.expected);
	cJSON_AddNumberToObject(m, "wrong_elements", (double)bad->cmp.bad);
	cJSON_AddNumberToObject(m, "unwritten_elements", (double)bad->cmp.unwritten);
	cJSON_AddStringToObject(m, "pattern", bad->cmp.pattern);
}

static void json_timing(cJSON *root, const check_report *rep)
{
	const check_child *ch = &rep->child;
	if (!ch->timed) {
		cJSON_AddNullToObject(root, "timing");
		report_predicted_json(root, rep);   /* lesson 4 (no single timing), or not timed */
		return;
	}
	cJSON *t = cJSON_AddObjectToObject(root, "timing");
	cJSON_AddItemToObject(t, "size", size_pair(ch->time_rows, ch->time_cols));
	cJSON_AddStringToObject(t, "size_text", KIND_SIZE(rep->opts.l->kind, ch->time_rows,
	                                                  ch->time_cols));
	if (ch->baseline_ms > 0) {
		cJSON_AddNumberToObject(t, "baseline_ms", ch->baseline_ms);
		cJSON_AddStringToObject(t, "baseline_name", lesson_baseline_name(rep->opts.l));
		cJSON_AddNumberToObject(t, "speedup", rep->view.speedup);
	} else {
		cJSON_AddNullToObject(t, "baseline_ms");
		cJSON_AddNullToObject(t, "speedup");
	}
	cJSON_AddNumberToObject(t, "kernel_ms", ch->kernel_ms);
	cJSON_AddNumberToObject(t, "runs", ch->time_reps);
	if (rep->copy_gbps > 0) {
		cJSON_AddNumberToObject(t, "copy_ms", ch->copy_ms);
		cJSON_AddNumberToObject(t, "copy_gbps", rep->copy_gbps);
		cJSON_AddNumberToObject(t, "fraction_of_copy", rep->of_copy);
	}
	cJSON_AddNumberToObject(t, rep->opts.l->kind->rate_key, rep->view.kernel_rate);
	report_predicted_json(t, rep);
}

/* Where a site is: line, column, variable, access. */
static void site_place(cJSON *o, cJSON *site)
{
	cJSON_AddNumberToObject(o, "line", report_ival(site, "line"));
	cJSON_AddNumberToObject(o, "column", report_ival(site, "column"));
	cJSON_AddStringToObject(o, "variable", report_sval(site, "variable"));
	cJSON_AddStringToObject(o, "access", report_sval(site, "access"));
}

static void json_analysis(cJSON *root, const check_report *rep)
{
	const lesson *l = rep->opts.l;
	cJSON *a = cJSON_AddObjectToObject(root, "analysis"), *sizes = cJSON_AddArrayToObject(a, "sizes");
	for (int i = 0; i < rep->nanalyses; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rows", rep->analyses[i].rows);
		cJSON_AddNumberToObject(o, "cols", rep->analyses[i].cols);
		cJSON_AddNumberToObject(o, "tile", rep->analyses[i].tile);
		if (rep->analyses[i].findings_only)   /* check_an.c divisible_run */
			cJSON_AddBoolToObject(o, "findings_only", 1);
		cJSON_AddItemToObject(o, "range_lo", size_pair(rep->analyses[i].lo.rows, rep->analyses[i].lo.cols));
		cJSON_AddItemToObject(o, "range_hi", size_pair(rep->analyses[i].hi.rows, rep->analyses[i].hi.cols));
		cJSON_AddItemToArray(sizes, o);
	}
	/* the first run's range (each size has its own: another TILE of a sweep may move it) */
	lesson_size lo = rep->nanalyses ? rep->analyses[0].lo : l->kind->analysis_lo;
	lesson_size hi = rep->nanalyses ? rep->analyses[0].hi : l->kind->analysis_hi;
	cJSON_AddItemToObject(a, "range_lo", size_pair(lo.rows, lo.cols));
	cJSON_AddItemToObject(a, "range_hi", size_pair(hi.rows, hi.cols));
	cJSON_AddNumberToObject(a, "seconds", rep->analysis_s);
	cJSON_AddNumberToObject(a, "model_seconds", rep->model_s);
	cJSON_AddBoolToObject(a, "grader_failed", rep->analysis_grader);
	/* the sites (banks, coalescing) come from a -cl-opt-disable build: check_analysis */
	cJSON_AddBoolToObject(a, "sites_unoptimised", rep->an.sites_unoptimised > 0);
	if (rep->an.sites_unoptimised < 0)   /* the unoptimised build was tried and not trusted */
		cJSON_AddBoolToObject(a, "sites_unoptimised_rejected", 1);
}

/* The __local sites of the analysis, under the bank profile. */
static void json_local_sites(cJSON *sites, const check_report *rep)
{
	cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(rep->analysis, "local_sites")) {
		cJSON *o = cJSON_CreateObject(), *p;
		p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"), rep->opts.profile);
		int inst = report_ival(s, "instructions");
		site_place(o, s);
		if (rep->opts.l->tiles[0])   /* a TILE sweep: the run's TILE */
			cJSON_AddNumberToObject(o, "tile", report_ival(s, "tile"));
		cJSON_AddNumberToObject(o, "n_way", report_ival(p, "n_way"));
		cJSON_AddNumberToObject(o, "wavefronts", inst ? report_dval(p, "wavefronts") / inst : 0);
		cJSON_AddNumberToObject(o, "ideal_wavefronts", inst ? report_dval(p, "ideal_wavefronts") / inst : 0);
		cJSON_AddNumberToObject(o, "instructions", inst);
		cJSON_AddNumberToObject(o, "width", report_ival(s, "width"));   /* bytes: 16 for a float4 */
		cJSON_AddNumberToObject(o, "tile", report_ival(s, "tile"));
		cJSON_AddBoolToObject(o, "worst", cJSON_IsTrue(cJSON_GetObjectItem(s, "worst")));
		cJSON_AddItemToObject(o, "profiles", cJSON_Duplicate(cJSON_GetObjectItem(s, "profiles"), 1));
		if (cJSON_GetObjectItem(s, "worst_lanes"))
			cJSON_AddItemToObject(o, "worst_lanes", cJSON_Duplicate(cJSON_GetObjectItem(s, "worst_lanes"), 1));
		cJSON_AddItemToArray(sites, o);
	}
}

/* The global sites: sectors per request against their ideal. */
static void json_global_sites(cJSON *gsites, const check_report *rep)
{
	cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(rep->analysis, "global_sites")) {
		cJSON *o = cJSON_CreateObject();
		int req = report_ival(s, "requests");
		site_place(o, s);
		cJSON_AddNumberToObject(o, "sectors_per_request", req ? report_dval(s, "sectors") / req : 0);
		cJSON_AddNumberToObject(o, "ideal", req ? report_dval(s, "ideal_sectors") / req : 0);
		cJSON_AddBoolToObject(o, "uncoalesced", req && check_uncoalesced(report_dval(s, "sectors") / req,
		                                                               report_dval(s, "ideal_sectors") / req));
		if (cJSON_GetObjectItem(s, "worst_request"))
			cJSON_AddItemToObject(o, "worst_request",
			                      cJSON_Duplicate(cJSON_GetObjectItem(s, "worst_request"), 1));
		cJSON_AddItemToArray(gsites, o);
	}
}

/* The global bytes of the first run (the lesson's TILE, the kind's analysis size). */
static void json_global_bytes(cJSON *gm, const check_report *rep)
{
	cJSON *gb = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0),
	                                "global_bytes");
	const kind *k = rep->opts.l->kind;
	lesson_size as = { rep->analyses[0].rows, rep->analyses[0].cols };
	cJSON_AddItemToObject(gm, "analysis_size", size_pair(as.rows, as.cols));
	cJSON_AddNumberToObject(gm, "bytes_loaded", report_dval(gb, "loaded"));
	cJSON_AddNumberToObject(gm, "bytes_stored", report_dval(gb, "stored"));
	cJSON_AddNumberToObject(gm, k->traffic_key, rep->an.loaded_per_unit);
	fmal_json(gm, k, &(kind_traffic){ rep->an.rows, rep->an.cols, rep->analyses[0].tile, 0,
	                                  rep->an.local_loaded, 0 });
}

static void json_memory(cJSON *root, const check_report *rep)
{
	cJSON *lm = cJSON_AddObjectToObject(root, "local_memory");
	cJSON_AddNumberToObject(lm, "bytes_per_group", (double)rep->child.local_bytes);
	if (rep->child.kernel_found) {
		const check_child *ch = &rep->child;
		cJSON_AddStringToObject(lm, "source", lmem_source_name(ch->local_source));
		cJSON_AddNumberToObject(lm, "runtime_bytes", (double)ch->local_runtime);
		if (ch->local_declared >= 0)
			cJSON_AddNumberToObject(lm, "declared_bytes", (double)ch->local_declared);
		else
			cJSON_AddNullToObject(lm, "declared_bytes");
		if (rep->local_analysis >= 0)
			cJSON_AddNumberToObject(lm, "analysis_bytes", (double)rep->local_analysis);
		else
			cJSON_AddNullToObject(lm, "analysis_bytes");
	}
	cJSON_AddStringToObject(lm, "profile", rep->opts.profile);
	cJSON *sites = cJSON_AddArrayToObject(lm, "sites");
	cJSON *gm = cJSON_AddObjectToObject(root, "global_memory");
	cJSON *gsites = cJSON_AddArrayToObject(gm, "sites");
	if (!rep->analysis)
		return;
	json_local_sites(sites, rep);
	json_global_sites(gsites, rep);
	json_global_bytes(gm, rep);
}

static void json_occupancy(cJSON *root, const check_report *rep)
{
	cJSON *a = cJSON_AddArrayToObject(root, "occupancy");
	for (int i = 0; i < rep->nocc; i++) {
		const check_occ *r = &rep->occ[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "profile", r->profile);
		cJSON_AddNumberToObject(o, "work_group", rep->work_group);
		cJSON_AddNumberToObject(o, "local_bytes", (double)rep->child.local_bytes);
		cJSON_AddNumberToObject(o, "groups_per_cu", r->fits ? r->groups_per_cu : 0);
		cJSON_AddNumberToObject(o, "occupancy", r->fits ? r->occupancy : 0);
		cJSON_AddStringToObject(o, "limiter", r->limiter);
		cJSON_AddStringToObject(o, "status", r->status);
		if (!r->fits) {
			cJSON_AddNumberToObject(o, "needed", (double)r->needed);
			cJSON_AddNumberToObject(o, "available", (double)r->available);
		}
		cJSON_AddBoolToObject(o, "registers_known", r->registers_used);
		if (r->registers_used)
			cJSON_AddNumberToObject(o, "registers", rep->child.registers);
		cJSON_AddItemToArray(a, o);
	}
}

static void json_diagnostics(cJSON *root, const check_report *rep)
{
	cJSON *d = cJSON_AddArrayToObject(root, "diagnostics"), *f;
	if (!rep->analysis)
		return;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(rep->analysis, "findings"))
		cJSON_AddItemToArray(d, cJSON_Duplicate(f, 1));
}

/* The device the check ran on. */
static void json_device(cJSON *root, const check_report *rep)
{
	const check_child *ch = &rep->child;
	cJSON *dev = cJSON_AddObjectToObject(root, "device");
	cJSON_AddStringToObject(dev, "platform", ch->dev.platform);
	cJSON_AddStringToObject(dev, "name", ch->dev.name);
	cJSON_AddStringToObject(dev, "type", ch->dev.type);
	cJSON_AddNumberToObject(dev, "compute_units", ch->dev.compute_units);
	cJSON_AddNumberToObject(dev, "local_mem_bytes", (double)ch->dev.local_mem);
	cJSON_AddStringToObject(dev, "local_mem_type", ch->dev.local_type);
	cJSON_AddNumberToObject(dev, "max_work_group_size", (double)ch->dev.max_wg);
}

/* The criteria, and the root cause when one explains others. */
static void json_criteria(cJSON *root, const check_report *rep)
{
	cJSON *crits = cJSON_AddArrayToObject(root, "criteria");
	for (int i = 0; i < rep->ncrit; i++) {
		const check_crit *c = &rep->crit[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", lesson_crit_id(c->id));
		if (c->status == CRIT_NOT_CHECKED)
			cJSON_AddNullToObject(o, "passed");
		else
			cJSON_AddBoolToObject(o, "passed", c->status == CRIT_PASS);
		cJSON_AddStringToObject(o, "status", c->status == CRIT_PASS ? "pass" :
		                        c->status == CRIT_FAIL ? "fail" : "not_checked");
		cJSON_AddStringToObject(o, "message", c->msg);
		if (c->predicted)
			cJSON_AddTrueToObject(o, "predicted");
		if (c->status == CRIT_FAIL && c->try_[0])
			cJSON_AddStringToObject(o, "try", c->try_);
		if (c->caused)
			cJSON_AddStringToObject(o, "caused_by", lesson_crit_id(c->caused_by));
		cJSON_AddBoolToObject(o, "scored", !c->env);
		cJSON_AddItemToArray(crits, o);
	}
	if (rep->cause.kind) {
		static const char *const kinds[] = { "none", "barrier_divergence", "local_race",
		                                     "out_of_bounds", "global_race", "uninitialized" };
		cJSON *cz = cJSON_AddObjectToObject(root, "cause");
		cJSON_AddStringToObject(cz, "criterion", lesson_crit_id(rep->cause.crit));
		cJSON_AddStringToObject(cz, "kind", kinds[rep->cause.kind]);
		cJSON_AddNumberToObject(cz, "line", rep->cause.line);
		cJSON_AddStringToObject(cz, "what", rep->cause.what);
	}
}

/* Lesson 4: the TILE sweep's rows (the view's) and the local-size experiment. */
static void json_tiles(cJSON *root, const check_report *rep)
{
	const check_child *ch = &rep->child;
	cJSON *ts = cJSON_AddArrayToObject(root, "tiles");
	for (int i = 0; i < ch->ntiles; i++) {
		const check_tile *t = &ch->tiles[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "tile", t->tile);
		cJSON_AddBoolToObject(o, "ran", t->built);
		cJSON_AddBoolToObject(o, "correct", t->correct);
		cJSON_AddNumberToObject(o, "local_bytes", (double)t->local_bytes);
		if (t->timed)
			cJSON_AddNumberToObject(o, "kernel_ms", t->ms);
		cJSON_AddNumberToObject(o, "global_bytes_per_flop", rep->view.tiles[i].bytes_per_flop);
		json_tile_occupancy(o, &rep->view.tiles[i]);
		cJSON_AddItemToArray(ts, o);
	}
	cJSON *ls = cJSON_AddArrayToObject(root, "local_sizes");
	for (int i = 0; i < ch->nlocals; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "local", size_pair(ch->locals[i].lx, ch->locals[i].ly));
		cJSON_AddStringToObject(o, "kernel", rep->opts.l->baseline_kernel);
		cJSON_AddItemToObject(o, "size", size_pair(ch->locals[i].n, ch->locals[i].n));
		if (ch->locals[i].timed)
			cJSON_AddNumberToObject(o, "kernel_ms", ch->locals[i].ms);
		cJSON_AddItemToArray(ls, o);
	}
}

/* Every string a one-line field (a message, a name, a device string: a newline there is
 * shown as \n); the build log alone is multi-line text. */
static void json_escape(cJSON *root, const check_report *rep)
{
	const check_child *ch = &rep->child;
	esc_sub subs[] = { { rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL, NULL },
	                   { NULL, NULL } };
	esc_cjson(root, ESC_LINE, subs);
	if (ch->build_log[0]) {
		char *log = esc_dup(ch->build_log, ESC_TEXT, subs);
		cJSON_ReplaceItemInObjectCaseSensitive(root, "build_log", cJSON_CreateString(log ? log : ""));
		free(log);
	}
}

cJSON *report_json(const check_report *rep)
{
	const check_child *ch = &rep->child;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "lesson", rep->opts.l->slug);
	cJSON_AddStringToObject(root, "kernel", rep->opts.kernel);
	json_device(root, rep);
	cJSON_AddNumberToObject(root, "seed", (double)rep->opts.seed);
	cJSON_AddStringToObject(root, "verdict", rep->exit_code == 2 ? "error" :
	                        rep->verdict_pass ? "pass" : "fail");
	if (rep->exit_code == 2)
		cJSON_AddStringToObject(root, "error", rep->grader_error);
	json_criteria(root, rep);
	int score, max = report_score(rep, &score);
	cJSON_AddNumberToObject(root, "score", score);
	cJSON_AddNumberToObject(root, "max_score", max);
	if (ch->build_log[0])
		cJSON_AddStringToObject(root, "build_log", ch->build_log);
	json_correctness(root, rep);
	json_timing(root, rep);
	json_analysis(root, rep);
	json_memory(root, rep);
	json_occupancy(root, rep);
	regest_json(root, rep);
	json_diagnostics(root, rep);
	if (ch->ntiles)
		json_tiles(root, rep);
	if (rep->analysis_note[0])
		cJSON_AddStringToObject(root, "analysis_note", rep->analysis_note);
	if (rep->pocl_note[0])
		cJSON_AddStringToObject(root, "pocl_note", rep->pocl_note);
	if (rep->size_note[0])
		cJSON_AddStringToObject(root, "size_note", rep->size_note);
	cJSON_AddStringToObject(root, "sandbox", rep->confine_note[0] ? rep->confine_note : "confined");
	if (rep->size_tests || rep->group_tests) {   /* ptrcheck_size.c */
		cJSON *st = cJSON_AddObjectToObject(root, "size_tests");
		cJSON_AddNumberToObject(st, "count", rep->size_tests);
		if (rep->size_tests)
			cJSON_AddStringToObject(st, "first", rep->size_test_at);
		cJSON_AddNumberToObject(st, "group_count", rep->group_tests);
		if (rep->group_tests)
			cJSON_AddStringToObject(st, "group_first", rep->group_test_at);
	}
	json_escape(root, rep);
	return root;
}

