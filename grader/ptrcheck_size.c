/* ptrcheck_size.c — the size test: comparisons in the kernel's text of the problem's size with
 * constants (`if (n > 100000)`, `N % 4 == 0`, a helper `big(n)` that compares its argument).
 *
 * Why: the Oclgrind analysis runs at small sizes, and on a CPU device `speedup` is judged from
 * the GPU time model traced at a small size too.  A kernel that takes one path at the sizes the
 * grader analyses and another at the sizes a GPU runs can show the analysis a clean, fast
 * kernel and run a racy or slow one (GUIDE.md, threat model, "A kernel that knows the analysis
 * sizes").  The lessons' kernels need the size only in index and loop bounds (`row < N`,
 * `t < (N + TILE - 1) / TILE`, `i < n`), where it meets a work-item's id or a loop variable;
 * a comparison whose both sides depend on nothing but the size arguments and constants decides
 * something for the whole launch by its size alone.
 *
 * A value is SZ_SIZE when it depends on a __kernel's scalar parameters (the sizes),
 * get_global_size() or get_num_groups(), and constants only: through arithmetic, casts, ?:,
 * calls whose arguments are all such values, local variables whose every assignment is one
 * (and that are never incremented, compound-assigned or have their address taken), and the
 * parameters of the kernel text's own functions when every call passes one.  Loop variables
 * are never SZ_SIZE (they are changed, or assigned from themselves).  Exempt: a size parameter
 * (or a helper's parameter given one as it is) compared with 0 or 1 (`if (n < 1) return;`), which no analysed size nor GPU size meets.
 * Not seen (GUIDE.md says so): the size through memory (stored and loaded back), a loop whose
 * trip count alone differs (`r < n / 1000000`), bit tricks without a comparison.
 *
 * A group's id compared with a constant (`get_group_id(0) >= 3`) is counted apart (w->ngroup):
 * the analysed launches have a few groups, the model's two, a GPU's thousands, so it is a
 * size test in disguise; one compared with 0 or 1, or mixed with a size (`row0 + BT <= N`, an
 * interior group, which the analysed sizes have both ways), is not.
 *
 * A test of divisibility by a power of two (`N % 4 == 0`, `(N & 3) == 0`, a vector path:
 * lesson 7's solution has one) is kept apart (w->div_mask): it takes the same branch at every
 * size that shares those factors, so the criteria compare it with the lesson's model and GPU
 * sizes. */
#include <stdlib.h>

#include "ptrcheck_int.h"

enum { SZ_ROUNDS = 32, SZ_DEPTH = 200 };

static const cJSON *strip(const cJSON *e)
{
	while (e && (kind_is(e, "ParenExpr") || kind_is(e, "ImplicitCastExpr") ||
	             kind_is(e, "CStyleCastExpr")))
		e = child(e, 0);
	return e;
}

/* The function a call names (its DeclRefExpr's referencedDecl), or NULL. */
static const cJSON *callee(const cJSON *call)
{
	const cJSON *c = strip(child(call, 0));
	return c && kind_is(c, "DeclRefExpr") ? cJSON_GetObjectItemCaseSensitive(c, "referencedDecl")
	                                      : NULL;
}

static int fn_find(walk *w, const char *id)
{
	for (int i = 0; i < w->nfns; i++)
		if (strcmp(w->fns[i].id, id) == 0)
			return i;
	return -1;
}

static void note_value(walk *w, int v, const cJSON *value)
{
	if (v >= 0 && !ptr_grow((void **)&w->vars[v].sasg, &w->vars[v].csasg, w->vars[v].nsasg + 1,
	                        sizeof *w->vars[v].sasg, w))
		w->vars[v].sasg[w->vars[v].nsasg++] = value;
}

static void note_defer(walk *w, defer **list, int *len, int *cap, const cJSON *n, long off)
{
	if (!ptr_grow((void **)list, cap, *len + 1, sizeof **list, w))
		(*list)[(*len)++] = (defer){ n, off };
}

/* A function starts: a __kernel when an OpenCLKernelAttr is among its children. */
static void note_function(walk *w, const cJSON *n)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	w->in_kernel = 0;
	for (const cJSON *c = in ? in->child : NULL; c; c = c->next)
		w->in_kernel |= kind_is(c, "OpenCLKernelAttr");
	w->cur_fn = -1;
	if (w->nfns < 256 && !ptr_grow((void **)&w->fns, &w->cfns, w->nfns + 1, sizeof *w->fns, w)) {
		w->fns[w->nfns] = (sz_fn){ .id = str(n, "id") };
		w->cur_fn = w->nfns++;
	}
}

static int is_comparison(const char *op)
{
	static const char *ops[] = { "<", ">", "<=", ">=", "==", "!=", NULL };
	for (int i = 0; ops[i]; i++)
		if (strcmp(op, ops[i]) == 0)
			return 1;
	return 0;
}

