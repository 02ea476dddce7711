/* diag_index.c — what the source says of an array access: how many subscripts it has, a
 * double buffer of which only one half is used, what a guard leaves of an index unbounded
 * (diag.h).  Split from diag.c, whose line and word helpers it shares (diag_int.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "diag_int.h"

int diag_subscripts(const char *source, int line, const char *name)
{
	char text[1024];
	int most = 0;
	diag_source_line(source, line, text, sizeof text);
	for (const char *p = text; name[0] && (p = diag_find_word(text, p, name)) != NULL; p++) {
		const char *q = p + strlen(name);
		int n = 0;
		for (q += strspn(q, " \t"); *q == '['; q += strspn(q, " \t"), n++) {
			int depth = 0;
			do
				depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			while (*++q && depth > 0);
			if (depth)
				break;
		}
		most = n > most ? n : most;
	}
	return most;
}

/* The subscript that follows the first `name[` at or after p in s, trimmed of blanks, into
 * buf; the end of the subscript, or NULL where name is not subscripted there. */
static const char *first_subscript(const char *s, const char *p, const char *name, char *buf,
                                   size_t len)
{
	const char *q = p + strlen(name);
	q += strspn(q, " \t\n");
	if (*q != '[')
		return NULL;
	const char *b = ++q;
	for (int depth = 1; *q && depth > 0; q++)
		depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
	size_t n = 0;
	for (const char *c = b; c < q - 1 && n + 1 < len; c++)
		if (!isspace((unsigned char)*c))
			buf[n++] = *c;
	buf[n] = '\0';
	return q;
}

int diag_one_buffer(const char *source, const char *name, char *sub, size_t len)
{
	char *s = diag_clean(source), first[64] = "", cur[64];
	int decl = 0, uses = 0, same = 1;
	for (const char *p = s; s && name[0] && (p = diag_find_word(s, p, name)) != NULL; p++) {
		const char *b = p;
		while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		int declared = b > s && diag_ident_char(b[-1]);   /* "float4 As[2]...": its declaration */
		if (!first_subscript(s, p, name, cur, sizeof cur))
			continue;
		if (declared) {
			decl = decl || strcmp(cur, "2") == 0;
			continue;
		}
		if (uses++ == 0)
			snprintf(first, sizeof first, "%s", cur);
		same = same && strcmp(first, cur) == 0;
	}
	free(s);
	if (!decl || uses < 2 || !same || !first[0] || strspn(first, "0123456789") == strlen(first))
		return 0;
	snprintf(sub, len, "%s", first);
	return 1;
}

/* The unordered pairs `a + b` of identifiers in text (each as "a+b", the smaller name first),
 * into pairs; their count (at most max). */
static int sum_pairs(const char *t, char pairs[][64], int max)
{
	int n = 0;
	for (const char *p = t; *p && n < max; p++) {
		if (!diag_ident_char(*p) || (p > t && diag_ident_char(p[-1])) || isdigit((unsigned char)*p))
			continue;
		size_t a = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		const char *q = p + a;
		q += strspn(q, " \t");
		if (*q != '+' || q[1] == '+' || q[1] == '=')
			continue;
		q++;
		q += strspn(q, " \t");
		size_t b = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!b || isdigit((unsigned char)*q) || q[b] == '(' || q[b] == '[')
			continue;
		int first = strncmp(p, q, a < b ? a : b) < 0 || (strncmp(p, q, a < b ? a : b) == 0 && a < b);
		snprintf(pairs[n++], 64, "%.*s+%.*s", (int)(first ? a : b), first ? p : q,
		         (int)(first ? b : a), first ? q : p);
	}
	return n;
}

static int has_pair(char pairs[][64], int n, const char *x)
{
	for (int i = 0; i < n; i++)
		if (strcmp(pairs[i], x) == 0)
			return 1;
	return 0;
}

/* Does cond bound name from above (`name < e`, `name <= e`, `e > name`), or, below, from
 * below (`name >= e`, `e <= name`)? */
static int bounds(const char *cond, const char *name, int below)
{
	size_t n = strlen(name);
	for (const char *p = cond; (p = diag_find_word(cond, p, name)) != NULL; p += n) {
		const char *a = p + n, *b = p;
		a += strspn(a, " \t");
		while (b > cond && isspace((unsigned char)b[-1]))
			b--;
		char after = a[0] == a[1] ? 0 : a[0], before = b > cond ? b[-1] : 0;
		if (b > cond + 1 && b[-1] == '=')   /* `e <= name`, `e >= name` */
			before = b[-2];
		else if (b > cond + 1 && b[-2] == b[-1])
			before = 0;                     /* a shift */
		if ((!below && (after == '<' || before == '>')) || (below && (after == '>' || before == '<')))
			return 1;
	}
	return 0;
}

