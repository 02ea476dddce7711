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
 * (a compound assignment `m += e` or `m++` is one of `m + e`; its address taken: never), and
 * the parameters of the kernel text's own functions when every call passes one.  A counter
 * of constants alone stepped in a loop whose trip count is not a constant (`k < n`) is an
 * iteration's index (SZ_OTHER).  Exempt: a bare size (a size parameter, a variable or helper
 * parameter given one as it is, a counter that starts at one) compared with 0 or 1 (`if (n <
 * 1) return;`, `while (left > 0) left--`), which no analysed size nor GPU size meets.  Found
 * too: such a value read as a truth value (`if (n / 100001)`, &&, ||, !, ?:, a bool, a
 * helper's return), and two sizes compared with each other (said apart: SZH_SIZES).
 * Not seen (GUIDE.md says so): the size through memory (stored and loaded back), a loop whose
 * trip count alone differs (`r < n / 1000000`), the size in index arithmetic.
 *
 * A group's id compared with a constant (`get_group_id(0) >= 3`) is counted apart (w->ngroup):
 * the analysed launches have a few groups, the model's two, a GPU's thousands, so it is a
 * size test in disguise; one compared with 0 or 1, or mixed with a size (`row0 + BT <= N`, an
 * interior group, which the analysed sizes have both ways), is not.  So is a global id (a
 * group's id with a local one) compared with a constant beyond 16 (the analysed sizes start
 * above 16 along each dimension), read with its signs: ptrcheck_reach.c, where `gid - 1024
 * >= 0` is far and a halo's `y >= 0` is not; a local id alone never is.
 *
 * A test of divisibility by a power of two (`N % 4 == 0`, `(N & 3) == 0`, a vector path:
 * lesson 7's solution has one; read as a truth value too, `if (N % TILE) ntiles++;`) is kept
 * apart (w->div_mask): it takes the same branch at every
 * size that shares those factors, so the criteria compare it with the lesson's model and GPU
 * sizes. */
#include <stdlib.h>

#include "ptrcheck_int.h"

#define strip sz_strip

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
	if (n && !ptr_grow((void **)list, cap, *len + 1, sizeof **list, w))
		(*list)[(*len)++] = (defer){ n, off };
}

enum { TRUTH_SWITCH = -2 };   /* a switch's operand, compared with its case labels */

/* An operand read as a truth value (fn -1; a switch's: TRUTH_SWITCH), or the value a
 * function fn returns, read so where a call of it is; its place is its own, known when the
 * walk reaches it. */
static void note_truth(walk *w, const cJSON *e, int fn)
{
	int n = w->ntruths;
	if (e && is_expr(e) &&
	    !ptr_grow((void **)&w->truth_fn, &w->ctruth_fn, n + 1, sizeof *w->truth_fn, w)) {
		note_defer(w, &w->truths, &w->ntruths, &w->ctruths, e, -1);
		w->truth_pending += w->ntruths > n;
		w->truth_fn[n] = fn;
	}
}

static void place_truth(walk *w, const cJSON *n, long off)
{
	for (int i = w->ntruths - 1; i >= 0 && w->truth_pending; i--)
		if (w->truths[i].off < 0 && w->truths[i].node == n) {
			w->truths[i].off = off;
			w->truth_pending--;
		}
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
		w->fns[w->nfns] = (sz_fn){ .id = str(n, "id"), .kernel = w->in_kernel };
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

/* A loop's condition (NULL: none, `for (;;)`). */
static const cJSON *loop_cond(const cJSON *l)
{
	const cJSON *c = child(l, kind_is(l, "ForStmt") ? 2 : kind_is(l, "DoStmt") ? 1 : 0);
	return c && is_expr(c) ? c : NULL;
}

/* Statements and operators that read an operand as a truth value: conditions, the operands
 * of &&, || and !, and conversions to bool. */
static void note_truths(walk *w, const cJSON *n, const char *k, const char *op)
{
	if (!strcmp(k, "ForStmt") || !strcmp(k, "WhileStmt") || !strcmp(k, "DoStmt")) {
		note_defer(w, &w->loops, &w->nloops, &w->cloops, n, -1);
		note_truth(w, loop_cond(n), -1);
	} else if (!strcmp(k, "SwitchStmt")) {
		note_truth(w, child(n, 0), TRUTH_SWITCH);
	} else if (!strcmp(k, "IfStmt") || !strcmp(k, "ConditionalOperator")) {
		note_truth(w, child(n, 0), -1);
	} else if (!strcmp(k, "BinaryOperator") && (!strcmp(op, "&&") || !strcmp(op, "||"))) {
		note_truth(w, child(n, 0), -1);
		note_truth(w, child(n, 1), -1);
	} else if ((!strcmp(k, "UnaryOperator") && !strcmp(op, "!")) ||
	           !strcmp(str(n, "castKind"), "IntegralToBoolean") ||
	           !strcmp(str(n, "castKind"), "FloatingToBoolean")) {
		note_truth(w, child(n, 0), -1);
	} else if (!strcmp(k, "ReturnStmt") && w->cur_fn >= 0 && !w->in_kernel) {
		note_truth(w, child(n, 0), w->cur_fn);
	}
}

/* The local array a subscript's base names (`a[i]`, decayed), or -1. */
static int array_var(walk *w, const cJSON *base)
{
	base = strip(base);
	int v = base ? ptr_ref_var(w, base) : -1;
	return v >= 0 && strchr(type_of(base), '[') ? v : -1;
}

/* The variable a store to e writes: e itself, or the variable under a member (`d.n`), a
 * vector's component (`v.x`) or a local array's element (`a[0]`). */
static int store_var(walk *w, const cJSON *e)
{
	for (int d = 0; e && d < 16; d++) {
		const char *k = str(e, "kind");
		if (!strcmp(k, "ParenExpr") || !strcmp(k, "ExtVectorElementExpr") ||
		    (!strcmp(k, "MemberExpr") && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "isArrow"))))
			e = child(e, 0);
		else if (!strcmp(k, "ArraySubscriptExpr"))
			return array_var(w, child(e, 0));
		else
			return ptr_ref_var(w, e);
	}
	return -1;
}

