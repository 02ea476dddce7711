/* ptrcheck_walk.c — the pointer check's walk over clang's JSON syntax tree: types read
 * from clang's type strings, the walk's variables (which are pointers, what each was
 * assigned), where each node is in the kernel's text, and what a pointer points into (one
 * buffer, null, or unknown).  The judgements are ptrcheck_rules.c's; ptrcheck.c says why the
 * check exists. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptrcheck_int.h"

/* ---- types, from clang's type strings ------------------------------------------------------ */

static int is_qual_word(const char *w, size_t n)
{
	static const char *q[] = { "const", "volatile", "restrict", "__restrict", "__private",
	                           "__global", "__local", "__constant", "__generic", "private",
	                           "global", "local", "constant", "generic", "__attribute__", NULL };
	for (int i = 0; q[i]; i++)
		if (strlen(q[i]) == n && strncmp(w, q[i], n) == 0)
			return 1;
	return 0;
}

/* Only qualifiers (and blanks) in s[0..n)? */
static int only_quals(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (isspace((unsigned char)s[i])) {
			i++;
			continue;
		}
		size_t k = i;
		while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
			k++;
		if (k == i || !is_qual_word(s + i, k - i))
			return 0;
		i = k;
	}
	return 1;
}

/* Is t a pointer type ("float *", "__global float *__private", "__local float (*)[17]")?
 * *pointee_end, when given, is where the pointee's spelling ends in t. */
int ptr_is_pointer(const char *t, size_t *pointee_end)
{
	size_t n = strlen(t);
	/* "... *QUALS": the last top-level '*' followed by qualifiers only */
	int depth = 0;
	long last = -1;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '(' || t[i] == '[')
			depth++;
		else if (t[i] == ')' || t[i] == ']')
			depth--;
		else if (t[i] == '*' && depth == 0)
			last = (long)i;
	}
	if (last >= 0 && only_quals(t + last + 1, n - last - 1)) {
		if (pointee_end)
			*pointee_end = (size_t)last;
		return 1;
	}
	/* "T (*QUALS)[N]" / "T (*QUALS)(args)": a pointer to an array or a function */
	const char *p = strstr(t, "(*");
	if (p) {
		const char *close = strchr(p, ')');
		if (close && only_quals(p + 2, close - p - 2)) {
			if (pointee_end)
				*pointee_end = (size_t)(p - t);
			return 1;
		}
	}
	return 0;
}

/* ---- the walk's state ---------------------------------------------------------------------- */

int ptr_grow(void **p, int *cap, int need, size_t size, walk *w)
{
	if (need <= *cap)
		return 0;
	int c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * size);
	if (!q) {
		w->oom = 1;
		return -1;
	}
	*p = q;
	*cap = c;
	return 0;
}

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int var_find(walk *w, const char *id)
{
	if (!w->hcap || !id)
		return -1;
	for (size_t i = hash_str(id) & (w->hcap - 1);; i = (i + 1) & (w->hcap - 1)) {
		int k = w->hash[i];
		if (!k)
			return -1;
		if (strcmp(w->vars[k - 1].id, id) == 0)
			return k - 1;
	}
}

int ptr_var_add(walk *w, const char *id)
{
	int k = var_find(w, id);
	if (k >= 0 || !id)
		return k;
	if ((size_t)(w->nvars + 1) * 2 > w->hcap) {
		size_t cap = w->hcap ? w->hcap * 2 : 64;
		int *h = calloc(cap, sizeof *h);
		if (!h) {
			w->oom = 1;
			return -1;
		}
		for (int v = 0; v < w->nvars; v++) {
			size_t i = hash_str(w->vars[v].id) & (cap - 1);
			while (h[i])
				i = (i + 1) & (cap - 1);
			h[i] = v + 1;
		}
		free(w->hash);
		w->hash = h;
		w->hcap = cap;
	}
	if (ptr_grow((void **)&w->vars, &w->cvars, w->nvars + 1, sizeof *w->vars, w) != 0)
		return -1;
	var *v = &w->vars[w->nvars];
	memset(v, 0, sizeof *v);
	v->id = id;
	v->origin = O_NONE;
	size_t i = hash_str(id) & (w->hcap - 1);
	while (w->hash[i])
		i = (i + 1) & (w->hcap - 1);
	w->hash[i] = ++w->nvars;
	return w->nvars - 1;
}

