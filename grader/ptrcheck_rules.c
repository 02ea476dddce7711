/* ptrcheck_rules.c — the pointer check's judgements: which nodes of the kernel's syntax tree
 * use a pointer's value as data (casts to and from integers, pointers as truth values,
 * reinterpreting casts, unions, as_type, address builtins, comparisons and differences across
 * buffers), each refused with the reason and what to do instead.  The walk that calls them is
 * ptrcheck_walk.c's; ptrcheck.c says why the check exists. */
#include <stdio.h>
#include <string.h>

#include "ptrcheck_int.h"

/* ---- the rules --------------------------------------------------------------------------------- */

static const char *INDEX = "index the buffer instead";
static const char *KEEP = "keep a pointer a pointer, and index the buffer";

static int contains_pointer(walk *w, const char *t)
{
	return strchr(t, '*') || (is_record(t) && w->record_with_pointer);
}

/* A condition: a pointer there is compared with null (any '*' in its type: no number has one). */
static void condition(walk *w, const cJSON *e, long off)
{
	if (e && is_expr(e) && strchr(type_of(e), '*'))
		ptr_refuse(w, off, "a pointer used as a condition, i.e. compared with null",
		           "a kernel's buffers are never null: test an index instead");
}

static void bitcast(walk *w, const cJSON *n, long off)
{
	const char *to = type_of(n), *from = type_of(child(n, 0));
	size_t te, fe;
	int tp = ptr_is_pointer(to, &te), fp = ptr_is_pointer(from, &fe);
	if (!tp || !fp) {
		if (contains_pointer(w, to) || contains_pointer(w, from))
			ptr_refuse(w, off, "a pointer reinterpreted as another type", KEEP);
		return;
	}
	char tpe[512], fpe[512];
	snprintf(tpe, sizeof tpe, "%.*s", (int)te, to);
	snprintf(fpe, sizeof fpe, "%.*s", (int)fe, from);
	int tpp = ptr_is_pointer(tpe, NULL), fpp = ptr_is_pointer(fpe, NULL);
	int tc = contains_pointer(w, tpe), fc = contains_pointer(w, fpe);
	if ((tpp && fpp) || (!tc && !fc))
		return;       /* a pointer's slot read as a pointer, or element types only */
	ptr_refuse(w, off, fc ? "a pointer's memory read as another type (a cast of a pointer to a "
	           "pointer into a pointer to something else)" : "memory read back as a pointer (a "
	           "cast of a pointer to data into a pointer to a pointer)", KEEP);
}

static void builtin_call(walk *w, const cJSON *n, long off)
{
	const cJSON *callee = child(n, 0);
	while (callee && (kind_is(callee, "ImplicitCastExpr") || kind_is(callee, "ParenExpr")))
		callee = child(callee, 0);
	if (!callee || !kind_is(callee, "DeclRefExpr"))
		return;
	const char *name = str(cJSON_GetObjectItemCaseSensitive(callee, "referencedDecl"), "name");
	if (strncmp(name, "__builtin_", 10) != 0)
		return;
	static const char *addr[] = { "__builtin_frame_address", "__builtin_return_address",
	                              "__builtin_extract_return_addr", "__builtin_frob_return_addr",
	                              "__builtin_dwarf_cfa", "__builtin_sponentry",
	                              "__builtin_stack_address", NULL };
	char what[200];
	for (int i = 0; addr[i]; i++)
		if (strcmp(name, addr[i]) == 0) {
			snprintf(what, sizeof what, "%s yields an address", name);
			ptr_refuse(w, off, what, INDEX);
			return;
		}
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	int i = 0;
	for (const cJSON *a = in ? in->child : NULL; a; a = a->next, i++)
		if (i > 0 && contains_pointer(w, type_of(a))) {
			snprintf(what, sizeof what, "a pointer given to %s", name);
			ptr_refuse(w, off, what, INDEX);
			return;
		}
}

