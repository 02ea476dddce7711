/* localmem.c — a kernel's __local bytes from its own declarations, and the choice among the
 * sources the grader has (localmem.h).
 *
 * Not a C parser: a preprocessor pass that keeps the active lines and object-like #defines
 * (TILE is the grader's -DTILE), a tokenizer, and a reader of the declarations in one
 * kernel's body that name __local.  Whatever it does not understand makes the answer unknown
 * (-1), never a guess.  The input is a student's file: bounded sizes, bounded recursion. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localmem.h"

enum { MAX_MACROS = 256, MAX_DEPTH = 32, MAX_COND = 64 };

typedef struct tok {
	const char *s;
	int len;
	int num;               /* a number literal */
} tok;

typedef struct macro {
	char name[64];
	char *body;            /* NULL: function-like or empty, cannot be sized */
	int tile;              /* the grader's TILE */
} macro;

typedef struct reader {
	macro macros[MAX_MACROS];
	int nmacros;
	int tile;
	char *why;
	size_t whylen;
	int failed;
	int in_if;             /* evaluating an #if: an unknown identifier is 0, as in C */
} reader;

static void fail(reader *r, const char *fmt, ...)
{
	if (r->failed++)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, r->whylen, fmt, ap);
	va_end(ap);
}

/* ---- tokens --------------------------------------------------------------------------- */

static int is_id(int c)
{
	return isalnum(c) || c == '_';
}

/* Tokens of text[0..n): identifiers, numbers, and punctuators (the two-character ones the
 * evaluator needs).  Returns the count; *out is malloc'd. */
static int tokenize(const char *text, size_t n, tok **out)
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

static int is(const tok *t, const char *s)
{
	return (int)strlen(s) == t->len && strncmp(t->s, s, t->len) == 0;
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
		fail(e->r, "the number %s is not an integer", buf);
		e->unknown = 1;
	}
	return v;
}

static long long eval_tokens(reader *r, const tok *t, int n, int depth, int *unknown);

static long long type_size(const tok *t);

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
		long long v = ty ? type_size(ty) : 0;
		e->i++;
		if (v <= 0 || !accept(e, ")")) {
			e->unknown = 1;
			fail(e->r, "a sizeof it cannot size");
		}
		return v;
	}
	macro *m = is_id((unsigned char)t->s[0]) ? find_macro(e->r, t->s, t->len) : NULL;
	if (m && m->tile)
		return e->r->tile;
	if (m && m->body) {
		tok *bt;
		int bn = tokenize(m->body, strlen(m->body), &bt);
		long long v = bn > 0 ? eval_tokens(e->r, bt, bn, e->depth + 1, &e->unknown) : 0;
		if (bn <= 0)
			e->unknown = 1;
		free(bt);
		return v;
	}
	if (e->r->in_if && !m)
		return 0;
	e->unknown = 1;
	fail(e->r, "%.*s is not a constant it can evaluate", t->len > 40 ? 40 : t->len, t->s);
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

static long long eval_tokens(reader *r, const tok *t, int n, int depth, int *unknown)
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
static char *strip(const char *src)
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
	int n = tokenize(text, strlen(text), &t), unknown = 0, failed = r->failed;
	r->in_if = 1;
	long long v = n > 0 ? eval_tokens(r, t, n, 0, &unknown) : 0;
	r->in_if = 0;
	if (!failed && r->failed)        /* an #if it cannot read is not a failure by itself */
		r->failed = 0, r->why[0] = '\0';
	free(t);
	return n <= 0 || unknown ? -1 : v != 0;
}

/* The code of the active lines of stripped, with directives applied.  Lines inside a
 * conditional it cannot evaluate make the reader fail if they hold __local. */
static char *preprocess(reader *r, char *s)
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
				fail(r, "a __local declaration under an #if it cannot evaluate");
			continue;
		}
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
			if (depth == MAX_COND) {
				fail(r, "#if nesting too deep");
				break;
			}
			stack[depth++] = !parent ? 2 : v;
		} else if (len == 4 && !strncmp(p, "elif", 4) && depth) {
			int *top = &stack[depth - 1];
			*top = *top == 1 || *top == 2 ? 2 : *top == -1 ? -1 : condition(r, arg);
		} else if (len == 4 && !strncmp(p, "else", 4) && depth) {
			int *top = &stack[depth - 1];
			*top = *top == 0 ? 1 : *top == -1 ? -1 : 2;
		} else if (len == 5 && !strncmp(p, "endif", 5) && depth) {
			depth--;
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

/* ---- declarations --------------------------------------------------------------------- */

/* Bytes of a scalar or vector OpenCL C type name, 0 when unknown. */
static long long type_size(const tok *t)
{
	static const struct { const char *name; int bytes; } base[] = {
		{ "char", 1 }, { "uchar", 1 }, { "short", 2 }, { "ushort", 2 }, { "half", 2 },
		{ "int", 4 }, { "uint", 4 }, { "float", 4 }, { "long", 8 }, { "ulong", 8 },
		{ "double", 8 }, { "unsigned", 4 }, { "signed", 4 },
	};
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
		int n = (int)strlen(base[i].name);
		if (t->len < n || strncmp(t->s, base[i].name, n) != 0)
			continue;
		if (t->len == n)
			return base[i].bytes;
		char w[4] = "";
		if (t->len - n > 2)
			continue;
		memcpy(w, t->s + n, t->len - n);
		int width = atoi(w);   /* a 3-vector takes the room of a 4-vector */
		if (!strcmp(w, "2") || !strcmp(w, "3") || !strcmp(w, "4") || !strcmp(w, "8") ||
		    !strcmp(w, "16"))
			return (long long)base[i].bytes * (width == 3 ? 4 : width);
	}
	return 0;
}

