/* report.c — render a check_report as terminal text and as JSON (report.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "esc.h"
#include "fmaload.h"
#include "regest.h"
#include "hint.h"
#include "html.h"
#include "report.h"
#include "tilechoice.h"

int report_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(fileno(f)) && !(nc && *nc);
}

static const char *C_OK = "", *C_BAD = "", *C_DIM = "", *C_BOLD = "", *C_END = "";

static void colors(FILE *f)
{
	int on = report_color(f);
	C_OK = on ? "\033[32m" : "";
	C_BAD = on ? "\033[31m" : "";
	C_DIM = on ? "\033[2m" : "";
	C_BOLD = on ? "\033[1m" : "";
	C_END = on ? "\033[0m" : "";
}

/* The one output helper of the text report for strings of kernel, file-name or child origin
 * (esc.h): control characters, invalid UTF-8 and direction controls come out as visible
 * escapes, and the kernel's own path, wherever a message quotes it, as one line.  The
 * report's own colours are printed beside it, never through it.  Set per report (text_subs). */
static esc_sub text_subs[2];

static void put_text(FILE *f, const char *s, unsigned flags)
{
	esc_put(f, s, flags, text_subs);
}

/* s escaped as one line into buf, for a %-10s column. */
static const char *cell(char *buf, size_t len, const char *s)
{
	esc_str(buf, len, s, ESC_LINE, text_subs);
	return buf;
}

static int ival(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static double dval(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *sval(cJSON *o, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
	return s ? s : "?";
}

/* The lane -> bank picture of one warp of the worst site (check.c drew it): "." for a lane
 * that does not take part, then what the busiest bank serves (distinct words one after
 * another; lanes sharing a word get it in one broadcast). */
static void text_lanes(FILE *f, const check_site *w, int sweep)
{
	int n = w->nlanes;
	if (w->n_way <= 1 || !w->picture)
		return;
	char var[200], at[32] = "";
	if (sweep && w->tile)   /* which TILE of the sweep it is from */
		snprintf(at, sizeof at, ", TILE=%d", w->tile);
	fprintf(f, "  one warp of the worst access (line %d, %s%s): lane -> bank\n", w->line,
	        w->variable[0] ? cell(var, sizeof var, w->variable) : "?", at);
	for (int row = 0; row < n; row += 16) {
		fprintf(f, "    lanes %2d-%2d:", row, row + 15 < n ? row + 15 : n - 1);
		for (int i = row; i < n && i < row + 16; i++)
			if (w->bank[i] >= 0)
				fprintf(f, " %2d", w->bank[i]);
			else
				fprintf(f, "  .");
		fputc('\n', f);
	}
	if (w->inactive)
		fprintf(f, "    (. = a lane that does not take part in this access: %d of %d)\n",
		        w->inactive, n);
	if (w->busy_lanes > w->busy_words)
		fprintf(f, "    bank %d is hit by %d lanes at %d different words; lanes that share a word "
		        "get it in one broadcast, the %d words are served one after another.\n",
		        w->busy_bank, w->busy_lanes, w->busy_words, w->busy_words);
	else
		fprintf(f, "    bank %d is hit by %d lanes at %d different words: they are served one "
		        "after another.\n", w->busy_bank, w->busy_lanes, w->busy_words);
}

static void text_local(FILE *f, const check_report *rep)
{
	cJSON *sites = cJSON_GetObjectItem(rep->analysis, "local_sites"), *s;
	if (cJSON_GetArraySize(sites) == 0)
		return;
	const char *prof = rep->opts.profile;
	fprintf(f, "\n%s__local accesses%s (simulated under Oclgrind; bank model %s; full warps "
	        "only)\n", C_BOLD, C_END, prof);
	/* a TILE sweep analyses each TILE: its sites come once per TILE, so the TILE is a column */
	int sweep = rep->opts.l->tiles[0] != 0, bar = lesson_conflict_max(rep->opts.l);
	fprintf(f, "  %-10s %s%-10s %-6s %7s %18s\n", "line:col", sweep ? "TILE  " : "", "variable",
	        "access", "n-way", "wavefronts/ideal");
	cJSON_ArrayForEach(s, sites) {
		cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"), prof);
		int n = ival(p, "n_way"), inst = ival(s, "instructions");
		char lc[48], var[200], acc[64];
		snprintf(lc, sizeof lc, "%d:%d", ival(s, "line"), ival(s, "column"));
		if (sweep)
			snprintf(lc + strlen(lc), sizeof lc - strlen(lc), "%*s%-5d", 11 - (int)strlen(lc), "",
			         ival(s, "tile"));
		cell(var, sizeof var, sval(s, "variable"));
		cell(acc, sizeof acc, sval(s, "access"));
		if (!inst) {   /* reached by edge warps only: nothing priced */
			fprintf(f, "  %-10s %-10s %-6s %7s   (edge warps only, not priced)\n", lc,
			        var, acc, "-");
			continue;
		}
		fprintf(f, "  %-10s %-10s %-6s %s%6d%s %10.1f / %.1f\n", lc, var,
		        acc, n > bar ? C_BAD : "", n, C_END,
		        inst ? dval(p, "wavefronts") / inst : 0, inst ? dval(p, "ideal_wavefronts") / inst : 0);
	}
	text_lanes(f, &rep->an.worst, sweep);
}

static void text_global(FILE *f, const check_report *rep)
{
	cJSON *sites = cJSON_GetObjectItem(rep->analysis, "global_sites"), *s;
	if (cJSON_GetArraySize(sites) == 0)
		return;
	fprintf(f, "\n%sglobal accesses%s (32-byte sectors per warp request; ideal = the same bytes end to end)\n",
	        C_BOLD, C_END);
	cJSON_ArrayForEach(s, sites) {
		int req = ival(s, "requests");
		double spr = req ? dval(s, "sectors") / req : 0, ideal = req ? dval(s, "ideal_sectors") / req : 0;
		char var[200], acc[64];
		fprintf(f, "  %3d:%-3d %-8s %-6s %5.1f sectors/request (ideal %.1f)%s\n", ival(s, "line"),
		        ival(s, "column"), cell(var, sizeof var, sval(s, "variable")),
		        cell(acc, sizeof acc, sval(s, "access")), spr, ideal,
		        check_uncoalesced(spr, ideal) ? "  <- uncoalesced: neighbouring work-items touch far-apart addresses" : "");
	}
	cJSON *gb = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0),
	                                "global_bytes");
	const kind *k = rep->opts.l->kind;
	if (k->traffic_text && gb)
		fprintf(f, k->traffic_text, rep->an.loaded_per_unit);
	fmal_print(f, k, &(kind_traffic){ rep->an.rows, rep->an.cols, rep->analyses[0].tile, 0,
	                                  rep->an.local_loaded, 0 });
}