void ptr_refuse(walk *w, long off, const char *what, const char *advice)
{
	if (w->nf >= MAX_FINDINGS)
		return;
	for (int i = 0; i < w->nf; i++)
		if (w->f[i].off == off)
			return;            /* one finding per place */
	snprintf(w->f[w->nf].why, sizeof w->f[0].why, "a pointer's value is used as data (%s): the "
	         "grader refuses kernels that inspect addresses; %s", what, advice);
	w->f[w->nf++].off = off;
}

void ptr_refuse_text(walk *w, long off, const char *why)
{
	if (w->nf >= MAX_FINDINGS)
		return;
	for (int i = 0; i < w->nf; i++)
		if (w->f[i].off == off)
			return;
	snprintf(w->f[w->nf].why, sizeof w->f[0].why, "%s", why);
	w->f[w->nf++].off = off;
}

/* ---- tree helpers ---------------------------------------------------------------------------- */

static const cJSON *strip_parens(const cJSON *e)
{
	while (e && kind_is(e, "ParenExpr"))
		e = child(e, 0);
	return e;
}

/* The variable a DeclRefExpr names, or -1. */
int ptr_ref_var(walk *w, const cJSON *e)
{
	e = strip_parens(e);
	if (!e || !kind_is(e, "DeclRefExpr"))
		return -1;
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "referencedDecl");
	return var_find(w, str(d, "id"));
}

/* ---- where things are ------------------------------------------------------------------------ */

/* A bare location {offset, file?, line?, col, ...}: clang names the file only when it changes
 * from the location it wrote before, so every location is read in the order written. */
static void bare_loc(walk *w, const cJSON *l, const char **file, long *off)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(l, "file");
	if (cJSON_IsString(f))
		w->cur_file = f->valuestring;
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(l, "offset");
	if (file)
		*file = w->cur_file;
	if (off)
		*off = cJSON_IsNumber(o) ? (long)o->valuedouble : -1;
}

/* Any location in v (a loc, a range, a macro's spelling/expansion pair, or deeper): updates
 * the current file; *file and *off get the place the first location stands for (a macro's
 * expansion in the text). */
static void scan_locs(walk *w, const cJSON *v, const char **file, long *off)
{
	if (cJSON_IsArray(v)) {
		for (const cJSON *c = v->child; c; c = c->next)
			scan_locs(w, c, NULL, NULL);
		return;
	}
	if (!cJSON_IsObject(v))
		return;
	if (cJSON_GetObjectItemCaseSensitive(v, "offset")) {
		bare_loc(w, v, file, off);
		return;
	}
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(v, "spellingLoc");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(v, "expansionLoc");
	if (sp || ex) {
		for (const cJSON *c = v->child; c; c = c->next)
			if (c == ex)
				bare_loc(w, c, file, off);
			else
				scan_locs(w, c, NULL, NULL);
		return;
	}
	int first = 1;
	for (const cJSON *c = v->child; c; c = c->next) {
		if (first && (strcmp(c->string, "begin") == 0 || cJSON_IsObject(c))) {
			const char *f0 = NULL;
			long o0 = -1;
			scan_locs(w, c, &f0, &o0);
			if (o0 >= 0 && file && off) {
				*file = f0;
				*off = o0;
				first = 0;
			}
		} else {
			scan_locs(w, c, NULL, NULL);
		}
	}
}

/* ---- what a pointer points into ----------------------------------------------------------- */

