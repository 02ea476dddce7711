/* ptrcheck.c — why this exists: on PoCL a kernel is native code in the grading child, and a
 * plain OpenCL C kernel that turns a pointer into a number can read and write all of that
 * process (the shared result page, the runtime's state), not only its buffers; under Oclgrind
 * buffer addresses look different (`((ulong)in >> 47) != 0` holds only there), so the same
 * number lets a kernel tell the analysis from the timed run and behave well only when watched.
 * No honest lesson kernel needs a pointer's value as data, so such a kernel is refused at
 * `builds`, before any compiler builds it.
 *
 * The decision is made on clang's syntax tree, not on tokens (macros, token pasting, typedefs
 * and helper functions hide nothing there: clang has resolved them) and not on optimised IR
 * (where casts have been folded away or introduced by the optimiser).  Clang parses the
 * preprocessed, vetted text in a confined child, like the preprocessor itself: untrusted
 * source may crash clang, and a crash is a refusal, never a pass.  The grader reads the JSON
 * dump (cJSON) and walks it once; see ptrcheck.h for the rules.
 *
 * This file: the entry points (the confined clang, the dump read, the findings placed at the
 * student's line and column).  ptrcheck_walk.c walks the tree; ptrcheck_rules.c judges it. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "ptrcheck.h"
#include "ptrcheck_int.h"

/* ---- places in the text ---------------------------------------------------------------------- */

static const char *line_at(const char *s, int n, size_t *len);
static int source_col(const char *src, size_t sn, const char *pp, size_t pn, int col);

/* The student's file, line and column of byte off in text (after its #line markers). */
static void place(const char *text, long off, const char *kernel_path, const char *source,
                  char *file, size_t flen, int *line, int *col)
{
	int in_kernel = 1;
	snprintf(file, flen, "%s", kernel_path);
	int pline = 1;
	const char *ls = text, *end = text + strlen(text);
	const char *at = off >= 0 && off <= end - text ? text + off : end;
	for (const char *l = text; l <= at;) {
		const char *nl = memchr(l, '\n', end - l);
		if (!nl || nl >= at) {
			ls = l;
			break;
		}
		int n;
		char name[512];
		if (sscanf(l, "#line %d \"%511[^\"]\"", &n, name) == 2) {
			pline = n;
			in_kernel = strcmp(name, "<kernel>") == 0;
			snprintf(file, flen, "%s", in_kernel ? kernel_path : name);
		} else {
			pline++;
		}
		l = nl + 1;
		ls = l;
	}
	*line = pline;
	*col = (int)(at - ls) + 1;
	size_t sn;
	const char *sl = in_kernel ? line_at(source, pline, &sn) : NULL;
	if (sl)
		*col = source_col(sl, sn, ls, strcspn(ls, "\n"), *col);
}

/* The next token of s[0..n) from *i on, skipping blanks and comments: 1 and its start and
 * length, or 0 at the end.  Punctuators are one character each: both texts are cut alike. */
static int next_tok(const char *s, size_t n, size_t *i, size_t *start, size_t *len)
{
	size_t k = *i;
	for (;;) {
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k + 1 < n && s[k] == '/' && s[k + 1] == '/')
			return 0;
		if (k + 1 < n && s[k] == '/' && s[k + 1] == '*') {
			const char *e = k + 2 < n ? memmem(s + k + 2, n - k - 2, "*/", 2) : NULL;
			if (!e)
				return 0;
			k = (size_t)(e - s) + 2;
			continue;
		}
		break;
	}
	if (k >= n)
		return 0;
	size_t e = k + 1;
	if (isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '.') {
		while (e < n && (isalnum((unsigned char)s[e]) || s[e] == '_' || s[e] == '.'))
			e++;
	} else if (s[k] == '"' || s[k] == '\'') {
		while (e < n && s[e] != s[k])
			e += s[e] == '\\' ? 2 : 1;
		e = e < n ? e + 1 : n;
	}
	*start = k;
	*len = e - k;
	*i = e;
	return 1;
}

/* The column in the student's own line src (the same line before preprocessing) of the token
 * at column col of the preprocessed line pp: the same token when the line's tokens agree up
 * to it, else the first token where they part (a macro's use); col when there is none. */
static int source_col(const char *src, size_t sn, const char *pp, size_t pn, int col)
{
	size_t pi = 0, si = 0, ps, pl, ss, sl;
	while (next_tok(pp, pn, &pi, &ps, &pl)) {
		if (!next_tok(src, sn, &si, &ss, &sl))
			return col;
		if (ps + pl > (size_t)(col - 1) || pl != sl || memcmp(pp + ps, src + ss, pl) != 0)
			return (int)ss + 1;
	}
	return col;
}