/* Is name a for loop's counter (`for (int k = ...`, `for (k = ...`)?  Its bound is the
 * loop's, not a guard's. */
static int loop_counter(const char *source, const char *name)
{
	for (const char *p = source; (p = diag_find_word(source, p, "for")) != NULL; p += 3) {
		const char *q = p + 3;
		q += strspn(q, " \t");
		if (*q++ != '(')
			continue;
		const char *end = q + strcspn(q, ";=");
		const char *w = diag_find_word(q, q, name);
		if (w && w < end)
			return 1;
	}
	return 0;
}

int diag_guard_gap(const char *source, int line, const char *cond, const char *buffer,
                   const char *const *sizes, int below, char *out, size_t len)
{
	char text[1024], index[256];
	diag_source_line(source, line, text, sizeof text);
	const char *p = buffer[0] ? diag_find_word(text, text, buffer) : NULL;
	if (!p || !first_subscript(text, p, buffer, index, sizeof index))
		return 0;
	char ip[8][64], cp[8][64];
	int ni = sum_pairs(index, ip, 8), nc = sum_pairs(cond, cp, 8);
	for (int i = 0; i < nc; i++)   /* the guard's sum that the index does not use */
		for (int j = 0; j < ni; j++)
			if (!has_pair(ip, ni, cp[i]) && !has_pair(cp, nc, ip[j])) {
				snprintf(out, len, "the guard tests %s where the index uses %s: the two "
				         "pair their terms differently", cp[i], ip[j]);
				return 1;
			}
	for (const char *q = index; *q; q++) {   /* a variable of the index the guard never tests */
		if (!diag_ident_char(*q) || (q > index && diag_ident_char(q[-1])) || isdigit((unsigned char)*q))
			continue;
		size_t n = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), q);
		int size = 0, macro = 1;
		for (int i = 0; sizes && sizes[i]; i++)
			size |= strcmp(sizes[i], name) == 0;
		for (size_t i = 0; i < n; i++)
			macro &= !islower((unsigned char)q[i]);
		macro = macro || loop_counter(source, name);   /* bounded elsewhere */
		if (!size && !macro && !diag_find_word(cond, cond, name)) {
			snprintf(out, len, "the guard never tests %s, which the index uses", name);
			return 1;
		}
		if (!size && !macro && !bounds(cond, name, below)) {
			snprintf(out, len, "the guard bounds %s only from %s, and nothing keeps it %s",
			         name, below ? "above" : "below", below ? "at 0 or more" :
			         "below its end");
			return 1;
		}
		q += n - 1;
	}
	return 0;
}

int diag_ternary_cond(const char *source, int line, char *out, size_t len)
{
	char text[1024];
	diag_source_line(source, line, text, sizeof text);
	char *q = strchr(text, '?');
	if (!q)
		return 0;
	char *e = q;
	while (e > text && isspace((unsigned char)e[-1]))
		e--;
	char *b = e;
	if (b > text && b[-1] == ')') {          /* (cond) ? ... */
		int depth = 0;
		do
			depth += *--b == ')' ? 1 : *b == '(' ? -1 : 0;
		while (b > text && depth > 0);
		if (depth)
			return 0;
		b++, e--;
	} else {                                 /* x = cond ? ... */
		while (b > text && b[-1] != '=' && b[-1] != '(' && b[-1] != ',')
			b--;
	}
	while (b < e && isspace((unsigned char)*b))
		b++;
	if (e <= b)
		return 0;
	snprintf(out, len, "%.*s", (int)(e - b), b);
	return 1;
}

int diag_square(const char *source, const char *name)
{
	char *s = diag_clean(source), d1[64], d2[64];
	int square = -1;
	for (const char *p = s; s && square < 0 && (p = diag_find_word(s, p, name)) != NULL; p++) {
		const char *b = p;
		while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (!(b > s && diag_ident_char(b[-1])))   /* a use, not its declaration */
			continue;
		const char *q = first_subscript(s, p, name, d1, sizeof d1);
		size_t n1 = strlen(d1), n2;
		if (q && first_subscript(s, q - strlen(name), name, d2, sizeof d2) && (n2 = strlen(d2)))
			square = strcmp(d1, d2) == 0 ||   /* or padded: [TILE][TILE+1] */
			         (n2 > n1 && !strncmp(d1, d2, n1) && d2[n1] == '+') ||
			         (n1 > n2 && !strncmp(d1, d2, n2) && d1[n2] == '+');
	}
	free(s);
	return square != 0;
}

