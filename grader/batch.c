/* batch.c — grade a folder of submissions (batch.h).  Each submission goes through the same
 * check as a student's own `make check` — sandboxed children, include policy, time limit — in a
 * worker process of its own, -j at a time, so a hostile or broken kernel is a row in the CSV,
 * never a stopped batch.  Every entry of the folder is exactly one row.  Reports are written
 * atomically and reused when the source and the grading key are unchanged, so an interrupted
 * batch resumes; shards of one folder (a Slurm job array) write disjoint reports and a merge
 * writes the class tables. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bank.h"
#include "batch.h"
#include "check.h"
#include "classsum.h"
#include "cliopt.h"
#include "confine.h"
#include "esc.h"
#include "html.h"
#include "lesson.h"
#include "report.h"
#include "sandbox.h"

enum { MAX_SOURCE = 256 * 1024 };   /* check.c reads no more of a kernel than this */

/* One entry of the submissions folder: every entry is one row, usable or not. */
typedef struct submission {
	char student[128];   /* file-system-safe name, unique in the batch */
	char rel[1024];      /* the entry as found, relative to DIR: "bob smith.cl", "carol/k.cl" */
	char path[4096];     /* the kernel file; "" when the entry cannot be graded */
	char problem[400];   /* why it cannot be graded */
	int exact;           /* the safe name is the entry's own name: it wins a clash */
} submission;

/* A growing list of submissions (no limit on the count). */
typedef struct sublist {
	submission *v;
	int n, cap;
} sublist;

int batch_hash_file(const char *path, char out[17])
{
	struct stat st;
	int fd = sandbox_open_regular(path, 1, &st);
	if (fd < 0)
		return -1;
	unsigned long long h = CHECK_HASH_INIT;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		h = check_hash(h, buf, (size_t)n);
	close(fd);
	snprintf(out, 17, "%016llx", h);
	return n < 0 ? -1 : 0;
}

