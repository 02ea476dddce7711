/* html.h — the HTML renderers: one self-contained page per check (`--html FILE`, html.c and
 * the drawings of html_svg.c) and one class index per batch (html_class.c).
 *
 * A renderer, like the text and JSON ones (report_text.c, report_json.c): it formats what the check computed
 * and computes nothing.  The page is drawn from the check's JSON report (report_json), so
 * everything it shows is in the JSON too, plus the source the check graded
 * (check_report.source).  Pages fetch nothing (a Content-Security-Policy meta tag forbids
 * every fetch: no script, font, image or style from anywhere), read the same with
 * JavaScript off (there is none: the drawings are inline SVG the grader writes), carry a
 * text equivalent for every drawing (<title>, <desc> and a table), use the Okabe-Ito
 * colour-blind-safe palette with a mark besides each colour, and print on paper.
 *
 * Every string of kernel, file-name or child origin is escaped twice on its way out: first
 * by esc.h (control characters, invalid UTF-8 and direction controls made visible, as in
 * the text report), then for HTML (& < > " ' as entities), so a hostile source or file name
 * cannot add markup. */
#ifndef HTML_H
#define HTML_H

#include <stdio.h>
#include <cjson/cJSON.h>

#include "check.h"

typedef struct html_opts {
	int reload_s;   /* > 0: the page reloads itself every reload_s seconds (clgrade watch
	                   keeps rewriting it: a meta refresh, which needs no script or network) */
} html_opts;

/* The page of one check, to f. */
void html_page(FILE *f, const check_report *rep, const html_opts *o);

/* The page written to path through a temporary file and a rename (a watching browser never
 * reads half a page; a planted link at path is replaced, never followed).  0, or -1. */
int html_write(const check_report *rep, const html_opts *o, const char *path);

/* The page's findings on the source as text, one "line L: ..." line each, into buf (always
 * terminated; "" when there are none): what Gradescope's output shows of the page
 * (report_gradescope).  report is report_json()'s tree. */
void html_findings_text(const cJSON *report, char *buf, size_t len);

/* ---- shared by html.c, html_svg.c, html_class.c ------------------------------------------ */

/* s (already through esc.h) with & < > " ' as entities. */
void html_put(FILE *f, const char *s);
/* printf, then nothing escaped: for the renderer's own markup and numbers only. */
void html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* <!doctype>, <head> with the CSP, the title (escaped) and the stylesheet, then <body>. */
void html_head(FILE *f, const char *title, const html_opts *o);
void html_tail(FILE *f);
/* The number of an object's key, 0 when absent; its string ("" when absent). */
double html_num(const cJSON *o, const char *key);
const char *html_str(const cJSON *o, const char *key);

/* Drawings (html_svg.c), each an <svg> with <title>/<desc> and a table beside it. */
/* The lane -> bank grid of one __local site's worst warp (site: a local_memory.sites row). */
void html_svg_lanes(FILE *f, const cJSON *site);
/* The worst request of one __global site as the 32-byte sectors it touches against the ideal. */
void html_svg_sectors(FILE *f, const cJSON *site);
/* Occupancy per profile as bars with the limiter (occupancy: the JSON's array). */
void html_svg_occupancy(FILE *f, const cJSON *occupancy);
/* Lesson 4's TILE sweep (tiles: the JSON's array): time, __local bytes and occupancy. */
void html_svg_sweep(FILE *f, const cJSON *tiles);
/* The predicted time's terms (JSON predicted.breakdown) as bars, the kernel's beside the
 * baseline's, the limiting one marked, with a table as their text equivalent. */
void html_svg_predicted(FILE *f, const cJSON *predicted);

/* ---- the class index (html_class.c) ------------------------------------------------------- */

/* index.html of a batch from its class summary (batch_class.c writes it to class.json too): the
 * score histogram, the fail rate of each criterion, the most common first failures with an
 * example each, and one row per student linking to <student>.html.  0, or -1. */
int html_class_write(const cJSON *summary, const char *path);

#endif