/* An array's decays to a pointer, and those that are a subscript's base: any other lets
 * its elements be written unseen. */
static void note_decay(walk *w, const cJSON *n, const char *k)
{
	int v = -1;
	if (!strcmp(k, "ArraySubscriptExpr") && (v = array_var(w, child(n, 0))) >= 0)
		w->vars[v].nsub++;
	else if (!strcmp(str(n, "castKind"), "ArrayToPointerDecay") &&
	         (v = ptr_ref_var(w, child(n, 0))) >= 0)
		w->vars[v].ndecay++;
}

void ptr_size_note(walk *w, const cJSON *n, long off)
{
	const char *k = str(n, "kind"), *op = str(n, "opcode");
	if (w->truth_pending)
		place_truth(w, n, off);
	note_truths(w, n, k, op);
	note_decay(w, n, k);
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
		note_value(w, store_var(w, child(n, 0)), child(n, 1));
	} else if (strcmp(k, "BinaryOperator") == 0 && is_comparison(op)) {
		note_defer(w, &w->cmps, &w->ncmps, &w->ccmps, n, off);
	} else if (strcmp(k, "CompoundAssignOperator") == 0 ||
	           (strcmp(k, "UnaryOperator") == 0 && (!strcmp(op, "++") || !strcmp(op, "--")))) {
		note_value(w, store_var(w, child(n, 0)), n);   /* `m += e` is `m = m + e` */
	} else if (strcmp(k, "UnaryOperator") == 0 && !strcmp(op, "&")) {
		int v = store_var(w, child(n, 0));
		if (v >= 0)
			w->vars[v].addr = 1;
	} else if (strcmp(k, "CallExpr") == 0) {
		note_defer(w, &w->calls, &w->ncalls, &w->ccalls, n, off);
	}
}

/* Two operands' classes together.  A size mixed with an id (`row0 + BT <= N`, `i < n`) is a
 * bound, neither; a group's id mixed with a local one is a global id. */