/* Where the Oclgrind analysis ran: sizes drawn from the seed, and each run's TILE. */
static void text_analysis_sizes(FILE *f, const check_report *rep)
{
	const lesson *l = rep->opts.l;
	if (!rep->nanalyses)
		return;
	fprintf(f, "\n%sanalysis%s under Oclgrind at", C_BOLD, C_END);
	const kind *k = l->kind;
	for (int i = 0; i < rep->nanalyses; i++)
		fprintf(f, "%s %s (TILE=%d)", i ? "," : "", KIND_SIZE(k, rep->analyses[i].rows,
		        rep->analyses[i].cols), rep->analyses[i].tile);
	fprintf(f, "%s: drawn from seed %llu within %s..%s", C_DIM,
	        (unsigned long long)rep->opts.seed,
	        KIND_SIZE(k, rep->analyses[0].lo.rows, rep->analyses[0].lo.cols),
	        KIND_SIZE(k, rep->analyses[0].hi.rows, rep->analyses[0].hi.cols));
	for (int i = 1; i < rep->nanalyses; i++)
		fprintf(f, " (%s..%s at TILE=%d)", KIND_SIZE(k, rep->analyses[i].lo.rows,
		        rep->analyses[i].lo.cols), KIND_SIZE(k, rep->analyses[i].hi.rows,
		        rep->analyses[i].hi.cols), rep->analyses[i].tile);
	fprintf(f, ", never a multiple of TILE, so edge work-items exist%s\n", C_END);
}

