/* diag.c — compiler-log rewriting and the #include policy (see diag.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

/* Line n (1-based) of source into buf, without its newline. */
static void source_line(const char *src, int n, char *buf, size_t len)
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

int diag_rewrite(const char *raw, const char *source, const char *path, char *out, size_t outlen)
{
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
		source_line(source, l.line, src, sizeof src);
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

/* One view of the source as a preprocessor sees it, for finding directives: backslash-newlines
 * joined, comments blanked, string and character literals kept whole (a slash-star inside one
 * opens no comment); line numbers kept by emitting the swallowed newlines at the end of the
 * logical line.  lenient adds what clang accepts and a stricter compiler may not: trigraphs
 * (??= is '#', ??/ a backslash), a lone CR ending a line, and blanks between a backslash and
 * its newline.  The include policy checks both views. */
static char *clean_source(const char *s, int lenient)
{
	size_t n = strlen(s);
	char *a = malloc(n + 1), *b = malloc(n + 1), *o = malloc(n + 1), *p;
	if (!a || !b || !o) {
		free(a), free(b), free(o);
		return NULL;
	}
	/* A UTF-8 byte-order mark opening the file is skipped by clang: skip it too, or a
	 * directive behind it would go unseen. */
	if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb && (unsigned char)s[2] == 0xbf)
		s += 3;
	/* Trigraphs and line ends (lenient only; never longer than the input). */
	for (p = a; *s;) {
		if (lenient && s[0] == '?' && s[1] == '?' && (s[2] == '=' || s[2] == '/'))
			*p++ = s[2] == '=' ? '#' : '\\', s += 3;
		else if (lenient && s[0] == '\r')
			*p++ = '\n', s += 1 + (s[1] == '\n');
		else
			*p++ = *s++;
	}
	*p = '\0';
	/* Backslash-newlines. */
	int pending = 0;
	for (s = a, p = b; *s;) {
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
	/* Comments and literals (a literal ends at its line's end when unterminated). */
	char quote = 0;
	pending = 0;
	for (s = b, p = o; *s;) {
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
	free(a), free(b);
	return o;
}

static int refuse(char *msg, size_t len, const char *path, int line, const char *what,
                  const char *why)
{
	snprintf(msg, len, "%s:%d: #include %s refused: %s", path, line, what, why);
	return -1;
}

/* Blanks a directive line may hold (clang also takes \f, \v, and a CR before the newline). */
static char *skip_blanks(char *p)
{
	return p + strspn(p, " \t\f\v\r");
}

static int check_view(const char *source, int lenient, const char *path, const char *lesson_dir,
                      char *msg, size_t msglen)
{
	char *src = clean_source(source, lenient);
	if (!src)
		return refuse(msg, msglen, path, 0, "", "out of memory");
	int line = 1, rc = 0;
	for (char *l = src; *l && rc == 0; line++) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char *p = skip_blanks(l);
		if (*p == '#' || (p[0] == '%' && p[1] == ':')) {  /* %: is the digraph of # */
			p = skip_blanks(p + (*p == '#' ? 1 : 2));
			if (strncmp(p, "include", 7) == 0 || strncmp(p, "import", 6) == 0 ||
			    strncmp(p, "embed", 5) == 0) {
				p = skip_blanks(p + strcspn(p, " \t\f\v\r\"<"));
				char name[256] = "";
				if (*p == '"') {
					size_t k = strcspn(p + 1, "\"");
					snprintf(name, sizeof name, "%.*s", (int)k, p + 1);
				}
				char shown[300];
				snprintf(shown, sizeof shown, "%.280s", p);
				if (*p != '"')
					rc = refuse(msg, msglen, path, line, shown, *p == '<' ?
					            "only headers from the lesson's own folder may be included" :
					            "an include must name a file in quotes (no macros)");
				else if (!name[0] || strchr(name, '/') || strstr(name, ".."))
					rc = refuse(msg, msglen, path, line, shown,
					            "only plain file names from the lesson's own folder may be included");
				else {
					char full[4096];
					snprintf(full, sizeof full, "%s/%s", lesson_dir, name);
					if (access(full, R_OK) != 0)
						rc = refuse(msg, msglen, path, line, shown,
						            "no such file in the lesson's folder");
				}
			}
		}
		if (!nl)
			break;
		l = nl + 1;
	}
	free(src);
	return rc;
}

int diag_check_includes(const char *source, const char *path, const char *lesson_dir,
                        char *msg, size_t msglen)
{
	for (int lenient = 0; lenient < 2; lenient++)
		if (check_view(source, lenient, path, lesson_dir, msg, msglen) != 0)
			return -1;
	return 0;
}
