/* batch.c — grade a folder of submissions (batch.h).  Each submission goes through the same
 * check as a student's own `make check` — sandboxed children, include policy, time limit — so
 * a hostile or broken kernel is a row in the CSV, never a stopped batch.  Reports are written
 * atomically and reused when the source is unchanged, so an interrupted batch resumes. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bank.h"
#include "batch.h"
#include "check.h"
#include "lesson.h"
#include "report.h"

enum { MAX_SUBMISSIONS = 4096 };

typedef struct submission {
	char student[128];   /* file-system-safe name */
	char path[4096];     /* the kernel file; "" when none could be chosen */
	char problem[200];   /* why no kernel was chosen */
} submission;

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
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The .cl file of a student's folder: the only one, or the one named after the lesson. */
static void pick_in_folder(const lesson *l, const char *dir, submission *s)
{
	DIR *d = opendir(dir);
	int n = 0;
	char only[4096] = "", named[300];
	snprintf(named, sizeof named, "%s.cl", l->slug);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char full[4096];
		struct stat st;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".cl") || lstat(full, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;          /* a symlink could point at any file the grader can read */
		n++;
		snprintf(only, sizeof only, "%s", full);
		if (strcmp(e->d_name, named) == 0) {
			snprintf(s->path, sizeof s->path, "%s", only);
			break;
		}
	}
	if (d)
		closedir(d);
	if (s->path[0])
		return;
	if (n == 1)
		snprintf(s->path, sizeof s->path, "%s", only);
	else
		snprintf(s->problem, sizeof s->problem, n ? "%d .cl files and none named %s" :
		         "no .cl file in the folder", n, named);
}

static int by_student(const void *a, const void *b)
{
	const submission *x = a, *y = b;
	int c = strcmp(x->student, y->student);
	return c ? c : strcmp(x->path, y->path);   /* clashing names: always the same order */
}

/* Two submissions must never share a report: "alice smith" and "alice_smith" both make
 * alice_smith, so later ones get -2, -3, ...; "grades" is the summary's name. */
static void unique_names(submission *subs, int n)
{
	for (int i = 0; i < n; i++) {
		char base[128];
		snprintf(base, sizeof base, "%s", subs[i].student);
		int clash = strcmp(base, "grades") == 0 || strcmp(base, "gradescope") == 0;
		for (int j = 0; j < i && !clash; j++)
			clash = strcmp(subs[j].student, base) == 0;
		for (int k = 2; clash; k++) {
			snprintf(subs[i].student, sizeof subs[i].student, "%.100s-%d", base, k);
			clash = 0;
			for (int j = 0; j < n && !clash; j++)
				clash = j != i && strcmp(subs[j].student, subs[i].student) == 0;
		}
	}
}

static int discover(const lesson *l, const char *dir, submission *subs, int max)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < max) {
		if (e->d_name[0] == '.')
			continue;
		char full[4096];
		struct stat st;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (lstat(full, &st) != 0 || S_ISLNK(st.st_mode))
			continue;                      /* a symlink could point anywhere */
		submission *s = &subs[n];
		memset(s, 0, sizeof *s);
		if (S_ISREG(st.st_mode) && ends_with(e->d_name, ".cl")) {
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)(strlen(e->d_name) - 3), e->d_name);
			safe_name(name, s->student, sizeof s->student);
			snprintf(s->path, sizeof s->path, "%s", full);
			n++;
		} else if (S_ISDIR(st.st_mode)) {
			safe_name(e->d_name, s->student, sizeof s->student);
			pick_in_folder(l, full, s);
			n++;
		}
	}
	closedir(d);
	qsort(subs, n, sizeof *subs, by_student);
	unique_names(subs, n);
	return n;
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
	cJSON_AddStringToObject(j, "source_hash", hash);
	cJSON_AddStringToObject(j, "grading_key", key);
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
		fputc(*s == '\n' ? ' ' : *s, f);
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
	fprintf(csv, "student,verdict,score,max_score,first_failure");
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
	submission *subs = calloc(MAX_SUBMISSIONS, sizeof *subs);
	int n = subs ? discover(o.l, dir, subs, MAX_SUBMISSIONS) : -1;
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