void ptr_size_note(walk *w, const cJSON *n, long off)
{
	const char *k = str(n, "kind"), *op = str(n, "opcode");
	if (strcmp(k, "FunctionDecl") == 0) {
		note_function(w, n);
	} else if (strcmp(k, "ParmVarDecl") == 0 || strcmp(k, "VarDecl") == 0) {
		int v = ptr_var_add(w, str(n, "id"));
		if (v < 0)
			return;
		int param = k[0] == 'P', scalar = !strchr(type_of(n), '*') && !strchr(type_of(n), '[');
		w->vars[v].kernel_size = param && scalar && w->in_kernel;
		if (param && w->cur_fn >= 0 && w->fns[w->cur_fn].nparams < 16)
			w->fns[w->cur_fn].params[w->fns[w->cur_fn].nparams++] = v;
		if (!param && child(n, 0) && is_expr(child(n, 0)))
			note_value(w, v, child(n, 0));
	} else if (strcmp(k, "BinaryOperator") == 0 && strcmp(op, "=") == 0) {
		note_value(w, ptr_ref_var(w, child(n, 0)), child(n, 1));
	} else if (strcmp(k, "BinaryOperator") == 0 && is_comparison(op)) {
		note_defer(w, &w->cmps, &w->ncmps, &w->ccmps, n, off);
	} else if (strcmp(k, "CompoundAssignOperator") == 0 ||
	           (strcmp(k, "UnaryOperator") == 0 && (!strcmp(op, "++") || !strcmp(op, "--") ||
	                                                !strcmp(op, "&")))) {
		int v = ptr_ref_var(w, child(n, 0));
		if (v >= 0)
			w->vars[v].changed = 1;
	} else if (strcmp(k, "CallExpr") == 0) {
		note_defer(w, &w->calls, &w->ncalls, &w->ccalls, n, off);
	}
}

/* Two operands' classes together: a size and a group's id mixed (`row0 + BT <= N`, an
 * interior group's test, which the analysed sizes take both ways) is neither. */
static int join(int a, int b)
{
	if (a == SZ_OTHER || b == SZ_OTHER || (a > SZ_CONST && b > SZ_CONST && a != b))
		return SZ_OTHER;
	return a > b ? a : b;
}

/* Each child of n joined; SZ_CONST for none. */
static int sz_children(walk *w, const cJSON *n, int from, int depth);

static int sz_call(walk *w, const cJSON *e, int depth)
{
	const char *name = str(callee(e), "name");
	if (!strcmp(name, "get_global_size") || !strcmp(name, "get_num_groups"))
		return SZ_SIZE;
	if (!strcmp(name, "get_group_id"))
		return SZ_GROUP;
	if (!strcmp(name, "get_local_size") || !strcmp(name, "get_enqueued_local_size") ||
	    !strcmp(name, "get_work_dim"))
		return SZ_CONST;
	if (!strncmp(name, "get_", 4) || !name[0])
		return SZ_OTHER;          /* ids, offsets; a call through anything but a name */
	return sz_children(w, e, 1, depth);
}

/* What expression e's value depends on. */
static int sz_of(walk *w, const cJSON *e, int depth)
{
	if (!e || depth > SZ_DEPTH)
		return SZ_OTHER;
	const char *k = str(e, "kind"), *op = str(e, "opcode");
	if (!strcmp(k, "IntegerLiteral") || !strcmp(k, "FloatingLiteral") ||
	    !strcmp(k, "CharacterLiteral") || !strcmp(k, "UnaryExprOrTypeTraitExpr"))
		return SZ_CONST;
	if (strcmp(k, "DeclRefExpr") == 0) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "referencedDecl");
		if (strcmp(str(d, "kind"), "EnumConstantDecl") == 0)
			return SZ_CONST;
		int v = ptr_ref_var(w, e);
		return v >= 0 ? w->vars[v].size : SZ_OTHER;
	}
	if (!strcmp(k, "ParenExpr") || !strcmp(k, "ImplicitCastExpr") || !strcmp(k, "CStyleCastExpr"))
		return strchr(type_of(e), '*') ? SZ_OTHER : sz_of(w, child(e, 0), depth + 1);
	if (strcmp(k, "UnaryOperator") == 0)
		return !strcmp(op, "-") || !strcmp(op, "+") || !strcmp(op, "!") || !strcmp(op, "~") ?
		       sz_of(w, child(e, 0), depth + 1) : SZ_OTHER;
	if (strcmp(k, "BinaryOperator") == 0)
		return !strcmp(op, "=") || !strcmp(op, ",") ? SZ_OTHER : sz_children(w, e, 0, depth);
	if (strcmp(k, "ConditionalOperator") == 0)
		return sz_children(w, e, 0, depth);
	if (strcmp(k, "CallExpr") == 0)
		return sz_call(w, e, depth);
	return SZ_OTHER;
}

static int sz_children(walk *w, const cJSON *n, int from, int depth)
{
	int r = SZ_CONST, i = from;
	for (const cJSON *c = child(n, i); c && r != SZ_OTHER; c = child(n, ++i))
		r = join(r, sz_of(w, c, depth + 1));
	return r;
}