static void safe_name(const char *in, char *out, size_t len)
{
	size_t i = 0;
	for (; in[i] && i + 1 < len; i++) {
		char ch = in[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		         ch == '-' || ch == '_' || ch == '.' || ch == '@' || ch == '+';
		out[i] = ok ? ch : '_';
	}
	out[i] = '\0';
	if (out[0] == '.')
		out[0] = '_';
	if (!out[0])
		snprintf(out, len, "_");
}

/* ".cl" in any case: ZED.CL is a kernel too. */
static int is_cl(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcasecmp(name + n - 3, ".cl") == 0;
}

/* Can the grader take this regular file as a kernel?  0, or -1 with why in problem. */
static int screen_source(const char *path, off_t size, char *problem, size_t len)
{
	if (size > MAX_SOURCE) {
		snprintf(problem, len, "too large (%lld bytes; a kernel may have at most 256 KiB)",
		         (long long)size);
		return -1;
	}
	/* the entry may have been swapped since it was listed */
	struct stat st;
	int fd = sandbox_open_regular(path, 1, &st);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		snprintf(problem, len, "cannot be read by the grader (%s)", fd < 0 && errno == EINVAL ?
		         "not a regular file any more" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char buf[4096];
	size_t n;
	int nul = 0;
	while (!nul && (n = fread(buf, 1, sizeof buf, f)) > 0)
		nul = memchr(buf, '\0', n) != NULL;
	fclose(f);
	if (nul)
		snprintf(problem, len, "not text (it contains NUL bytes: a binary file, or UTF-16; "
		         "save it as UTF-8)");
	return nul ? -1 : 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .cl file of a student's folder: the only one, or the one named after the lesson.
 * Hidden files, symlinks and subfolders inside it are never candidates. */
static void pick_in_folder(const lesson *l, const char *dir, const char *name, submission *s)
{
	DIR *d = opendir(dir);
	int n = 0, links = 0;
	char **cand = NULL, named[300], list[200] = "";
	const char *chosen = NULL;
	snprintf(named, sizeof named, "%s.cl", l->slug);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char full[4400];
		struct stat st;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || !is_cl(e->d_name) || lstat(full, &st) != 0)
			continue;
		if (!S_ISREG(st.st_mode)) {
			links += S_ISLNK(st.st_mode);   /* could point at any file the grader can read */
			continue;
		}
		char **more = realloc(cand, (n + 1) * sizeof *cand);
		if (!more)
			break;
		cand = more;
		cand[n++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	qsort(cand, n, sizeof *cand, by_string);     /* the same message on every file system */
	for (int i = 0; i < n; i++) {
		char shown[100];   /* as found: every renderer escapes it (esc.h) */
		snprintf(shown, sizeof shown, "%s", cand[i]);
		if (strlen(list) + strlen(shown) + 8 < sizeof list)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", shown);
		else if (!strstr(list, "..."))
			strcat(list, ", ...");
		if (strcasecmp(cand[i], named) == 0)
			chosen = cand[i];
	}
	if (!chosen && n == 1)
		chosen = cand[0];
	if (!d)
		snprintf(s->problem, sizeof s->problem, "folder cannot be read by the grader");
	else if (!chosen && n > 1)
		snprintf(s->problem, sizeof s->problem, "%d candidate .cl files (%s) and none named %s: "
		         "keep one", n, list, named);
	else if (!chosen)
		snprintf(s->problem, sizeof s->problem, "no .cl file in the folder%s", links ?
		         " (symbolic links are not followed: they could point at any file)" : "");
	snprintf(s->rel, sizeof s->rel, "%s/%s", name, chosen ? chosen : "");
	struct stat st;
	if (chosen) {
		snprintf(s->path, sizeof s->path, "%s/%s", dir, chosen);
		if (lstat(s->path, &st) != 0 || screen_source(s->path, st.st_size, s->problem,
		                                               sizeof s->problem) != 0)
			s->path[0] = '\0';
	}
	for (int i = 0; i < n; i++)
		free(cand[i]);
	free(cand);
}

/* One row for one entry of DIR, graded or saying why not. */
static void classify(const lesson *l, const char *dir, const char *name, submission *s)
{
	char full[4400], stem[1024];
	struct stat st;
	memset(s, 0, sizeof *s);
	snprintf(full, sizeof full, "%s/%s", dir, name);
	snprintf(s->rel, sizeof s->rel, "%s", name);
	snprintf(stem, sizeof stem, "%s", name);
	if (is_cl(name))
		stem[strlen(stem) - 3] = '\0';
	safe_name(stem, s->student, 101);   /* room for a -N suffix */
	s->exact = strcmp(s->student, stem) == 0;
	if (lstat(full, &st) != 0)
		snprintf(s->problem, sizeof s->problem, "cannot be examined (%s)", strerror(errno));
	else if (S_ISLNK(st.st_mode))
		snprintf(s->problem, sizeof s->problem, "a symbolic link: not followed (it could point "
		         "at any file the grader can read)");
	else if (name[0] == '.')
		snprintf(s->problem, sizeof s->problem, "hidden (the name starts with a dot): rename "
		         "it to grade it");
	else if (S_ISDIR(st.st_mode))
		pick_in_folder(l, full, name, s);
	else if (!S_ISREG(st.st_mode))
		snprintf(s->problem, sizeof s->problem, "not a regular file or a folder");
	else if (!is_cl(name))
		snprintf(s->problem, sizeof s->problem, "not a .cl file: rename it to end in .cl to "
		         "grade it");
	else if (screen_source(full, st.st_size, s->problem, sizeof s->problem) == 0)
		snprintf(s->path, sizeof s->path, "%s", full);
}

static int by_claim(const void *a, const void *b)
{
	const submission *x = a, *y = b;
	return x->exact != y->exact ? y->exact - x->exact : strcmp(x->rel, y->rel);
}

static int by_student(const void *a, const void *b)
{
	return strcmp(((const submission *)a)->student, ((const submission *)b)->student);
}

/* Is name taken for entry i?  By the batch's own files, by an entry named before i, or (for a
 * made-up name) by an entry whose own safe name it is. */
/* A counted set of names (open addressing), so that naming n entries takes time about n,
 * however many of them clash: a folder of 10^5 entries is named in well under a second. */
typedef struct nameset {
	char **key;
	int *count;
	size_t cap;               /* a power of two, at least twice the names it will hold */
} nameset;

static int ns_init(nameset *s, size_t names)
{
	for (s->cap = 16; s->cap < 2 * names + 16; s->cap *= 2)
		;
	s->key = calloc(s->cap, sizeof *s->key);
	s->count = calloc(s->cap, sizeof *s->count);
	return s->key && s->count ? 0 : -1;
}

static size_t ns_slot(const nameset *s, const char *name)
{
	size_t i = (size_t)check_hash(CHECK_HASH_INIT, name, strlen(name)) & (s->cap - 1);
	while (s->key[i] && strcmp(s->key[i], name) != 0)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int ns_count(const nameset *s, const char *name)
{
	return s->count[ns_slot(s, name)];
}

static void ns_add(nameset *s, const char *name, int delta)
{
	size_t i = ns_slot(s, name);
	if (!s->key[i])
		s->key[i] = strdup(name);
	s->count[i] += delta;
}

static void ns_free(nameset *s)
{
	for (size_t i = 0; s->key && i < s->cap; i++)
		free(s->key[i]);
	free(s->key);
	free(s->count);
}

/* Two entries must never share a report, and no entry takes another's own name: entries whose
 * name is already safe claim it first (`bob_smith.cl` stays bob_smith; `bob smith.cl` becomes
 * bob_smith-2), then in the order of their paths, so the result never depends on readdir.
 * A name is taken when an earlier entry holds it, or, for a made-up "-k" name, when an entry
 * whose name is its own (exact) holds it; "grades", "gradescope", "class" and "index" are the
 * batch's own (grades.json, gradescope/, class.json, index.html). */
static void unique_names(submission *v, int n)
{
	nameset given, own;       /* names given so far; the exact entries' names as they stand */
	nameset next;             /* per base: the k to try first (the last one given + 1) */
	qsort(v, n, sizeof *v, by_claim);
	if (ns_init(&given, (size_t)n + 4) != 0 || ns_init(&own, (size_t)n) != 0 ||
	    ns_init(&next, (size_t)n) != 0) {
		fprintf(stderr, "clgrade batch: out of memory naming %d entries\n", n);
		exit(2);
	}
	ns_add(&given, "grades", 1);
	ns_add(&given, "gradescope", 1);
	ns_add(&given, "class", 1);   /* class.json */
	ns_add(&given, "index", 1);   /* index.html */
	for (int i = 0; i < n; i++)
		if (v[i].exact)
			ns_add(&own, v[i].student, 1);
	for (int i = 0; i < n; i++) {
		char base[128], name[128];
		snprintf(base, sizeof base, "%s", v[i].student);
		snprintf(name, sizeof name, "%s", base);
		/* a clash: the "-k" names below the last one given for this base are all taken
		 * (given only grows; own only changes while the exact entries, which claim first,
		 * are named), so an inexact entry resumes there: n clashing entries cost n tries,
		 * not n^2 / 2 */
		int k = 2, from = v[i].exact ? 0 : ns_count(&next, base);
		if (ns_count(&given, name) && from > 2) {
			k = from;
			snprintf(name, sizeof name, "%s-%d", base, k - 1);
		}
		for (; ns_count(&given, name) || (k > 2 && ns_count(&own, name)); k++)
			snprintf(name, sizeof name, "%s-%d", base, k);
		if (!v[i].exact && k > 2)
			ns_add(&next, base, k - ns_count(&next, base));
		if (v[i].exact) {
			ns_add(&own, base, -1);
			ns_add(&own, name, 1);
		}
		ns_add(&given, name, 1);
		snprintf(v[i].student, sizeof v[i].student, "%s", name);
	}
	ns_free(&given);
	ns_free(&own);
	ns_free(&next);
	qsort(v, n, sizeof *v, by_student);
}

/* Every entry of dir but "." and "..", one row each, and but the batch's own output folder
 * when it lies inside dir (own: its stat).  -1 when dir cannot be read. */
static int discover(const lesson *l, const char *dir, const struct stat *own, sublist *subs)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     st.st_dev == own->st_dev && st.st_ino == own->st_ino))
			continue;
		if (subs->n == subs->cap) {
			int cap = subs->cap ? 2 * subs->cap : 64;
			submission *v = realloc(subs->v, cap * sizeof *v);
			if (!v) {
				closedir(d);
				return -1;
			}
			subs->v = v, subs->cap = cap;
		}
		classify(l, dir, e->d_name, &subs->v[subs->n++]);
	}
	closedir(d);
	unique_names(subs->v, subs->n);
	return subs->n;
}

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

