/* batch_run.c — grading the rows (batch_run.h): a worker per submission, the progress line,
 * the reports, error rows for what could not be graded. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "batch_run.h"
#include "esc.h"
#include "html.h"
#include "report.h"

static cJSON *read_json_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;
	while ((c = getc(f)) != EOF)
		putc(c, m);
	fclose(m);
	fclose(f);
	cJSON *j = cJSON_Parse(buf);
	free(buf);
	return j;
}

void batch_report_path(const batch *b, const submission *s, const char *sub, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s.json", b->out, sub, s->student);
}

const char *batch_verdict_of(cJSON *j)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict"));
	return v ? v : "error";
}

/* s's report when it belongs to s as it is now (same source hash, same grading key), else
 * NULL.  The caller deletes it. */
cJSON *batch_current_report(const batch *b, const submission *s)
{
	char jpath[4400], hash[17] = "";
	batch_report_path(b, s, "", jpath, sizeof jpath);
	cJSON *j = read_json_file(jpath);
	const char *oh = cJSON_GetStringValue(cJSON_GetObjectItem(j, "source_hash"));
	const char *ok = cJSON_GetStringValue(cJSON_GetObjectItem(j, "grading_key"));
	/* an error report on nothing read (the entry could not be opened, or was swapped for a
	 * link) stands as it is: it is an error row, graded again on every resume */
	int unread = oh && !*oh && strcmp(batch_verdict_of(j), "error") == 0;
	if (s->path[0] && !unread && batch_hash_file(s->path, hash) != 0) {
		cJSON_Delete(j);
		return NULL;
	}
	if (!oh || !ok || (!unread && strcmp(oh, hash) != 0) || strcmp(ok, b->key) != 0) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}


/* A string of file-name origin as one line (esc.h): a name with a newline stays one field. */
cJSON *batch_line_string(const char *s)
{
	char *e = esc_dup(s, ESC_LINE, NULL);
	cJSON *j = cJSON_CreateString(e ? e : "");
	free(e);
	return j;
}

/* An error report for s: it could not be graded, and why. */
static cJSON *error_report(const batch *b, const char *why)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "lesson", b->o.l->slug);
	cJSON_AddStringToObject(j, "verdict", "error");
	cJSON_AddItemToObject(j, "error", batch_line_string(why));
	cJSON_AddNumberToObject(j, "score", 0);
	return j;
}

/* Write s's report, stamped with who it is and what graded it. */
/* hash: check_hash of the bytes graded (check_report.source_hash), "" when none were */
static void write_report(const batch *b, const submission *s, cJSON *j, const char *hash)
{
	char jpath[4400];
	batch_report_path(b, s, "", jpath, sizeof jpath);
	cJSON_AddStringToObject(j, "student", s->student);
	cJSON_AddItemToObject(j, "path", batch_line_string(s->rel));
	cJSON_AddStringToObject(j, "source_hash", hash);
	cJSON_AddStringToObject(j, "grading_key", b->key);
	report_utf8_clean(j);
	report_write(j, jpath);
	cJSON_Delete(j);
}

/* Gradescope's results.json for an entry that could not be graded: score 0 and why, as
 * run_autograder writes for a submission it cannot grade, so every row has one file and
 * none is left from an earlier grading of the entry. */
static void write_gradescope_error(const batch *b, const submission *s, const char *why)
{
	char gpath[4400], out[600];
	size_t k = (size_t)snprintf(out, sizeof out, "not graded: ");
	esc_str(out + k, sizeof out - k, why, ESC_LINE, NULL);
	cJSON *j = cJSON_CreateObject(), *tests = cJSON_AddArrayToObject(j, "tests");
	cJSON *t = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "score", 0);
	cJSON_AddStringToObject(j, "output", out);
	cJSON_AddStringToObject(t, "name", "submission");
	cJSON_AddNumberToObject(t, "score", 0);
	cJSON_AddNumberToObject(t, "max_score", 0);
	cJSON_AddStringToObject(t, "status", "failed");
	cJSON_AddStringToObject(t, "output", out);
	cJSON_AddItemToArray(tests, t);
	esc_cjson(j, ESC_TEXT, NULL);
	batch_report_path(b, s, "gradescope/", gpath, sizeof gpath);
	report_write(j, gpath);
	cJSON_Delete(j);
}

void batch_page_path(const batch *b, const submission *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.html", b->out, s->student);
}

/* An error row for s: its report and its Gradescope file (and no page from before). */
static void write_error(const batch *b, const submission *s, const char *why)
{
	char page[4400];
	batch_page_path(b, s, page, sizeof page);
	unlink(page);
	write_report(b, s, error_report(b, why), "");
	write_gradescope_error(b, s, why);
}

