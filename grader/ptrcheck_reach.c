/* ptrcheck_reach.c — how far from the ids the analysis runs a global id's test reaches (the
 * size test, ptrcheck_size.c).
 *
 * The analysed launches run every global id from 0 to at least 16 along each dimension, a
 * GPU's far more.  A test of a global id (a group's id with a local one) with a constant
 * beyond 16 (`get_global_id(0) >= 1024`) is never answered both ways by the analysed
 * launches, a GPU's later work-items may answer it the other way: a size test in disguise.
 *
 * The test is read with its signs (ptr_gid_near): both sides as sums of ids (each with a
 * constant factor: `get_group_id(1) * TILE + ly`, through variables, each of the values a
 * variable is given and the arms of ?:, whose constants give a range, the farthest end
 * counted) and constants,
 * `X + a op b` is `X op b - a`.  Its threshold b - a (one more for > and <=)
 * matters only beyond 16; a negative or small one is answered by every work-item at or past
 * the analysed ones as by the last analysed one (`y >= 0` with y = group * TILE - R + ly,
 * an image edge's guard), and `gid - 1024 >= 0` is `gid >= 1024`.  Ids subtracted (`-X + a
 * op b` is `X op' a - b`, the order turned), all the ids on one side.  Anything else (ids on
 * both sides of a difference, an id divided, shifted or taken modulo, a call of a helper,
 * a variable stepped, a cast to a narrower or a floating type, a
 * comparison in unsigned arithmetic with a constant below 0, where `gid - 3 < 5u` wraps)
 * falls back to reach(): the magnitudes of its constants summed. */
#include <limits.h>
#include <stdlib.h>

#include "ptrcheck_int.h"

int ptr_const_value(const cJSON *e, long *v, int depth)
{
	e = sz_strip(e);
	long a, b;
	if (!e || depth > 64)
		return 0;
	if (kind_is(e, "IntegerLiteral") || kind_is(e, "CharacterLiteral")) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, "value");
		*v = cJSON_IsNumber(x) ? (long)x->valuedouble : strtol(str(e, "value"), NULL, 10);
		return 1;
	}
	const char *op = str(e, "opcode");
	if (kind_is(e, "UnaryOperator") && ptr_const_value(child(e, 0), &a, depth + 1))
		return !strcmp(op, "-") ? (*v = -a, 1) : !strcmp(op, "+") ? (*v = a, 1) :
		       !strcmp(op, "~") ? (*v = ~a, 1) : 0;
	if (!kind_is(e, "BinaryOperator") || !ptr_const_value(child(e, 0), &a, depth + 1) ||
	    !ptr_const_value(child(e, 1), &b, depth + 1) || labs(a) > SZ_FAR || labs(b) > SZ_FAR)
		return 0;
	switch (op[1] ? op[0] + 256 * op[1] : op[0]) {
	case '+': *v = a + b; return 1;
	case '-': *v = a - b; return 1;
	case '*': *v = a * b; return 1;
	case '/': return b ? (*v = a / b, 1) : 0;
	case '%': return b ? (*v = a % b, 1) : 0;
	case '&': *v = a & b; return 1;
	case '|': *v = a | b; return 1;
	case '^': *v = a ^ b; return 1;
	case '<' + 256 * '<': return b >= 0 && b < 31 ? (*v = a << b, 1) : 0;
	case '>' + 256 * '>': return b >= 0 && b < 63 ? (*v = a >> b, 1) : 0;
	}
	return 0;
}

static int is_step(const cJSON *e)
{
	return kind_is(e, "CompoundAssignOperator") || kind_is(e, "UnaryOperator");
}

static long add_cap(long a, long b)
{
	return a + b > SZ_FAR ? SZ_FAR : a + b;
}

/* How far from the ids the analysis runs a global id's comparison reaches: the magnitudes of
 * its constants summed (compared with, added, subtracted, divided or shifted by, a modulo:
 * `gid >> 10` counts 1024), through variables' values; factors (`get_group_id(1) * TILE`)
 * and a loop counter's steps are not counted. */