static void report_path(const batch *b, const submission *s, const char *sub, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s.json", b->out, sub, s->student);
}

static const char *verdict_of(cJSON *j)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict"));
	return v ? v : "error";
}

/* s's report when it belongs to s as it is now (same source hash, same grading key), else
 * NULL.  The caller deletes it. */
static cJSON *current_report(const batch *b, const submission *s)
{
	char jpath[4400], hash[17] = "";
	report_path(b, s, "", jpath, sizeof jpath);
	cJSON *j = read_json_file(jpath);
	const char *oh = cJSON_GetStringValue(cJSON_GetObjectItem(j, "source_hash"));
	const char *ok = cJSON_GetStringValue(cJSON_GetObjectItem(j, "grading_key"));
	/* an error report on nothing read (the entry could not be opened, or was swapped for a
	 * link) stands as it is: it is an error row, graded again on every resume */
	int unread = oh && !*oh && strcmp(verdict_of(j), "error") == 0;
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
static cJSON *line_string(const char *s)
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
	cJSON_AddItemToObject(j, "error", line_string(why));
	cJSON_AddNumberToObject(j, "score", 0);
	return j;
}

/* Write s's report, stamped with who it is and what graded it. */
/* hash: check_hash of the bytes graded (check_report.source_hash), "" when none were */
static void write_report(const batch *b, const submission *s, cJSON *j, const char *hash)
{
	char jpath[4400];
	report_path(b, s, "", jpath, sizeof jpath);
	cJSON_AddStringToObject(j, "student", s->student);
	cJSON_AddItemToObject(j, "path", line_string(s->rel));
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
	report_path(b, s, "gradescope/", gpath, sizeof gpath);
	report_write(j, gpath);
	cJSON_Delete(j);
}