static void text_occupancy(FILE *f, const check_report *rep)
{
	const check_child *ch = &rep->child;
	if (!ch->kernel_found)
		return;
	fprintf(f, "\n%soccupancy%s (work-group %d, %zu B __local from %s", C_BOLD, C_END, rep->work_group,
	        ch->local_bytes, lmem_source_text(ch->local_source));
	if (ch->local_source != LMEM_RUNTIME)
		fprintf(f, ", the runtime reported %zu", ch->local_runtime);
	fprintf(f, "; ");
	if (ch->registers)
		fprintf(f, "%d registers per work-item measured by the device's compiler, used for "
		        "the NVIDIA profiles)\n", ch->registers);
	else
		fprintf(f, "registers not reported by this device, so assumed not limiting)\n");
	for (int i = 0; i < rep->nocc; i++) {
		const check_occ *r = &rep->occ[i];
		if (r->fits)
			fprintf(f, "  %-14s %2d groups/CU  %3.0f%%  limited by %s\n", r->profile,
			        r->groups_per_cu, 100 * r->occupancy, r->limiter);
		else
			fprintf(f, "  %-14s does not fit: %s needs %ld %s, the limit is %ld\n", r->profile,
			        r->limiter, r->needed, r->unit ? r->unit : "", r->available);
	}
}

static void text_tiles(FILE *f, const check_report *rep)
{
	const check_child *ch = &rep->child;
	if (!ch->ntiles)
		return;
	int gpu = strcmp(ch->dev.type, "GPU") == 0, assumed;
	int regs = tile_registers(rep, occ_profile_find(tile_profiles[0].profile), &assumed);
	fprintf(f, "\n%sTILE sweep%s (N=%d; occupancy at %d registers per work-item, %s)\n"
	        "  TILE  local B  sm_90 occ/groups/limit  sm_86 occ/groups/limit  time ms  global B/FLOP\n",
	        C_BOLD, C_END, gpu ? rep->opts.l->kind->time_size_gpu.rows : rep->opts.l->kind->time_size.rows,
	        regs, assumed ? "assumed: this device does not report them" : "from the compiler");
	for (int i = 0; i < ch->ntiles; i++) {
		const check_tile *t = &ch->tiles[i];
		char occ[TILE_NPROFILES][64], ms[32];
		for (int k = 0; k < TILE_NPROFILES; k++) {
			occ_result r = tile_occupancy(rep, occ_profile_find(tile_profiles[k].profile), t->tile);
			if (r.status == OCC_OK)
				snprintf(occ[k], sizeof occ[k], "%3.0f%% %2d grp %s", 100 * r.occupancy,
				         r.groups_per_cu, occ_limiter_name(r.limiter));
			else
				snprintf(occ[k], sizeof occ[k], "does not launch");
		}
		snprintf(ms, sizeof ms, t->timed ? "%.2f" : "-", t->ms);
		fprintf(f, "  %4d  %7ld  %-23s %-23s %7s  %.3f%s\n", t->tile,
		        tile_local_bytes(rep, t->tile), occ[0], occ[1], ms,
		        4.0 / t->tile, t->built ? (t->correct ? "" : "  wrong result") :
		        "  (not run on this device)");
	}
	if (ch->nlocals) {
		fprintf(f, "  local-size experiment at N=%d (lesson 1's naive kernel, which takes any local "
		        "size; the tiled one needs TILE x TILE):\n   ", ch->locals[0].n);
		for (int i = 0; i < ch->nlocals; i++) {
			const check_local *lc = &ch->locals[i];
			if (lc->timed)
				fprintf(f, "  %dx%d: %.2f ms", lc->lx, lc->ly, lc->ms);
			else
				fprintf(f, "  %dx%d: not run", lc->lx, lc->ly);
		}
		fputc('\n', f);
	}
}

/* Is position i of text inside a `code span`?  Lines are not broken there. */
static int in_code(const char *text, int i)
{
	int ticks = 0;
	for (int k = 0; k < i; k++)
		ticks += text[k] == '`';
	return ticks % 2;
}

