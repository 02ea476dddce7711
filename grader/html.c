/* html.c — the HTML page of one check (html.h).
 *
 * Why this file exists: the text report prints the grader's findings as numbers and rows of
 * digits (a lane -> bank picture, sectors per request, an occupancy table, lesson 4's sweep);
 * people read those faster drawn, and an instructor reads a class faster as pages than as
 * terminal logs.  This renderer draws the same results from the check's JSON report, so it
 * computes nothing the JSON does not hold: every figure here is a value of report_json(). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "html.h"
#include "report.h"

/* ---- output helpers ------------------------------------------------------------------------ */

void html_put(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

void html_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
}

double html_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

const char *html_str(const cJSON *o, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
	return s ? s : "";
}

/* Okabe-Ito: orange (conflict), sky blue (broadcast), bluish green (pass), vermillion
 * (fail); every colour also has a mark or a pattern, so none is needed to read the page. */
static const char *css =
	"body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;"
	"color:#111;background:#fff}h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;"
	"border-bottom:1px solid #ccc}table{border-collapse:collapse}td,th{padding:2px 8px;"
	"text-align:left;vertical-align:top}th{background:#f2f2f2}tr.crit td:first-child{white-space:nowrap}.pass{color:#006b4f}"
	".fail{color:#a63c00}.na{color:#555}.verdict{font-size:1.3em;font-weight:bold}"
	".src{font:13px/1.35 ui-monospace,monospace;width:100%}.src td.ln{color:#777;"
	"text-align:right;user-select:none}.src td.code{white-space:pre-wrap}.src tr.hit td.code"
	"{background:#fff3d6}.note{display:inline-block;margin:1px 4px 1px 0;padding:0 6px;"
	"border-radius:3px;border:1px solid #999;font:12px system-ui,sans-serif}"
	".note.bad{border-color:#a63c00;background:#fbe3d6}.note.ok{border-color:#009e73}"
	"figure{margin:1em 0;break-inside:avoid}figcaption{font-weight:bold}svg text{font:10px "
	"system-ui,sans-serif}svg text.mark{font-size:8px}details{margin:.3em 0}pre.log{background:#f6f6f6;padding:.5em;"
	"white-space:pre-wrap}.muted{color:#555}"
	"@media print{body{max-width:none;margin:0;font-size:11pt}a{color:#000}"
	"details>summary{list-style:none}.src tr.hit td.code{background:none;font-weight:bold}"
	"h2{break-after:avoid}}";

void html_head(FILE *f, const char *title, const html_opts *o)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n", f);
	if (o && o->reload_s > 0)
		html_printf(f, "<meta http-equiv=\"refresh\" content=\"%d\">\n", o->reload_s);
	fputs("<title>", f);
	html_put(f, title);
	html_printf(f, "</title>\n<style>%s</style></head><body>\n", css);
}

void html_tail(FILE *f)
{
	fputs("</body></html>\n", f);
}

/* ---- findings on the source ------------------------------------------------------------------ */

/* One finding at a line: its class ("bad" or "ok") and its text (already escaped by esc.h). */
typedef void (*finding_fn)(void *ctx, int line, const char *cls, const char *text);

static void local_findings(const cJSON *j, finding_fn fn, void *ctx)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "local_memory"), "sites")) {
		char t[400];
		int n = (int)html_num(s, "n_way");
		if (html_num(s, "instructions") == 0)
			snprintf(t, sizeof t, "__local %s %s: edge warps only, not priced",
			         html_str(s, "variable"), html_str(s, "access"));
		else if (n > 1)
			snprintf(t, sizeof t, "__local %s %s: %d-way bank conflict (%.1f wavefronts, ideal "
			         "%.1f)", html_str(s, "variable"), html_str(s, "access"), n,
			         html_num(s, "wavefronts"), html_num(s, "ideal_wavefronts"));
		else
			snprintf(t, sizeof t, "__local %s %s: conflict-free", html_str(s, "variable"),
			         html_str(s, "access"));
		fn(ctx, (int)html_num(s, "line"), n > 1 ? "bad" : "ok", t);
	}
}

static void global_findings(const cJSON *j, finding_fn fn, void *ctx)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "global_memory"), "sites")) {
		char t[400];
		int bad = cJSON_IsTrue(cJSON_GetObjectItem(s, "uncoalesced"));
		snprintf(t, sizeof t, "__global %s %s: %.1f sectors per request (ideal %.1f)%s",
		         html_str(s, "variable"), html_str(s, "access"),
		         html_num(s, "sectors_per_request"), html_num(s, "ideal"),
		         bad ? ", uncoalesced" : "");
		fn(ctx, (int)html_num(s, "line"), bad ? "bad" : "ok", t);
	}
}

