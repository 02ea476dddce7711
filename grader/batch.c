/* batch.c — grade a folder of submissions (batch.h).  Each submission goes through the same
 * check as a student's own `make check` — sandboxed children, include policy, time limit — so
 * a hostile or broken kernel is a row in the CSV, never a stopped batch.  Reports are written
 * atomically and reused when the source is unchanged, so an interrupted batch resumes. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank.h"
#include "batch.h"
#include "check.h"
#include "lesson.h"
#include "report.h"

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
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	unsigned long long h = 1469598103934665603ull;
	int c;
	while ((c = getc(f)) != EOF)
		h = (h ^ (unsigned char)c) * 1099511628211ull;
	fclose(f);
	snprintf(out, 17, "%016llx", h);
	return 0;
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

/* A copy of untrusted text for a message: control bytes become '?'. */
static void printable(const char *in, char *out, size_t len)
{
	size_t i = 0;
	for (; in[i] && i + 1 < len; i++)
		out[i] = (unsigned char)in[i] < 0x20 || in[i] == 0x7f ? '?' : in[i];
	out[i] = '\0';
}

/* Can the grader take this regular file as a kernel?  0, or -1 with why in problem. */
static int screen_source(const char *path, off_t size, char *problem, size_t len)
{
	if (size > MAX_SOURCE) {
		snprintf(problem, len, "too large (%lld bytes; a kernel may have at most 256 KiB)",
		         (long long)size);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(problem, len, "cannot be read by the grader (%s)", strerror(errno));
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
		char shown[100];
		printable(cand[i], shown, sizeof shown);
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
static int taken(const submission *v, int n, int i, const char *name, int made_up)
{
	if (strcmp(name, "grades") == 0 || strcmp(name, "gradescope") == 0)
		return 1;
	for (int j = 0; j < n; j++)
		if ((j < i || (made_up && v[j].exact)) && j != i && strcmp(v[j].student, name) == 0)
			return 1;
	return 0;
}

/* Two entries must never share a report, and no entry takes another's own name: entries whose
 * name is already safe claim it first (`bob_smith.cl` stays bob_smith; `bob smith.cl` becomes
 * bob_smith-2), then in the order of their paths, so the result never depends on readdir. */
static void unique_names(submission *v, int n)
{
	qsort(v, n, sizeof *v, by_claim);
	for (int i = 0; i < n; i++) {
		char base[128], name[128];
		snprintf(base, sizeof base, "%s", v[i].student);
		snprintf(name, sizeof name, "%s", base);
		for (int k = 2; taken(v, n, i, name, k > 2); k++)
			snprintf(name, sizeof name, "%s-%d", base, k);
		snprintf(v[i].student, sizeof v[i].student, "%s", name);
	}
	qsort(v, n, sizeof *v, by_student);
}

/* Every entry of dir but "." and "..", one row each.  -1 when dir cannot be read. */
static int discover(const lesson *l, const char *dir, sublist *subs)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
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

/* Grade one submission into <out>/<student>.json unless an up-to-date report exists.
 * Returns the check's exit code (0/1), 2 when the grader could not run, 3 when skipped. */
static int grade_one(const check_opts *base, const submission *s, const char *out, int force,
                     const char *key)
{
	char jpath[4300], gpath[4400], hash[17] = "";
	snprintf(jpath, sizeof jpath, "%s/%s.json", out, s->student);
	snprintf(gpath, sizeof gpath, "%s/gradescope/%s.json", out, s->student);
	if (s->path[0])
		batch_hash_file(s->path, hash);
	cJSON *old = force ? NULL : read_json_file(jpath);
	const char *oh = cJSON_GetStringValue(cJSON_GetObjectItem(old, "source_hash"));
	const char *ok = cJSON_GetStringValue(cJSON_GetObjectItem(old, "grading_key"));
	const char *ov = cJSON_GetStringValue(cJSON_GetObjectItem(old, "verdict"));
	int fresh = old && oh && hash[0] && strcmp(oh, hash) == 0 && ok && strcmp(ok, key) == 0 &&
	            ov && strcmp(ov, "error") != 0;
	cJSON_Delete(old);
	if (fresh)
		return 3;
	check_opts o = *base;
	o.kernel = s->path;
	check_report rep;
	int rc;
	cJSON *j;
	if (!s->path[0]) {
		j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "lesson", o.l->slug);
		cJSON_AddStringToObject(j, "verdict", "error");
		cJSON_AddStringToObject(j, "error", s->problem);
		cJSON_AddNumberToObject(j, "score", 0);
		rc = 2;
	} else {
		rc = check_lesson(&o, &rep);
		j = report_json(&rep);
		cJSON *gs = report_gradescope(&rep);
		report_write(gs, gpath);
		cJSON_Delete(gs);
		check_free(&rep);
	}
	cJSON_AddStringToObject(j, "student", s->student);
	cJSON_AddStringToObject(j, "path", s->rel);
	cJSON_AddStringToObject(j, "source_hash", hash);
	cJSON_AddStringToObject(j, "grading_key", key);
	report_utf8_clean(j);
	report_write(j, jpath);
	cJSON_Delete(j);
	return rc;
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	if (s && strchr("=+-@\t\r", s[0]) && s[0])
		fputc('\'', f);     /* a spreadsheet must not read a student's name as a formula */
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	}
	fputc('"', f);
}

