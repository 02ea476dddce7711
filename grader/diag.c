/* diag.c — compiler-log rewriting, and diagnoses that name the real
 * cause of a failure (see diag.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "diag_int.h"
#include "esc.h"
#include "trace.h"

/* Line n (1-based) of source into buf, without its newline. */
void diag_source_line(const char *src, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 1; src && *src && i < n; src++)
		if (*src == '\n')
			i++;
	if (!src || !*src)
		return;
	size_t k = strcspn(src, "\n");
	if (k >= len)
		k = len - 1;
	memcpy(buf, src, k);
	buf[k] = '\0';
}

typedef struct loc { char file[256]; int line, col; char sev[16]; const char *msg; } loc;

/* Parse "error: FILE:L:C: msg" or "FILE:L:C: error: msg".  1 when it is a located message. */
static int parse_loc(const char *s, loc *l)
{
	static const char *sevs[] = { "error", "warning", "note", "fatal error" };
	memset(l, 0, sizeof *l);
	for (size_t i = 0; i < sizeof sevs / sizeof *sevs; i++) {
		size_t n = strlen(sevs[i]);
		if (strncmp(s, sevs[i], n) == 0 && s[n] == ':' && s[n + 1] == ' ') {
			snprintf(l->sev, sizeof l->sev, "%s", sevs[i]);
			s += n + 2;
			break;
		}
	}
	const char *c1 = NULL;  /* FILE ends at the first ':' followed by a digit */
	for (const char *p = s; *p && !c1; p++)
		if (*p == ':' && isdigit((unsigned char)p[1]))
			c1 = p;
	if (!c1 || c1 - s >= (long)sizeof l->file)
		return 0;
	memcpy(l->file, s, c1 - s);
	l->file[c1 - s] = '\0';
	char *end;
	l->line = (int)strtol(c1 + 1, &end, 10);
	if (*end != ':')
		return 0;
	l->col = (int)strtol(end + 1, &end, 10);
	if (*end != ':')
		return 0;
	end++;
	while (*end == ' ')
		end++;
	if (!l->sev[0]) {
		for (size_t i = 0; i < sizeof sevs / sizeof *sevs; i++) {
			size_t n = strlen(sevs[i]);
			if (strncmp(end, sevs[i], n) == 0 && end[n] == ':') {
				snprintf(l->sev, sizeof l->sev, "%s", sevs[i]);
				end += n + 1;
				while (*end == ' ')
					end++;
				break;
			}
		}
	}
	if (!l->sev[0])
		return 0;
	l->msg = end;
	return 1;
}

/* The compiler's name for the student's source: a temp file, "<kernel>", "input.cl", ... */
static int is_temp_name(const char *f)
{
	return strstr(f, "tempfile") || strstr(f, "kcache") || strcmp(f, "<kernel>") == 0 ||
	       strcmp(f, "<source>") == 0 || strcmp(f, "input.cl") == 0 || strncmp(f, "/tmp/", 5) == 0;
}

static size_t append(char *out, size_t pos, size_t len, const char *fmt, ...)
{
	if (pos >= len)
		return pos;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(out + pos, len - pos, fmt, ap);
	va_end(ap);
	return k < 0 ? pos : (pos + (size_t)k < len ? pos + (size_t)k : len - 1);
}

int diag_rewrite(const char *raw, const char *source, const char *raw_path, char *out, size_t outlen)
{
	/* a located message is one line: the file's name as one line too (esc.h), so a name
	 * with a newline cannot split it (or forge a line of the log) */
	char path[1200];
	esc_str(path, sizeof path, raw_path, ESC_LINE, NULL);
	size_t pos = 0;
	int errors = 0;
	out[0] = '\0';
	while (raw && *raw) {
		size_t k = strcspn(raw, "\n");
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)(k < sizeof line ? k : sizeof line - 1), raw);
		raw += k + (raw[k] == '\n');
		loc l;
		if (!parse_loc(line, &l))
			continue;       /* "Device ... failed to build", "1 error generated." */
		int mine = is_temp_name(l.file);
		errors += strcmp(l.sev, "error") == 0 || strcmp(l.sev, "fatal error") == 0;
		pos = append(out, pos, outlen, "%s:%d:%d: %s: %s\n", mine ? path : l.file, l.line, l.col,
		             l.sev, l.msg);
		if (!mine)
			continue;
		char src[512];
		diag_source_line(source, l.line, src, sizeof src);
		if (!src[0])
			continue;
		char caret[512];
		int c = l.col > 0 ? l.col - 1 : 0;
		if (c > (int)sizeof caret - 2)
			c = (int)sizeof caret - 2;
		for (int i = 0; i < c; i++)
			caret[i] = src[i] == '\t' ? '\t' : ' ';
		caret[c] = '^';
		caret[c + 1] = '\0';
		pos = append(out, pos, outlen, "  %s\n  %s\n", src, caret);
	}
	return errors;
}

