/* report_gpum.c — the GPU time model's part of the report (rep->pred, gpum_check.c): the
 * "predicted on ..." lines of the text and timing.predicted of the JSON.  Formats only. */
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The lines whose warps run with lanes idle, as one wrapped line. */
static void text_lanes(FILE *f, const gpum_result *r)
{
	char line[900];
	size_t n = 0;
	if (!r->nlines)
		return;
	for (int i = 0; i < r->nlines && n < sizeof line; i++) {
		const gpum_line *g = &r->lines[i];
		n += (size_t)snprintf(line + n, sizeof line - n, "%s%d:%d %s %s %.0f%%",
		                      i ? ", " : "warp execution efficiency below 100%: ", g->line,
		                      g->column, g->local ? "__local" : "__global", g->access,
		                      100 * g->efficiency);
	}
	if (n < sizeof line)
		snprintf(line + n, sizeof line - n, " (active lanes per warp instruction; idle lanes "
		         "still take the pipe's turn)");
	fprintf(f, "    ");
	report_wrap(f, line, 4, 6);
}

/* Lesson 4: the prediction at each TILE of the sweep, shown and never judged. */
static void text_sweep(FILE *f, const check_predicted *pr)
{
	char line[900];
	size_t n = 0;
	if (!pr->ntiles)
		return;
	n += (size_t)snprintf(line, sizeof line, "predicted per TILE of the sweep (shown, not judged):");
	for (int t = 0; t < pr->ntiles && n < sizeof line; t++) {
		const check_predicted_tile *pt = &pr->tiles[t];
		if (pt->kernel.ok)
			n += (size_t)snprintf(line + n, sizeof line - n, "%s TILE %d %.3g ms (%s)",
			                      t ? "," : "", pt->tile, pt->kernel.ms, pt->kernel.limiter_key);
		else
			n += (size_t)snprintf(line + n, sizeof line - n, "%s TILE %d not predicted",
			                      t ? "," : "", pt->tile);
	}
	fprintf(f, "    ");
	report_wrap(f, line, 4, 6);
}

void report_predicted_text(FILE *f, const check_report *rep)
{
	const check_predicted *pr = &rep->pred;
	const check_child *ch = &rep->child;
	if (!pr->kernel.ok)
		return;
	char line[900], base[120] = "", bar[40] = "";
	if (pr->ok)
		snprintf(base, sizeof base, ", %s %.3g ms, %.2fx", lesson_baseline_name(rep->opts.l),
		         pr->baseline.ms, pr->speedup);
	if (pr->ok && rep->opts.l->speedup_gpu > 0)
		snprintf(bar, sizeof bar, " (bar %.2fx)", rep->opts.l->speedup_gpu);
	snprintf(line, sizeof line, "predicted on %s%s at %s: yours %.3g ms%s%s; limited by %s",
	         pr->profile->label, pr->profile->validated ? "" : " (profile not validated)",
	         KIND_SIZE(rep->opts.l->kind, pr->rows, pr->cols), pr->kernel.ms, base, bar,
	         pr->kernel.limiter_text);
	fprintf(f, "  ");
	report_wrap(f, line, 2, 4);
	if (ch->timed && strcmp(ch->dev.type, "GPU") == 0 && ch->kernel_ms > 0)
		fprintf(f, "    measured here / predicted: %.2f\n", rep->view.measured_over_predicted);
	text_sweep(f, pr);
	text_lanes(f, &pr->kernel);
}

static void json_sweep(cJSON *p, const check_predicted *pr)
{
	if (!pr->ntiles)
		return;
	cJSON *a = cJSON_AddArrayToObject(p, "tiles");
	for (int t = 0; t < pr->ntiles; t++) {
		const check_predicted_tile *pt = &pr->tiles[t];
		cJSON *x = pt->kernel.ok ? gpum_json(pr->profile, &pt->kernel) : cJSON_CreateObject();
		if (!pt->kernel.ok)
			cJSON_AddNullToObject(x, "kernel_ms");
		cJSON_AddNumberToObject(x, "tile", pt->tile);
		cJSON_AddItemToArray(a, x);
	}
}

void report_predicted_json(cJSON *t, const check_report *rep)
{
	const check_predicted *pr = &rep->pred;
	if (!pr->kernel.ok)
		return;
	cJSON *p = gpum_json(pr->profile, &pr->kernel);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "size"), cJSON_CreateNumber(pr->rows));
	cJSON_AddItemToArray(cJSON_GetObjectItem(p, "size"), cJSON_CreateNumber(pr->cols));
	if (pr->ok) {
		cJSON_AddNumberToObject(p, "baseline_ms", pr->baseline.ms);
		cJSON_AddStringToObject(p, "baseline_name", lesson_baseline_name(rep->opts.l));
		cJSON_AddNumberToObject(p, "speedup", pr->speedup);
		cJSON_AddItemToObject(p, "baseline", gpum_json(pr->profile, &pr->baseline));
	} else {
		cJSON_AddNullToObject(p, "baseline_ms");
		cJSON_AddNullToObject(p, "speedup");
	}
	if (rep->opts.l->speedup_gpu > 0)
		cJSON_AddNumberToObject(p, "bar", rep->opts.l->speedup_gpu);
	const check_child *ch = &rep->child;
	if (ch->timed && strcmp(ch->dev.type, "GPU") == 0)
		cJSON_AddNumberToObject(p, "measured_over_predicted", rep->view.measured_over_predicted);
	json_sweep(p, pr);
	cJSON_AddItemToObject(t, "predicted", p);
}
