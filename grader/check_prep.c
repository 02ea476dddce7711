/* check_prep.c — the check's first stage (check_prep.h): read the student's file through
 * one descriptor, hash it, count its declared __local bytes, and preprocess it per TILE in
 * confined children (preproc.h), with the control run that tells a file that defeats the
 * preprocessor from an environment too small for it.  Nothing here runs the student's code. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_prep.h"
#include "diag.h"
#include "localmem.h"
#include "preproc.h"
#include "sandbox.h"
#include "tilechoice.h"

/* FNV-1a (check.h). */
unsigned long long check_hash(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}


/* The file behind fd is the one at the real path want (not reached through a link)? */
static int fd_is(int fd, const char *want)
{
	char link[64], real[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, sizeof real - 1);
	if (n <= 0)
		return 0;
	real[n] = '\0';
	return strcmp(real, want) == 0;
}

char *check_prep_read(const check_opts *o, char *err, size_t errlen, char *refused,
                         size_t rlen)
{
	const char *path = o->kernel;
	struct stat st;
	/* one open, then everything from that descriptor: no second look at the path */
	int fd = sandbox_open_regular(path, o->within != NULL, &st);
	int ok = fd >= 0;
	if (ok && o->within && (!fd_is(fd, o->within) || st.st_nlink != 1)) {
		snprintf(err, errlen, "%s was not graded: %s", path, st.st_nlink != 1 ?
		         "it has more than one name (a hard link could name any file): copy it instead" :
		         "when the grader opened it, it was no longer the file it listed (a folder on "
		         "its path replaced by a link, or moved)");
		close(fd);
		return NULL;
	}
	FILE *f = ok ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot read %s (not a readable file%s)", path,
		         o->within ? ", or a link" : "");
		return NULL;
	}
	enum { MAX = 256 * 1024 };
	char *s = malloc(MAX + 1);
	size_t n = s ? fread(s, 1, MAX + 1, f) : 0;
	fclose(f);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (n > MAX || memchr(s, '\0', n)) {
		snprintf(refused, rlen, "%s is not a kernel source the grader accepts: %s", path,
		         n > MAX ? "over 256 KiB" : "it contains NUL bytes (binary, or UTF-16: save it "
		         "as UTF-8 or ASCII)");
		n = 0;
	}
	s[n] = '\0';
	/* A UTF-8 byte-order mark (Windows editors save one) opens the file for clang, not the
	 * #line line the preprocessing puts before the text, where it is an error: dropped here,
	 * so every later stage reads the text an editor shows. */
	if (n >= 3 && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
	    (unsigned char)s[2] == 0xbf)
		memmove(s, s + 3, n - 2);
	int directive = refused[0] ? 0 : diag_line_directive(s);
	if (directive)
		snprintf(refused, rlen, "%s:%d: a #line directive is not accepted: it would move the "
		         "lines the report names off your file (delete it)", path, directive);
	return s;
}

const char *check_prep_try(const char *refused)
{
	static const struct { const char *says, *try_; } tries[] = {
		{ "inspect addresses", "work with indices into the buffers: a kernel never needs an "
		  "address as a number, a comparison of two buffers' pointers, or a pointer seen as "
		  "another type" },
		{ "#line directive", "delete the #line line: the report then names the lines your "
		  "editor shows" },
		{ "inline assembly", "write the kernel in OpenCL C alone, without asm" },
		{ "a __kernel called", "drop __kernel from the function your kernel calls, and declare "
		  "its __local arrays in the launched kernel (pass them in as __local pointers)" },
		{ "write the #pragma itself", "write the #pragma on a line of its own instead of "
		  "_Pragma(...)" },
		{ "#pragma", "delete that #pragma (the message names it); #pragma unroll and OPENCL "
		  "EXTENSION are accepted" },
		{ "directive made by a macro", "write the directive itself on its own line, not "
		  "through a macro" },
		{ "not a kernel source", "save the kernel as a text file (UTF-8 or ASCII) of at most "
		  "256 KiB" },
	};
	for (size_t i = 0; i < sizeof tries / sizeof *tries; i++)
		if (strstr(refused, tries[i].says))
			return tries[i].try_;
	return "keep the kernel in its one file; an #include may name only a header inside the "
	       "lesson's own folder";
}