/* Print text wrapped at the terminal's width, continuation lines indented by indent. */
static void wrapped(FILE *f, const char *raw, int col, int indent)
{
	char *clean = esc_dup(raw, ESC_LINE, text_subs), *text = clean ? clean : "";
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	int width = 100;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60)
		width = ws.ws_col;
	else if (cols && atoi(cols) >= 60)
		width = atoi(cols);
	while (*text) {
		int room = width - col, n = (int)strlen(text);
		if (n > room && room > 20) {
			int cut = room;
			while (cut > 0 && (text[cut] != ' ' || in_code(text, cut)))
				cut--;
			/* no blank outside code within room: run past the width rather than break a
			 * `code span` (a command must stay copyable) */
			for (int k = room; cut == 0 && k < n; k++)
				if (text[k] == ' ' && !in_code(text, k))
					cut = k;
			n = cut > 0 ? cut : n;
		}
		fwrite(text, 1, (size_t)n, f);
		fputc('\n', f);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
	free(clean);
}

void report_wrap(FILE *f, const char *raw, int col, int indent)
{
	wrapped(f, raw, col, indent);
}

/* After a PASS: where to go next (the lesson after this one in the registry). */
static void text_next(FILE *f, const check_report *rep)
{
	if (!rep->verdict_pass)
		return;
	const lesson *next = NULL;
	for (int i = 0; i + 1 < lesson_count(); i++)
		if (lesson_at(i) == rep->opts.l)
			next = lesson_at(i + 1);
	if (next)
		fprintf(f, "next: lesson %d, %s: read lessons/%s/README.md, then `make check LESSON=%d`\n",
		        next->number, next->title, next->slug, next->number);
	else
		fprintf(f, "that was the last lesson: `make check` shows every lesson's state\n");
}