/* The report's prediction: timing.predicted, or the top-level one of lesson 4 (no single
 * timing); NULL when none. */
static const cJSON *predicted_of(const cJSON *j)
{
	const cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "timing"), "predicted");
	return cJSON_IsObject(p) ? p : cJSON_GetObjectItem(j, "predicted");
}

/* Warp execution efficiency below 100 % (the prediction's, per access: divergence). */
static void warp_findings(const cJSON *j, finding_fn fn, void *ctx)
{
	const cJSON *p = predicted_of(j), *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(p, "warp_efficiency")) {
		char t[300];
		snprintf(t, sizeof t, "%s %s: warp execution efficiency %.0f%% (lanes of a warp idle: "
		         "divergence)", html_str(w, "space"), html_str(w, "access"),
		         100 * html_num(w, "efficiency"));
		/* a tree's later steps idle half their lanes by design: shown, marked only below half */
		fn(ctx, (int)html_num(w, "line"), html_num(w, "efficiency") < 0.5 ? "bad" : "ok", t);
	}
}

static void each_finding(const cJSON *j, finding_fn fn, void *ctx)
{
	const cJSON *d;
	local_findings(j, fn, ctx);
	global_findings(j, fn, ctx);
	warp_findings(j, fn, ctx);
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(j, "diagnostics")) {
		char t[700];
		snprintf(t, sizeof t, "%s: %s", html_str(d, "kind"), html_str(d, "message"));
		fn(ctx, (int)html_num(d, "line"), "bad", t);
	}
}

/* The findings of one line (want), or of no line of the source (want 0: those outside 1..nl). */
typedef struct line_ctx {
	FILE *f;
	int want, nlines, count;
} line_ctx;

static void line_note(void *p, int line, const char *cls, const char *text)
{
	line_ctx *c = p;
	int outside = line < 1 || line > c->nlines;
	if (c->want ? line != c->want : !outside)
		return;
	if (c->f) {
		html_printf(c->f, "<span class=\"note %s\" data-line=\"%d\">%s", cls, line,
		            strcmp(cls, "bad") == 0 ? "&#x2716; " : "&#x2714; ");
		html_put(c->f, text);
		fputs("</span>", c->f);
	}
	c->count++;
}

static int count_lines(const char *s)
{
	int n = *s != '\0';
	for (const char *p = s; *p; p++)
		n += *p == '\n' && p[1];
	return n;
}

/* The source, one table row per line, and each line's findings in a row below it. */
static void html_source(FILE *f, const check_report *rep, const cJSON *j)
{
	char *src = esc_dup(rep->source ? rep->source : "", ESC_TEXT, NULL);
	if (!src || !*src) {
		free(src);
		return;
	}
	int nl = count_lines(src), no = 0;
	fputs("<h2 id=\"source\">Your source, with the findings at their lines</h2>\n"
	      "<table class=\"src\" aria-label=\"source with findings\">\n", f);
	char *line = src;
	for (int i = 1; i <= nl; i++) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		line_ctx count = { NULL, i, nl, 0 }, put = { f, i, nl, 0 };
		each_finding(j, line_note, &count);
		html_printf(f, "<tr id=\"L%d\"%s><td class=\"ln\">%d</td><td class=\"code\">", i,
		            count.count ? " class=\"hit\"" : "", i);
		html_put(f, line);
		fputs("</td></tr>\n", f);
		if (count.count) {
			fputs("<tr class=\"finding\"><td></td><td>", f);
			each_finding(j, line_note, &put);
			fputs("</td></tr>\n", f);
		}
		line = end ? end + 1 : line + strlen(line);
	}
	fputs("</table>\n", f);
	line_ctx rest = { f, 0, nl, 0 };
	fputs("<p class=\"muted\" id=\"unplaced\">", f);
	each_finding(j, line_note, &rest);
	no = rest.count;
	fputs(no ? " (findings the analysis could not place on a line)</p>\n" : "</p>\n", f);
	free(src);
}

typedef struct text_ctx {
	char *buf;
	size_t len, at;
} text_ctx;

static void text_note(void *p, int line, const char *cls, const char *text)
{
	text_ctx *c = p;
	if (c->at + 1 >= c->len)
		return;
	int n = snprintf(c->buf + c->at, c->len - c->at, "%sline %d: %s", c->at ? "\n" : "", line,
	                 text);
	c->at += n > 0 ? (size_t)n : 0;
	if (c->at >= c->len)
		c->at = c->len - 1, c->buf[c->at] = '\0';
}