void diag_first_error(const char *rewritten, char *out, size_t outlen)
{
	out[0] = '\0';
	while (rewritten && *rewritten) {   /* skip the indented source and caret lines */
		size_t k = strcspn(rewritten, "\n");
		char line[1400];
		snprintf(line, sizeof line, "%.*s", (int)(k < sizeof line ? k : sizeof line - 1), rewritten);
		if (line[0] != ' ' && (strstr(line, ": error: ") || strstr(line, ": fatal error: "))) {
			snprintf(out, outlen, "%s", line);
			return;
		}
		rewritten += k + (rewritten[k] == '\n');
	}
}

/* clean_source's passes, each from s into p (room for strlen(s) + 1: none writes more than
 * it reads).  Trigraphs and line ends (lenient only). */
static void clean_trigraphs(char *p, const char *s, int lenient)
{
	while (*s) {
		if (lenient && s[0] == '?' && s[1] == '?' && (s[2] == '=' || s[2] == '/'))
			*p++ = s[2] == '=' ? '#' : '\\', s += 3;
		else if (lenient && s[0] == '\r')
			*p++ = '\n', s += 1 + (s[1] == '\n');
		else
			*p++ = *s++;
	}
	*p = '\0';
}

/* Backslash-newlines joined, the newlines they swallowed emitted at the logical line's end. */
static void clean_joins(char *p, const char *s, int lenient)
{
	int pending = 0;
	while (*s) {
		size_t k = 1 + (lenient && s[0] == '\\' ? strspn(s + 1, " \t\f\v") : 0);
		if (s[0] == '\\' && s[k] == '\n') {
			s += k + 1, pending++;
		} else if (*s == '\n') {
			*p++ = *s++;
			for (; pending; pending--)
				*p++ = '\n';
		} else {
			*p++ = *s++;
		}
	}
	*p = '\0';
}

/* After a '#' that opens a directive: blanks and block comments skipped, is the directive
 * #warning or #error?  Their text is read raw by clang: no comment opens in it. */
static int raw_text_directive(const char *s)
{
	for (;;) {
		s += strspn(s, " \t\f\v");
		if (s[0] != '/' || s[1] != '*')
			break;
		const char *e = strstr(s + 2, "*/");
		if (!e)
			return 0;
		s = e + 2;
	}
	return (strncmp(s, "warning", 7) == 0 && !isalnum((unsigned char)s[7]) && s[7] != '_') ||
	       (strncmp(s, "error", 5) == 0 && !isalnum((unsigned char)s[5]) && s[5] != '_');
}

/* Comments and literals (a literal ends at its line's end when unterminated); the text of a
 * #warning or #error kept as it is, as clang reads it (a slash-star there opens nothing). */
static void clean_comments(char *p, const char *s)
{
	char quote = 0;
	int pending = 0, bol = 1;
	while (*s) {
		if (!quote && bol && (*s == '#' || (s[0] == '%' && s[1] == ':')) &&
		    raw_text_directive(s + (*s == '#' ? 1 : 2))) {
			while (*s && *s != '\n')
				*p++ = *s++;
			continue;
		}
		if (*s == '\n')
			bol = 1;
		else if (!quote && !strchr(" \t\f\v", *s) && !(s[0] == '/' && (s[1] == '*' || s[1] == '/')))
			bol = 0;
		if (quote && *s != '\n') {
			if (*s == '\\' && s[1] && s[1] != '\n')
				*p++ = *s++;
			else if (*s == quote)
				quote = 0;
			*p++ = *s++;
		} else if (s[0] == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++;
		} else if (s[0] == '/' && s[1] == '*') {
			*p++ = ' ';
			for (s += 2; *s && !(s[0] == '*' && s[1] == '/'); s++)
				pending += *s == '\n';
			if (*s)
				s += 2;
		} else if (*s == '\n') {
			quote = 0;
			*p++ = *s++;
			for (; pending; pending--)
				*p++ = '\n';
		} else {
			if (*s == '"' || *s == '\'')
				quote = *s;
			*p++ = *s++;
		}
	}
	*p = '\0';
}