static int is_qualifier(const tok *t)
{
	static const char *q[] = { "__local", "local", "const", "__const", "volatile", "restrict",
	                           "__restrict", "static", NULL };
	for (int i = 0; q[i]; i++)
		if (is(t, q[i]))
			return 1;
	return 0;
}

/* Index of the token closing the bracket opened at t[i], or n. */
static int closing(const tok *t, int n, int i)
{
	const char *open = is(&t[i], "(") ? "(" : is(&t[i], "[") ? "[" : "{";
	const char *close = *open == '(' ? ")" : *open == '[' ? "]" : "}";
	int depth = 0;
	for (; i < n; i++) {
		depth += is(&t[i], open) - is(&t[i], close);
		if (depth == 0)
			return i;
	}
	return n;
}

/* The kernel's body, and the declaration statement being read within it. */
typedef struct body {
	const tok *t;
	int from, to;            /* the body */
	int stmt, end;           /* the statement */
} body;

/* Does the body read the array x: name it outside its declaration other than as the target of
 * a plain store (x[i] = ...)?  Compilers drop an array the kernel never reads (PoCL 3.1 then
 * reports 0 bytes for it), and so does this. */
static int read_back(const body *b, const tok *x)
{
	for (int i = b->from; i < b->to; i++) {
		if ((i >= b->stmt && i < b->end) || b->t[i].len != x->len ||
		    strncmp(b->t[i].s, x->s, x->len) != 0)
			continue;
		int j = i + 1;
		while (j < b->to && is(&b->t[j], "["))
			j = closing(b->t, b->to, j) + 1;
		if (j >= b->to || !is(&b->t[j], "="))
			return 1;
	}
	return 0;
}

/* Bytes of one declaration statement t[0..n) that names __local at its start; adds to *sum.
 * Specifiers first (qualifiers, one type, __attribute__((...))), then declarators.  An array
 * the kernel never reads costs nothing, even when its size cannot be worked out. */
static void declaration(reader *r, const body *b, long long *sum)
{
	const tok *t = b->t + b->stmt;
	int n = b->end - b->stmt;
	long long elem = 0, lengths = 0;
	int i = 0;
	char why[120] = "";
	for (; i < n; i++) {
		if (is(&t[i], "__attribute__") && i + 1 < n && is(&t[i + 1], "(")) {
			i = closing(t, n, i + 1);
			continue;
		}
		if (is_qualifier(&t[i]))
			continue;
		long long s = type_size(&t[i]);
		if (!s)
			break;
		elem = s;             /* "unsigned char": the last word decides */
	}
	if (!elem && i < n) {         /* a type it cannot size: its arrays count only if read */
		snprintf(why, sizeof why, "the __local type %.*s is not one it can size",
		         t[i].len > 40 ? 40 : t[i].len, t[i].s);
		elem = -1;
		i++;
	}
	while (i < n) {                         /* declarators, separated by commas */
		if (is(&t[i], "*")) {            /* a pointer to __local: no storage of its own */
			while (i < n && !is(&t[i], ","))
				i = is(&t[i], "(") || is(&t[i], "[") ? closing(t, n, i) + 1 : i + 1;
			i++;
			continue;
		}
		if (!is_id((unsigned char)t[i].s[0]) || t[i].num) {
			fail(r, "a __local declaration it cannot read");
			return;
		}
		long long bytes = elem;
		const tok *name = &t[i];
		for (i++; i < n && is(&t[i], "["); ) {
			int end = closing(t, n, i), unknown = 0, failed = r->failed;
			long long d = eval_tokens(r, t + i + 1, end - i - 1, 0, &unknown);
			r->failed = failed;          /* decided below, once it is known to be read */
			if (bytes > 0 && (unknown || end >= n || d <= 0 ||
			                  __builtin_mul_overflow(bytes, d, &bytes))) {
				snprintf(why, sizeof why, "the dimension [%.*s] of %.*s is not a constant it "
				         "can evaluate", end < n && end - i > 1 ? (int)(t[end - 1].s +
				         t[end - 1].len - t[i + 1].s) : 1, end < n && end - i > 1 ?
				         t[i + 1].s : "?", name->len > 40 ? 40 : name->len, name->s);
				bytes = -1;
			}
			i = end + 1;
		}
		while (i < n && is(&t[i], "__attribute__") && i + 1 < n)
			i = closing(t, n, i + 1) + 1;
		if (i < n && !is(&t[i], ",")) {
			fail(r, "a __local declaration it cannot read");
			return;
		}
		i++;
		if (!read_back(b, name))
			continue;
		if (bytes < 0) {
			fail(r, "%s", why);
			return;
		}
		if (__builtin_add_overflow(lengths, bytes, &lengths)) {
			fail(r, "__local arrays too large to count");
			return;
		}
	}
	if (__builtin_add_overflow(*sum, lengths, sum))
		fail(r, "__local arrays too large to count");
}