/* A cast (castKind ck) or as_type: an address read as a number, a number as an address, a
 * pointer as a truth value, a pointer's memory reinterpreted or cast to a union. */
static void judge_cast(walk *w, const cJSON *n, long off, const char *k, const char *ck)
{
	if (*ck) {
		if (strcmp(ck, "PointerToIntegral") == 0)
			ptr_refuse(w, off, "a cast of a pointer to an integer", INDEX);
		else if (strcmp(ck, "IntegralToPointer") == 0)
			ptr_refuse(w, off, "a cast of an integer to a pointer", INDEX);
		else if (strcmp(ck, "PointerToBoolean") == 0)
			ptr_refuse(w, off, "a pointer used as a truth value, i.e. compared with null",
			           "a kernel's buffers are never null: test an index instead");
		else if (!strcmp(ck, "BitCast") || !strcmp(ck, "LValueBitCast") ||
		         !strcmp(ck, "LValueToRValueBitCast"))
			bitcast(w, n, off);
		else if (strcmp(ck, "ToUnion") == 0 && contains_pointer(w, type_of(child(n, 0))))
			ptr_refuse(w, off, "a pointer cast to a union", KEEP);
	}
	if (strcmp(k, "AsTypeExpr") == 0 || strcmp(k, "BuiltinBitCastExpr") == 0) {
		if (contains_pointer(w, type_of(n)) || contains_pointer(w, type_of(child(n, 0))))
			ptr_refuse(w, off, "as_type/__builtin_astype of a pointer", KEEP);
	}
}

/* A value assigned to pointer variable v, kept for its origin (ptr_settle). */
static void note_assignment(walk *w, int v, const cJSON *value)
{
	if (!ptr_grow((void **)&w->vars[v].asg, &w->vars[v].casg, w->vars[v].nasg + 1,
	              sizeof *w->vars[v].asg, w))
		w->vars[v].asg[w->vars[v].nasg++] = value;
}

/* A binary operator: comparisons and differences of pointers deferred until every pointer's
 * origin is known, pointers as operands of && and ||, assignments to pointer variables. */
static void judge_binary(walk *w, const cJSON *n, long off, const char *op)
{
	const cJSON *a = child(n, 0), *b = child(n, 1);
	/* a pointer operand: any '*' in its type (no number's type has one) */
	int pa = strchr(type_of(a), '*') != NULL, pb = strchr(type_of(b), '*') != NULL;
	static const char *cmp[] = { "-", "<", ">", "<=", ">=", "==", "!=", NULL };
	for (int i = 0; cmp[i]; i++)
		if (strcmp(op, cmp[i]) == 0 && (i == 0 ? pa && pb : pa || pb) &&
		    !ptr_grow((void **)&w->defs, &w->cdefs, w->ndefs + 1, sizeof *w->defs, w))
			w->defs[w->ndefs++] = (defer){ n, off };
	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		condition(w, a, off);
		condition(w, b, off);
	}
	if (strcmp(op, "=") == 0) {
		int v = ptr_ref_var(w, a);
		if (v >= 0 && w->vars[v].pointer)
			note_assignment(w, v, b);
	}
}

/* A union declared (RecordDecl) with a pointer member, or a union's member named or
 * initialised (MemberExpr, InitListExpr): a union declared in a type name (a compound
 * literal, a cast) has no RecordDecl in the dump, so its use is judged. */
static void judge_union(walk *w, const cJSON *n, long off, const char *k)
{
	if (strcmp(k, "RecordDecl") == 0) {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
		int ptr = 0;
		for (const cJSON *f = in ? in->child : NULL; f; f = f->next)
			if (kind_is(f, "FieldDecl") && contains_pointer(w, type_of(f)))
				ptr = 1;
		if (ptr && strcmp(str(n, "tagUsed"), "union") == 0)
			ptr_refuse(w, off, "a union with a pointer member", KEEP);
		return;
	}
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(n, "field");
	const char *ut = k[0] == 'M' ? type_of(child(n, 0)) : type_of(n);
	const char *mt = k[0] == 'M' ? type_of(n) : f ? type_of(f) : "";
	if (strstr(ut, "union ") && (contains_pointer(w, mt) || is_record(mt)))
		ptr_refuse(w, off, is_record(mt) ? "a union with a struct or union member, which "
		           "could hold a pointer" : "a union with a pointer member", KEEP);
}