/* One view of the source as a preprocessor sees it, for finding directives: backslash-newlines
 * joined, comments blanked, string and character literals kept whole (a slash-star inside one
 * opens no comment); line numbers kept by emitting the swallowed newlines at the end of the
 * logical line.  lenient adds what clang accepts and a stricter compiler may not: trigraphs
 * (??= is '#', ??/ a backslash), a lone CR ending a line, and blanks between a backslash and
 * its newline. */
static char *clean_source(const char *s, int lenient)
{
	size_t n = strlen(s);
	char *a = malloc(n + 1), *b = malloc(n + 1), *o = malloc(n + 1);
	if (!a || !b || !o) {
		free(a), free(b), free(o);
		return NULL;
	}
	/* A UTF-8 byte-order mark opening the file is skipped by clang: skip it too, or a
	 * directive behind it would go unseen. */
	if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb && (unsigned char)s[2] == 0xbf)
		s += 3;
	clean_trigraphs(a, s, lenient);
	clean_joins(b, a, lenient);
	clean_comments(o, b);
	free(a), free(b);
	return o;
}

/* ---- diagnoses that name the real cause (diag.h) --------------------------------------- */

int diag_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Next whole-word occurrence of word in s at or after p, or NULL. */
const char *diag_find_word(const char *s, const char *p, const char *word)
{
	size_t n = strlen(word);
	for (const char *q = strstr(p, word); q; q = strstr(q + 1, word))
		if ((q == s || !diag_ident_char(q[-1])) && !diag_ident_char(q[n]))
			return q;
	return NULL;
}

static int line_of(const char *s, const char *p)
{
	int line = 1;
	for (; s < p; s++)
		line += *s == '\n';
	return line;
}

/* The identifier a link error names: "symbol NAME", "function 'NAME'", "'NAME'". */
static void linked_symbol(const char *msg, char *name, size_t len)
{
	const char *p = strstr(msg, "symbol ");
	name[0] = '\0';
	if (p)
		p += 7;
	else if ((p = strchr(msg, '\'')) != NULL)
		p++;
	else
		return;
	size_t k = 0;
	while (diag_ident_char(p[k]) && k + 1 < len)
		k++;
	snprintf(name, len, "%.*s", (int)k, p);
}

int diag_unlocated(const char *raw, const char *source, const char *raw_path, char *out,
                   size_t outlen)
{
	char path[1200];   /* one line, as in diag_rewrite */
	esc_str(path, sizeof path, raw_path, ESC_LINE, NULL);
	char msg[1024] = "";
	size_t m = 0;
	while (raw && *raw) {
		size_t k = strcspn(raw, "\n");
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)(k < sizeof line ? k : sizeof line - 1), raw);
		raw += k + (raw[k] == '\n');
		char *t = line + strspn(line, " \t");
		size_t tl = strlen(t);
		while (tl && isspace((unsigned char)t[tl - 1]))
			t[--tl] = '\0';
		/* the driver's summary lines say nothing the status does not */
		if (!*t || strstr(t, "failed to build the program") || strstr(t, "generated."))
			continue;
		int w = snprintf(msg + m, sizeof msg - m, "%s%s", m ? " " : "", t);
		m = w > 0 && m + (size_t)w < sizeof msg ? m + (size_t)w : m;
	}
	if (!m)
		return 0;
	char name[128], where[32] = "";
	linked_symbol(msg, name, sizeof name);
	char *clean = name[0] && source ? clean_source(source, 0) : NULL;
	const char *at = clean ? diag_find_word(clean, clean, name) : NULL;
	char src[512] = "", caret[512] = "";
	if (at) {
		int line = line_of(clean, at);
		diag_source_line(source, line, src, sizeof src);
		const char *c = diag_find_word(src, src, name);
		int col = c ? (int)(c - src) : 0;
		snprintf(where, sizeof where, ":%d:%d", line, col + 1);
		for (int i = 0; i < col && i < (int)sizeof caret - 2; i++)
			caret[i] = src[i] == '\t' ? '\t' : ' ';
		strcat(caret, "^");
	}
	free(clean);
	size_t pos = strlen(out);
	pos = append(out, pos, outlen, "%s%s: error: %s%s\n", path, where, msg,
	             name[0] ? " (a function that is declared or called but never defined: "
	             "define it in this file, above the kernel)" : "");
	if (src[0])
		append(out, pos, outlen, "  %s\n  %s\n", src, caret);
	return 1;
}