/* The __local bytes the kernel declares, at the lesson's TILE and at each TILE of a sweep:
 * read in the parent, from the text alone, before any of the student's code runs. */
void check_prep_declared(const check_opts *o, const char *source, check_ctx *c)
{
	const lesson *l = o->l;
	c->declared = lmem_declared(source, l->kernel, l->tile, NULL, 0);
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		c->declared_at[i] = lmem_declared(source, l->kernel, l->tiles[i], NULL, 0);
}

char *check_prep_solution(const check_opts *o)
{
	char path[4096];
	lesson_path(o->l, "solution", path, sizeof path);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = malloc(256 * 1024 + 1);
	size_t n = s ? fread(s, 1, 256 * 1024, f) : 0;
	fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}


/* 1: the solution preprocesses under job's limits; -1: it does not (or cannot be read). */
static int control_preprocess(const preproc_job *job, const check_opts *o)
{
	char *sol = check_prep_solution(o), *out = NULL, msg[2048];
	if (!sol)
		return -1;
	preproc_job j = *job;
	j.source = sol;
	j.probe = NULL;
	int ok = preproc_run(&j, &out, msg, sizeof msg) == PREPROC_OK;
	free(out);
	free(sol);
	return ok ? 1 : -1;
}

/* The TILEs the children build at: the lesson's, the analysis' own (lesson.h analysis_tile),
 * then each other of its sweep; how many. */
static int prep_tiles(const lesson *l, int tiles[CHECK_PRE_MAX])
{
	int n = 1;
	tiles[0] = l->tile;
	if (lesson_analysis_tile(l) != l->tile)
		tiles[n++] = lesson_analysis_tile(l);
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++) {
		int seen = 0;
		for (int k = 0; k < n; k++)
			seen |= tiles[k] == l->tiles[i];
		if (!seen && n < CHECK_PRE_MAX)
			tiles[n++] = l->tiles[i];
	}
	return n;
}

/* Lesson 4: the CHOSEN_* values the compiler sees (the probe of jobs[0]), and the first TILE
 * where one differs: a choice that depends on TILE (`#define CHOSEN_TILE_SM86 TILE`, or one
 * inside `#if TILE == 16`) is no choice. */
static void take_probe(const preproc_job *jobs, int n, const int *tiles, check_report *rep)
{
	if (jobs[0].probed) {
		rep->choice_probed = 1;
		memcpy(rep->choice_val, jobs[0].probe_val, sizeof rep->choice_val);
	}
	for (int i = 1; i < n && jobs[0].probed; i++)
		for (int k = 0; k < PREPROC_MAX_PROBE && jobs[i].probed; k++)
			if (!rep->choice_vary_tile[k] && strcmp(jobs[i].probe_val[k], jobs[0].probe_val[k])) {
				rep->choice_vary_tile[k] = tiles[i];
				snprintf(rep->choice_vary_val[k], sizeof rep->choice_vary_val[k], "%s",
				         jobs[i].probe_val[k]);
			}
}