/* Line n (1-based) of s: its start and length, or NULL. */
static const char *line_at(const char *s, int n, size_t *len)
{
	for (int i = 1; s && i < n; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s || !*s)
		return NULL;
	*len = strcspn(s, "\n");
	return s;
}

static int cmp_finding(const void *a, const void *b)
{
	long x = ((const finding *)a)->off, y = ((const finding *)b)->off;
	return x < y ? -1 : x > y;
}

/* The deepest nesting of [ and { in json (outside strings). */
static int json_depth(const char *s, size_t n)
{
	int d = 0, max = 0, in_str = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++d > max)
				max = d;
		} else if (c == ']' || c == '}') {
			d--;
		}
	}
	return max;
}

static void place_at(const char *text, long off, const char *kernel_path, const char *source,
                     char *buf, size_t len)
{
	char file[600];
	int line, col;
	place(text, off, kernel_path, source, file, sizeof file, &line, &col);
	snprintf(buf, len, "%s:%d:%d", file, line, col);
}

/* The first size test, placed as a finding is (the earliest in the source). */
static void size_tests(const walk *w, const char *text, const char *kernel_path,
                       const char *source, ptrcheck_sizes *sz)
{
	if (w->nsize) {
		long first = w->size_at[0];
		sz->how = w->size_how[0];
		for (int i = 1; i < w->nsize; i++)
			if (w->size_at[i] < first)
				first = w->size_at[i], sz->how = w->size_how[i];
		place_at(text, first, kernel_path, source, sz->first, sizeof sz->first);
	}
	if (w->div_mask)
		place_at(text, w->div_at, kernel_path, source, sz->div_first, sizeof sz->div_first);
	if (w->ngroup)
		place_at(text, w->group_at, kernel_path, source, sz->group_first, sizeof sz->group_first);
	sz->ngroup = w->ngroup;
	sz->group_how = w->group_how;
	sz->n = w->nsize;
	sz->div_mask = w->div_mask;
}

ptrcheck_result ptrcheck_ast(const char *json, size_t json_len, const char *text,
                             const char *main_file, const char *kernel_path, const char *source,
                             char *msg, size_t msglen, ptrcheck_sizes *sz)
{
	msg[0] = '\0';
	if (sz)
		*sz = (ptrcheck_sizes){ 0 };
	cJSON *root = cJSON_ParseWithLength(json, json_len);
	if (!root) {
		int deep = json_depth(json, json_len) >= CJSON_NESTING_LIMIT;
		snprintf(msg, msglen, "%s: error: %s\n", kernel_path, deep ?
		         "the kernel's syntax tree is nested too deeply for the grader to check it for "
		         "pointer tricks (an expression or block nested hundreds of levels deep): "
		         "split it up" :
		         "the grader could not read clang's syntax tree of the kernel, so it cannot "
		         "check it for pointer tricks");
		return PTRCHECK_REFUSED;
	}
	walk w = { .main_file = main_file, .cur_file = "", .cur_fn = -1, .div_at = -1,
	           .group_at = -1 };
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "inner");
	w.record_with_pointer = ptr_any_pointer_field(root, 0);
	for (const cJSON *c = cJSON_IsArray(in) ? in->child : NULL; c; c = c->next)
		ptr_visit(&w, c, -1, 1);
	ptr_judge_deferred(&w);
	ptr_size_judge(&w);
	ptrcheck_result r = w.nf ? PTRCHECK_REFUSED : PTRCHECK_OK;
	if (sz && r == PTRCHECK_OK && !w.oom && (w.nsize || w.div_mask || w.ngroup))
		size_tests(&w, text, kernel_path, source, sz);
	if (w.oom) {
		snprintf(msg, msglen, "out of memory checking the kernel's pointers");
		r = PTRCHECK_ERROR;
	} else if (w.nf) {
		qsort(w.f, w.nf, sizeof w.f[0], cmp_finding);
		size_t k = 0;
		char seen[MAX_FINDINGS][640];
		for (int i = 0; i < w.nf && k < msglen; i++) {
			char file[600];
			int line, col, dup = 0;
			place(text, w.f[i].off, kernel_path, source, file, sizeof file, &line, &col);
			snprintf(seen[i], sizeof seen[i], "%s:%d:%d", file, line, col);
			for (int d = 0; d < i; d++)
				dup |= strcmp(seen[d], seen[i]) == 0;   /* one line per place in the source */
			if (!dup)
				k += (size_t)snprintf(msg + k, msglen - k, "%s: error: %s\n", seen[i],
				                      w.f[i].why);
		}
	}
	ptr_size_free(&w);
	for (int i = 0; i < w.nvars; i++)
		free(w.vars[i].asg);
	free(w.vars);
	free(w.hash);
	free(w.defs);
	cJSON_Delete(root);
	return r;
}

/* ---- the confined clang ------------------------------------------------------------------------ */