static long reach(walk *w, const cJSON *e, int depth)
{
	long c;
	e = sz_strip(e);
	if (!e || depth > SZ_DEPTH)
		return SZ_FAR;
	if (ptr_const_value(e, &c, 0))
		return labs(c) > SZ_FAR ? SZ_FAR : labs(c);
	const char *k = str(e, "kind"), *op = str(e, "opcode");
	if (!strcmp(k, "DeclRefExpr")) {
		int v = ptr_ref_var(w, e);
		if (v < 0 || w->vars[v].seen == w->stamp)
			return v < 0 ? SZ_FAR : 0;
		long r = 0;
		w->vars[v].seen = w->stamp;
		for (int a = 0; a < w->vars[v].nsasg; a++)
			if (!w->vars[v].nloops || !is_step(w->vars[v].sasg[a]))
				r = add_cap(r, reach(w, w->vars[v].sasg[a], depth + 1));
		return r;
	}
	long r = 0;
	if (!strcmp(k, "CallExpr")) {   /* an id's dimension, a helper's arguments */
		for (int i = 1; child(e, i); i++)
			r = add_cap(r, reach(w, child(e, i), depth + 1));
		return r;
	}
	int factor = (!strcmp(k, "BinaryOperator") || !strcmp(k, "CompoundAssignOperator")) &&
	             op[0] == '*';
	int shift = op[0] && op[0] == op[1] && (op[0] == '<' || op[0] == '>');
	for (int i = 0; child(e, i); i++) {
		if (factor && ptr_const_value(child(e, i), &c, 0))
			continue;
		if (shift && i == 1 && ptr_const_value(child(e, 1), &c, 0))
			r = add_cap(r, c >= 0 && c < 30 ? 1L << c : SZ_FAR);
		else
			r = add_cap(r, reach(w, child(e, i), depth + 1));
	}
	return r;
}


/* A sum of ids, each with a factor (pos of them added, neg subtracted), and a constant
 * between kmin and kmax (the arms of a ?: differ); ok 0 when e is no such sum; steps: the
 * nodes read (at most SUM_STEPS). */
#define NOT_SUM LONG_MIN

enum { SUM_STEPS = 4096, SUM_BIG = 1 << 20 };

typedef struct lin {
	long kmin, kmax;
	int pos, neg, ok, steps;
} lin;

static void lin_of(walk *w, const cJSON *e, long scale, lin *l, int depth);

static int narrow_cast(const cJSON *e)
{
	static const char *const bad[] = { "char", "short", "bool", "half", "float", "double" };
	if (!kind_is(e, "ImplicitCastExpr") && !kind_is(e, "CStyleCastExpr"))
		return 0;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (strstr(type_of(e), bad[i]))
			return 1;
	return 0;
}

static int id_call(const cJSON *e)
{
	static const char *const ids[] = { "get_global_id", "get_group_id", "get_local_id",
	                                   "get_global_linear_id", "get_local_linear_id" };
	const cJSON *c = kind_is(e, "CallExpr") ? sz_strip(child(e, 0)) : NULL;
	const cJSON *d = c ? cJSON_GetObjectItemCaseSensitive(c, "referencedDecl") : NULL;
	for (size_t i = 0; d && i < sizeof ids / sizeof ids[0]; i++)
		if (!strcmp(str(d, "name"), ids[i]))
			return 1;
	return 0;
}

static void lin_join(lin *l, const lin *x, const lin *y);

/* A variable never stepped nor its address taken, outside loops: its value, or where it is
 * given several (`halo = gx - R; ... halo = gx + TILE;`), any of them, as the arms of ?:. */
static void lin_var(walk *w, const cJSON *e, long scale, lin *l, int depth)
{
	int v = ptr_ref_var(w, e);
	const var *x = v >= 0 ? &w->vars[v] : NULL;
	if (!x || x->kernel_size || x->pointer || x->addr || x->nloops || x->nsasg < 1) {
		l->ok = 0;
		return;
	}
	lin all = { .ok = 1, .steps = l->steps };
	for (int a = 0; a < x->nsasg && all.ok; a++) {
		lin one = { .ok = !is_step(x->sasg[a]), .steps = all.steps };
		lin_of(w, x->sasg[a], scale, &one, depth + 1);
		if (a == 0)
			all = one;
		else
			lin_join(&all, &all, &one);
	}
	lin_join(l, &all, &all);   /* l += all */
}

/* Either of two sums x and y (y read after x) added to l: the ids of both counted, the
 * constant's range joined.  l may be x. */
static void lin_join(lin *l, const lin *x, const lin *y)
{
	lin j = { x->kmin < y->kmin ? x->kmin : y->kmin, x->kmax > y->kmax ? x->kmax : y->kmax,
	          x->pos > y->pos ? x->pos : y->pos, x->neg > y->neg ? x->neg : y->neg,
	          x->ok && y->ok, y->steps };
	if (l == x)
		*l = j;
	else {
		l->ok = l->ok && j.ok;
		l->steps = j.steps;
		l->kmin += j.kmin, l->kmax += j.kmax, l->pos += j.pos, l->neg += j.neg;
	}
}

/* `c ? x : y`: either arm's sum. */
static void lin_arms(walk *w, const cJSON *e, long scale, lin *l, int depth)
{
	lin x = { .ok = 1, .steps = l->steps }, y = { .ok = 1 };
	lin_of(w, child(e, 1), scale, &x, depth + 1);
	y.steps = x.steps;
	lin_of(w, child(e, 2), scale, &y, depth + 1);
	lin_join(l, &x, &y);
}