static int join(int a, int b)
{
	if (a == SZ_NONE || b == SZ_NONE)
		return a == SZ_NONE ? b : a;
	if (a == SZ_UNKNOWN || b == SZ_UNKNOWN) {   /* with a size, a size; with an id, neither */
		int o = a == SZ_UNKNOWN ? b : a;
		return o == SZ_CONST || o == SZ_UNKNOWN ? SZ_UNKNOWN : o == SZ_SIZE ? SZ_SIZE : SZ_OTHER;
	}
	if (a == SZ_CONST || b == SZ_CONST)
		return a == SZ_CONST ? b : a;
	if (a == SZ_OTHER || b == SZ_OTHER || a == SZ_SIZE || b == SZ_SIZE)
		return a == b ? a : SZ_OTHER;
	return a == b ? a : SZ_GID;
}

/* Each child of n joined; SZ_CONST for none. */
static int sz_children(walk *w, const cJSON *n, int from, int depth);

static int sz_call(walk *w, const cJSON *e, int depth)
{
	static const struct { const char *name; int sz; } ids[] = {
		{ "get_global_size", SZ_SIZE }, { "get_num_groups", SZ_SIZE },
		{ "get_group_id", SZ_GROUP }, { "get_local_id", SZ_LOCAL },
		{ "get_local_linear_id", SZ_LOCAL }, { "get_global_id", SZ_GID },
		{ "get_global_linear_id", SZ_GID }, { "get_local_size", SZ_CONST },
		{ "get_enqueued_local_size", SZ_CONST }, { "get_work_dim", SZ_CONST },
	};
	const char *name = str(callee(e), "name");
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (!strcmp(name, ids[i].name))
			return ids[i].sz;
	if (!strcmp(name, "get_global_offset"))
		return SZ_UNKNOWN;        /* the launch's, not the analysis' to tell */
	if (!strncmp(name, "get_", 4) || !name[0])
		return SZ_OTHER;          /* offsets, sub-groups; a call through anything but a name */
	return sz_children(w, e, 1, depth);
}

static int sz_of(walk *w, const cJSON *e, int depth);
static int sz_operands(walk *w, const cJSON *n, int from, int depth);

/* A pointer's target: memory the kernel is given (__global, __local, __constant) is data;
 * a private pointer's target is a variable the search cannot tell. */
static int sz_target(const cJSON *p)
{
	const char *t = type_of(p);
	return strstr(t, "__global") || strstr(t, "__local") || strstr(t, "__constant") ?
	       SZ_OTHER : SZ_UNKNOWN;
}

/* A part of a value, or a value put together: a member (`d.n`), a vector's component, a
 * local array's element (`a[0]`: the array's values with its index), a pointer's target, a
 * statement expression's last value, an initializer list or a compound literal. */
