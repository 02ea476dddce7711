/* localmem.c — a kernel's __local bytes from its own declarations, and the choice among the
 * sources the grader has (localmem.h).
 *
 * Not a C parser: a preprocessor pass that keeps the active lines and object-like #defines
 * (TILE is the grader's -DTILE), a tokenizer, and a reader of the declarations in one
 * kernel's body that name __local.  Whatever it does not understand makes the answer unknown
 * (-1), never a guess.  The input is a student's file: bounded sizes, bounded recursion.
 *
 * This file: the declarations in the kernel's body and the choice of source; the tokens,
 * macros and preprocessor are localmem_pre.c's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localmem.h"
#include "localmem_int.h"

/* ---- declarations --------------------------------------------------------------------- */

/* Bytes of a scalar or vector OpenCL C type name, 0 when unknown. */
long long lmem_type_size(const tok *t)
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

/* The specifiers of declaration t[0..n) (qualifiers, one type, __attribute__((...))): the
 * element's bytes, 0 when there is no type, -1 (why says so) for a type it cannot size.
 * *at: the first declarator. */
static long long specifiers(const tok *t, int n, int *at, char *why, size_t whylen)
{
	long long elem = 0;
	int i = 0;
	for (; i < n; i++) {
		if (is(&t[i], "__attribute__") && i + 1 < n && is(&t[i + 1], "(")) {
			i = closing(t, n, i + 1);
			continue;
		}
		if (is_qualifier(&t[i]))
			continue;
		long long s = lmem_type_size(&t[i]);
		if (!s)
			break;
		elem = s;             /* "unsigned char": the last word decides */
	}
	if (!elem && i < n) {         /* a type it cannot size: its arrays count only if read */
		snprintf(why, whylen, "the __local type %.*s is not one it can size",
		         t[i].len > 40 ? 40 : t[i].len, t[i].s);
		elem = -1;
		i++;
	}
	*at = i;
	return elem;
}

/* Bytes of declarator name: elem times its array dimensions from t[*at], -1 (why says so)
 * when one is not a constant it can evaluate.  *at: past the dimensions. */
static long long dimensions(reader *r, const tok *t, int n, int *at, long long elem,
                            const tok *name, char *why, size_t whylen)
{
	long long bytes = elem;
	int i = *at;
	while (i < n && is(&t[i], "[")) {
		int end = closing(t, n, i), unknown = 0, failed = r->failed;
		long long d = lmem_eval_tokens(r, t + i + 1, end - i - 1, 0, &unknown);
		r->failed = failed;          /* declaration decides, once it is read */
		if (bytes > 0 && (unknown || end >= n || d <= 0 ||
		                  __builtin_mul_overflow(bytes, d, &bytes))) {
			snprintf(why, whylen, "the dimension [%.*s] of %.*s is not a constant it "
			         "can evaluate", end < n && end - i > 1 ? (int)(t[end - 1].s +
			         t[end - 1].len - t[i + 1].s) : 1, end < n && end - i > 1 ?
			         t[i + 1].s : "?", name->len > 40 ? 40 : name->len, name->s);
			bytes = -1;
		}
		i = end + 1;
	}
	*at = i;
	return bytes;
}

/* Bytes of one declaration statement t[0..n) that names __local at its start; adds to *sum.
 * Specifiers first, then declarators.  An array the kernel never reads costs nothing, even
 * when its size cannot be worked out. */
static void declaration(reader *r, const body *b, long long *sum)
{
	const tok *t = b->t + b->stmt;
	int n = b->end - b->stmt;
	long long lengths = 0;
	int i;
	char why[120] = "";
	long long elem = specifiers(t, n, &i, why, sizeof why);
	while (i < n) {                         /* declarators, separated by commas */
		if (is(&t[i], "*")) {            /* a pointer to __local: no storage of its own */
			while (i < n && !is(&t[i], ","))
				i = is(&t[i], "(") || is(&t[i], "[") ? closing(t, n, i) + 1 : i + 1;
			i++;
			continue;
		}
		if (!is_id((unsigned char)t[i].s[0]) || t[i].num) {
			lmem_fail(r, "a __local declaration it cannot read");
			return;
		}
		const tok *name = &t[i++];
		long long bytes = dimensions(r, t, n, &i, elem, name, why, sizeof why);
		while (i < n && is(&t[i], "__attribute__") && i + 1 < n)
			i = closing(t, n, i + 1) + 1;
		if (i < n && !is(&t[i], ",")) {
			lmem_fail(r, "a __local declaration it cannot read");
			return;
		}
		i++;
		if (!read_back(b, name))
			continue;
		if (bytes < 0) {
			lmem_fail(r, "%s", why);
			return;
		}
		if (__builtin_add_overflow(lengths, bytes, &lengths)) {
			lmem_fail(r, "__local arrays too large to count");
			return;
		}
	}
	if (__builtin_add_overflow(*sum, lengths, sum))
		lmem_fail(r, "__local arrays too large to count");
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
	char *stripped = lmem_strip(source), *code = NULL;
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
	code = lmem_preprocess(r, stripped);
	int n = code ? lmem_tokenize(code, strlen(code), &t) : -1, from, to;
	if (n < 0)
		lmem_fail(r, "out of memory");
	else if (kernel_body(t, n, kernel, &from, &to) != 0)
		lmem_fail(r, "no kernel %s with a body", kernel);
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
				ok = is_qualifier(&t[j]) || lmem_type_size(&t[j]) != 0;
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