static const char *addr_name(diag_addr a)
{
	return a == DIAG_ARG_GLOBAL ? "__global " : a == DIAG_ARG_LOCAL ? "__local " :
	       a == DIAG_ARG_CONSTANT ? "__constant " : "";
}

/* Is type (without a trailing '*') an OpenCL C built-in scalar or vector type?  Only those
 * are judged: a typedef's name ("real*") says nothing the grader can check. */
static int builtin_type(const char *type)
{
	static const char *base[] = { "char", "uchar", "short", "ushort", "int", "uint", "long",
	                              "ulong", "float", "double", "half", "bool", "size_t" };
	char t[64];
	snprintf(t, sizeof t, "%s", strncmp(type, "unsigned ", 9) == 0 ? type + 9 : type);
	t[strcspn(t, "*")] = '\0';
	size_t n = strlen(t);
	while (n && isdigit((unsigned char)t[n - 1]))
		t[--n] = '\0';    /* float4, int16 */
	for (size_t i = 0; i < sizeof base / sizeof *base; i++)
		if (strcmp(t, base[i]) == 0)
			return 1;
	return 0;
}

/* Why argument i does not fit, or "" when it does. */
static void arg_problem(const char *want, int buffer, int input, const diag_arg *a, int i,
                        char *why, size_t len)
{
	why[0] = '\0';
	if (!a->type[0])
		return;               /* the runtime did not say */
	int pointer = strchr(a->type, '*') != NULL, known = builtin_type(a->type);
	if (buffer && a->addr == DIAG_ARG_LOCAL)
		snprintf(why, len, "argument %d (%s) is a __local pointer, but the lesson passes a "
		         "__global buffer there; declare __local tiles inside the kernel "
		         "(__local float tile[TILE][TILE];)", i + 1, want);
	else if (buffer && (!pointer || (known && strcmp(a->type, "float*")) ||
	                    (a->addr != DIAG_ARG_GLOBAL && !(input && a->addr == DIAG_ARG_CONSTANT))))
		snprintf(why, len, "argument %d (%s) is %s%s, but the lesson passes a buffer of float "
		         "(__global %sfloat* %s)", i + 1, want, addr_name(a->addr), a->type,
		         input ? "const " : "", want);
	else if (!buffer && (a->addr != DIAG_ARG_PRIVATE || pointer ||
	                     (known && strcmp(a->type, "int") && strcmp(a->type, "uint") &&
	                      strcmp(a->type, "unsigned int"))))
		snprintf(why, len, "argument %d (%s) is %s%s, but the lesson passes an int (const int "
		         "%s)", i + 1, want, addr_name(a->addr), a->type, want);
}

int diag_signature(const char *const *names, int n_inputs, const diag_arg *args, int nargs,
                   char *msg, size_t len)
{
	char want[128] = "", have[400] = "", why[300] = "";
	size_t w = 0, h = 0;
	int nwant = 0;
	while (names[nwant])
		nwant++;
	for (int i = 0; i < nwant && w < sizeof want; i++) {
		int k = snprintf(want + w, sizeof want - w, "%s%s", i ? ", " : "", names[i]);
		w = k > 0 ? w + (size_t)k : w;
	}
	for (int i = 0; args && i < nargs && h < sizeof have; i++) {
		int k = snprintf(have + h, sizeof have - h, "%s%s%s%s%s", i ? ", " : "",
		                 addr_name(args[i].addr), args[i].type, args[i].type[0] ? " " : "",
		                 args[i].name[0] ? args[i].name : "?");
		h = k > 0 ? h + (size_t)k : h;
	}
	for (int i = 0; args && i < nargs && i < nwant && !why[0]; i++)
		arg_problem(names[i], i <= n_inputs, i < n_inputs, &args[i], i, why, sizeof why);
	for (int i = nwant; args && i < nargs && !why[0]; i++)
		if (args[i].addr == DIAG_ARG_LOCAL)
			snprintf(why, sizeof why, "argument %d (%s) is a __local pointer the grader "
			         "cannot pass; declare __local tiles inside the kernel (__local float "
			         "tile[TILE][TILE];)", i + 1, args[i].name[0] ? args[i].name : "?");
	if (nargs == nwant && !why[0])
		return 0;
	snprintf(msg, len, "the lesson passes (%s); your kernel takes %d argument%s%s%s%s%s", want,
	         nargs, nargs == 1 ? "" : "s", have[0] ? " (" : "", have, have[0] ? ")" : "",
	         why[0] ? ": " : nargs != nwant ? ": keep the parameter list exactly as the lesson "
	         "gives it" : "");
	if (why[0]) {
		size_t k = strlen(msg);
		snprintf(msg + k, len - k, "%s", why);
	}
	return -1;
}