static int join(int a, int b)
{
	if (a == O_NONE)
		return b;
	if (b == O_NONE || a == b)
		return a;
	return O_UNKNOWN;
}

/* The object an lvalue lies in. */
static int object(walk *w, const cJSON *e, int depth)
{
	e = strip_parens(e);
	if (!e || depth > 200)
		return O_UNKNOWN;
	const char *k = str(e, "kind");
	if (strcmp(k, "DeclRefExpr") == 0) {
		int v = ptr_ref_var(w, e);
		return v >= 0 ? v : O_UNKNOWN;
	}
	if (strcmp(k, "ArraySubscriptExpr") == 0) {
		const cJSON *a = child(e, 0), *b = child(e, 1);
		return ptr_origin(w, ptr_is_pointer(type_of(a), NULL) ? a : b, depth + 1);
	}
	if (strcmp(k, "UnaryOperator") == 0 && strcmp(str(e, "opcode"), "*") == 0)
		return ptr_origin(w, child(e, 0), depth + 1);
	if (strcmp(k, "MemberExpr") == 0)
		return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "isArrow")) ?
		       ptr_origin(w, child(e, 0), depth + 1) : object(w, child(e, 0), depth + 1);
	if (strcmp(k, "ImplicitCastExpr") == 0 && strcmp(str(e, "castKind"), "NoOp") == 0)
		return object(w, child(e, 0), depth + 1);
	return O_UNKNOWN;
}

/* What a pointer-valued expression points into: a parameter, array or variable (an index),
 * O_NULL, or O_UNKNOWN. */
int ptr_origin(walk *w, const cJSON *e, int depth)
{
	e = strip_parens(e);
	if (!e || depth > 200)
		return O_UNKNOWN;
	const char *k = str(e, "kind"), *op = str(e, "opcode");
	if (strcmp(k, "ImplicitCastExpr") == 0 || strcmp(k, "CStyleCastExpr") == 0) {
		const char *ck = str(e, "castKind");
		if (strcmp(ck, "LValueToRValue") == 0) {
			int v = ptr_ref_var(w, child(e, 0));
			return v >= 0 && w->vars[v].pointer ? w->vars[v].origin : O_UNKNOWN;
		}
		if (!strcmp(ck, "NoOp") || !strcmp(ck, "BitCast") || !strcmp(ck, "AddressSpaceConversion"))
			return ptr_origin(w, child(e, 0), depth + 1);
		if (strcmp(ck, "ArrayToPointerDecay") == 0)
			return object(w, child(e, 0), depth + 1);
		if (strcmp(ck, "NullToPointer") == 0)
			return O_NULL;
		return O_UNKNOWN;
	}
	if (strcmp(k, "DeclRefExpr") == 0) {
		int v = ptr_ref_var(w, e);
		return v >= 0 && w->vars[v].pointer ? w->vars[v].origin : O_UNKNOWN;
	}
	if (strcmp(k, "UnaryOperator") == 0) {
		if (strcmp(op, "&") == 0)
			return object(w, child(e, 0), depth + 1);
		if (!strcmp(op, "++") || !strcmp(op, "--"))
			return ptr_origin(w, child(e, 0), depth + 1);
		return O_UNKNOWN;
	}
	if (strcmp(k, "BinaryOperator") == 0) {
		const cJSON *a = child(e, 0), *b = child(e, 1);
		if (!strcmp(op, "+") || !strcmp(op, "-"))
			return ptr_origin(w, ptr_is_pointer(type_of(a), NULL) ? a : b, depth + 1);
		if (!strcmp(op, "=") || !strcmp(op, ","))
			return ptr_origin(w, b, depth + 1);
		return O_UNKNOWN;
	}
	if (strcmp(k, "CompoundAssignOperator") == 0)
		return ptr_origin(w, child(e, 0), depth + 1);
	if (strcmp(k, "ConditionalOperator") == 0)
		return join(ptr_origin(w, child(e, 1), depth + 1), ptr_origin(w, child(e, 2), depth + 1));
	return O_UNKNOWN;
}

