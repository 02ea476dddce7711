/* report.h — the renderers of a check: a short terminal report (report_text.c; colour on a
 * TTY, NO_COLOR respected), the JSON report (report_json.c; keys as in GUIDE.md, "The JSON
 * report") through libcjson, Gradescope's results (report_gs.c), and what they share
 * (report.c).  They format what the stages computed (check.h; the figures: check_view.h). */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>

#include "check.h"

/* Print the terminal report of rep to f. */
void report_text(FILE *f, const check_report *rep);
/* Build the JSON report (caller deletes it). */
cJSON *report_json(const check_report *rep);
/* Write report_json() to path (through a temporary file and rename); 0 on success. */
int report_write_json(const check_report *rep, const char *path);
/* Write any JSON tree to path the same way; 0 on success. */
int report_write(cJSON *j, const char *path);
/* A new file at path for writing: whatever was there (a planted link too) is removed first, and
 * the file is created, never opened through a link; NULL with errno on failure. */
FILE *report_create(const char *path);
/* Gradescope's results.json for this check: one test per criterion (1 point each). */
cJSON *report_gradescope(const check_report *rep);
/* Criteria passed into *score; returns the maximum: criteria not left unchecked by the
 * grading environment (check_crit.env). */
int report_score(const check_report *rep, int *score);
/* Replace the bytes of j's strings (recursively) that are not valid UTF-8 with '?'. */
void report_utf8_clean(cJSON *j);
/* Print raw wrapped to the terminal's width, from column col, continuation lines indented. */
void report_wrap(FILE *f, const char *raw, int col, int indent);
/* The GPU time model's lines (report_gpum.c): "predicted on ..." in the text, and
 * "predicted" in the JSON object t (timing; the report's root when nothing was timed). */
void report_predicted_text(FILE *f, const check_report *rep);
void report_predicted_json(cJSON *t, const check_report *rep);
/* The tracer's JSON as the renderers read it: a number member (0 when absent), a string
 * member ("?" when absent). */
int report_ival(cJSON *o, const char *k);
double report_dval(cJSON *o, const char *k);
const char *report_sval(cJSON *o, const char *k);
/* Whether to colour f (a TTY and NO_COLOR unset). */
int report_color(FILE *f);

#endif