void report_text(FILE *f, const check_report *rep)
{
	colors(f);
	const check_child *ch = &rep->child;
	const lesson *l = rep->opts.l;
	text_subs[0] = (esc_sub){ rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL, NULL };
	text_subs[1] = (esc_sub){ NULL, NULL };
	fprintf(f, "%sclgrade%s lesson %s -- ", C_BOLD, C_END, l->slug);
	put_text(f, rep->opts.kernel, ESC_LINE);
	fputc('\n', f);
	if (rep->exit_code == 2 && !rep->ncrit) {
		fprintf(f, "%serror:%s ", C_BAD, C_END);
		put_text(f, rep->grader_error, ESC_LINE);
		fprintf(f, "\n\n%sverdict: NOT GRADED (the grader's own failure, exit 2)%s\n", C_BOLD,
		        C_END);
		return;
	}
	if (ch->opened) {
		char plat[256], name[256], type[64];
		fprintf(f, "%sdevice: %s / %s (%s, %u compute units, %llu KiB of local memory %s, "
		        "max work-group %zu)%s\n", C_DIM, cell(plat, sizeof plat, ch->dev.platform),
		        cell(name, sizeof name, ch->dev.name), cell(type, sizeof type, ch->dev.type),
		        ch->dev.compute_units, ch->dev.local_mem >> 10, strcmp(ch->dev.local_type, "local")
		        ? "emulated in RAM" : "on chip", ch->dev.max_wg, C_END);
	}
	fprintf(f, "%sseed %llu (reproduce with --seed %llu)%s\n", C_DIM,
	        (unsigned long long)rep->opts.seed, (unsigned long long)rep->opts.seed, C_END);
	if (ch->build_log[0]) {
		fputc('\n', f);
		put_text(f, ch->build_log, ESC_TEXT);
	}
	fputc('\n', f);
	for (int i = 0; i < rep->ncrit; i++) {
		const check_crit *c = &rep->crit[i];
		const char *mark = c->status == CRIT_PASS ? "✓" : c->status == CRIT_FAIL ? "✗" : "-";
		const char *col = c->status == CRIT_PASS ? C_OK : c->status == CRIT_FAIL ? C_BAD : C_DIM;
		fprintf(f, "  %s%s %-18s%s ", col, mark, lesson_crit_id(c->id), C_END);
		wrapped(f, c->msg, 23, 23);
		if (c->status == CRIT_FAIL && c->try_[0]) {
			fprintf(f, "      %stry:%s ", C_BOLD, C_END);
			wrapped(f, c->try_, 11, 11);
		}
	}
	if (ch->timed) {
		const char *unit = l->kind->rate_unit;
		double work = l->kind->work(ch->time_rows, ch->time_cols);
		fprintf(f, "\n%stiming%s at %s: kernel %.3g ms (%.2f %s)", C_BOLD, C_END,
		        KIND_SIZE(l->kind, ch->time_rows, ch->time_cols), ch->kernel_ms,
		        work / ch->kernel_ms * 1e-6, unit);
		if (ch->baseline_ms > 0)
			fprintf(f, ", naive baseline %.3g ms (%.2f %s)", ch->baseline_ms,
			        work / ch->baseline_ms * 1e-6, unit);
		fprintf(f, "; median of %d\n", ch->time_reps);
		if (rep->copy_gbps > 0)
			fprintf(f, "  a copy of the same bytes in the same run: %.3g ms (%.0f GB/s read + "
			        "written); the kernel reads at %.2f of the copy's rate\n", ch->copy_ms,
			        rep->copy_gbps, rep->of_copy);
	}
	report_predicted_text(f, rep);
	text_analysis_sizes(f, rep);
	if (rep->analysis) {
		text_local(f, rep);
		text_global(f, rep);
	}
	text_occupancy(f, rep);
	regest_print(f, rep);
	text_tiles(f, rep);
	if (rep->confine_note[0]) {
		char why[400];
		snprintf(why, sizeof why, "the kernel ran without the full sandbox: %s; it could "
		         "read and write what you can (see GUIDE.md, threat model)", rep->confine_note);
		fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
		wrapped(f, why, 6, 6);
	}
	if (rep->analysis_note[0]) {
		fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
		wrapped(f, rep->analysis_note, 6, 6);
	}
	if (rep->pocl_note[0]) {
		fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
		wrapped(f, rep->pocl_note, 6, 6);
	}
	if (rep->an.sites_unoptimised < 0) {
		fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
		wrapped(f, "the compiler merged __local or __global accesses of several lines into one, "
		        "and a second analysis built without optimisation (-cl-opt-disable) accessed "
		        "memory differently, so it cannot name their lines: the tables and verdicts are "
		        "the optimised build's, and a merged access is shown at a neighbouring line", 6, 6);
	} else if (rep->an.sites_unoptimised) {
		fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
		wrapped(f, "the compiler merged __local or __global accesses of several lines (an if and "
		        "its else) into one, which has no line of its own; the access tables and the "
		        "bank and coalescing verdicts come from a second analysis built without "
		        "optimisation (-cl-opt-disable), where each access keeps its line. Races and "
		        "bounds come from the optimised build", 6, 6);
	}
	const char *first = check_first_failure(rep);
	int failed = 0, unchecked = 0;
	for (int i = 0; i < rep->ncrit; i++)
		failed += rep->crit[i].status == CRIT_FAIL, unchecked += rep->crit[i].status == CRIT_NOT_CHECKED;
	fprintf(f, "\n%sverdict: %s%s%s", C_BOLD, rep->verdict_pass ? C_OK : C_BAD,
	        rep->exit_code == 2 ? "NOT GRADED (the grader's own failure, exit 2)" :
	        rep->verdict_pass ? "PASS" : "FAIL", C_END);
	if (failed)
		fprintf(f, " (%d of %d criteria failed, first: %s%s)", failed, rep->ncrit, first,
		        rep->cause.kind ? ", the cause of the others marked \"a symptom\"" : "");
	if (unchecked)
		fprintf(f, " (%d not checked)", unchecked);
	fputc('\n', f);
	char hint[2048];
	if (first && hint_for(l, first, hint, sizeof hint) == 0) {
		fprintf(f, "hint (%s): ", first);
		wrapped(f, hint, 9 + (int)strlen(first), 2);
		fprintf(f, "more hints, one at a time: `make hint LESSON=%d`\n", l->number);
	}
	text_next(f, rep);
}