/* Every pointer variable's origin: the join of all values assigned to it (a parameter starts
 * as itself), iterated to a fixed point; a variable whose address is taken, or one never
 * settled, is O_UNKNOWN. */
void ptr_settle(walk *w)
{
	for (int i = 0; i < w->nvars; i++) {
		var *v = &w->vars[i];
		v->origin = !v->pointer || v->param ? i : O_NONE;
		if (v->pointer && v->escaped)
			v->origin = O_UNKNOWN;
	}
	int changed = 1;
	for (int round = 0; changed && round < FIX_ROUNDS; round++) {
		changed = 0;
		for (int i = 0; i < w->nvars; i++) {
			var *v = &w->vars[i];
			if (!v->pointer || v->origin == O_UNKNOWN)
				continue;
			int o = v->param ? i : O_NONE;
			for (int a = 0; a < v->nasg; a++)
				o = join(o, ptr_origin(w, v->asg[a], 0));
			if (o != v->origin) {
				v->origin = o;
				changed = 1;
			}
		}
	}
	for (int i = 0; i < w->nvars; i++)
		if (w->vars[i].pointer && (changed || w->vars[i].origin == O_NONE))
			w->vars[i].origin = O_UNKNOWN;
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* Does any struct or union field hold a pointer (a field's type with a '*', or a field of a
 * record that holds one: a record's type has no '*', so one '*' anywhere decides)?  Before the
 * walk, so that a record defined after a cast is known at the cast. */
int ptr_any_pointer_field(const cJSON *n, int depth)
{
	if (!cJSON_IsObject(n) || depth > CJSON_NESTING_LIMIT)
		return 0;
	/* a record declared in a type name (a cast, a compound literal, a parameter) is not in the
	 * dump: its pointer shows where it is used, a member of pointer type named or initialised */
	if ((kind_is(n, "FieldDecl") || kind_is(n, "MemberExpr")) && strchr(type_of(n), '*'))
		return 1;
	if (kind_is(n, "InitListExpr") && is_record(type_of(n))) {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
		for (const cJSON *c = cJSON_IsArray(in) ? in->child : NULL; c; c = c->next)
			if (strchr(type_of(c), '*'))
				return 1;
		if (strchr(type_of(cJSON_GetObjectItemCaseSensitive(n, "field")), '*'))
			return 1;
	}
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	for (const cJSON *c = cJSON_IsArray(in) ? in->child : NULL; c; c = c->next)
		if (ptr_any_pointer_field(c, depth + 1))
			return 1;
	return 0;
}

void ptr_visit(walk *w, const cJSON *n, long off, int top)
{
	if (!cJSON_IsObject(n))
		return;
	const char *file = NULL;
	long here = -1;
	const cJSON *inner = NULL;
	for (const cJSON *c = n->child; c; c = c->next) {
		if (strcmp(c->string, "inner") == 0) {
			inner = c;
		} else if (strcmp(c->string, "loc") == 0 || strcmp(c->string, "range") == 0) {
			const char *f0 = NULL;
			long o0 = -1;
			scan_locs(w, c, &f0, &o0);
			if (strcmp(c->string, "range") == 0 && o0 >= 0) {
				file = f0;
				here = o0;
			} else if (here < 0 && o0 >= 0) {
				file = f0;
				here = o0;
			}
		} else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			scan_locs(w, c, NULL, NULL);
		}
	}
	if (top)
		w->analyse = here >= 0 && file && strcmp(file, w->main_file) == 0;
	if (here >= 0 && file && strcmp(file, w->main_file) == 0)
		off = here;
	if (w->analyse && off >= 0)
		ptr_judge(w, n, off);
	for (const cJSON *c = inner ? inner->child : NULL; c; c = c->next)
		ptr_visit(w, c, off, 0);
}