/* Grade s into <out>/<student>.json (and its Gradescope file).  Returns the check's exit
 * code: 0 pass, 1 fail, 2 the entry could not be graded. */
static int grade_one(const batch *b, const submission *s)
{
	if (!s->path[0]) {
		write_error(b, s, s->problem);
		return 2;
	}
	check_opts o = b->o;
	char real[8400];
	snprintf(real, sizeof real, "%s/%s", b->within, s->rel);
	o.kernel = s->path;
	o.within = b->within[0] ? real : NULL;
	check_report rep;
	char gpath[4400];
	int rc = check_lesson(&o, &rep);
	if (rc == 2 && !rep.source_hash[0] && rep.grader_error[0]) {
		/* nothing was read (a second name, a path swapped after the listing): an error row,
		 * as for the entries discover() turned down, never "the grader could not run" */
		char why[sizeof rep.grader_error + sizeof s->rel];
		size_t n = strlen(s->path);   /* named as in the table, never by the grader's DIR */
		if (strncmp(rep.grader_error, s->path, n) == 0)
			snprintf(why, sizeof why, "%s%s", s->rel, rep.grader_error + n);
		else
			snprintf(why, sizeof why, "%s", rep.grader_error);
		check_free(&rep);
		write_error(b, s, why);
		return 2;
	}
	cJSON *j = report_json(&rep), *gs = report_gradescope(&rep);
	batch_report_path(b, s, "gradescope/", gpath, sizeof gpath);
	report_write(gs, gpath);
	batch_page_path(b, s, gpath, sizeof gpath);   /* the student's page, beside the report */
	html_write(&rep, &(html_opts){ 0 }, gpath);
	cJSON_Delete(gs);
	check_free(&rep);
	write_report(b, s, j, rep.source_hash);
	return rc;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int batch_cpu_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Each check runs Oclgrind (and PoCL) on threads of its own, by default one per core: with
 * `jobs` checks at once, each gets cores / jobs, so -j never oversubscribes the machine.  An
 * instructor's own OCLGRIND_NUM_THREADS / POCL_MAX_PTHREAD_COUNT are kept. */
void batch_share_threads(int cores, int jobs)
{
	char n[16];
	snprintf(n, sizeof n, "%d", cores / jobs > 1 ? cores / jobs : 1);
	setenv("OCLGRIND_NUM_THREADS", n, 0);
	setenv("POCL_MAX_PTHREAD_COUNT", n, 0);
}

/* Where the batch stands, for the progress line. */
typedef struct progress {
	int total, done, failed, errors, tty, shown;
	double t0, drawn;
} progress;

static void fmt_time(double s, char *buf, size_t len)
{
	int t = (int)(s + 0.5);
	snprintf(buf, len, t >= 60 ? "%dm%02ds" : "%.0d%ds", t / 60, t % 60);
}

/* The line at the bottom of a terminal: done/total, failures, elapsed, ETA. */
static void progress_draw(progress *p)
{
	if (!p->tty)
		return;
	double el = now_s() - p->t0;
	char e[32], eta[32] = "?";
	fmt_time(el, e, sizeof e);
	if (p->done)
		fmt_time(el / p->done * (p->total - p->done), eta, sizeof eta);
	printf("\r\033[K[%d/%d] %d failed, %d errors, %s elapsed, ETA %s", p->done, p->total,
	       p->failed, p->errors, e, eta);
	fflush(stdout);
	p->shown = 1;
	p->drawn = now_s();
}

/* One finished entry: a plain line (above the progress line on a terminal). */
static void progress_note(progress *p, const batch *b, const submission *s, int kept)
{
	cJSON *j = batch_current_report(b, s);
	const char *v = j ? batch_verdict_of(j) : "error";
	char why[500] = "";
	if (strcmp(v, "error") == 0)    /* the line's one string of untrusted origin: escaped */
		esc_str(why, sizeof why, j ? cJSON_GetStringValue(cJSON_GetObjectItem(j, "error")) ?
		        cJSON_GetStringValue(cJSON_GetObjectItem(j, "error")) : "" :
		        "no report was written", ESC_LINE, NULL);
	else if (strcmp(v, "fail") == 0) {
		cJSON *cr;
		cJSON_ArrayForEach(cr, cJSON_GetObjectItem(j, "criteria"))
			if (!why[0] && cJSON_IsFalse(cJSON_GetObjectItem(cr, "passed")))
				snprintf(why, sizeof why, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(cr, "id")));
	}
	p->done++;
	p->failed += strcmp(v, "fail") == 0;
	p->errors += strcmp(v, "error") == 0;
	if (p->shown)
		printf("\r\033[K");
	printf("[%d/%d] %-24s %s%s%s%s%s\n", p->done, p->total, s->student, v, why[0] ? " (" : "",
	       why, why[0] ? ")" : "", kept ? ", unchanged: kept" : "");
	cJSON_Delete(j);
	progress_draw(p);
}

