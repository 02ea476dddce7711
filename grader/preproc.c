/* preproc.c — one confined clang preprocessor run per TILE, and the vetting of its output
 * (see preproc.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "confine.h"
#include "diag.h"
#include "preproc.h"
#include "ptrcheck.h"
#include "sandbox.h"

enum { MAX_OUT = 8 << 20 };   /* preprocessed text over 8 MiB is no lesson kernel */

const char *preproc_clang(void)
{
	static char found[PATH_MAX];
	static int tried;
	if (tried)
		return found[0] ? found : NULL;
	tried = 1;
	const char *path = getenv("PATH");
	char dir[PATH_MAX];
	for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(dir, sizeof dir, "%.*s/clang", (int)n, p);
		if (n && access(dir, X_OK) == 0 && realpath(dir, found))
			return found;
		p += n + (p[n] == ':');
	}
	/* no plain `clang`: the versioned one the distribution's PoCL pulls in (Ubuntu 24.04's
	 * PoCL 5.0 brings clang-16 as /usr/lib/llvm-16/bin/clang, and no /usr/bin/clang) */
	for (int v = 30; v >= 11; v--) {
		snprintf(dir, sizeof dir, "/usr/lib/llvm-%d/bin/clang", v);
		if (access(dir, X_OK) == 0 && realpath(dir, found))
			return found;
	}
	found[0] = '\0';
	return NULL;
}

/* ---- vetting the output ------------------------------------------------------------------ */

typedef struct vet {
	const char *kernel_path;
	char file[512];           /* presumed file of the line being read */
	int line;                 /* presumed line */
	char *msg;
	size_t msglen;
} vet;

static int vet_refuse(vet *v, int col, const char *fmt, const char *what)
{
	char why[400];
	snprintf(why, sizeof why, fmt, what);
	snprintf(v->msg, v->msglen, "%s:%d:%d: error: %s\n",
	         strcmp(v->file, "<kernel>") == 0 ? v->kernel_path : v->file, v->line, col, why);
	return -1;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v' || *p == '\r')
		p++;
	return p;
}

static int word_is(const char *p, const char *w)
{
	size_t n = strlen(w);
	return strncmp(p, w, n) == 0 && !(isalnum((unsigned char)p[n]) || p[n] == '_');
}

/* Pragmas a lesson kernel may carry to the compiler: none of them opens a file. */
static int pragma_ok(const char *p)
{
	static const char *ok[] = { "OPENCL", "unroll", "nounroll", "STDC", "message", NULL };
	static const char *clang_ok[] = { "loop", "fp", "diagnostic", NULL };
	for (int i = 0; ok[i]; i++)
		if (word_is(p, ok[i]))
			return 1;
	if (word_is(p, "clang") || word_is(p, "GCC")) {
		p = skip_blank(p + strcspn(p, " \t"));
		for (int i = 0; clang_ok[i]; i++)
			if (word_is(p, clang_ok[i]))
				return 1;
	}
	return 0;
}

/* A GNU line marker "# 12 \"name\" 2 3": 1 and the line and name when it is one. */
static int line_marker(const char *p, int *line, char *name, size_t len)
{
	if (!isdigit((unsigned char)*p))
		return 0;
	char *end;
	long n = strtol(p, &end, 10);
	p = skip_blank(end);
	if (*p != '"' || n < 0 || n > INT_MAX)
		return 0;
	size_t k = 0;
	for (p++; *p && *p != '"' && *p != '\n'; p++) {
		if (*p == '\\' && p[1] && p[1] != '\n')
			p++;
		if (k + 1 < len)
			name[k++] = *p;
	}
	name[k] = '\0';
	*line = (int)n;
	return *p == '"';
}