/* Each barrier call of the cleaned source: its line and its flags text. */
typedef int (*barrier_fn)(const char *flags, int line, void *arg);

static int each_barrier(const char *source, barrier_fn fn, void *arg)
{
	/* work_group_barrier is the OpenCL 2.0 spelling of the same call */
	static const char *names[] = { "barrier", "work_group_barrier" };
	char *s = clean_source(source, 0);
	int r = 0;
	for (size_t i = 0; s && i < sizeof names / sizeof *names; i++) {
		size_t len = strlen(names[i]);
		for (const char *p = s; !r && (p = diag_find_word(s, p, names[i])) != NULL; p++) {
			const char *open = p + len + strspn(p + len, " \t\n");
			if (*open != '(')
				continue;
			char flags[256];
			size_t k = strcspn(open + 1, ")");
			snprintf(flags, sizeof flags, "%.*s", (int)(k < 255 ? k : 255), open + 1);
			r = fn(flags, line_of(s, p), arg);
		}
	}
	free(s);
	return r;
}

char *diag_clean(const char *source)
{
	return clean_source(source, 0);
}

int diag_line_directive(const char *source)
{
	char *s = clean_source(source, 1);
	int found = 0;
	for (const char *l = s; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		const char *p = l + strspn(l, " \t\f\v");
		if (p[0] != '#' && !(p[0] == '%' && p[1] == ':'))
			continue;
		p += p[0] == '#' ? 1 : 2;
		p += strspn(p, " \t\f\v");
		if (isdigit((unsigned char)*p) || (strncmp(p, "line", 4) == 0 && !diag_ident_char(p[4])))
			found = line_of(s, l);
	}
	free(s);
	return found;
}

static int any_barrier(const char *flags, int line, void *arg)
{
	(void)flags, (void)arg;
	return line;
}

int diag_declares(const char *source, int line, const char *name)
{
	char text[512];
	diag_source_line(source, line, text, sizeof text);
	size_t n = strlen(name);
	for (const char *p = text; (p = strstr(p, name)) != NULL; p += n) {
		int starts = p == text || !diag_ident_char(p[-1]), ends = !diag_ident_char(p[n]);
		if (!starts || !ends)
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t')
			q++;
		const char *b = p;
		while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		/* "int TILE", "const int TILE = 16", "float TILE[4]", "#define TILE" or "TILE = 16"
		 * (not "return TILE", "x == TILE") */
		const char *w = b;
		while (w > text && diag_ident_char(w[-1]))
			w--;
		int after_word = w < b && strncmp(w, "return", 6) != 0 && strncmp(w, "case", 4) != 0 &&
		                 strncmp(w, "sizeof", 6) != 0;
		if ((*q == '=' && q[1] != '=') || after_word)
			return 1;
	}
	return 0;
}

int diag_has_barrier(const char *source)
{
	return each_barrier(source, any_barrier, NULL) != 0;
}

typedef struct in_if { const char *source; char *cond; size_t len; int cond_line; } in_if;

static int inside_if(const char *flags, int line, void *arg)
{
	in_if *a = arg;
	(void)flags;
	return trace_skip_condition(a->source, line, a->cond, a->len, &a->cond_line) == 1 ? line : 0;
}

int diag_barrier_in_if(const char *source, char *cond, size_t len, int *cond_line)
{
	in_if a = { source, cond, len, 0 };
	int line = each_barrier(source, inside_if, &a);
	*cond_line = a.cond_line;
	return line;
}

static int global_only(const char *flags, int line, void *arg)
{
	(void)arg;
	return strstr(flags, "CLK_GLOBAL_MEM_FENCE") && !strstr(flags, "CLK_LOCAL_MEM_FENCE") ?
	       line : 0;
}

int diag_global_only_fence(const char *source)
{
	char *s = clean_source(source, 0);
	int local = s && (diag_find_word(s, s, "__local") || diag_find_word(s, s, "local"));
	free(s);
	return local ? each_barrier(source, global_only, NULL) : 0;
}