static void page_path(const batch *b, const submission *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.html", b->out, s->student);
}

/* An error row for s: its report and its Gradescope file (and no page from before). */
static void write_error(const batch *b, const submission *s, const char *why)
{
	char page[4400];
	page_path(b, s, page, sizeof page);
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
	report_path(b, s, "gradescope/", gpath, sizeof gpath);
	report_write(gs, gpath);
	page_path(b, s, gpath, sizeof gpath);   /* the student's page, beside the report */
	html_write(&rep, &(html_opts){ 0 }, gpath);
	cJSON_Delete(gs);
	check_free(&rep);
	write_report(b, s, j, rep.source_hash);
	return rc;
}

/* ---- many at once ---------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cpu_count(void)
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
static void share_threads(int cores, int jobs)
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
	cJSON *j = current_report(b, s);
	const char *v = j ? verdict_of(j) : "error";
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
		cJSON *j = b->force ? NULL : current_report(b, &b->subs[todo[k]]);
		fresh[k] = j && strcmp(verdict_of(j), "error") != 0;   /* error rows: look again */
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
static int grade_all(const batch *b)
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

/* ---- the class's tables ---------------------------------------------------------------- */

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

/* How the class did: printed at the end. */
typedef struct class_summary {
	int n, passed, failed, errors;
	int crit_failed[CRIT_COUNT];
} class_summary;

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
                    class_summary *cs, classsum *sum)
{
	const lesson *l = b->o.l;
	const char *verdict = j ? verdict_of(j) : "error", *first = "", *why = "";
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
	cJSON_AddItemToObject(row, "path", line_string(s->rel));
	cJSON_AddStringToObject(row, "verdict", verdict);
	cJSON_AddNumberToObject(row, "score", sc ? sc->valueint : 0);
	cJSON_AddNumberToObject(row, "max_score", mx ? mx->valueint : 0);
	cJSON_AddItemToObject(row, "first_failure", line_string(why[0] ? why : first));
	cJSON_AddStringToObject(row, "report", path);
	cJSON_AddItemToArray(all, row);
	char page[4400];
	page_path(b, s, page, sizeof page);
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
static int summarise(const batch *b, class_summary *cs)
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
		cJSON *j = current_report(b, &b->subs[i]);
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

static void print_summary(const batch *b, const class_summary *cs)
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

/* ---- the command ----------------------------------------------------------------------- */

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: clgrade batch LESSON DIR [--out DIR] [-j N] [--timeout S] [--device S] "
	        "[--seed N] [--force] [--no-analysis] [--local-mem BYTES] [--memory MB] "
	        "[--profile P] [--shard I/N | --merge] [--unconfined]\n");
	return rc;
}