/* The tokens of one ordinary line: refuse inline assembly and _Pragma. */
static int vet_tokens(vet *v, const char *s, const char *end)
{
	static const char *banned[] = { "asm", "__asm", "__asm__", "_Pragma", "__pragma", NULL };
	for (const char *p = s; p < end;) {
		if (*p == '"' || *p == '\'') {
			char q = *p++;
			while (p < end && *p != q)
				p += (*p == '\\' && p + 1 < end) ? 2 : 1;
			p++;
		} else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
			for (p++; p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.' ||
			                      ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]))); p++)
				;
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '$' || (*p & 0x80)) {
			const char *w = p;
			while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || (*p & 0x80)))
				p++;
			for (int i = 0; banned[i]; i++)
				if ((size_t)(p - w) == strlen(banned[i]) && strncmp(w, banned[i], p - w) == 0)
					return vet_refuse(v, (int)(w - s) + 1, i < 3 ?
					                  "inline assembly (%s) is not accepted: on a CPU device a "
					                  "kernel runs as native code in the grader's process" :
					                  "%s is not accepted (write the #pragma itself)", banned[i]);
		} else {
			p++;
		}
	}
	return 0;
}

static void put(char **o, const char *s, size_t n)
{
	memcpy(*o, s, n);
	*o += n;
}

static int vet_text(const char *text, char *o, vet *v)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l);
		const char *p = skip_blank(l);
		if (*p == '#' || (p[0] == '%' && p[1] == ':')) {
			const char *d = skip_blank(p + (*p == '#' ? 1 : 2));
			int n;
			char name[512];
			if (line_marker(d, &n, name, sizeof name)) {
				/* the standard spelling every compiler takes; the next line is line n */
				o += sprintf(o, "#line %d \"", n);
				for (const char *c = name; *c; c++) {
					if (*c == '"' || *c == '\\')
						*o++ = '\\';
					*o++ = *c;
				}
				*o++ = '"';
				snprintf(v->file, sizeof v->file, "%s", name);
				v->line = n - 1;
			} else if (word_is(d, "pragma") && pragma_ok(skip_blank(d + 6))) {
				put(&o, l, end - l);
			} else {
				char shown[80];
				snprintf(shown, sizeof shown, "%.*s", (int)(end - p < 60 ? end - p : 60), p);
				return vet_refuse(v, (int)(p - l) + 1, word_is(d, "pragma") ?
				                  "this #pragma is not accepted by the grader: %s" :
				                  "a directive made by a macro is not accepted: %s", shown);
			}
		} else {
			if (vet_tokens(v, l, end) != 0)
				return -1;
			put(&o, l, end - l);
		}
		v->line++;
		if (!nl)
			break;
		*o++ = '\n';
		l = nl + 1;
	}
	*o = '\0';
	return 0;
}

int preproc_vet(const char *text, const char *kernel_path, char **out, char *msg, size_t msglen)
{
	vet v = { kernel_path, "<kernel>", 1, msg, msglen };
	char *o = malloc(2 * strlen(text) + 64);   /* a marker at most doubles, with escapes */
	*out = NULL;
	if (!o) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	msg[0] = '\0';
	if (vet_text(text, o, &v) != 0) {
		free(o);
		return -1;
	}
	*out = o;
	return 0;
}

/* ---- running the preprocessor --------------------------------------------------------------- */

typedef struct pre_ctx {
	const char *clang, *in, *out, *vfs, *dir;
	char tile[32];
} pre_ctx;

static int pre_main(void *arg)
{
	const pre_ctx *c = arg;
	int in = open(c->in, O_RDONLY), out = open(c->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0)
		return 120;
	char *argv[] = { (char *)c->clang, "-cc1", "-E", "-x", "cl", "-cl-std=CL1.2",
	                 "-triple", "spir-unknown-unknown", "-ivfsoverlay", (char *)c->vfs,
	                 "-I", (char *)c->dir, "-D", (char *)c->tile,
	                 "-ferror-limit", "20", "-o", "-", "-", NULL };
	execv(c->clang, argv);
	return 121;
}