/* The kernel's size tests (ptrcheck_size.c), from any TILE's text: the first of each. */
static void take_sizes(const ptrcheck_sizes *z, check_report *rep)
{
	static const char *const how[] = {
		"compares its size with a constant",
		"compares its sizes with each other (the analysed sizes, drawn from fixed ranges, may "
		"all answer such a test one way and a GPU's the other)",
		"tests a value made of its size and constants alone (as a condition, no comparison "
		"written)" };
	if (z->n && !rep->size_tests) {
		rep->size_tests = z->n;
		rep->size_test_what = how[z->how >= 0 && z->how < 3 ? z->how : 0];
		snprintf(rep->size_test_at, sizeof rep->size_test_at, "%s", z->first);
	}
	if (z->ngroup && !rep->group_tests) {
		rep->group_tests = z->ngroup;
		rep->group_test_what = z->group_how ? "a work-item's global id" : "a group's id";
		snprintf(rep->group_test_at, sizeof rep->group_test_at, "%s", z->group_first);
	}
	if (z->div_mask && !rep->size_div_mask)
		snprintf(rep->size_div_at, sizeof rep->size_div_at, "%s", z->div_first);
	rep->size_div_mask |= z->div_mask;
}

int check_prep_run(const check_opts *o, const char *source, const char *tmp, check_ctx *c,
                   check_report *rep)
{
	char dir[4096];
	const lesson *l = o->l;
	lesson_path(l, "dir", dir, sizeof dir);
	int tiles[CHECK_PRE_MAX], n = prep_tiles(l, tiles);
	preproc_job jobs[CHECK_PRE_MAX];
	char msgs[CHECK_PRE_MAX][2048], *mp[CHECK_PRE_MAX], *outs[CHECK_PRE_MAX];
	preproc_result res[CHECK_PRE_MAX];
	for (int i = 0; i < n; i++) {
		/* side by side, each within its share of --memory */
		jobs[i] = (preproc_job){ source, o->kernel, dir, tmp, tiles[i], 1, o->timeout_s,
		                         o->mem_bytes / (size_t)n, NULL, { "" }, 0, { 0 } };
		mp[i] = msgs[i];
	}
	if (l->tiles[0])   /* lesson 4: the CHOSEN_* values the compiler sees, at every TILE */
		for (int i = 0; i < n; i++)
			jobs[i].probe = tile_probe_names();
	preproc_run_all(jobs, n, outs, mp, sizeof msgs[0], res);
	take_probe(jobs, n, tiles, rep);
	for (int i = 0; i < n; i++)
		if (res[i] == PREPROC_OK)
			take_sizes(&jobs[i].sizes, rep);
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *msg = msgs[i];
		c->pre[i] = outs[i];
		c->pre_tile[i] = tiles[i];
		c->npre = i + 1;
		if (rc == 0 && res[i] == PREPROC_ERROR && control_preprocess(&jobs[i], o) == 1) {
			/* the solution goes through under the same limits: the file is at fault */
			snprintf(rep->refused, sizeof rep->refused, "%s: the preprocessor could not finish "
			         "on this file (%.300s), though it does on the lesson's solution under the "
			         "same limits: look for macros that expand without end", o->kernel, msg);
			rep->refused[strcspn(rep->refused, "\n")] = ' ';
			rc = 1;
		} else if (rc == 0 && res[i] == PREPROC_ERROR) {
			/* the solution does not go through either: the environment's limits */
			snprintf(rep->grader_error, sizeof rep->grader_error, "the grader could not "
			         "preprocess the kernel (nor the lesson's solution, under the same limits: "
			         "raise --memory or --timeout): %.300s", msg);
			rc = 2;
		} else if (rc == 0 && res[i] == PREPROC_REFUSED && i > 0) {
			c->pre_err[i] = strdup(msg);   /* a sweep's TILE: that build fails, not the check */
		} else if (rc == 0 && res[i] == PREPROC_REFUSED) {
			char first[600];
			diag_first_error(msg, first, sizeof first);
			snprintf(rep->refused, sizeof rep->refused, "%s", first[0] ? first : msg);
			rep->refused[strcspn(rep->refused, "\n")] = '\0';
			if (strstr(rep->refused, "file not found"))
				snprintf(rep->refused + strlen(rep->refused), sizeof rep->refused -
				         strlen(rep->refused), " (refused before the build: only files in "
				         "the lesson's own folder can be included)");
			rc = 1;
		}
	}
	return rc;
}