/* grades.csv and grades.json from the per-student reports. */
static void summarise(const lesson *l, const submission *subs, int n, const char *out)
{
	char path[4300];
	snprintf(path, sizeof path, "%s/grades.csv", out);
	FILE *csv = fopen(path, "w");
	cJSON *all = cJSON_CreateArray();
	if (!csv)
		return;
	fprintf(csv, "student,path,verdict,score,max_score,first_failure");
	for (int c = 0; c < CRIT_COUNT; c++)
		if (l->criteria & CRIT_BIT(c))
			fprintf(csv, ",%s", lesson_crit_id(c));
	fputc('\n', csv);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s.json", out, subs[i].student);
		cJSON *j = read_json_file(path);
		const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(j, "verdict"));
		cJSON *sc = cJSON_GetObjectItem(j, "score"), *mx = cJSON_GetObjectItem(j, "max_score"), *cr;
		const char *first = "";
		cJSON_ArrayForEach(cr, cJSON_GetObjectItem(j, "criteria"))
			if (!first[0] && cJSON_IsFalse(cJSON_GetObjectItem(cr, "passed")))
				first = cJSON_GetStringValue(cJSON_GetObjectItem(cr, "id"));
		csv_field(csv, subs[i].student);
		fputc(',', csv);
		csv_field(csv, subs[i].rel);
		fprintf(csv, ",%s,%d,%d,", verdict ? verdict : "missing", sc ? sc->valueint : 0,
		        mx ? mx->valueint : 0);
		csv_field(csv, verdict && strcmp(verdict, "error") == 0 ?
		          cJSON_GetStringValue(cJSON_GetObjectItem(j, "error")) : first);
		for (int c = 0; c < CRIT_COUNT; c++) {
			if (!(l->criteria & CRIT_BIT(c)))
				continue;
			const char *st = "";
			cJSON_ArrayForEach(cr, cJSON_GetObjectItem(j, "criteria"))
				if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cr, "id")), lesson_crit_id(c)) == 0)
					st = cJSON_GetStringValue(cJSON_GetObjectItem(cr, "status"));
			fprintf(csv, ",%s", st);
		}
		fputc('\n', csv);
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "student", subs[i].student);
		cJSON_AddStringToObject(row, "path", subs[i].rel);
		cJSON_AddStringToObject(row, "verdict", verdict ? verdict : "missing");
		cJSON_AddNumberToObject(row, "score", sc ? sc->valueint : 0);
		cJSON_AddNumberToObject(row, "max_score", mx ? mx->valueint : 0);
		cJSON_AddStringToObject(row, "first_failure", first);
		cJSON_AddStringToObject(row, "report", path);
		cJSON_AddItemToArray(all, row);
		cJSON_Delete(j);
	}
	fclose(csv);
	snprintf(path, sizeof path, "%s/grades.json", out);
	report_utf8_clean(all);
	report_write(all, path);
	cJSON_Delete(all);
}