/* Lesson 4: a TILE's occupancy on each judged profile, as tile_choice sees it. */
static void json_tile_occupancy(cJSON *o, const check_report *rep, int tile)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "occupancy");
	for (int k = 0; k < TILE_NPROFILES; k++) {
		const occ_profile *p = occ_profile_find(tile_profiles[k].profile);
		occ_result r = tile_occupancy(rep, p, tile);
		int assumed, regs = tile_registers(rep, p, &assumed);
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

/* ---- JSON ------------------------------------------------------------------------------ */

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
		cJSON_AddNumberToObject(t, "speedup", ch->baseline_ms / ch->kernel_ms);
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
	const kind *k = rep->opts.l->kind;
	cJSON_AddNumberToObject(t, k->rate_key, k->work(ch->time_rows, ch->time_cols) / ch->kernel_ms * 1e-6);
	report_predicted_json(t, rep);
}

/* Where a site is: line, column, variable, access. */
static void site_place(cJSON *o, cJSON *site)
{
	cJSON_AddNumberToObject(o, "line", ival(site, "line"));
	cJSON_AddNumberToObject(o, "column", ival(site, "column"));
	cJSON_AddStringToObject(o, "variable", sval(site, "variable"));
	cJSON_AddStringToObject(o, "access", sval(site, "access"));
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
	cJSON *sites = cJSON_AddArrayToObject(lm, "sites"), *s;
	cJSON *gm = cJSON_AddObjectToObject(root, "global_memory");
	cJSON *gsites = cJSON_AddArrayToObject(gm, "sites");
	if (!rep->analysis)
		return;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(rep->analysis, "local_sites")) {
		cJSON *o = cJSON_CreateObject(), *p;
		p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"), rep->opts.profile);
		int inst = ival(s, "instructions");
		site_place(o, s);
		if (rep->opts.l->tiles[0])   /* a TILE sweep: the run's TILE */
			cJSON_AddNumberToObject(o, "tile", ival(s, "tile"));
		cJSON_AddNumberToObject(o, "n_way", ival(p, "n_way"));
		cJSON_AddNumberToObject(o, "wavefronts", inst ? dval(p, "wavefronts") / inst : 0);
		cJSON_AddNumberToObject(o, "ideal_wavefronts", inst ? dval(p, "ideal_wavefronts") / inst : 0);
		cJSON_AddNumberToObject(o, "instructions", inst);
		cJSON_AddNumberToObject(o, "width", ival(s, "width"));   /* bytes: 16 for a float4 */
		cJSON_AddNumberToObject(o, "tile", ival(s, "tile"));
		cJSON_AddBoolToObject(o, "worst", cJSON_IsTrue(cJSON_GetObjectItem(s, "worst")));
		cJSON_AddItemToObject(o, "profiles", cJSON_Duplicate(cJSON_GetObjectItem(s, "profiles"), 1));
		if (cJSON_GetObjectItem(s, "worst_lanes"))
			cJSON_AddItemToObject(o, "worst_lanes", cJSON_Duplicate(cJSON_GetObjectItem(s, "worst_lanes"), 1));
		cJSON_AddItemToArray(sites, o);
	}
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(rep->analysis, "global_sites")) {
		cJSON *o = cJSON_CreateObject();
		int req = ival(s, "requests");
		site_place(o, s);
		cJSON_AddNumberToObject(o, "sectors_per_request", req ? dval(s, "sectors") / req : 0);
		cJSON_AddNumberToObject(o, "ideal", req ? dval(s, "ideal_sectors") / req : 0);
		cJSON_AddBoolToObject(o, "uncoalesced", req && check_uncoalesced(dval(s, "sectors") / req,
		                                                               dval(s, "ideal_sectors") / req));
		if (cJSON_GetObjectItem(s, "worst_request"))
			cJSON_AddItemToObject(o, "worst_request",
			                      cJSON_Duplicate(cJSON_GetObjectItem(s, "worst_request"), 1));
		cJSON_AddItemToArray(gsites, o);
	}
	cJSON *gb = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0),
	                                "global_bytes");
	const kind *k = rep->opts.l->kind;
	lesson_size as = { rep->analyses[0].rows, rep->analyses[0].cols };
	cJSON_AddItemToObject(gm, "analysis_size", size_pair(as.rows, as.cols));
	cJSON_AddNumberToObject(gm, "bytes_loaded", dval(gb, "loaded"));
	cJSON_AddNumberToObject(gm, "bytes_stored", dval(gb, "stored"));
	cJSON_AddNumberToObject(gm, k->traffic_key, rep->an.loaded_per_unit);
	fmal_json(gm, k, &(kind_traffic){ rep->an.rows, rep->an.cols, rep->analyses[0].tile, 0,
	                                  rep->an.local_loaded, 0 });
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