/* The body of kernel name in t[0..n): [*from, *to) between its braces; 0 when found. */
static int kernel_body(const tok *t, int n, const char *name, int *from, int *to)
{
	for (int i = 1; i + 1 < n; i++) {
		if (!is(&t[i], name) || !is(&t[i + 1], "("))
			continue;
		int k = 0;               /* "__kernel" or "kernel" since the previous declaration */
		for (int j = i - 1; j >= 0 && !k && !is(&t[j], ";") && !is(&t[j], "}"); j--)
			k = is(&t[j], "__kernel") || is(&t[j], "kernel");
		int close = closing(t, n, i + 1);
		if (!k || close + 1 >= n || !is(&t[close + 1], "{"))
			continue;            /* a call, or a prototype */
		*from = close + 2;
		*to = closing(t, n, close + 1);
		return 0;
	}
	return -1;
}

long lmem_declared(const char *source, const char *kernel, int tile, char *why, size_t whylen)
{
	static reader zero;
	reader *r = malloc(sizeof *r);
	char *stripped = strip(source), *code = NULL;
	tok *t = NULL;
	long long sum = 0;
	char dummy[1];
	if (!why || !whylen)
		why = dummy, whylen = sizeof dummy;
	why[0] = '\0';
	if (!r || !stripped) {
		snprintf(why, whylen, "out of memory");
		free(r);
		free(stripped);
		return -1;
	}
	*r = zero;
	r->tile = tile, r->why = why, r->whylen = whylen;
	strcpy(r->macros[0].name, "TILE");
	r->macros[0].tile = 1;
	r->nmacros = 1;
	code = preprocess(r, stripped);
	int n = code ? tokenize(code, strlen(code), &t) : -1, from, to;
	if (n < 0)
		fail(r, "out of memory");
	else if (kernel_body(t, n, kernel, &from, &to) != 0)
		fail(r, "no kernel %s with a body", kernel);
	else
		/* statements of the body; a declaration starts right after ; { } */
		for (int i = from; i < to && !r->failed; i++) {
			if (!(is(&t[i], "__local") || is(&t[i], "local")))
				continue;
			int start = i;
			while (start > from && !is(&t[start - 1], ";") && !is(&t[start - 1], "{") &&
			       !is(&t[start - 1], "}"))
				start--;
			int ok = 1;      /* only specifiers before it: else a cast or an expression */
			for (int j = start; j < i && ok; j++)
				ok = is_qualifier(&t[j]) || type_size(&t[j]) != 0;
			int end = i;
			while (end < to && !is(&t[end], ";"))
				end = is(&t[end], "(") || is(&t[end], "[") ? closing(t, to, end) + 1 : end + 1;
			body b = { t, from, to, start, end };
			if (ok)
				declaration(r, &b, &sum);
			i = end;
		}
	for (int i = 0; i < r->nmacros; i++)
		free(r->macros[i].body);
	int failed = r->failed;
	free(r);
	free(t);
	free(code);
	free(stripped);
	return failed || sum > LONG_MAX ? -1 : (long)sum;
}

size_t lmem_pick(size_t runtime, long declared, long analysis, lmem_source *src)
{
	size_t best = runtime;
	*src = LMEM_RUNTIME;
	if (analysis >= 0 && (size_t)analysis > best)
		best = (size_t)analysis, *src = LMEM_ANALYSIS;
	if (declared >= 0 && (size_t)declared > best)
		best = (size_t)declared, *src = LMEM_DECLARED;
	return best;
}

const char *lmem_source_name(lmem_source s)
{
	return s == LMEM_DECLARED ? "declarations" : s == LMEM_ANALYSIS ? "oclgrind" : "runtime";
}

const char *lmem_source_text(lmem_source s)
{
	return s == LMEM_DECLARED ? "the kernel's __local declarations" :
	       s == LMEM_ANALYSIS ? "the Oclgrind analysis" :
	       "the OpenCL runtime's CL_KERNEL_LOCAL_MEM_SIZE";
}