int batch_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, 0, 'o' }, { "timeout", required_argument, 0, 't' },
		{ "device", required_argument, 0, 'd' }, { "seed", required_argument, 0, 's' },
		{ "force", no_argument, 0, 'f' }, { "no-analysis", no_argument, 0, 'n' },
		{ "local-mem", required_argument, 0, 'l' }, { "memory", required_argument, 0, 'm' },
		{ "profile", required_argument, 0, 'p' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	check_opts o = { .timeout_s = 20, .mem_bytes = (size_t)8192 << 20, .profile = "nvidia",
	                 .analysis = 1, .seed = 1 };
	const char *out = NULL;
	int force = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:d:s:fnl:m:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': o.timeout_s = atof(optarg); break;
		case 'd': o.device = optarg; break;
		case 's': o.seed = strtoull(optarg, NULL, 10); break;
		case 'f': force = 1; break;
		case 'n': o.analysis = 0; break;
		case 'l': o.local_mem = (size_t)atol(optarg); break;
		case 'm': o.mem_bytes = (size_t)atol(optarg) << 20; break;
		case 'p': o.profile = optarg; break;
		case 'h':
		default:
			fprintf(c == 'h' ? stdout : stderr, "usage: clgrade batch LESSON DIR [--out DIR] "
			        "[--timeout S] [--device S] [--seed N] [--force] [--no-analysis] "
			        "[--local-mem BYTES] [--memory MB] [--profile P]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (argc - optind != 2 || !(o.l = lesson_find(argv[optind])) || o.timeout_s <= 0 ||
	    !bank_profile_find(o.profile)) {
		fprintf(stderr, "usage: clgrade batch LESSON DIR [--out DIR] ... (see --help)\n");
		return 2;
	}
	const char *dir = argv[optind + 1];
	char outbuf[4200];
	if (!out) {
		snprintf(outbuf, sizeof outbuf, "grades-%s", o.l->slug);
		out = outbuf;
	}
	sublist list = { 0 };
	int n = discover(o.l, dir, &list);
	submission *subs = list.v;
	char gs[4300];
	snprintf(gs, sizeof gs, "%s/gradescope", out);
	if (n < 0 || (mkdir(out, 0755) && access(out, W_OK)) || (mkdir(gs, 0755) && access(gs, W_OK))) {
		fprintf(stderr, "clgrade batch: cannot read %s or write %s\n", dir, out);
		free(subs);
		return 2;
	}
	/* what a kept report must have been graded with: the grader itself and every option */
	char key[512], self[17] = "";
	batch_hash_file("/proc/self/exe", self);
	snprintf(key, sizeof key, "grader %s lesson %s seed %llu device %s analysis %d local-mem %zu "
	         "timeout %g memory %zu profile %s", self, o.l->slug, (unsigned long long)o.seed,
	         o.device ? o.device : "default", o.analysis, o.local_mem, o.timeout_s, o.mem_bytes,
	         o.profile);
	int graded = 0, skipped = 0, errors = 0;
	for (int i = 0; i < n; i++) {
		printf("[%d/%d] %-24s ", i + 1, n, subs[i].student);
		fflush(stdout);
		int rc = grade_one(&o, &subs[i], out, force, key);
		printf("%s\n", rc == 3 ? "unchanged, kept" : rc == 0 ? "pass" : rc == 1 ? "fail" :
		       subs[i].problem[0] ? subs[i].problem : "grader error");
		skipped += rc == 3, graded += rc != 3, errors += rc == 2;
	}
	summarise(o.l, subs, n, out);
	printf("%d submissions: %d graded, %d unchanged, %d errors -> %s/grades.csv, %s/grades.json, "
	       "%s/gradescope/\n", n, graded, skipped, errors, out, out, out);
	free(subs);
	return errors ? 2 : 0;
}