/* A whole number in [lo, hi], all of s; 0, or -1. */
static int parse_int(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno || *v < lo || *v > hi ? -1 : 0;
}

static int parse_args(int argc, char **argv, batch *b)
{
	static const struct option opts[] = {
		{ "out", required_argument, 0, 'o' }, { "timeout", required_argument, 0, 't' },
		{ "device", required_argument, 0, 'd' }, { "seed", required_argument, 0, 's' },
		{ "force", no_argument, 0, 'f' }, { "no-analysis", no_argument, 0, 'n' },
		{ "local-mem", required_argument, 0, 'l' }, { "memory", required_argument, 0, 'm' },
		{ "profile", required_argument, 0, 'p' }, { "jobs", required_argument, 0, 'j' },
		{ "shard", required_argument, 0, 'S' }, { "merge", no_argument, 0, 'M' },
		{ "help", no_argument, 0, 'h' }, { "unconfined", no_argument, 0, 'U' }, { 0, 0, 0, 0 },
	};
	long v, w;
	int unconfined = 0;
	int c;
	char *slash;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:d:s:fnl:m:p:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': b->out = optarg; break;
		case 't':
			if (cliopt_seconds("batch", "timeout", optarg, &b->o.timeout_s) != 0)
				return 2;
			break;
		case 'd': b->o.device = optarg; break;
		case 's':
			if (cliopt_seed("batch", "seed", optarg, &b->o.seed) != 0)
				return 2;
			break;
		case 'f': b->force = 1; break;
		case 'n': b->o.analysis = 0; break;
		case 'U': unconfined = 1; break;
		case 'l':
			if (cliopt_bytes("batch", "local-mem", optarg, &b->o.local_mem) != 0)
				return 2;
			break;
		case 'm':
			if (cliopt_size_mb("batch", "memory", optarg, &b->o.mem_bytes) != 0)
				return 2;
			break;
		case 'p': b->o.profile = optarg; break;
		case 'j':
			if (parse_int(optarg, 1, 1024, &v) != 0) {
				fprintf(stderr, "clgrade batch: -j takes a number of jobs from 1 to 1024, "
				        "not \"%s\"\n", optarg);
				return 2;
			}
			b->jobs = (int)v;
			break;
		case 'S':
			slash = strchr(optarg, '/');
			if (!slash || (*slash = '\0', parse_int(optarg, 0, 1 << 20, &v) != 0) ||
			    parse_int(slash + 1, 1, 1 << 20, &w) != 0 || v >= w) {
				fprintf(stderr, "clgrade batch: --shard takes I/N with 0 <= I < N (e.g. 0/4)\n");
				return 2;
			}
			b->shard = (int)v, b->nshards = (int)w;
			break;
		case 'M': b->merge = 1; break;
		case 'h': return usage(stdout, 0) - 1;
		default: return usage(stderr, 2);
		}
	}
	if (argc - optind > 2) {
		cliopt_stray("batch", argv[optind + 2]);
		return 2;
	}
	if (argc - optind != 2 || !(b->o.l = lesson_find(argv[optind])) || b->o.timeout_s <= 0 ||
	    !bank_profile_find(b->o.profile) || (b->merge && b->nshards > 1)) {
		fprintf(stderr, "usage: clgrade batch LESSON DIR [--out DIR] ... (see --help)\n");
		return 2;
	}
	const char *missing = confine_missing();
	if (*missing && !unconfined && !b->merge) {
		fprintf(stderr, "clgrade batch: %s, so a submission's kernel could read and write "
		        "whatever you can; refusing to grade (pass --unconfined to grade anyway)\n", missing);
		return 2;
	}
	b->dir = argv[optind + 1];
	if (!realpath(b->dir, b->within))
		b->within[0] = '\0';   /* reported when the folder is listed */
	return 0;
}

