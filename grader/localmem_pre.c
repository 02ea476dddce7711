/* localmem_pre.c — the text side of the __local declarations reader (localmem.c): tokens,
 * object-like macros (TILE is the grader's -DTILE), integer constant expressions (#if and
 * array dimensions), and a preprocessor pass that keeps the active lines.  Not a C
 * preprocessor: what it does not understand makes the answer unknown, never a guess. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "localmem_int.h"

void lmem_fail(reader *r, const char *fmt, ...)
{
	if (r->failed++)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, r->whylen, fmt, ap);
	va_end(ap);
}

/* ---- tokens --------------------------------------------------------------------------- */


/* Tokens of text[0..n): identifiers, numbers, and punctuators (the two-character ones the
 * evaluator needs).  Returns the count; *out is malloc'd. */
int lmem_tokenize(const char *text, size_t n, tok **out)
{
	size_t cap = n + 1;       /* at most one token per character */
	tok *t = malloc(cap * sizeof *t);
	int k = 0;
	static const char *two[] = { "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", NULL };
	for (size_t i = 0; t && i < n;) {
		unsigned char c = text[i];
		if (isspace(c)) {
			i++;
			continue;
		}
		size_t j = i + 1;
		int num = isdigit(c) || (c == '.' && i + 1 < n && isdigit((unsigned char)text[i + 1]));
		if (num || is_id(c))
			while (j < n && (is_id((unsigned char)text[j]) || (num && text[j] == '.')))
				j++;
		else if (c == '"' || c == '\'') {
			while (j < n && text[j] != c)
				j += text[j] == '\\' ? 2 : 1;
			j = j < n ? j + 1 : n;
		} else
			for (int m = 0; two[m]; m++)
				if (i + 1 < n && text[i] == two[m][0] && text[i + 1] == two[m][1])
					j = i + 2;
		t[k++] = (tok){ text + i, (int)(j - i), num };
		i = j;
	}
	*out = t;
	return t ? k : -1;
}


/* ---- macros --------------------------------------------------------------------------- */

static macro *find_macro(reader *r, const char *s, int len)
{
	for (int i = r->nmacros - 1; i >= 0; i--)
		if ((int)strlen(r->macros[i].name) == len && strncmp(r->macros[i].name, s, len) == 0)
			return &r->macros[i];
	return NULL;
}

static void undef(reader *r, const char *s, int len)
{
	macro *m = find_macro(r, s, len);
	if (m && !m->tile) {
		free(m->body);
		*m = r->macros[--r->nmacros];
	}
}

/* "#define NAME body" (line without the '#define'); TILE stays the grader's. */
static void define(reader *r, const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	int len = 0;
	while (is_id((unsigned char)line[len]))
		len++;
	if (len == 0 || len >= (int)sizeof r->macros[0].name)
		return;
	macro *m = find_macro(r, line, len);
	if (m && m->tile)
		return;              /* -DTILE=t wins (a #ifndef TILE fallback, or a warning) */
	undef(r, line, len);
	if (r->nmacros == MAX_MACROS)
		return;
	m = &r->macros[r->nmacros++];
	memset(m, 0, sizeof *m);
	memcpy(m->name, line, len);
	if (line[len] != '(')    /* function-like macros are not expanded: unknown */
		m->body = strdup(line + len);
}

/* ---- constant expressions ------------------------------------------------------------- */

typedef struct expr {
	reader *r;
	const tok *t;
	int n, i, depth;
	int unknown;
} expr;

static long long ternary(expr *e);

static const tok *peek(expr *e)
{
	return e->i < e->n ? &e->t[e->i] : NULL;
}

static int accept(expr *e, const char *s)
{
	if (e->i < e->n && is(&e->t[e->i], s)) {
		e->i++;
		return 1;
	}
	return 0;
}