/* A variable or parameter declared: whether it is a pointer, and its initial value. */
static void judge_decl(walk *w, const cJSON *n, const char *k)
{
	int v = ptr_var_add(w, str(n, "id"));
	if (v < 0)
		return;
	w->vars[v].pointer = ptr_is_pointer(type_of(n), NULL);
	w->vars[v].param = k[0] == 'P';
	const cJSON *init = child(n, 0);
	if (w->vars[v].pointer && init && is_expr(init))
		note_assignment(w, v, init);
}

void ptr_judge(walk *w, const cJSON *n, long off)
{
	const char *k = str(n, "kind"), *op = str(n, "opcode");
	ptr_size_note(w, n, off);
	judge_cast(w, n, off, k, str(n, "castKind"));
	if (strcmp(k, "RecordDecl") == 0 || strcmp(k, "MemberExpr") == 0 ||
	           strcmp(k, "InitListExpr") == 0) {
		judge_union(w, n, off, k);
	} else if (strcmp(k, "BinaryOperator") == 0) {
		judge_binary(w, n, off, op);
	} else if (strcmp(k, "UnaryOperator") == 0) {
		if (strcmp(op, "!") == 0)
			condition(w, child(n, 0), off);
		if (strcmp(op, "&") == 0) {
			int v = ptr_ref_var(w, child(n, 0));
			if (v >= 0 && w->vars[v].pointer)
				w->vars[v].escaped = 1;
		}
	} else if (!strcmp(k, "IfStmt") || !strcmp(k, "WhileStmt") || !strcmp(k, "ConditionalOperator") ||
	           !strcmp(k, "BinaryConditionalOperator")) {
		condition(w, child(n, 0), off);
	} else if (strcmp(k, "DoStmt") == 0) {
		condition(w, child(n, 1), off);
	} else if (strcmp(k, "ForStmt") == 0) {
		condition(w, child(n, 2), off);
	} else if (strcmp(k, "CallExpr") == 0) {
		builtin_call(w, n, off);
	} else if (!strcmp(k, "VarDecl") || !strcmp(k, "ParmVarDecl")) {
		judge_decl(w, n, k);
	}
}

void ptr_judge_deferred(walk *w)
{
	ptr_settle(w);
	for (int i = 0; i < w->ndefs; i++) {
		const cJSON *n = w->defs[i].node;
		const char *op = str(n, "opcode");
		int diff = strcmp(op, "-") == 0, eq = !strcmp(op, "==") || !strcmp(op, "!=");
		if (!diff && !eq) {
			/* even within one buffer: in + K wraps around past the top of the address space
			 * for the right K, so whether in + K < in tells the address */
			ptr_refuse(w, w->defs[i].off, "an ordered comparison of pointers: a pointer moved far "
			           "enough wraps around, so even within one buffer the order tells the address",
			           "compare indices instead");
			continue;
		}
		int a = ptr_origin(w, child(n, 0), 0), b = ptr_origin(w, child(n, 1), 0);
		if (a >= 0 && a == b)
			continue;
		const char *what = a == O_NULL || b == O_NULL ?
		        (diff ? "a difference of a pointer and a constant" :
		                "a comparison of a pointer with null or a constant") :
		        a == O_UNKNOWN || b == O_UNKNOWN ?
		        (diff ? "a difference of pointers the grader cannot tie to one buffer" :
		                "a comparison of pointers the grader cannot tie to one buffer") :
		        (diff ? "a difference of pointers into different buffers" :
		                "a comparison of pointers into different buffers");
		ptr_refuse(w, w->defs[i].off, what, diff ? "subtract indices instead" :
		           "compare indices instead");
	}
}