/* The overlay: the lesson folder's plain files, nothing else, and no fall-through. */
static int write_vfs(const char *path, const char *dir)
{
	cJSON *root = cJSON_CreateObject(), *roots = cJSON_CreateArray(), *d = cJSON_CreateObject();
	cJSON *files = cJSON_CreateArray();
	cJSON_AddNumberToObject(root, "version", 0);
	cJSON_AddStringToObject(root, "case-sensitive", "true");
	cJSON_AddStringToObject(root, "fallthrough", "false");
	cJSON_AddItemToObject(root, "roots", roots);
	cJSON_AddStringToObject(d, "type", "directory");
	cJSON_AddStringToObject(d, "name", dir);
	cJSON_AddItemToObject(d, "contents", files);
	cJSON_AddItemToArray(roots, d);
	DIR *dd = opendir(dir);
	struct dirent *e;
	while (dd && (e = readdir(dd))) {
		char full[PATH_MAX + 300];
		struct stat st;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || lstat(full, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "type", "file");
		cJSON_AddStringToObject(f, "name", e->d_name);
		cJSON_AddStringToObject(f, "external-contents", full);
		cJSON_AddItemToArray(files, f);
	}
	if (dd)
		closedir(dd);
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	FILE *out = s ? fopen(path, "w") : NULL;
	int rc = out && fputs(s, out) >= 0 ? 0 : -1;
	if (out && fclose(out) != 0)
		rc = -1;
	free(s);
	return rc;
}

static int write_file(const char *path, const char *a, const char *b, const char *c)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = fputs(a, f) >= 0 && fputs(b, f) >= 0 && fputs(c, f) >= 0 ? 0 : -1;
	return fclose(f) != 0 ? -1 : rc;
}


/* ---- the probe: macro expansions at the end of the file ---------------------------------- */

#define PROBE_FILE "<clgrade-probe>"
#define PROBE_TAG  "__clgrade_probe_"

/* The lines appended after the source: a marker, then "__clgrade_probe_<i>__ NAME" each. */
static void probe_trailer(const preproc_job *j, char *buf, size_t len)
{
	/* two newlines: a backslash at the very end of the source splices away only one */
	size_t k = (size_t)snprintf(buf, len, "\n\n#line 1 \"" PROBE_FILE "\"\n");
	for (int i = 0; j->probe && j->probe[i] && i < PREPROC_MAX_PROBE && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, PROBE_TAG "%d__ %s\n", i, j->probe[i]);
}

/* Cut the probe's part off the output t (at the last marker naming PROBE_FILE: the
 * trailer comes after everything the student wrote) and read each expansion. */
/* Is the line at p the preprocessor's line marker for PROBE_FILE ("# 1 \"<clgrade-probe>\"")? */
static int probe_marker(const char *p)
{
	if (p[0] != '#' || p[1] != ' ' || !isdigit((unsigned char)p[2]))
		return 0;
	p += 2 + strspn(p + 2, "0123456789");
	return strncmp(p, " \"" PROBE_FILE "\"", strlen(PROBE_FILE) + 3) == 0;
}