static long long number(expr *e, const tok *t)
{
	char buf[64];
	if (t->len >= (int)sizeof buf) {
		e->unknown = 1;
		return 0;
	}
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	char *end;
	long long v = strtoll(buf, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (*end) {
		lmem_fail(e->r, "the number %s is not an integer", buf);
		e->unknown = 1;
	}
	return v;
}



static long long primary(expr *e)
{
	const tok *t = peek(e);
	if (!t || e->depth > MAX_DEPTH) {
		e->unknown = 1;
		return 0;
	}
	e->i++;
	if (is(t, "(")) {
		long long v = ternary(e);
		if (!accept(e, ")"))
			e->unknown = 1;
		return v;
	}
	if (t->num)
		return number(e, t);
	if (is(t, "defined")) {
		int paren = accept(e, "(");
		const tok *name = peek(e);
		e->i++;
		if (paren && !accept(e, ")"))
			e->unknown = 1;
		return name && find_macro(e->r, name->s, name->len) != NULL;
	}
	if (is(t, "sizeof") && accept(e, "(")) {
		const tok *ty = peek(e);
		long long v = ty ? lmem_type_size(ty) : 0;
		e->i++;
		if (v <= 0 || !accept(e, ")")) {
			e->unknown = 1;
			lmem_fail(e->r, "a sizeof it cannot size");
		}
		return v;
	}
	macro *m = is_id((unsigned char)t->s[0]) ? find_macro(e->r, t->s, t->len) : NULL;
	if (m && m->tile)
		return e->r->tile;
	if (m && m->body) {
		tok *bt;
		int bn = lmem_tokenize(m->body, strlen(m->body), &bt);
		long long v = bn > 0 ? lmem_eval_tokens(e->r, bt, bn, e->depth + 1, &e->unknown) : 0;
		if (bn <= 0)
			e->unknown = 1;
		free(bt);
		return v;
	}
	if (e->r->in_if && !m)
		return 0;
	e->unknown = 1;
	lmem_fail(e->r, "%.*s is not a constant it can evaluate", t->len > 40 ? 40 : t->len, t->s);
	return 0;
}

static long long unary(expr *e)
{
	if (accept(e, "-"))
		return -unary(e);
	if (accept(e, "+"))
		return unary(e);
	if (accept(e, "!"))
		return !unary(e);
	if (accept(e, "~"))
		return ~unary(e);
	return primary(e);
}

/* One binary level: ops[] at this precedence over next(). */
static long long binary(expr *e, int level);

static long long apply(expr *e, const char *op, long long a, long long b)
{
	long long v = 0;
	if ((!strcmp(op, "/") || !strcmp(op, "%")) && b == 0) {
		e->unknown = 1;
		return 0;
	}
	if (!strcmp(op, "*") && __builtin_mul_overflow(a, b, &v))
		e->unknown = 1;
	else if (!strcmp(op, "+") && __builtin_add_overflow(a, b, &v))
		e->unknown = 1;
	else if (!strcmp(op, "-") && __builtin_sub_overflow(a, b, &v))
		e->unknown = 1;
	else if (!strcmp(op, "/") || !strcmp(op, "%"))
		v = a == LLONG_MIN && b == -1 ? (e->unknown = 1, 0) : !strcmp(op, "/") ? a / b : a % b;
	else if (!strcmp(op, "<<") || !strcmp(op, ">>"))
		v = b < 0 || b > 62 || a < 0 ? (e->unknown = 1, 0) : op[0] == '<' ? a << b : a >> b;
	else if (!strcmp(op, "<")) v = a < b;
	else if (!strcmp(op, ">")) v = a > b;
	else if (!strcmp(op, "<=")) v = a <= b;
	else if (!strcmp(op, ">=")) v = a >= b;
	else if (!strcmp(op, "==")) v = a == b;
	else if (!strcmp(op, "!=")) v = a != b;
	else if (!strcmp(op, "&")) v = a & b;
	else if (!strcmp(op, "^")) v = a ^ b;
	else if (!strcmp(op, "|")) v = a | b;
	else if (!strcmp(op, "&&")) v = a && b;
	else if (!strcmp(op, "||")) v = a || b;
	return v;
}

static const char *levels[][5] = {
	{ "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" }, { "<", ">", "<=", ">=" },
	{ "<<", ">>" }, { "+", "-" }, { "*", "/", "%" },
};
enum { NLEVELS = sizeof levels / sizeof levels[0] };

static long long binary(expr *e, int level)
{
	if (level == NLEVELS)
		return unary(e);
	long long a = binary(e, level + 1);
	for (;;) {
		const tok *t = peek(e);
		const char *op = NULL;
		for (int k = 0; t && k < 5 && levels[level][k]; k++)
			if (is(t, levels[level][k]))
				op = levels[level][k];
		if (!op)
			return a;
		e->i++;
		a = apply(e, op, a, binary(e, level + 1));
	}
}

static long long ternary(expr *e)
{
	e->depth++;
	long long c = binary(e, 0);
	if (accept(e, "?")) {
		long long a = ternary(e);
		if (!accept(e, ":"))
			e->unknown = 1;
		long long b = ternary(e);
		c = c ? a : b;
	}
	e->depth--;
	return c;
}

long long lmem_eval_tokens(reader *r, const tok *t, int n, int depth, int *unknown)
{
	expr e = { r, t, n, 0, depth, 0 };
	long long v = depth > MAX_DEPTH ? (e.unknown = 1, 0) : ternary(&e);
	if (e.i != n)
		e.unknown = 1;
	*unknown |= e.unknown;
	return v;
}

/* ---- preprocessor: keep the active lines, remember the #defines ------------------------- */

/* Comments become spaces (newlines kept), backslash-newlines are joined. */
char *lmem_strip(const char *src)
{
	size_t n = strlen(src);
	char *o = malloc(n + 1), *p = o;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (src[i] == '\\' && src[i + 1] == '\n') {
			i++;
		} else if (src[i] == '/' && src[i + 1] == '/') {
			while (i + 1 < n && src[i + 1] != '\n')
				i++;
			*p++ = ' ';
		} else if (src[i] == '/' && src[i + 1] == '*') {
			for (i += 2; i < n && !(src[i] == '*' && src[i + 1] == '/'); i++)
				if (src[i] == '\n')
					*p++ = '\n';
			i++;
			*p++ = ' ';
		} else if (src[i] == '"' || src[i] == '\'') {
			char q = src[i];
			*p++ = src[i];
			for (i++; i < n && src[i] != q && src[i] != '\n'; i++) {
				if (src[i] == '\\' && i + 1 < n)
					*p++ = src[i++];
				*p++ = src[i];
			}
			if (i < n)
				*p++ = src[i];
		} else {
			*p++ = src[i];
		}
	}
	*p = '\0';
	return o;
}