/* A worker: grades one entry in a process of its own, so a grader crash costs one row. */
static pid_t start_worker(const batch *b, const submission *s)
{
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);     /* a killed batch takes its workers along */
		if (getppid() != parent)
			_exit(2);
		_exit(grade_one(b, s));
	}
	return pid;
}

/* This shard's entries into todo, those with an up-to-date report noted as kept; returns how
 * many are left to grade (the first ones of todo), or -1 when out of memory. */
static int plan(const batch *b, progress *p, int *todo)
{
	int n = 0, left = 0, kept = 0;
	for (int i = 0; i < b->n; i++)
		if (i % b->nshards == b->shard)
			todo[n++] = i;
	char *fresh = calloc(n + 1, 1);
	if (!fresh)
		return -1;
	for (int k = 0; k < n; k++) {
		cJSON *j = b->force ? NULL : batch_current_report(b, &b->subs[todo[k]]);
		fresh[k] = j && strcmp(batch_verdict_of(j), "error") != 0;   /* error rows: look again */
		kept += fresh[k];
		cJSON_Delete(j);
	}
	p->total = n;
	if (b->nshards > 1)
		printf("shard %d/%d: %d of the %d entries of %s, %d to grade, %d at a time\n", b->shard,
		       b->nshards, n, b->n, b->dir, n - kept, b->jobs);
	else
		printf("%d entries in %s, %d to grade, %d at a time\n", b->n, b->dir, n - kept, b->jobs);
	for (int k = 0; k < n; k++) {
		if (fresh[k])
			progress_note(p, b, &b->subs[todo[k]], 1);
		else
			todo[left++] = todo[k];
	}
	free(fresh);
	return left;
}

/* One worker has ended: a worker that died without its exit code leaves an error report. */
static void reap(const batch *b, progress *p, const submission *s, int st)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 2) {
		char why[200];
		snprintf(why, sizeof why, "the grader's process for it ended abnormally (%s): a grader "
		         "failure, not the student's", WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) :
		         "exit status out of range");
		write_error(b, s, why);
	}
	progress_note(p, b, s, 0);
}

/* Grade the entries of this shard, b->jobs at a time.  Returns the number of error rows. */
int batch_run_all(const batch *b)
{
	progress p = { .tty = isatty(1), .t0 = now_s() };
	int *todo = malloc((b->n + 1) * sizeof *todo), *slot = calloc(b->jobs, sizeof *slot);
	pid_t *pid = calloc(b->jobs, sizeof *pid);
	int ntodo = todo && slot && pid ? plan(b, &p, todo) : -1, next = 0, running = 0;
	if (ntodo < 0) {
		free(todo), free(pid), free(slot);
		return -1;
	}
	progress_draw(&p);
	while (next < ntodo || running) {
		for (int w = 0; w < b->jobs && next < ntodo; w++) {
			if (pid[w])
				continue;
			slot[w] = todo[next++];
			pid[w] = start_worker(b, &b->subs[slot[w]]);
			if (pid[w] < 0) {                 /* no process: this entry is a grader error */
				pid[w] = 0;
				write_error(b, &b->subs[slot[w]], "the grader could not start a process "
				            "for it (out of processes?)");
				progress_note(&p, b, &b->subs[slot[w]], 0);
			} else
				running++;
		}
		int st;
		pid_t done = waitpid(-1, &st, WNOHANG);
		if (done <= 0) {
			if (p.tty && now_s() - p.drawn >= 1)
				progress_draw(&p);       /* the clock moves on between finishes */
			usleep(50000);
			continue;
		}
		for (int w = 0; w < b->jobs; w++)
			if (pid[w] == done) {
				pid[w] = 0;
				running--;
				reap(b, &p, &b->subs[slot[w]], st);
			}
	}
	if (p.shown)
		printf("\r\033[K");
	printf("%d entries: %d graded, %d unchanged (kept), %d errors\n", p.total, ntodo,
	       p.total - ntodo, p.errors);
	free(todo), free(pid), free(slot);
	return p.errors;
}