/* An output folder another user owns or can write in (no sticky bit saves it: the files are
 * ours to replace): 1. */
static int out_unsafe(const char *dir)
{
	struct stat st;
	return lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	       (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

int batch_main(int argc, char **argv)
{
	static batch b = { .o = { .timeout_s = 20, .mem_bytes = (size_t)8192 << 20,
	                          .profile = "nvidia", .analysis = 1, .seed = 1 },
	                   .nshards = 1 };
	int rc = parse_args(argc, argv, &b);
	if (rc)
		return rc < 0 ? 0 : rc;
	char outbuf[4200], gs[4300];
	if (!b.out) {
		snprintf(outbuf, sizeof outbuf, "grades-%s", b.o.l->slug);
		b.out = outbuf;
	}
	int cores = cpu_count();
	if (!b.jobs)
		b.jobs = cores;
	share_threads(cores, b.jobs);
	sublist list = { 0 };
	struct stat own;
	snprintf(gs, sizeof gs, "%s/gradescope", b.out);
	if (stat(b.dir, &own) != 0 || !S_ISDIR(own.st_mode) || access(b.dir, R_OK | X_OK) != 0 ||
	    (mkdir(b.out, 0755) && access(b.out, W_OK)) || (mkdir(gs, 0755) && access(gs, W_OK)) ||
	    stat(b.out, &own) != 0 || (b.n = discover(b.o.l, b.dir, &own, &list)) < 0) {
		fprintf(stderr, "clgrade batch: cannot read %s or write %s\n", b.dir, b.out);
		free(list.v);
		return 2;
	}
	b.subs = list.v;
	const char *unsafe = out_unsafe(b.out) ? b.out : out_unsafe(gs) ? gs : NULL;
	if (unsafe) {
		fprintf(stderr, "clgrade batch: %s belongs to another user or other users can write in "
		        "it: they could plant links there or edit the grades; use an output folder only "
		        "you can write (chmod go-w, or another --out)\n", unsafe);
		free(list.v);
		return 2;
	}
	/* what a kept report must have been graded with: the grader itself and every option */
	char self[17] = "";
	batch_hash_file("/proc/self/exe", self);
	snprintf(b.key, sizeof b.key, "grader %s lesson %s seed %llu device %s analysis %d "
	         "local-mem %zu timeout %g memory %zu profile %s", self, b.o.l->slug,
	         (unsigned long long)b.o.seed, b.o.device ? b.o.device : "default", b.o.analysis,
	         b.o.local_mem, b.o.timeout_s, b.o.mem_bytes, b.o.profile);
	int errors = 0;
	if (!b.merge)
		errors = grade_all(&b);
	if (b.nshards > 1) {       /* the tables are the merge's: no two shards write one file */
		printf("shard %d/%d done -> %s; when every shard is, merge: clgrade batch %s %s --out %s "
		       "--merge (with the same options)\n", b.shard, b.nshards, b.out, b.o.l->slug,
		       b.dir, b.out);
		free(list.v);
		return errors ? 2 : 0;
	}
	class_summary cs;
	if (summarise(&b, &cs) != 0) {
		fprintf(stderr, "clgrade batch: cannot write %s/grades.csv, grades.json, class.json or "
		        "index.html\n", b.out);
		free(list.v);
		return 2;
	}
	print_summary(&b, &cs);
	printf("-> %s/grades.csv, %s/grades.json, %s/index.html, %s/gradescope/\n", b.out, b.out,
	       b.out, b.out);
	free(list.v);
	return errors || cs.errors ? 2 : 0;
}