static int sz_part(walk *w, const cJSON *e, const char *k, int depth)
{
	if (!strcmp(k, "ArraySubscriptExpr")) {
		int v = array_var(w, child(e, 0));
		return v >= 0 ? join(w->vars[v].size, sz_of(w, child(e, 1), depth + 1)) :
		       sz_target(child(e, 0));
	}
	if (!strcmp(k, "UnaryOperator") ||
	    (!strcmp(k, "MemberExpr") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "isArrow"))))
		return sz_target(child(e, 0));
	if (!strcmp(k, "MemberExpr") || !strcmp(k, "ExtVectorElementExpr"))
		return sz_of(w, child(e, 0), depth + 1);
	if (!strcmp(k, "StmtExpr")) {
		const cJSON *c = child(e, 0), *last = NULL;
		for (int i = 0; child(c, i); i++)
			last = child(c, i);
		return last && is_expr(last) ? sz_of(w, last, depth + 1) : SZ_OTHER;
	}
	return sz_children(w, e, 0, depth);
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
	if (!strcmp(k, "ArraySubscriptExpr") || !strcmp(k, "MemberExpr") ||
	    !strcmp(k, "ExtVectorElementExpr") || !strcmp(k, "StmtExpr") ||
	    !strcmp(k, "InitListExpr") || !strcmp(k, "CompoundLiteralExpr") ||
	    !strcmp(k, "ParenListExpr") || (!strcmp(k, "UnaryOperator") && !strcmp(op, "*")))
		return sz_part(w, e, k, depth);
	if (strcmp(k, "UnaryOperator") == 0)   /* ++ and --: a step's value, `m + 1` */
		return (op[0] && strchr("-+!~", op[0]) && (!op[1] || op[1] == op[0])) ||
		       !strncmp(op, "__extension", 11) || !strncmp(op, "__real", 6) ||
		       !strncmp(op, "__imag", 6) ? sz_of(w, child(e, 0), depth + 1) : SZ_OTHER;
	if (strcmp(k, "BinaryOperator") == 0)
		return !strcmp(op, "=") || !strcmp(op, ",") ? sz_of(w, child(e, 1), depth + 1) :
		       sz_children(w, e, 0, depth);
	if (strcmp(k, "ConditionalOperator") == 0 || strcmp(k, "CompoundAssignOperator") == 0)
		return sz_children(w, e, 0, depth);
	if (strcmp(k, "CallExpr") == 0)
		return sz_call(w, e, depth);
	/* any other expression (`n ?: 0`, _Generic, __builtin_choose_expr, an opaque value):
	 * what its operands make, never nothing -- an expression the search does not know must
	 * not launder a size (the hostile review of 2026-12-05); a leaf it does not know, data */
	return child(e, 0) ? sz_operands(w, e, !strcmp(k, "GenericSelectionExpr"), depth) :
	       SZ_OTHER;
}

/* The expressions among n's children joined, those inside nodes that are none (a
 * _Generic's associations) too, types skipped; from: the first child read (a _Generic's
 * controlling expression is not its value). */
