/* batch_run.h — the grading stage of `clgrade batch` (batch.h): every row graded by the same
 * check as `make check`, each in a worker process of its own, -j at a time, its report and
 * Gradescope file written atomically, a report reused when its source and grading key are
 * unchanged.  The class tables (batch_class.h) read what it wrote. */
#ifndef BATCH_RUN_H
#define BATCH_RUN_H

#include <cjson/cJSON.h>

#include "batch_find.h"
#include "check.h"

/* One batch run: its options, its folders and its entries. */
typedef struct batch {
	check_opts o;
	const char *dir, *out;
	char within[4096];        /* realpath of dir: check_opts.within */
	char key[512];            /* what a kept report must have been graded with */
	int force, jobs, shard, nshards, merge;
	submission *subs;
	int n;
} batch;


/* <out>/<sub><student>.json (sub: "" or "gradescope/"). */
void batch_report_path(const batch *b, const submission *s, const char *sub, char *buf, size_t len);
/* <out>/<student>.html, the student's page. */
void batch_page_path(const batch *b, const submission *s, char *buf, size_t len);
/* A report's "verdict" ("" when none). */
const char *batch_verdict_of(cJSON *j);
/* The entry's report when it is up to date (same source hash and grading key), or NULL. */
cJSON *batch_current_report(const batch *b, const submission *s);
/* A JSON string of s escaped as one line (esc.h). */
cJSON *batch_line_string(const char *s);
/* Grade every row of the shard (not the ones up to date, unless --force): the number of
 * error rows. */
int batch_run_all(const batch *b);
/* The cores this process may use, and each check's share of them when jobs run at once. */
int batch_cpu_count(void);
void batch_share_threads(int cores, int jobs);

#endif
