/* report.h — what a check says: a short terminal report (colour on a TTY, NO_COLOR respected)
 * and the JSON report (DESIGN.md keys) through libcjson. */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>

#include "check.h"

/* Print the terminal report of rep to f. */
void report_text(FILE *f, const check_report *rep);
/* Build the JSON report (caller deletes it). */
cJSON *report_json(const check_report *rep);
/* Write report_json() to path; 0 on success. */
int report_write_json(const check_report *rep, const char *path);
/* Whether to colour f (a TTY and NO_COLOR unset). */
int report_color(FILE *f);

#endif