/* The one output step of the JSON and Gradescope renderers: every string of the tree
 * escaped (esc.h; newlines and tabs of multi-line text kept, JSON escapes those), so the
 * files are valid UTF-8 and carry no control character, and the kernel's path, wherever a
 * message quotes it, as one line (or as subs say). */
void report_utf8_clean(cJSON *j)
{
	esc_cjson(j, ESC_TEXT, NULL);
}

cJSON *report_json(const check_report *rep)
{
	const check_child *ch = &rep->child;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "lesson", rep->opts.l->slug);
	cJSON_AddStringToObject(root, "kernel", rep->opts.kernel);
	cJSON *dev = cJSON_AddObjectToObject(root, "device");
	cJSON_AddStringToObject(dev, "platform", ch->dev.platform);
	cJSON_AddStringToObject(dev, "name", ch->dev.name);
	cJSON_AddStringToObject(dev, "type", ch->dev.type);
	cJSON_AddNumberToObject(dev, "compute_units", ch->dev.compute_units);
	cJSON_AddNumberToObject(dev, "local_mem_bytes", (double)ch->dev.local_mem);
	cJSON_AddStringToObject(dev, "local_mem_type", ch->dev.local_type);
	cJSON_AddNumberToObject(dev, "max_work_group_size", (double)ch->dev.max_wg);
	cJSON_AddNumberToObject(root, "seed", (double)rep->opts.seed);
	cJSON_AddStringToObject(root, "verdict", rep->exit_code == 2 ? "error" :
	                        rep->verdict_pass ? "pass" : "fail");
	if (rep->exit_code == 2)
		cJSON_AddStringToObject(root, "error", rep->grader_error);
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
	if (ch->ntiles) {
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
			cJSON_AddNumberToObject(o, "global_bytes_per_flop", 4.0 / t->tile);
			json_tile_occupancy(o, rep, t->tile);
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
	if (rep->analysis_note[0])
		cJSON_AddStringToObject(root, "analysis_note", rep->analysis_note);
	if (rep->pocl_note[0])
		cJSON_AddStringToObject(root, "pocl_note", rep->pocl_note);
	cJSON_AddStringToObject(root, "sandbox", rep->confine_note[0] ? rep->confine_note : "confined");
	/* every string a one-line field (a message, a name, a device string: a newline there
	 * is shown as \n); the build log alone is multi-line text */
	esc_sub subs[] = { { rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL, NULL },
	                   { NULL, NULL } };
	esc_cjson(root, ESC_LINE, subs);
	if (ch->build_log[0]) {
		char *log = esc_dup(ch->build_log, ESC_TEXT, subs);
		cJSON_ReplaceItemInObjectCaseSensitive(root, "build_log", cJSON_CreateString(log ? log : ""));
		free(log);
	}
	return root;
}

int report_score(const check_report *rep, int *score)
{
	int max = 0;
	*score = 0;
	for (int i = 0; i < rep->ncrit; i++) {
		max += !rep->crit[i].env;
		*score += rep->crit[i].status == CRIT_PASS;
	}
	return max;
}

/* The top-level output: the verdict line, then the findings on the student's source that
 * the HTML page shows at their lines (html_findings_text), one line each. */
static void gradescope_output(cJSON *root, const check_report *rep, const char *verdict)
{
	if (rep->exit_code == 2 || !rep->analysis) {
		cJSON_AddStringToObject(root, "output", verdict);
		return;
	}
	cJSON *j = report_json(rep);
	size_t len = strlen(verdict) + 8300;
	char *out = malloc(len), found[8192];
	html_findings_text(j, found, sizeof found);
	if (out)
		snprintf(out, len, "%s%s%s", verdict, found[0] ? "\nFindings on your source:\n" : "",
		         found);
	cJSON_AddStringToObject(root, "output", out ? out : verdict);
	free(out);
	cJSON_Delete(j);
}

