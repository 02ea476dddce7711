/* localmem_int.h — what the two files of the __local declarations reader share
 * (localmem_pre.c: tokens, macros, constant expressions, the preprocessor; localmem.c: the
 * declarations and the choice of source).  Private to them: the API is localmem.h. */
#ifndef LOCALMEM_INT_H
#define LOCALMEM_INT_H

#include <ctype.h>
#include <stddef.h>
#include <string.h>

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


/* localmem_pre.c: the reader fails (the answer is unknown), the first reason kept in r->why. */
void lmem_fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An identifier's character? */
static inline int is_id(int c)
{
	return isalnum(c) || c == '_';
}

/* localmem_pre.c: tokens of text[0..n): identifiers, numbers, and punctuators (the
 * two-character ones the evaluator needs).  Returns the count; *out is malloc'd. */
int lmem_tokenize(const char *text, size_t n, tok **out);

/* Is token t the text s? */
static inline int is(const tok *t, const char *s)
{
	return (int)strlen(s) == t->len && strncmp(t->s, s, t->len) == 0;
}

/* localmem_pre.c: src with comments as spaces (newlines kept) and backslash-newlines joined;
 * the code of the active lines of that, with directives applied (lines inside a conditional
 * it cannot evaluate make the reader fail if they hold __local).  malloc'd, NULL: no memory. */
char *lmem_strip(const char *src);
char *lmem_preprocess(reader *r, char *s);

/* localmem_pre.c: the value of the constant expression t[0..n) (macros expanded, TILE the
 * reader's); *unknown set when it cannot be worked out. */
long long lmem_eval_tokens(reader *r, const tok *t, int n, int depth, int *unknown);

/* localmem.c: bytes of a scalar or vector OpenCL C type name, 0 when unknown. */
long long lmem_type_size(const tok *t);

#endif