static void probe_read(preproc_job *j, char *t)
{
	char *mark = NULL;
	for (char *line = t; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (probe_marker(line))
			mark = line;      /* the last one: the trailer comes after all the student wrote */
	if (!j->probe || !mark)
		return;
	char *tail = mark + strcspn(mark, "\n");
	*mark = '\0';
	for (char *line = tail; *line; line += strcspn(line, "\n")) {
		line += *line == '\n';
		int i, n = 0;
		/* "__clgrade_probe_<i>__ value", the value possibly empty: never past the line */
		if (sscanf(line, PROBE_TAG "%d__%n", &i, &n) != 1 || n == 0 || i < 0 ||
		    i >= PREPROC_MAX_PROBE || (line[n] != ' ' && line[n] != '\n' && line[n]))
			continue;
		n += line[n] == ' ';
		size_t k = strcspn(line + n, "\n");
		while (k && isspace((unsigned char)line[n + k - 1]))
			k--;
		snprintf(j->probe_val[i], sizeof j->probe_val[i], "%.*s", (int)k, line + n);
	}
	j->probed = 1;
}

/* One preprocessor run in flight. */
typedef struct pre_run {
	preproc_job *j;
	char dir[PATH_MAX], vfs[PATH_MAX + 32], in[PATH_MAX + 32], res[PATH_MAX + 32];
	char err[PATH_MAX + 32], interp[PATH_MAX];
	pre_ctx c;
	confine_policy pol;
	confine_storage cst;
	sandbox_limits lim;
	sandbox_child child;
	ptrcheck_run pc;          /* the pointer check of its output (ptrcheck.h) */
} pre_run;

/* Write its files and start its confined child: 0, or -1 with msg (a grader failure). */
static int pre_start(pre_run *p, preproc_job *j, char *msg, size_t msglen)
{
	p->j = j;
	msg[0] = '\0';
	const char *clang = preproc_clang();
	if (!clang) {
		snprintf(msg, msglen, "no clang on PATH to preprocess the kernel (Debian package clang: "
		         "sudo make deps)");
		return -1;
	}
	if (!realpath(j->lesson_dir, p->dir)) {
		snprintf(msg, msglen, "cannot open the lesson folder %s: %s", j->lesson_dir, strerror(errno));
		return -1;
	}
	snprintf(p->vfs, sizeof p->vfs, "%s/vfs-%d.yaml", j->tmpdir, j->tile);
	snprintf(p->in, sizeof p->in, "%s/kernel-%d.in", j->tmpdir, j->tile);
	snprintf(p->res, sizeof p->res, "%s/kernel-%d.i", j->tmpdir, j->tile);
	snprintf(p->err, sizeof p->err, "%s/cpp-%d.log", j->tmpdir, j->tile);
	char trailer[600] = "";
	if (j->probe)
		probe_trailer(j, trailer, sizeof trailer);
	if (write_vfs(p->vfs, p->dir) != 0 ||
	    write_file(p->in, "#line 1 \"<kernel>\"\n", j->source, trailer) != 0) {
		snprintf(msg, msglen, "cannot write in %s: %s", j->tmpdir, strerror(errno));
		return -1;
	}
	p->c = (pre_ctx){ clang, p->in, p->res, p->vfs, p->dir, "" };
	snprintf(p->c.tile, sizeof p->c.tile, "TILE=%d", j->tile);
	confine_default(&p->pol, &p->cst, p->dir, j->tmpdir, NULL);
	memset(p->pol.exec, 0, sizeof p->pol.exec);
	p->pol.exec[0] = clang;
	if (realpath("/lib64/ld-linux-x86-64.so.2", p->interp))
		p->pol.exec[1] = p->interp;
	p->lim = (sandbox_limits){ j->timeout_s > 0 && j->timeout_s < 20 ? j->timeout_s : 20,
	                           j->mem_bytes && j->mem_bytes < ((size_t)2 << 30) ? j->mem_bytes :
	                           (size_t)2 << 30, p->err, j->confine ? &p->pol : NULL, 0 };
	if (sandbox_spawn(pre_main, &p->c, &p->lim, &p->child) != 0) {
		snprintf(msg, msglen, "cannot fork the preprocessor: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Wait for it and read what it made. */
static preproc_result pre_finish(pre_run *p, char **out, char *msg, size_t msglen)
{
	preproc_job *j = p->j;
	sandbox_status st;
	sandbox_wait(&p->child, &st);
	size_t n = 0, en = 0;
	preproc_result r = PREPROC_REFUSED;
	*out = NULL;
	if (st.end == SANDBOX_FAILED || (st.end == SANDBOX_EXITED && st.code >= 120)) {
		char *e = sandbox_slurp(p->err, 400, &en);
		snprintf(msg, msglen, "the preprocessor could not run (%s)%s%s", st.what,
		         e && *e ? ": " : "", e ? e : "");
		free(e);
		r = PREPROC_ERROR;
	} else if (st.end == SANDBOX_EXITED && st.code == 0) {
		char *t = sandbox_slurp(p->res, MAX_OUT, &n);
		if (!t) {
			snprintf(msg, msglen, "cannot read the preprocessed kernel");
			r = PREPROC_ERROR;
		} else if (n > MAX_OUT) {
			snprintf(msg, msglen, "%s: error: over 8 MiB after preprocessing (macros that "
			         "expand without end?)\n", j->kernel_path);
		} else if (probe_read(j, t), preproc_vet(t, j->kernel_path, out, msg, msglen) == 0) {
			r = PREPROC_OK;
		}
		free(t);
	} else if (st.end == SANDBOX_EXITED) {
		char *e = sandbox_slurp(p->err, 65536, &en);
		if (diag_rewrite(e, j->source, j->kernel_path, msg, msglen) == 0 || !msg[0])
			snprintf(msg, msglen, "%s: error: the preprocessor rejected the kernel (status %d)"
			         ": %.300s\n", j->kernel_path, st.code, e ? e : "");
		free(e);
	} else {
		/* the time limit or a signal (memory, file size): whose fault is for the control run
		 * on the lesson's solution to tell (check_prep.c), not for this file alone */
		snprintf(msg, msglen, "%s: error: preprocessing %s\n", j->kernel_path, st.what);
		r = PREPROC_ERROR;
	}
	if (r != PREPROC_OK) {
		free(*out);
		*out = NULL;
	}
	unlink(p->in);
	unlink(p->res);
	unlink(p->err);
	unlink(p->vfs);
	return r;
}

preproc_result preproc_run(preproc_job *j, char **out, char *msg, size_t msglen)
{
	preproc_result r;
	preproc_run_all(j, 1, out, &msg, msglen, &r);
	return r;
}

void preproc_run_all(preproc_job *jobs, int n, char **out, char **msg, size_t msglen,
                     preproc_result *r)
{
	pre_run *p = calloc(n > 0 ? n : 1, sizeof *p);
	int *started = calloc(n > 0 ? n : 1, sizeof *started);
	for (int i = 0; i < n; i++) {
		out[i] = NULL;
		r[i] = PREPROC_ERROR;
		if (!p || !started)
			snprintf(msg[i], msglen, "out of memory");
		else
			started[i] = pre_start(&p[i], &jobs[i], msg[i], msglen) == 0;
	}
	/* each output, once vetted, goes to the pointer check while the others still run */
	for (int i = 0; i < n && p && started; i++) {
		if (!started[i])
			continue;
		started[i] = 0;
		r[i] = pre_finish(&p[i], &out[i], msg[i], msglen);
		if (r[i] != PREPROC_OK)
			continue;
		if (ptrcheck_start(&p[i].pc, preproc_clang(), out[i], p[i].dir, jobs[i].tmpdir,
		                   jobs[i].tile, jobs[i].confine, jobs[i].timeout_s, jobs[i].mem_bytes,
		                   msg[i], msglen) == 0) {
			started[i] = 1;
		} else {
			r[i] = PREPROC_ERROR;
			free(out[i]);
			out[i] = NULL;
		}
	}
	for (int i = 0; i < n && p && started; i++) {
		if (!started[i])
			continue;
		ptrcheck_result pr = ptrcheck_finish(&p[i].pc, jobs[i].kernel_path, jobs[i].source,
		                                      msg[i], msglen, &jobs[i].sizes);
		if (pr != PTRCHECK_OK) {
			r[i] = pr == PTRCHECK_REFUSED ? PREPROC_REFUSED : PREPROC_ERROR;
			free(out[i]);
			out[i] = NULL;
		}
	}
	free(p);
	free(started);
}