cJSON *report_gradescope(const check_report *rep)
{
	cJSON *root = cJSON_CreateObject(), *tests = cJSON_CreateArray();
	/* what a student sees on Gradescope names no file of the grader's machine: the kernel
	 * by its own name, not where the grader keeps it (the submission folder, the batch's
	 * DIR), and a lesson header by lessons/<slug>, not the grader's install path */
	const char *k = rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL;
	const char *base = k && strrchr(k, '/') ? strrchr(k, '/') + 1 : k;
	char dir[4200], real[PATH_MAX], shown[200];
	lesson_path(rep->opts.l, "dir", dir, sizeof dir);
	snprintf(shown, sizeof shown, "lessons/%s", rep->opts.l->slug);
	char kline[1200];   /* the path as the build log writes it (diag.c: one line) */
	esc_str(kline, sizeof kline, k, ESC_LINE, NULL);
	esc_sub subs[5] = { { dir, shown } };
	int n = 1;
	if (realpath(dir, real))
		subs[n++] = (esc_sub){ real, shown };
	if (k)
		subs[n++] = (esc_sub){ k, base };
	if (k && strcmp(kline, k) != 0)
		subs[n++] = (esc_sub){ kline, base };
	subs[n] = (esc_sub){ NULL, NULL };
	int score;
	report_score(rep, &score);   /* the tests' max_score add up to the maximum: Gradescope's
	                                format has no max_score at the top */
	cJSON_AddNumberToObject(root, "score", score);
	/* each message is one line (esc.h), so only the grader's own "\nTry: " breaks a line */
	char out[1400], a[1200], b[600];
	if (rep->exit_code == 2)
		snprintf(out, sizeof out, "the grader could not run: %s",
		         (esc_str(a, sizeof a, rep->grader_error, ESC_LINE, subs), a));
	else
		snprintf(out, sizeof out, "lesson %s: %s%s%s", rep->opts.l->slug,
		         rep->verdict_pass ? "pass" : "fail", rep->analysis_note[0] ? ". Note: " : "",
		         (esc_str(a, sizeof a, rep->analysis_note, ESC_LINE, subs), a));
	gradescope_output(root, rep, out);
	for (int i = 0; i < rep->ncrit; i++) {
		const check_crit *c = &rep->crit[i];
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", lesson_crit_id(c->id));
		cJSON_AddNumberToObject(t, "score", c->status == CRIT_PASS);
		cJSON_AddNumberToObject(t, "max_score", c->env ? 0 : 1);
		if (c->status != CRIT_NOT_CHECKED)  /* "not checked" is neither: score alone tells */
			cJSON_AddStringToObject(t, "status", c->status == CRIT_PASS ? "passed" : "failed");
		esc_str(a, sizeof a, c->msg, ESC_LINE, subs);
		esc_str(b, sizeof b, c->status == CRIT_FAIL ? c->try_ : "", ESC_LINE, subs);
		snprintf(out, sizeof out, "%s%s%s", a, b[0] ? "\nTry: " : "", b);
		cJSON_AddStringToObject(t, "output", out);
		cJSON_AddItemToArray(tests, t);
	}
	cJSON_AddItemToObject(root, "tests", tests);
	esc_cjson(root, ESC_TEXT, subs);   /* valid UTF-8, no control character anywhere */
	return root;
}

FILE *report_create(const char *path)
{
	unlink(path);   /* whatever is there, a planted link too: the link goes, not its target */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

int report_write(cJSON *j, const char *path)
{
	char *s = cJSON_Print(j);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = s ? report_create(tmp) : NULL;
	int rc = f && fputs(s, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)   /* never a half-written report */
		rc = -1;
	if (rc != 0)
		unlink(tmp);
	free(s);
	return rc;
}

int report_write_json(const check_report *rep, const char *path)
{
	cJSON *j = report_json(rep);
	int rc = report_write(j, path);
	cJSON_Delete(j);
	return rc;
}
