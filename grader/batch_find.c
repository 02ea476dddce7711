/* batch_find.c — the submissions folder into rows (batch_find.h): a .cl file or a folder
 * with one candidate per student, screened (size, text, no link, no hidden entry) and named
 * safely and uniquely. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "batch_find.h"
#include "report.h"
#include "sandbox.h"

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
	if (size > BATCH_MAX_SOURCE) {
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
int batch_find(const lesson *l, const char *dir, const struct stat *own, sublist *subs)
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