/* A helper's parameters take the arguments of its calls as their values. */
static void bind_calls(walk *w)
{
	for (int i = 0; i < w->ncalls; i++) {
		const cJSON *d = callee(w->calls[i].node);
		int f = d ? fn_find(w, str(d, "id")) : -1;
		for (int a = 0; f >= 0 && a < w->fns[f].nparams; a++)
			note_value(w, w->fns[f].params[a], child(w->calls[i].node, a + 1));
	}
}

/* Every variable's SZ_*, from its assignments, to a fixed point from below (SZ_OTHER first:
 * a variable assigned from itself stays SZ_OTHER). */
static void settle(walk *w)
{
	for (int i = 0; i < w->nvars; i++)
		w->vars[i].size = w->vars[i].kernel_size ? SZ_SIZE : SZ_OTHER;
	int moved = 1;
	for (int round = 0; moved && round < SZ_ROUNDS; round++) {
		moved = 0;
		for (int i = 0; i < w->nvars; i++) {
			var *v = &w->vars[i];
			if (v->kernel_size || v->pointer || v->changed || !v->nsasg)
				continue;
			int s = SZ_CONST;
			for (int a = 0; a < v->nsasg && s != SZ_OTHER; a++)
				s = join(s, sz_of(w, v->sasg[a], 0));
			if (s != v->size) {
				v->size = s;
				moved = 1;
			}
		}
	}
}

/* Is n `X % d == 0` or `(X & (d - 1)) == 0` (or !=, either side) with d = 2^k, 2 <= d <=
 * 1 << 16?  Then k. */
static int divisibility(const cJSON *n)
{
	const char *op = str(n, "opcode");
	if (strcmp(op, "==") && strcmp(op, "!="))
		return 0;
	for (int swap = 0; swap < 2; swap++) {
		const cJSON *m = strip(child(n, swap)), *z = strip(child(n, !swap));
		const char *mo = m ? str(m, "opcode") : "";
		int mask = strcmp(mo, "&") == 0;
		if (!m || !z || !kind_is(m, "BinaryOperator") || (strcmp(mo, "%") && !mask) ||
		    !kind_is(z, "IntegerLiteral") || strcmp(str(z, "value"), "0"))
			continue;
		const cJSON *d = strip(child(m, 1));
		long v = d && kind_is(d, "IntegerLiteral") ? strtol(str(d, "value"), NULL, 10) : 0;
		for (int k = 1; k <= 16; k++)
			if (v == (mask ? (1L << k) - 1 : 1L << k))
				return k;
	}
	return 0;
}

/* Is v a size parameter, or a helper's parameter that every call gives one as it is? */
static int bare_size(walk *w, int v, int depth)
{
	if (v < 0 || depth > 8)
		return 0;
	if (w->vars[v].kernel_size)
		return 1;
	if (!w->vars[v].param || w->vars[v].changed || !w->vars[v].nsasg)
		return 0;
	for (int a = 0; a < w->vars[v].nsasg; a++) {
		const cJSON *e = strip(w->vars[v].sasg[a]);
		if (!e || !kind_is(e, "DeclRefExpr") || !bare_size(w, ptr_ref_var(w, e), depth + 1))
			return 0;
	}
	return 1;
}

/* A bare size (bare_size), or a bare get_group_id(), compared with 0 or 1. */
static int exempt(walk *w, const cJSON *a, const cJSON *b)
{
	a = strip(a), b = strip(b);
	for (int swap = 0; swap < 2; swap++) {
		const cJSON *p = swap ? b : a, *lit = swap ? a : b;
		int v = p && kind_is(p, "DeclRefExpr") ? ptr_ref_var(w, p) : -1;
		int group = p && kind_is(p, "CallExpr") && !strcmp(str(callee(p), "name"), "get_group_id");
		const char *val = lit && kind_is(lit, "IntegerLiteral") ? str(lit, "value") : "";
		if ((group || bare_size(w, v, 0)) && (!strcmp(val, "0") || !strcmp(val, "1")))
			return 1;
	}
	return 0;
}

void ptr_size_judge(walk *w)
{
	bind_calls(w);
	settle(w);
	for (int i = 0; i < w->ncmps && w->nsize < MAX_FINDINGS; i++) {
		const cJSON *n = w->cmps[i].node, *a = child(n, 0), *b = child(n, 1);
		int s = join(sz_of(w, a, 0), sz_of(w, b, 0)), k = divisibility(n);
		if ((s != SZ_SIZE && s != SZ_GROUP) || exempt(w, a, b))
			continue;
		if (s == SZ_GROUP) {  /* `get_group_id(0) >= 3`: groups the analysis never has */
			if (w->group_at < 0 || w->cmps[i].off < w->group_at)
				w->group_at = w->cmps[i].off;
			w->ngroup++;
			continue;
		}
		if (k) {            /* kept apart: the criteria weigh it against the lesson's sizes */
			w->div_mask |= 1u << k;
			if (w->div_at < 0 || w->cmps[i].off < w->div_at)
				w->div_at = w->cmps[i].off;
		} else {
			w->size_at[w->nsize++] = w->cmps[i].off;
		}
	}
}

void ptr_size_free(walk *w)
{
	for (int i = 0; i < w->nvars; i++)
		free(w->vars[i].sasg);
	free(w->fns);
	free(w->cmps);
	free(w->calls);
}