int diag_warp_sync(const char *source)
{
	char *s = diag_clean(source);
	int found = 0;
	for (const char *p = s; s && !found && (p = diag_find_word(s, p, "volatile")) != NULL; p++) {
		const char *line = p;
		while (line > s && line[-1] != '\n')
			line--;
		size_t n = strcspn(line, "\n");
		char text[512];
		snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text - 1 ? n : sizeof text - 1), line);
		found = strstr(text, "local") != NULL;   /* a volatile __local array or pointer */
	}
	for (const char *p = s; s && found == 1 && (p = strchr(p, '<')) != NULL; p++) {
		const char *q = p + 1 + strspn(p + 1, " \t");
		if (p[1] != '<' && p[1] != '=' && !strncmp(q, "32", 2) && !isdigit((unsigned char)q[2]))
			found = 2;   /* `tid < 32`: the last warp's steps */
	}
	free(s);
	return found == 2;
}

/* Does line (one line of cleaned source) declare a private scalar or array of an arithmetic
 * type without a value (`float acc;`, `float acc[WPT][WPT];`, `int a, b;`)?  Its first such
 * name into name. */
static int declares_unset(const char *line, char *name, size_t len)
{
	static const char *const types[] = { "float", "double", "int", "uint", "long", "ulong",
	                                     "short", "ushort", "half", "unsigned", NULL };
	const char *p = line + strspn(line, " \t");
	if (!strncmp(p, "const ", 6) || !strncmp(p, "__private ", 10) || !strncmp(p, "private ", 8))
		return 0;                    /* const needs a value; a qualified one is left alone */
	int typed = 0;
	for (int i = 0; types[i] && !typed; i++) {
		size_t n = strlen(types[i]);
		typed = !strncmp(p, types[i], n) && (p[n] == ' ' || p[n] == '\t');
		if (typed)
			p += n;
	}
	if (!typed || strchr(p, '(') || !strchr(p, ';'))
		return 0;
	for (;;) {                       /* each declarator: `a0 = 0.0f, a1, a2[4]` */
		p += strspn(p, " \t");
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (!n || n >= len || isdigit((unsigned char)*p))
			return 0;
		const char *end = p + strcspn(p, ",;");
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq) {
			snprintf(name, len, "%.*s", (int)n, p);
			return 1;
		}
		if (*end != ',')
			return 0;
		p = end + 1;
	}
}

/* How line first touches name: 2 it adds into it (`name +=`, `name[..] +=`, `name = f(name)`),
 * 1 it writes it first, 3 it reads it, 0 it does not mention it. */
static int first_touch(const char *line, const char *name)
{
	const char *p = diag_find_word(line, line, name);
	if (!p)
		return 0;
	const char *q = p + strlen(name);
	while (*q == ' ' || *q == '\t' || *q == '[') {    /* its subscripts */
		if (*q++ != '[')
			continue;
		for (int depth = 1; *q && depth > 0; q++)
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
	}
	q += strspn(q, " \t");
	if (strchr("+-*/", q[0]) && q[0] && q[1] == '=')
		return 2;
	if (q[0] == '=' && q[1] != '=')
		return diag_find_word(line, q, name) ? 2 : 1;
	return 3;
}

int diag_unset_sum(const char *source, char *name, size_t len, int *decl, int *use)
{
	char *s = diag_clean(source), line[1024];
	int found = 0, ln = 1;
	for (const char *l = s; s && *l && !found; ln++) {
		size_t n = strcspn(l, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), l);
		l += n + (l[n] == '\n');
		if (!declares_unset(line, name, len))
			continue;
		int d = ln, u = ln;
		for (const char *m = l; *m; u++) {           /* the lines after it */
			size_t k = strcspn(m, "\n");
			snprintf(line, sizeof line, "%.*s", (int)(k < sizeof line - 1 ? k : sizeof line - 1), m);
			m += k + (m[k] == '\n');
			int t = first_touch(line, name);
			if (t == 2)
				found = 1, *decl = d, *use = u + 1;
			if (t)
				break;
		}
	}
	free(s);
	return found;
}