/* The value of an #if / #elif condition: 1, 0, or -1 when it cannot be evaluated. */
static int condition(reader *r, const char *text)
{
	tok *t;
	int n = lmem_tokenize(text, strlen(text), &t), unknown = 0, failed = r->failed;
	r->in_if = 1;
	long long v = n > 0 ? lmem_eval_tokens(r, t, n, 0, &unknown) : 0;
	r->in_if = 0;
	if (!failed && r->failed)        /* an #if it cannot read is not a failure by itself */
		r->failed = 0, r->why[0] = '\0';
	free(t);
	return n <= 0 || unknown ? -1 : v != 0;
}

/* Directive p (at its '#') applied: the conditional stack[0..*depth), and #define and
 * #undef on an active line the reader is sure of.  -1 when the reader must stop. */
static int directive(reader *r, char *p, int *stack, int *depth, int active, int unsure)
{
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	int len = 0;
	while (isalpha((unsigned char)p[len]))
		len++;
	char *arg = p + len;
	int parent = active;
	if ((len == 5 && !strncmp(p, "ifdef", 5)) || (len == 6 && !strncmp(p, "ifndef", 6)) ||
	    (len == 2 && !strncmp(p, "if", 2))) {
		int v;
		if (len == 2) {
			v = condition(r, arg);
		} else {
			while (*arg == ' ' || *arg == '\t')
				arg++;
			int n = 0;
			while (is_id((unsigned char)arg[n]))
				n++;
			v = (find_macro(r, arg, n) != NULL) == (len == 5);
		}
		if (*depth == MAX_COND) {
			lmem_fail(r, "#if nesting too deep");
			return -1;
		}
		stack[(*depth)++] = !parent ? 2 : v;
	} else if (len == 4 && !strncmp(p, "elif", 4) && *depth) {
		int *top = &stack[*depth - 1];
		*top = *top == 1 || *top == 2 ? 2 : *top == -1 ? -1 : condition(r, arg);
	} else if (len == 4 && !strncmp(p, "else", 4) && *depth) {
		int *top = &stack[*depth - 1];
		*top = *top == 0 ? 1 : *top == -1 ? -1 : 2;
	} else if (len == 5 && !strncmp(p, "endif", 5) && *depth) {
		(*depth)--;
	} else if (active && !unsure && len == 6 && !strncmp(p, "define", 6)) {
		define(r, arg);
	} else if (active && !unsure && len == 5 && !strncmp(p, "undef", 5)) {
		while (*arg == ' ' || *arg == '\t')
			arg++;
		int n = 0;
		while (is_id((unsigned char)arg[n]))
			n++;
		undef(r, arg, n);
	}
	return 0;
}

char *lmem_preprocess(reader *r, char *s)
{
	char *code = malloc(strlen(s) + 2), *c = code;   /* each line keeps its newline */
	/* per nesting level: 1 taking, 0 skipping, 2 done (a branch was taken), -1 unknown */
	int stack[MAX_COND], depth = 0, active = 1, unsure = 0;
	if (!code)
		return NULL;
	for (char *line = s, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '#') {
			if (active && !unsure)
				c += sprintf(c, "%s\n", line);
			else if (unsure && strstr(line, "local"))
				lmem_fail(r, "a __local declaration under an #if it cannot evaluate");
			continue;
		}
		if (directive(r, p, stack, &depth, active, unsure) < 0)
			break;
		active = 1, unsure = 0;
		for (int i = 0; i < depth; i++) {
			active = active && stack[i] != 0 && stack[i] != 2;
			unsure = unsure || stack[i] == -1;
		}
		unsure = unsure && active;
	}
	*c = '\0';
	return code;
}