void html_findings_text(const cJSON *report, char *buf, size_t len)
{
	text_ctx c = { buf, len, 0 };
	if (len)
		buf[0] = '\0';
	each_finding(report, text_note, &c);
}

/* ---- the page's sections ----------------------------------------------------------------------- */

static void html_header(FILE *f, const cJSON *j)
{
	const cJSON *dev = cJSON_GetObjectItem(j, "device");
	const char *v = html_str(j, "verdict");
	fputs("<h1>clgrade: lesson ", f);
	html_put(f, html_str(j, "lesson"));
	fputs("</h1>\n<p>kernel <code id=\"kernel\">", f);
	html_put(f, html_str(j, "kernel"));
	fputs("</code>", f);
	if (*html_str(dev, "name")) {
		fputs("<br><span class=\"muted\">device: ", f);
		html_put(f, html_str(dev, "platform"));
		fputs(" / ", f);
		html_put(f, html_str(dev, "name"));
		fputs(" (", f);
		html_put(f, html_str(dev, "type"));
		fputs(")</span>", f);
	}
	html_printf(f, "<br><span class=\"muted\">seed %.0f (reproduce with --seed %.0f)</span></p>\n",
	            html_num(j, "seed"), html_num(j, "seed"));
	html_printf(f, "<p class=\"verdict %s\" id=\"verdict\" data-verdict=\"%s\">verdict: %s "
	            "&mdash; score %.0f of %.0f</p>\n", strcmp(v, "pass") == 0 ? "pass" : "fail",
	            strcmp(v, "pass") == 0 ? "pass" : strcmp(v, "fail") == 0 ? "fail" : "error",
	            strcmp(v, "pass") == 0 ? "PASS" : strcmp(v, "fail") == 0 ? "FAIL" :
	            "NOT GRADED (the grader's own failure)", html_num(j, "score"),
	            html_num(j, "max_score"));
	if (*html_str(j, "error")) {
		fputs("<p class=\"fail\">error: ", f);
		html_put(f, html_str(j, "error"));
		fputs("</p>\n", f);
	}
}

static void html_criteria(FILE *f, const cJSON *j)
{
	const cJSON *c;
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(j, "criteria")))
		return;
	fputs("<h2 id=\"criteria-h\">Criteria</h2>\n<table id=\"criteria\"><tr><th></th><th>criterion</th>"
	      "<th>why</th></tr>\n", f);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "criteria")) {
		const char *st = html_str(c, "status");
		int pass = strcmp(st, "pass") == 0, fail = strcmp(st, "fail") == 0;
		html_printf(f, "<tr class=\"crit %s\" data-status=\"%s\"><td>%s</td><td>",
		            pass ? "pass" : fail ? "fail" : "na", pass ? "pass" : fail ? "fail" :
		            "not_checked", pass ? "&#x2714; pass" : fail ? "&#x2716; fail" :
		            "&ndash; not checked");
		html_put(f, html_str(c, "id"));
		fputs("</td><td>", f);
		html_put(f, html_str(c, "message"));
		if (*html_str(c, "try")) {
			fputs("<br><b>try:</b> ", f);
			html_put(f, html_str(c, "try"));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* ", <baseline> Y ms, [speedup ]Zx": the baseline named as the report names it (the JSON's
 * baseline_name; "naive baseline" in a report written before it had one), HTML-escaped. */
static void baseline_is(FILE *f, const cJSON *t, const char *speedup_word)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(t, "baseline_name"));
	fputs(", ", f);
	html_put(f, name ? name : "naive baseline");
	html_printf(f, " %.3g ms, %s%.2f&times;", html_num(t, "baseline_ms"), speedup_word,
	            html_num(t, "speedup"));
}

static void html_timing(FILE *f, const cJSON *j)
{
	const cJSON *t = cJSON_GetObjectItem(j, "timing"), *sz = cJSON_GetObjectItem(t, "size");
	if (!cJSON_IsObject(t))
		return;
	(void)sz;
	fputs("<h2 id=\"timing-h\">Timing</h2>\n<p id=\"timing\">at ", f);
	html_put(f, html_str(t, "size_text"));
	html_printf(f, ": kernel %.3g ms", html_num(t, "kernel_ms"));
	if (cJSON_IsNumber(cJSON_GetObjectItem(t, "baseline_ms")))
		baseline_is(f, t, "speedup ");
	html_printf(f, "; median of %.0f runs</p>\n", html_num(t, "runs"));
}