/* A call of get_local_size or get_enqueued_local_size: a work-group's width, positive. */
static int local_size_call(const cJSON *e)
{
	e = sz_strip(e);
	const cJSON *c = e && kind_is(e, "CallExpr") ? sz_strip(child(e, 0)) : NULL;
	const cJSON *d = c ? cJSON_GetObjectItemCaseSensitive(c, "referencedDecl") : NULL;
	return d && (!strcmp(str(d, "name"), "get_local_size") ||
	             !strcmp(str(d, "name"), "get_enqueued_local_size"));
}

/* A product with a constant: its other factor times scale * c (0: nothing); with a
 * work-group's width (`get_group_id(0) * get_local_size(0)`): its other factor, whose sign
 * alone the threshold needs. */
static void lin_product(walk *w, const cJSON *e, long scale, lin *l, int depth)
{
	long c;
	int i = ptr_const_value(child(e, 0), &c, 0) ? 1 : 0;
	if (!i && ptr_const_value(child(e, 1), &c, 0))
		i = 0;
	else if (!i && (local_size_call(child(e, 0)) || local_size_call(child(e, 1)))) {
		i = local_size_call(child(e, 0)) ? 1 : 0;
		c = 1;
	} else if (!i) {
		l->ok = 0;
		return;
	}
	if (c)
		lin_of(w, child(e, i), scale * c, l, depth + 1);
}

/* e times scale added to l. */
static void lin_of(walk *w, const cJSON *e, long scale, lin *l, int depth)
{
	long c;
	while (e && kind_is(e, "ParenExpr"))
		e = child(e, 0);
	if (!l->ok || !e || depth > SZ_DEPTH || ++l->steps > SUM_STEPS || labs(scale) > SUM_BIG ||
	    narrow_cast(e)) {
		l->ok = 0;
		return;
	}
	const char *k = str(e, "kind"), *op = str(e, "opcode");
	if (ptr_const_value(e, &c, 0)) {
		l->ok = labs(c) <= SUM_BIG;
		l->kmin += scale * c, l->kmax += scale * c;
	} else if (!strcmp(k, "ImplicitCastExpr") || !strcmp(k, "CStyleCastExpr")) {
		lin_of(w, child(e, 0), scale, l, depth + 1);
	} else if (id_call(e)) {
		l->pos += scale > 0, l->neg += scale < 0;
	} else if (!strcmp(k, "DeclRefExpr")) {
		lin_var(w, e, scale, l, depth);
	} else if (!strcmp(k, "BinaryOperator") && (!strcmp(op, "+") || !strcmp(op, "-"))) {
		lin_of(w, child(e, 0), scale, l, depth + 1);
		lin_of(w, child(e, 1), op[0] == '-' ? -scale : scale, l, depth + 1);
	} else if (!strcmp(k, "UnaryOperator") && (!strcmp(op, "-") || !strcmp(op, "+"))) {
		lin_of(w, child(e, 0), op[0] == '-' ? -scale : scale, l, depth + 1);
	} else if (!strcmp(k, "BinaryOperator") && !strcmp(op, "*")) {
		lin_product(w, e, scale, l, depth);
	} else if (!strcmp(k, "ConditionalOperator")) {
		lin_arms(w, e, scale, l, depth);
	} else {
		l->ok = 0;
	}
}

static int is_unsigned(const cJSON *e)
{
	const char *t = type_of(e);
	return strstr(t, "unsigned") || strstr(t, "size_t") || t[0] == 'u';
}

/* The threshold of `a op b` for a sum of ids, the farthest of its range, or NOT_SUM when it
 * is no such test. */
static long threshold(walk *w, const cJSON *a, const cJSON *b, const char *op)
{
	lin l = { .ok = 1 }, r = { .ok = 1 };
	lin_of(w, a, 1, &l, 0);
	if (b)
		lin_of(w, b, -1, &r, 0);   /* a - b */
	if (!l.ok || !r.ok ||
	    (is_unsigned(a) && (l.kmin < 0 || r.kmax > 0 || l.neg || r.pos)))
		return NOT_SUM;
	int pos = l.pos + r.pos, neg = l.neg + r.neg;
	if ((pos && neg) || (!pos && !neg))
		return NOT_SUM;
	long t = pos ? -(l.kmin + r.kmin) : l.kmax + r.kmax;   /* X op t, or t op X */
	int above = pos ? !strcmp(op, ">") || !strcmp(op, "<=")
	                : !strcmp(op, "<") || !strcmp(op, ">=");
	return above ? t + 1 : t;   /* X > t is X >= t + 1, X <= t is X < t + 1 */
}

/* The magnitudes of the constants of `a op b` summed (b NULL: a alone). */
long ptr_gid_reach(walk *w, const cJSON *a, const cJSON *b)
{
	w->stamp++;
	long r = reach(w, a, 0);
	return b ? add_cap(r, reach(w, b, 0)) : r;
}

int ptr_gid_near(walk *w, const cJSON *a, const cJSON *b, const char *op)
{
	long t = threshold(w, a, b, op);
	if (t != NOT_SUM)
		return t <= SZ_NEAR;
	return ptr_gid_reach(w, a, b) <= SZ_NEAR;
}
