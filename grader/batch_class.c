/* batch_class.c — the class's tables from the reports (batch_class.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "batch_class.h"
#include "classsum.h"
#include "esc.h"
#include "html.h"
#include "report.h"

/* One quoted cell: the one output helper of grades.csv for text of untrusted origin.  The
 * text is escaped as one line (esc.h: no control character, no newline, valid UTF-8), then
 * quoted. */
static void csv_field(FILE *f, const char *raw)
{
	char *e = esc_dup(raw, ESC_LINE, NULL);
	const char *s = e ? e : "";
	fputc('"', f);
	if (strchr("=+-@\t\r", s[0]) && s[0])
		fputc('\'', f);     /* a spreadsheet must not read a student's name as a formula */
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
	free(e);
}

static const char *crit_status(cJSON *j, const char *id)
{
	cJSON *cr;
	cJSON_ArrayForEach(cr, cJSON_GetObjectItem(j, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cr, "id")), id) == 0)
			return cJSON_GetStringValue(cJSON_GetObjectItem(cr, "status"));
	return "";
}

/* One entry's row of grades.csv and grades.json, from its report (NULL: none up to date). */
static void add_row(const batch *b, const submission *s, cJSON *j, FILE *csv, cJSON *all,
                    batch_class_summary *cs, classsum *sum)
{
	const lesson *l = b->o.l;
	const char *verdict = j ? batch_verdict_of(j) : "error", *first = "", *why = "";
	cJSON *sc = cJSON_GetObjectItem(j, "score"), *mx = cJSON_GetObjectItem(j, "max_score"), *cr;
	cJSON_ArrayForEach(cr, cJSON_GetObjectItem(j, "criteria"))
		if (!first[0] && cJSON_IsFalse(cJSON_GetObjectItem(cr, "passed")))
			first = cJSON_GetStringValue(cJSON_GetObjectItem(cr, "id"));
	if (!s->path[0])              /* unusable as found: the row says why, report or not */
		verdict = "error", why = s->problem;
	else if (strcmp(verdict, "error") == 0)
		why = !j ? "not graded: no up-to-date report in the output folder (run the batch, or "
		           "the missing shard, again)" :
		      cJSON_GetStringValue(cJSON_GetObjectItem(j, "error")) ?
		      cJSON_GetStringValue(cJSON_GetObjectItem(j, "error")) : "";
	csv_field(csv, s->student);
	fputc(',', csv);
	csv_field(csv, s->rel);
	fprintf(csv, ",%s,%d,%d,", verdict, sc ? sc->valueint : 0, mx ? mx->valueint : 0);
	csv_field(csv, why[0] ? why : first);
	cs->n++;
	cs->passed += strcmp(verdict, "pass") == 0;
	cs->failed += strcmp(verdict, "fail") == 0;
	cs->errors += strcmp(verdict, "error") == 0;
	for (int c = 0; c < CRIT_COUNT; c++) {
		if (!(l->criteria & CRIT_BIT(c)))
			continue;
		const char *st = crit_status(j, lesson_crit_id(c));
		cs->crit_failed[c] += strcmp(st, "fail") == 0;
		fprintf(csv, ",%s", st);
	}
	fputc('\n', csv);
	char path[200];
	snprintf(path, sizeof path, "%s.json", s->student);   /* beside grades.json: movable */
	cJSON *row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "student", s->student);
	cJSON_AddItemToObject(row, "path", batch_line_string(s->rel));
	cJSON_AddStringToObject(row, "verdict", verdict);
	cJSON_AddNumberToObject(row, "score", sc ? sc->valueint : 0);
	cJSON_AddNumberToObject(row, "max_score", mx ? mx->valueint : 0);
	cJSON_AddItemToObject(row, "first_failure", batch_line_string(why[0] ? why : first));
	cJSON_AddStringToObject(row, "report", path);
	cJSON_AddItemToArray(all, row);
	char page[4400];
	batch_page_path(b, s, page, sizeof page);
	classsum_add(sum, s->student, cJSON_GetStringValue(cJSON_GetObjectItem(row, "path")),
	             verdict, sc ? sc->valueint : 0, mx ? mx->valueint : 0, why, j,
	             strcmp(verdict, "error") && access(page, R_OK) == 0);
}

/* class.json and index.html (classsum.h, html.h) beside grades.json; 0, or -1. */
static int class_pages(const batch *b, const classsum *sum)
{
	char path[4300];
	cJSON *cj = classsum_json(sum);
	report_utf8_clean(cj);
	snprintf(path, sizeof path, "%s/class.json", b->out);
	int rc = report_write(cj, path);
	snprintf(path, sizeof path, "%s/index.html", b->out);
	if (html_class_write(cj, path) != 0)
		rc = -1;
	cJSON_Delete(cj);
	return rc;
}

/* grades.csv and grades.json from the reports that are up to date; 0, or -1 when they could
 * not be written. */
int batch_class_write(const batch *b, batch_class_summary *cs)
{
	const lesson *l = b->o.l;
	char path[4300], tmp[4400];
	snprintf(path, sizeof path, "%s/grades.csv", b->out);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *csv = report_create(tmp);
	if (!csv)
		return -1;
	cJSON *all = cJSON_CreateArray();
	memset(cs, 0, sizeof *cs);
	fprintf(csv, "student,path,verdict,score,max_score,first_failure");
	for (int c = 0; c < CRIT_COUNT; c++)
		if (l->criteria & CRIT_BIT(c))
			fprintf(csv, ",%s", lesson_crit_id(c));
	fputc('\n', csv);
	classsum *sum = classsum_new(l);
	for (int i = 0; sum && i < b->n; i++) {
		cJSON *j = batch_current_report(b, &b->subs[i]);
		add_row(b, &b->subs[i], j, csv, all, cs, sum);
		cJSON_Delete(j);
	}
	int rc = fclose(csv) == 0 && rename(tmp, path) == 0 ? 0 : -1;
	snprintf(path, sizeof path, "%s/grades.json", b->out);
	report_utf8_clean(all);
	if (report_write(all, path) != 0)
		rc = -1;
	cJSON_Delete(all);
	if (!sum || class_pages(b, sum) != 0)
		rc = -1;
	classsum_free(sum);
	return rc;
}

void batch_class_print(const batch *b, const batch_class_summary *cs)
{
	printf("class summary: %d of %d passed, %d failed, %d errors\n", cs->passed, cs->n,
	       cs->failed, cs->errors);
	printf("failed per criterion:");
	const char *sep = " ";
	for (int c = 0; c < CRIT_COUNT; c++)
		if (b->o.l->criteria & CRIT_BIT(c)) {
			printf("%s%s %d", sep, lesson_crit_id(c), cs->crit_failed[c]);
			sep = ", ";
		}
	printf("\n");
}