/* The predicted GPU time (gpumodel.h, JSON timing.predicted or the top-level predicted of
 * lesson 4): what limits it, drawn as one bar per term for the kernel and the baseline. */
static void html_predicted(FILE *f, const cJSON *j)
{
	const cJSON *p = predicted_of(j);
	if (!cJSON_IsObject(p) || !cJSON_IsNumber(cJSON_GetObjectItem(p, "kernel_ms")))
		return;
	fputs("<h2 id=\"predicted\">Predicted GPU time</h2>\n<p id=\"predicted-line\">on ", f);
	html_put(f, html_str(p, "profile"));
	html_printf(f, "%s: yours %.3g ms", cJSON_IsTrue(cJSON_GetObjectItem(p, "validated")) ? "" :
	            " (a profile not validated)", html_num(p, "kernel_ms"));
	if (cJSON_IsNumber(cJSON_GetObjectItem(p, "baseline_ms")))
		baseline_is(f, p, "");
	fputs("; limited by ", f);
	html_put(f, html_str(p, "limiter_text"));
	fputs("</p>\n", f);
	html_svg_predicted(f, p);
}

static void html_memory(FILE *f, const cJSON *j)
{
	const cJSON *lm = cJSON_GetObjectItem(j, "local_memory"), *s;
	const cJSON *gm = cJSON_GetObjectItem(j, "global_memory");
	if (cJSON_GetArraySize(cJSON_GetObjectItem(lm, "sites"))) {
		fputs("<h2 id=\"local\">__local accesses: one warp of each site, lanes &rarr; banks</h2>\n<p class=\""
		      "muted\">Simulated under Oclgrind, bank model ", f);
		html_put(f, html_str(lm, "profile"));
		fputs("; each site's worst warp (the one with the most lanes on one bank).</p>\n", f);
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(lm, "sites"))
			html_svg_lanes(f, s);
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItem(gm, "sites"))) {
		fputs("<h2 id=\"global\">__global accesses: one warp request of each site, 32-byte sectors</h2>\n", f);
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(gm, "sites"))
			html_svg_sectors(f, s);
	}
}

static void html_notes(FILE *f, const cJSON *j)
{
	static const char *keys[] = { "analysis_note", "pocl_note", "size_note" };
	for (int i = 0; i < 3; i++)
		if (*html_str(j, keys[i])) {
			fputs("<p class=\"note-text\"><b>note:</b> ", f);
			html_put(f, html_str(j, keys[i]));
			fputs("</p>\n", f);
		}
	if (*html_str(j, "sandbox") && strcmp(html_str(j, "sandbox"), "confined") != 0) {
		fputs("<p><b>note:</b> the kernel ran without the full sandbox: ", f);
		html_put(f, html_str(j, "sandbox"));
		fputs("</p>\n", f);
	}
	if (*html_str(j, "build_log")) {
		fputs("<h2 id=\"build\">Build log</h2>\n<pre class=\"log\" id=\"build-log\">", f);
		html_put(f, html_str(j, "build_log"));
		fputs("</pre>\n", f);
	}
}

void html_page(FILE *f, const check_report *rep, const html_opts *o)
{
	cJSON *j = report_json(rep);
	char title[400];
	snprintf(title, sizeof title, "clgrade %s: %s", html_str(j, "lesson"), html_str(j, "verdict"));
	html_head(f, title, o);
	if (o && o->reload_s > 0)
		fputs("<p class=\"muted\" id=\"watching\">clgrade watch rewrites this page on every "
		      "save; it reloads itself.</p>\n", f);
	html_header(f, j);
	html_criteria(f, j);
	html_source(f, rep, j);
	html_timing(f, j);
	html_predicted(f, j);
	html_memory(f, j);
	if (cJSON_GetArraySize(cJSON_GetObjectItem(j, "occupancy"))) {
		fputs("<h2 id=\"occupancy\">Occupancy per GPU profile</h2>\n", f);
		html_svg_occupancy(f, cJSON_GetObjectItem(j, "occupancy"));
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItem(j, "tiles"))) {
		fputs("<h2 id=\"sweep\">TILE sweep</h2>\n", f);
		html_svg_sweep(f, cJSON_GetObjectItem(j, "tiles"));
	}
	html_notes(f, j);
	html_tail(f);
	cJSON_Delete(j);
}

int html_write(const check_report *rep, const html_opts *o, const char *path)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = report_create(tmp);
	if (!f)
		return -1;
	html_page(f, rep, o);
	int rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0)
		unlink(tmp);
	return rc;
}