static int sz_operands(walk *w, const cJSON *n, int from, int depth)
{
	int r = SZ_CONST, i = from;
	for (const cJSON *c = child(n, i); c && r != SZ_OTHER && depth <= SZ_DEPTH; c = child(n, ++i))
		r = join(r, is_expr(c) ? sz_of(w, c, depth + 1) : sz_operands(w, c, 0, depth + 1));
	return r;
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

static int refers(walk *w, const cJSON *e, int v, int depth)
{
	if (!e || depth > SZ_DEPTH)
		return 0;
	if (kind_is(e, "DeclRefExpr"))
		return ptr_ref_var(w, e) == v;
	for (int i = 0; child(e, i); i++)
		if (refers(w, child(e, i), v, depth + 1))
			return 1;
	return 0;
}

/* The variables loop l steps (++, --, a compound assignment, `m = m + e`), in its condition,
 * step and body: counters, their values a function of the iteration. */
static void mark_steps(walk *w, const cJSON *l, const cJSON *n, int depth)
{
	if (!n || depth > SZ_DEPTH)
		return;
	const char *k = str(n, "kind"), *op = str(n, "opcode");
	int v = -1;
	if (!strcmp(k, "CompoundAssignOperator") ||
	    (!strcmp(k, "UnaryOperator") && (!strcmp(op, "++") || !strcmp(op, "--"))))
		v = ptr_ref_var(w, child(n, 0));
	else if (!strcmp(k, "BinaryOperator") && !strcmp(op, "="))
		v = ptr_ref_var(w, child(n, 0)), v = refers(w, child(n, 1), v, 0) ? v : -1;
	if (v >= 0) {
		var *x = &w->vars[v];
		int dup = 0;
		for (int i = 0; i < x->nloops; i++)
			dup |= x->loops[i] == l;
		if (!dup && x->nloops < 4)
			x->loops[x->nloops++] = l;
		else if (!dup)
			x->loops_over = 1;
	}
	for (int i = n == l && kind_is(l, "ForStmt"); child(n, i); i++)   /* not a for's init */
		mark_steps(w, l, child(n, i), depth + 1);
}

/* Does some loop that steps counter x run a number of times that is not a constant (its
 * condition not of constants alone)?  A loop without a condition counts as constant. */
static int trips_vary(walk *w, const var *x)
{
	int vary = x->loops_over;
	for (int i = 0; i < x->nloops && !vary; i++) {
		const cJSON *c = loop_cond(x->loops[i]);
		int s = c ? sz_of(w, c, 0) : SZ_CONST;
		vary = s != SZ_CONST && s != SZ_NONE;
	}
	return vary;
}

/* Every variable's SZ_*, from its assignments (a step `m += e` is one of `m + e`), to a
 * least fixed point from SZ_NONE.  A counter of constants alone (`for (k = 0; k < n; k++)`)
 * whose loop's trip count is not a constant is an iteration's index: SZ_OTHER. */
static void settle(walk *w)
{
	for (int i = 0; i < w->nloops; i++)
		mark_steps(w, w->loops[i].node, w->loops[i].node, 0);
	for (int i = 0; i < w->nvars; i++)
		w->vars[i].size = w->vars[i].kernel_size ? SZ_SIZE : SZ_NONE;
	int moved = 1;
	for (int round = 0; moved && round < SZ_ROUNDS; round++) {
		moved = 0;
		for (int i = 0; i < w->nvars; i++) {
			var *v = &w->vars[i];
			if (v->kernel_size || v->pointer)
				continue;
			int s = v->addr || v->ndecay > v->nsub ? SZ_UNKNOWN : SZ_NONE;
			for (int a = 0; a < v->nsasg && s != SZ_OTHER; a++)
				s = join(s, sz_of(w, v->sasg[a], 0));
			v->varying = v->nloops && trips_vary(w, v);
			if (s == SZ_CONST && v->varying)
				s = SZ_OTHER;
			if (s != v->size) {
				v->size = s;
				moved = 1;
			}
		}
	}
	for (int i = 0; i < w->nvars; i++)
		if (w->vars[i].size == SZ_NONE || moved)   /* unassigned, or unsettled */
			w->vars[i].size = w->vars[i].kernel_size ? SZ_SIZE : SZ_OTHER;
}

/* Is m `X % d` or `X & (d - 1)` with d = 2^k, 2 <= d <= 1 << 16 (d a constant expression:
 * TILE, `TILE - 1`)?  Then k. */
static int div_operand(const cJSON *m)
{
	long v = 0;
	m = strip(m);
	const char *mo = m ? str(m, "opcode") : "";
	int mask = strcmp(mo, "&") == 0;
	if (!m || !kind_is(m, "BinaryOperator") || (strcmp(mo, "%") && !mask) ||
	    !ptr_const_value(child(m, 1), &v, 0))
		return 0;
	for (int k = 1; k <= 16; k++)
		if (v == (mask ? (1L << k) - 1 : 1L << k))
			return k;
	return 0;
}

/* Is n `X % d == 0` or `(X & (d - 1)) == 0` (or !=, either side) with d = 2^k?  Then k.
 * Read as a truth value (`if (N % TILE)`, `!(n & 3)`), judge_truth asks div_operand. */
static int divisibility(const cJSON *n)
{
	const char *op = str(n, "opcode");
	long z;
	if (strcmp(op, "==") && strcmp(op, "!="))
		return 0;
	for (int swap = 0; swap < 2; swap++)
		if (ptr_const_value(child(n, !swap), &z, 0) && z == 0 && div_operand(child(n, swap)))
			return div_operand(child(n, swap));
	return 0;
}

static int is_step(const cJSON *e)
{
	return kind_is(e, "CompoundAssignOperator") || kind_is(e, "UnaryOperator");
}

/* Is e bare: a size parameter, get_group_id() or get_global_id() as it is, or a variable
 * (a helper's parameter included) whose every value is bare, or a step when it counts a
 * loop whose trip count is not a constant (`int left = n; while (left > 0) left--;`)? */
static int bare(walk *w, const cJSON *e, int depth)
{
	e = strip(e);
	if (!e || depth > 8)
		return 0;
	if (kind_is(e, "CallExpr"))
		return !strcmp(str(callee(e), "name"), "get_group_id") ||
		       !strcmp(str(callee(e), "name"), "get_global_id");
	int v = kind_is(e, "DeclRefExpr") ? ptr_ref_var(w, e) : -1;
	if (v < 0 || w->vars[v].kernel_size)
		return v >= 0;
	const var *x = &w->vars[v];
	if (x->addr || x->pointer || !x->nsasg)
		return 0;
	for (int a = 0; a < x->nsasg; a++)
		if (is_step(x->sasg[a]) ? !x->varying : !bare(w, x->sasg[a], depth + 1))
			return 0;
	return 1;
}

/* A bare value compared with 0 or 1 (or read as a truth value, b NULL). */
static int exempt(walk *w, const cJSON *a, const cJSON *b)
{
	if (!b)
		return bare(w, a, 0);
	a = strip(a), b = strip(b);
	for (int swap = 0; swap < 2; swap++) {
		const cJSON *p = swap ? b : a, *lit = swap ? a : b;
		const char *val = lit && kind_is(lit, "IntegerLiteral") ? str(lit, "value") : "";
		if ((!strcmp(val, "0") || !strcmp(val, "1")) && bare(w, p, 0))
			return 1;
	}
	return 0;
}

/* A size test of class s at byte off (how: SZH_*), or a group's or global id's. */
static void found(walk *w, int s, long off, int how)
{
	if (s == SZ_GROUP || s == SZ_GID) {
		if (w->group_at < 0 || off < w->group_at)
			w->group_at = off, w->group_how = s == SZ_GID ? SZH_GID : SZH_GROUP;
		w->ngroup++;
	} else if (w->nsize < MAX_FINDINGS) {
		w->size_how[w->nsize] = how;
		w->size_at[w->nsize++] = off;
	}
}

/* A test of divisibility by 2^k of the size at byte off, kept apart: the criteria weigh it
 * against the lesson's sizes. */
static void found_div(walk *w, int k, long off)
{
	w->div_mask |= 1u << k;
	if (w->div_at < 0 || off < w->div_at)
		w->div_at = off;
}

/* Does e use the work-group's size (`get_global_id(0) / get_local_size(0)`: a group's id)? */
static int has_group_size(walk *w, const cJSON *e, int depth)
{
	if (!e || depth > SZ_DEPTH)
		return 0;
	const char *name = kind_is(e, "CallExpr") ? str(callee(e), "name") : "";
	if (!strcmp(name, "get_local_size") || !strcmp(name, "get_enqueued_local_size"))
		return 1;
	int v = kind_is(e, "DeclRefExpr") ? ptr_ref_var(w, e) : -1;
	for (int a = 0; v >= 0 && a < w->vars[v].nsasg && depth < 8; a++)
		if (w->vars[v].sasg[a] != e && has_group_size(w, w->vars[v].sasg[a], depth + 8))
			return 1;
	for (int i = 0; child(e, i); i++)
		if (has_group_size(w, child(e, i), depth + 1))
			return 1;
	return 0;
}

/* A global id's test: far beyond the analysed ids, or, scaled by the group's size, a
 * group's id with a constant other than 0 and 1 (`gid >= 4 * get_local_size(0)`). */
static int gid_near(walk *w, const cJSON *a, const cJSON *b, const char *op)
{
	if (has_group_size(w, a, 0) || (b && has_group_size(w, b, 0)))
		return ptr_gid_reach(w, a, b) <= 1;
	return ptr_gid_near(w, a, b, op);
}

static void judge_comparison(walk *w, const cJSON *n, long off)
{
	const cJSON *a = child(n, 0), *b = child(n, 1);
	int sa = sz_of(w, a, 0), sb = sz_of(w, b, 0), s = join(sa, sb), k = divisibility(n);
	if ((s != SZ_SIZE && s != SZ_GROUP && s != SZ_GID) || exempt(w, a, b) ||
	    (s == SZ_GID && gid_near(w, a, b, str(n, "opcode"))))
		return;
	if (k && s == SZ_SIZE)
		found_div(w, k, off);
	else
		found(w, s, off, sa == SZ_SIZE && sb == SZ_SIZE ? SZH_SIZES : SZH_CONST);
}

/* Is e a test (a comparison, &&, ||, !), or a variable only ever given tests? */
static int is_test(walk *w, const cJSON *e, int depth)
{
	const cJSON *x = strip(e);
	const char *op = x ? str(x, "opcode") : "";
	if (x && kind_is(x, "DeclRefExpr") && depth < 8) {
		int v = ptr_ref_var(w, x);
		int all = v >= 0 && !w->vars[v].kernel_size && w->vars[v].nsasg;
		for (int a = 0; all && a < w->vars[v].nsasg; a++)
			all = is_test(w, w->vars[v].sasg[a], depth + 1);
		return all;
	}
	return x && ((kind_is(x, "BinaryOperator") &&
	              (is_comparison(op) || !strcmp(op, "&&") || !strcmp(op, "||"))) ||
	             (kind_is(x, "UnaryOperator") && !strcmp(op, "!")));
}

/* An operand read as a truth value with no comparison of its own (`if (n / 100001)`); a
 * test is judged on its own (or its operands are), a call of the kernel text's function by
 * the values it returns. */
static void judge_truth(walk *w, const cJSON *e, long off, int depth)
{
	const cJSON *x = strip(e), *d = x && kind_is(x, "CallExpr") ? callee(x) : NULL;
	int f = d ? fn_find(w, str(d, "id")) : -1;
	if (!x || off < 0 || depth > 8 || is_test(w, x, 0))
		return;
	if (f >= 0) {
		for (int i = 0; i < w->ntruths; i++)
			if (w->truth_fn[i] == f)
				judge_truth(w, w->truths[i].node, w->truths[i].off, depth + 1);
		return;
	}
	int s = sz_of(w, e, 0), k = s == SZ_SIZE ? div_operand(x) : 0;
	if (k)   /* `if (N % TILE)`: `N % TILE != 0` */
		found_div(w, k, off);
	else if ((s == SZ_SIZE || s == SZ_GROUP || s == SZ_GID) && !exempt(w, e, NULL) &&
	    !(s == SZ_GID && gid_near(w, e, NULL, "!=")))
		found(w, s, off, SZH_TRUTH);
}

/* A __kernel called from another function: its __local arrays belong to no launch (the
 * runtime's CL_KERNEL_LOCAL_MEM_SIZE and the grader's count see the launched kernel's alone,
 * so they would escape the __local budget), and OpenCL leaves such a call to the
 * implementation (the hostile review of 2026-12-05: 64 KiB in a called kernel ran on PoCL). */
static void kernel_calls(walk *w)
{
	for (int i = 0; i < w->ncalls; i++) {
		const cJSON *d = callee(w->calls[i].node);
		int f = d ? fn_find(w, str(d, "id")) : -1;
		if (f >= 0 && w->fns[f].kernel)
			ptr_refuse_text(w, w->calls[i].off, "a __kernel called from another function: "
			                "its __local arrays belong to no launch, so neither the runtime "
			                "nor the grader counts them against the __local budget, and OpenCL "
			                "leaves such a call to the implementation");
	}
}

void ptr_size_judge(walk *w)
{
	bind_calls(w);
	kernel_calls(w);
	settle(w);
	for (int i = 0; i < w->ncmps; i++)
		judge_comparison(w, w->cmps[i].node, w->cmps[i].off);
	for (int i = 0; i < w->ntruths; i++)
		if (w->truth_fn[i] == -1)
			judge_truth(w, w->truths[i].node, w->truths[i].off, 0);
		else if (w->truth_fn[i] == TRUTH_SWITCH && w->truths[i].off >= 0) {
			int s = sz_of(w, w->truths[i].node, 0);   /* `case 100001 ... INT_MAX:` */
			if (s == SZ_SIZE || s == SZ_GROUP || s == SZ_GID)   /* a group's id: `case 3:` */
				found(w, s, w->truths[i].off, s == SZ_SIZE ? SZH_CONST : SZH_GROUP);
		}
}

void ptr_size_free(walk *w)
{
	for (int i = 0; i < w->nvars; i++)
		free(w->vars[i].sasg);
	free(w->fns);
	free(w->cmps);
	free(w->calls);
	free(w->loops);
	free(w->truths);
	free(w->truth_fn);
}
