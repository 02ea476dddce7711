/* report_text.c — the terminal report (report_text in report.h): the criteria, the timing,
 * the access tables, occupancy, the TILE sweep, notes, the verdict and the next hint, from
 * what the stages decided and the view computed (rep->view).  Strings of kernel, file or
 * child origin go through one escaping helper (put_text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "esc.h"
#include "fmaload.h"
#include "regest.h"
#include "hint.h"
#include "report.h"
#include "tilechoice.h"

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

/* The lane -> bank picture of one warp of the worst site (check_sum.c drew it): "." for a lane
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
		int n = report_ival(p, "n_way"), inst = report_ival(s, "instructions");
		char lc[48], var[200], acc[64];
		snprintf(lc, sizeof lc, "%d:%d", report_ival(s, "line"), report_ival(s, "column"));
		if (sweep)
			snprintf(lc + strlen(lc), sizeof lc - strlen(lc), "%*s%-5d", 11 - (int)strlen(lc), "",
			         report_ival(s, "tile"));
		cell(var, sizeof var, report_sval(s, "variable"));
		cell(acc, sizeof acc, report_sval(s, "access"));
		if (!inst) {   /* reached by edge warps only: nothing priced */
			fprintf(f, "  %-10s %-10s %-6s %7s   (edge warps only, not priced)\n", lc,
			        var, acc, "-");
			continue;
		}
		fprintf(f, "  %-10s %-10s %-6s %s%6d%s %10.1f / %.1f\n", lc, var,
		        acc, n > bar ? C_BAD : "", n, C_END,
		        inst ? report_dval(p, "wavefronts") / inst : 0, inst ? report_dval(p, "ideal_wavefronts") / inst : 0);
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
		int req = report_ival(s, "requests");
		double spr = req ? report_dval(s, "sectors") / req : 0, ideal = req ? report_dval(s, "ideal_sectors") / req : 0;
		char var[200], acc[64];
		fprintf(f, "  %3d:%-3d %-8s %-6s %5.1f sectors/request (ideal %.1f)%s\n", report_ival(s, "line"),
		        report_ival(s, "column"), cell(var, sizeof var, report_sval(s, "variable")),
		        cell(acc, sizeof acc, report_sval(s, "access")), spr, ideal,
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
		fprintf(f, "%s %s (TILE=%d%s)", i ? "," : "", KIND_SIZE(k, rep->analyses[i].rows,
		        rep->analyses[i].cols), rep->analyses[i].tile, rep->analyses[i].findings_only ?
		        "; for the kernel's multiple-of test: findings and results only" : "");
	fprintf(f, "%s: drawn from seed %llu within %s..%s", C_DIM,
	        (unsigned long long)rep->opts.seed,
	        KIND_SIZE(k, rep->analyses[0].lo.rows, rep->analyses[0].lo.cols),
	        KIND_SIZE(k, rep->analyses[0].hi.rows, rep->analyses[0].hi.cols));
	for (int i = 1; i < rep->nanalyses; i++)
		if (!rep->analyses[i].findings_only)
			fprintf(f, " (%s..%s at TILE=%d)", KIND_SIZE(k, rep->analyses[i].lo.rows,
			        rep->analyses[i].lo.cols), KIND_SIZE(k, rep->analyses[i].hi.rows,
			        rep->analyses[i].hi.cols), rep->analyses[i].tile);
	int multiple = rep->analyses[rep->nanalyses - 1].findings_only;
	fprintf(f, ", never a multiple of TILE%s, so edge work-items exist%s\n",
	        multiple ? " (but the multiple-of run)" : "", C_END);
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
	int gpu = strcmp(ch->dev.type, "GPU") == 0, assumed = rep->view.sweep_assumed;
	int regs = rep->view.sweep_registers;
	fprintf(f, "\n%sTILE sweep%s (N=%d; occupancy at %d registers per work-item, %s)\n"
	        "  TILE  local B  sm_90 occ/groups/limit  sm_86 occ/groups/limit  time ms  global B/FLOP\n",
	        C_BOLD, C_END, kind_sweep_size(rep->opts.l->kind, gpu).rows,
	        regs, assumed ? "assumed: this device does not report them" : "from the compiler");
	for (int i = 0; i < ch->ntiles; i++) {
		const check_tile *t = &ch->tiles[i];
		const check_view_tile *v = &rep->view.tiles[i];
		char occ[TILE_NPROFILES][64], ms[32];
		for (int k = 0; k < TILE_NPROFILES; k++) {
			occ_result r = v->occ[k];
			if (r.status == OCC_OK)
				snprintf(occ[k], sizeof occ[k], "%3.0f%% %2d grp %s", 100 * r.occupancy,
				         r.groups_per_cu, occ_limiter_name(r.limiter));
			else
				snprintf(occ[k], sizeof occ[k], "does not launch");
		}
		snprintf(ms, sizeof ms, t->timed ? "%.2f" : "-", t->ms);
		fprintf(f, "  %4d  %7ld  %-23s %-23s %7s  %.3f%s\n", t->tile,
		        v->local_bytes, occ[0], occ[1], ms,
		        v->bytes_per_flop, t->built ? (t->correct ? "" : "  wrong result") :
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

/* The head: the lesson and file, the device, the seed, the build log.  0 when the grader
 * could not run (the error said, nothing else follows). */
static int text_head(FILE *f, const check_report *rep)
{
	const check_child *ch = &rep->child;
	fprintf(f, "%sclgrade%s lesson %s -- ", C_BOLD, C_END, rep->opts.l->slug);
	put_text(f, rep->opts.kernel, ESC_LINE);
	fputc('\n', f);
	if (rep->exit_code == 2 && !rep->ncrit) {
		fprintf(f, "%serror:%s ", C_BAD, C_END);
		put_text(f, rep->grader_error, ESC_LINE);
		fprintf(f, "\n\n%sverdict: NOT GRADED (the grader's own failure, exit 2)%s\n", C_BOLD,
		        C_END);
		return 0;
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
	return 1;
}

/* One line per criterion, with what to try under a failure. */
static void text_criteria(FILE *f, const check_report *rep)
{
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
}

/* The measured timing, with the rates the view computed. */
static void text_timing(FILE *f, const check_report *rep)
{
	const check_child *ch = &rep->child;
	const lesson *l = rep->opts.l;
	if (!ch->timed)
		return;
	const char *unit = l->kind->rate_unit;
	fprintf(f, "\n%stiming%s at %s: kernel %.3g ms (%.2f %s)", C_BOLD, C_END,
	        KIND_SIZE(l->kind, ch->time_rows, ch->time_cols), ch->kernel_ms,
	        rep->view.kernel_rate, unit);
	if (ch->baseline_ms > 0)
		fprintf(f, ", %s %.3g ms (%.2f %s)", lesson_baseline_name(l), ch->baseline_ms,
		        rep->view.baseline_rate, unit);
	fprintf(f, "; median of %d\n", ch->time_reps);
	if (rep->copy_gbps > 0)
		fprintf(f, "  a copy of the same bytes in the same run: %.3g ms (%.0f GB/s read + "
		        "written); the kernel reads at %.2f of the copy's rate\n", ch->copy_ms,
		        rep->copy_gbps, rep->of_copy);
}

static void text_note(FILE *f, const char *why)
{
	fprintf(f, "\n%snote:%s ", C_BOLD, C_END);
	wrapped(f, why, 6, 6);
}

/* The notes: the sandbox, the analysis, PoCL, the unoptimised sites. */
static void text_notes(FILE *f, const check_report *rep)
{
	if (rep->confine_note[0]) {
		char why[400];
		snprintf(why, sizeof why, "the kernel ran without the full sandbox: %s; it could "
		         "read and write what you can (see GUIDE.md, threat model)", rep->confine_note);
		text_note(f, why);
	}
	if (rep->analysis_note[0])
		text_note(f, rep->analysis_note);
	if (rep->pocl_note[0])
		text_note(f, rep->pocl_note);
	if (rep->size_note[0])
		text_note(f, rep->size_note);
	if (rep->an.sites_unoptimised < 0)
		text_note(f, "the compiler merged __local or __global accesses of several lines into one, "
		          "and a second analysis built without optimisation (-cl-opt-disable) accessed "
		          "memory differently, so it cannot name their lines: the tables and verdicts are "
		          "the optimised build's, and a merged access is shown at a neighbouring line");
	else if (rep->an.sites_unoptimised)
		text_note(f, "the compiler merged __local or __global accesses of several lines (an if and "
		          "its else) into one, which has no line of its own; the access tables and the "
		          "bank and coalescing verdicts come from a second analysis built without "
		          "optimisation (-cl-opt-disable), where each access keeps its line. Races and "
		          "bounds come from the optimised build");
}

/* The verdict line, the hint for the first failure, and where to go next. */
static void text_verdict(FILE *f, const check_report *rep)
{
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
	if (first && hint_for(rep->opts.l, first, hint, sizeof hint) == 0) {
		fprintf(f, "hint (%s): ", first);
		wrapped(f, hint, 9 + (int)strlen(first), 2);
		fprintf(f, "more hints, one at a time: `make hint LESSON=%d`\n", rep->opts.l->number);
	}
	text_next(f, rep);
}

void report_text(FILE *f, const check_report *rep)
{
	colors(f);
	text_subs[0] = (esc_sub){ rep->opts.kernel && *rep->opts.kernel ? rep->opts.kernel : NULL, NULL };
	text_subs[1] = (esc_sub){ NULL, NULL };
	if (!text_head(f, rep))
		return;
	text_criteria(f, rep);
	text_timing(f, rep);
	report_predicted_text(f, rep);
	text_analysis_sizes(f, rep);
	if (rep->analysis) {
		text_local(f, rep);
		text_global(f, rep);
	}
	text_occupancy(f, rep);
	regest_print(f, rep);
	text_tiles(f, rep);
	text_notes(f, rep);
	text_verdict(f, rep);
}