static int ast_main(void *arg)
{
	const ptrcheck_run *r = arg;
	int out = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0 || dup2(out, 1) < 0)
		return 120;
	char *argv[] = { (char *)r->clang, "-cc1", "-x", "cl", "-cl-std=CL1.2", "-triple",
	                 "spir64-unknown-unknown", "-finclude-default-header",
	                 "-fdeclare-opencl-builtins", "-fsyntax-only", "-ast-dump=json",
	                 "-ferror-limit", "0", "-w", (char *)r->in, NULL };
	execv(r->clang, argv);
	return 121;
}

int ptrcheck_start(ptrcheck_run *r, const char *clang_path, const char *text,
                   const char *lesson_dir, const char *tmpdir, int tag, int confine,
                   double timeout_s, size_t mem_bytes, char *msg, size_t msglen)
{
	memset(r, 0, sizeof *r);
	msg[0] = '\0';
	r->clang = clang_path;
	snprintf(r->in, sizeof r->in, "%s/ast-%d.cl", tmpdir, tag);
	snprintf(r->out, sizeof r->out, "%s/ast-%d.json", tmpdir, tag);
	snprintf(r->err, sizeof r->err, "%s/ast-%d.log", tmpdir, tag);
	r->text = strdup(text);
	FILE *f = r->text ? fopen(r->in, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		snprintf(msg, msglen, "cannot write in %s: %s", tmpdir, strerror(errno));
		free(r->text);
		r->text = NULL;
		return -1;
	}
	confine_default(&r->pol, &r->cst, lesson_dir, tmpdir, NULL);
	memset(r->pol.exec, 0, sizeof r->pol.exec);
	r->pol.exec[0] = clang_path;
	if (realpath("/lib64/ld-linux-x86-64.so.2", r->interp))
		r->pol.exec[1] = r->interp;
	r->lim = (sandbox_limits){ timeout_s > 0 && timeout_s < 20 ? timeout_s : 20,
	                           mem_bytes && mem_bytes < ((size_t)2 << 30) ? mem_bytes :
	                           (size_t)2 << 30, r->err, confine ? &r->pol : NULL, 65536 };
	if (sandbox_spawn(ast_main, r, &r->lim, &r->child) != 0) {
		snprintf(msg, msglen, "cannot fork the pointer check: %s", strerror(errno));
		unlink(r->in);
		free(r->text);
		r->text = NULL;
		return -1;
	}
	r->started = 1;
	return 0;
}

ptrcheck_result ptrcheck_finish(ptrcheck_run *r, const char *kernel_path, const char *source,
                                char *msg, size_t msglen, ptrcheck_sizes *sz)
{
	msg[0] = '\0';
	if (sz)
		*sz = (ptrcheck_sizes){ 0 };
	if (!r->started) {
		snprintf(msg, msglen, "the pointer check was not started");
		return PTRCHECK_ERROR;
	}
	r->started = 0;
	sandbox_status st;
	sandbox_wait(&r->child, &st);
	ptrcheck_result res = PTRCHECK_REFUSED;
	size_t n = 0;
	if (st.end == SANDBOX_FAILED || (st.end == SANDBOX_EXITED && st.code >= 120)) {
		char *e = sandbox_slurp(r->err, 400, &n);
		snprintf(msg, msglen, "the pointer check could not run clang (%s)%s%s", st.what,
		         e && *e ? ": " : "", e ? e : "");
		free(e);
		res = PTRCHECK_ERROR;
	} else if (st.end == SANDBOX_EXITED && (st.code == 0 || st.code == 1)) {
		/* 1: clang found errors; what it could parse is judged, the build reports the rest */
		char *json = sandbox_slurp(r->out, MAX_JSON, &n);
		if (!json) {
			snprintf(msg, msglen, "cannot read the kernel's syntax tree");
			res = PTRCHECK_ERROR;
		} else if (n > MAX_JSON) {
			snprintf(msg, msglen, "%s: error: the kernel's syntax tree is over 64 MiB, too large "
			         "for the grader to check it for pointer tricks\n", kernel_path);
		} else {
			res = ptrcheck_ast(json, n, r->text, r->in, kernel_path, source, msg, msglen, sz);
		}
		free(json);
	} else {
		/* a crash, a timeout, a file-size limit: the kernel is not known to be clean, and
		 * whether that is its fault or the limits' is for a control run on the lesson's
		 * solution to tell (check_prep.c): never a pass either way */
		snprintf(msg, msglen, "%s: error: clang %s while the grader checked the kernel for "
		         "pointer tricks, so the kernel cannot be accepted\n", kernel_path, st.what);
		res = PTRCHECK_ERROR;
	}
	unlink(r->in);
	unlink(r->out);
	unlink(r->err);
	free(r->text);
	r->text = NULL;
	return res;
}
