/* ptrcheck.c — why this exists: on PoCL a kernel is native code in the grading child, and a
 * plain OpenCL C kernel that turns a pointer into a number can read and write all of that
 * process (the shared result page, the runtime's state), not only its buffers; under Oclgrind
 * buffer addresses look different (`((ulong)in >> 47) != 0` holds only there), so the same
 * number lets a kernel tell the analysis from the timed run and behave well only when watched.
 * No honest lesson kernel needs a pointer's value as data, so such a kernel is refused at
 * `builds`, before any compiler builds it.
 *
 * The decision is made on clang's syntax tree, not on tokens (macros, token pasting, typedefs
 * and helper functions hide nothing there: clang has resolved them) and not on optimised IR
 * (where casts have been folded away or introduced by the optimiser).  Clang parses the
 * preprocessed, vetted text in a confined child, like the preprocessor itself: untrusted
 * source may crash clang, and a crash is a refusal, never a pass.  The grader reads the JSON
 * dump (cJSON) and walks it once; see ptrcheck.h for the rules. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "ptrcheck.h"

enum { MAX_JSON = 64 << 20, MAX_FINDINGS = 8, FIX_ROUNDS = 64 };

/* ---- types, from clang's type strings ------------------------------------------------------ */

/* The type string clang wrote for node n ("desugaredQualType" when a typedef hides it). */
static const char *type_of(const cJSON *n)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(n, "type");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(t, "desugaredQualType");
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(t, "qualType");
	return cJSON_IsString(d) ? d->valuestring : cJSON_IsString(q) ? q->valuestring : "";
}

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
static int is_pointer(const char *t, size_t *pointee_end)
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

static int is_record(const char *t)
{
	return strstr(t, "struct ") || strstr(t, "union ") || strstr(t, "(unnamed") ||
	       strstr(t, "(anonymous");
}

/* ---- the walk's state ---------------------------------------------------------------------- */

enum { O_NONE = -1, O_UNKNOWN = -2, O_NULL = -3 };

typedef struct var {
	const char *id;
	int pointer, param, escaped;
	int origin;              /* pointer variables: O_* or the index of what it points into */
	const cJSON **asg;       /* the values assigned to it */
	int nasg, casg;
} var;

typedef struct finding {
	long off;
	char why[300];
} finding;

typedef struct defer {
	const cJSON *node;
	long off;
} defer;

typedef struct walk {
	const char *main_file, *cur_file;
	int analyse;                   /* inside a top-level declaration of the kernel's text */
	int record_with_pointer;       /* some struct or union holds a pointer */
	var *vars;
	int nvars, cvars;
	int *hash;                     /* open addressing: index + 1 into vars */
	size_t hcap;
	defer *defs;
	int ndefs, cdefs;
	finding f[MAX_FINDINGS];
	int nf;
	int oom;
} walk;

static int grow(void **p, int *cap, int need, size_t size, walk *w)
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

static int var_add(walk *w, const char *id)
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
	if (grow((void **)&w->vars, &w->cvars, w->nvars + 1, sizeof *w->vars, w) != 0)
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

static void refuse(walk *w, long off, const char *what, const char *advice)
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

/* ---- tree helpers ---------------------------------------------------------------------------- */

static const char *str(const cJSON *n, const char *key)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(n, key);
	return cJSON_IsString(s) ? s->valuestring : "";
}

static int kind_is(const cJSON *n, const char *k)
{
	return strcmp(str(n, "kind"), k) == 0;
}

static const cJSON *child(const cJSON *n, int i)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	return cJSON_IsArray(in) ? cJSON_GetArrayItem(in, i) : NULL;
}

static int is_expr(const cJSON *n)
{
	return cJSON_GetObjectItemCaseSensitive(n, "valueCategory") != NULL;
}

static const cJSON *strip_parens(const cJSON *e)
{
	while (e && kind_is(e, "ParenExpr"))
		e = child(e, 0);
	return e;
}

/* The variable a DeclRefExpr names, or -1. */
static int ref_var(walk *w, const cJSON *e)
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

static int origin(walk *w, const cJSON *e, int depth);

/* The object an lvalue lies in. */
static int object(walk *w, const cJSON *e, int depth)
{
	e = strip_parens(e);
	if (!e || depth > 200)
		return O_UNKNOWN;
	const char *k = str(e, "kind");
	if (strcmp(k, "DeclRefExpr") == 0) {
		int v = ref_var(w, e);
		return v >= 0 ? v : O_UNKNOWN;
	}
	if (strcmp(k, "ArraySubscriptExpr") == 0) {
		const cJSON *a = child(e, 0), *b = child(e, 1);
		return origin(w, is_pointer(type_of(a), NULL) ? a : b, depth + 1);
	}
	if (strcmp(k, "UnaryOperator") == 0 && strcmp(str(e, "opcode"), "*") == 0)
		return origin(w, child(e, 0), depth + 1);
	if (strcmp(k, "MemberExpr") == 0)
		return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "isArrow")) ?
		       origin(w, child(e, 0), depth + 1) : object(w, child(e, 0), depth + 1);
	if (strcmp(k, "ImplicitCastExpr") == 0 && strcmp(str(e, "castKind"), "NoOp") == 0)
		return object(w, child(e, 0), depth + 1);
	return O_UNKNOWN;
}

/* What a pointer-valued expression points into: a parameter, array or variable (an index),
 * O_NULL, or O_UNKNOWN. */
static int origin(walk *w, const cJSON *e, int depth)
{
	e = strip_parens(e);
	if (!e || depth > 200)
		return O_UNKNOWN;
	const char *k = str(e, "kind"), *op = str(e, "opcode");
	if (strcmp(k, "ImplicitCastExpr") == 0 || strcmp(k, "CStyleCastExpr") == 0) {
		const char *ck = str(e, "castKind");
		if (strcmp(ck, "LValueToRValue") == 0) {
			int v = ref_var(w, child(e, 0));
			return v >= 0 && w->vars[v].pointer ? w->vars[v].origin : O_UNKNOWN;
		}
		if (!strcmp(ck, "NoOp") || !strcmp(ck, "BitCast") || !strcmp(ck, "AddressSpaceConversion"))
			return origin(w, child(e, 0), depth + 1);
		if (strcmp(ck, "ArrayToPointerDecay") == 0)
			return object(w, child(e, 0), depth + 1);
		if (strcmp(ck, "NullToPointer") == 0)
			return O_NULL;
		return O_UNKNOWN;
	}
	if (strcmp(k, "DeclRefExpr") == 0) {
		int v = ref_var(w, e);
		return v >= 0 && w->vars[v].pointer ? w->vars[v].origin : O_UNKNOWN;
	}
	if (strcmp(k, "UnaryOperator") == 0) {
		if (strcmp(op, "&") == 0)
			return object(w, child(e, 0), depth + 1);
		if (!strcmp(op, "++") || !strcmp(op, "--"))
			return origin(w, child(e, 0), depth + 1);
		return O_UNKNOWN;
	}
	if (strcmp(k, "BinaryOperator") == 0) {
		const cJSON *a = child(e, 0), *b = child(e, 1);
		if (!strcmp(op, "+") || !strcmp(op, "-"))
			return origin(w, is_pointer(type_of(a), NULL) ? a : b, depth + 1);
		if (!strcmp(op, "=") || !strcmp(op, ","))
			return origin(w, b, depth + 1);
		return O_UNKNOWN;
	}
	if (strcmp(k, "CompoundAssignOperator") == 0)
		return origin(w, child(e, 0), depth + 1);
	if (strcmp(k, "ConditionalOperator") == 0)
		return join(origin(w, child(e, 1), depth + 1), origin(w, child(e, 2), depth + 1));
	return O_UNKNOWN;
}

/* Every pointer variable's origin: the join of all values assigned to it (a parameter starts
 * as itself), iterated to a fixed point; a variable whose address is taken, or one never
 * settled, is O_UNKNOWN. */
static void settle(walk *w)
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
				o = join(o, origin(w, v->asg[a], 0));
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
		refuse(w, off, "a pointer used as a condition, i.e. compared with null",
		       "a kernel's buffers are never null: test an index instead");
}

static void bitcast(walk *w, const cJSON *n, long off)
{
	const char *to = type_of(n), *from = type_of(child(n, 0));
	size_t te, fe;
	int tp = is_pointer(to, &te), fp = is_pointer(from, &fe);
	if (!tp || !fp) {
		if (contains_pointer(w, to) || contains_pointer(w, from))
			refuse(w, off, "a pointer reinterpreted as another type", KEEP);
		return;
	}
	char tpe[512], fpe[512];
	snprintf(tpe, sizeof tpe, "%.*s", (int)te, to);
	snprintf(fpe, sizeof fpe, "%.*s", (int)fe, from);
	int tpp = is_pointer(tpe, NULL), fpp = is_pointer(fpe, NULL);
	int tc = contains_pointer(w, tpe), fc = contains_pointer(w, fpe);
	if ((tpp && fpp) || (!tc && !fc))
		return;       /* a pointer's slot read as a pointer, or element types only */
	refuse(w, off, fc ? "a pointer's memory read as another type (a cast of a pointer to a "
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
			refuse(w, off, what, INDEX);
			return;
		}
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	int i = 0;
	for (const cJSON *a = in ? in->child : NULL; a; a = a->next, i++)
		if (i > 0 && contains_pointer(w, type_of(a))) {
			snprintf(what, sizeof what, "a pointer given to %s", name);
			refuse(w, off, what, INDEX);
			return;
		}
}

static void judge(walk *w, const cJSON *n, long off)
{
	const char *k = str(n, "kind"), *op = str(n, "opcode");
	const char *ck = str(n, "castKind");
	if (*ck) {
		if (strcmp(ck, "PointerToIntegral") == 0)
			refuse(w, off, "a cast of a pointer to an integer", INDEX);
		else if (strcmp(ck, "IntegralToPointer") == 0)
			refuse(w, off, "a cast of an integer to a pointer", INDEX);
		else if (strcmp(ck, "PointerToBoolean") == 0)
			refuse(w, off, "a pointer used as a truth value, i.e. compared with null",
			       "a kernel's buffers are never null: test an index instead");
		else if (!strcmp(ck, "BitCast") || !strcmp(ck, "LValueBitCast") ||
		         !strcmp(ck, "LValueToRValueBitCast"))
			bitcast(w, n, off);
		else if (strcmp(ck, "ToUnion") == 0 && contains_pointer(w, type_of(child(n, 0))))
			refuse(w, off, "a pointer cast to a union", KEEP);
	}
	if (strcmp(k, "AsTypeExpr") == 0 || strcmp(k, "BuiltinBitCastExpr") == 0) {
		if (contains_pointer(w, type_of(n)) || contains_pointer(w, type_of(child(n, 0))))
			refuse(w, off, "as_type/__builtin_astype of a pointer", KEEP);
	} else if (strcmp(k, "RecordDecl") == 0) {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
		int ptr = 0;
		for (const cJSON *f = in ? in->child : NULL; f; f = f->next)
			if (kind_is(f, "FieldDecl") && contains_pointer(w, type_of(f)))
				ptr = 1;
		if (ptr && strcmp(str(n, "tagUsed"), "union") == 0)
			refuse(w, off, "a union with a pointer member", KEEP);
	} else if (strcmp(k, "BinaryOperator") == 0) {
		const cJSON *a = child(n, 0), *b = child(n, 1);
		/* a pointer operand: any '*' in its type (no number's type has one) */
		int pa = strchr(type_of(a), '*') != NULL, pb = strchr(type_of(b), '*') != NULL;
		static const char *cmp[] = { "-", "<", ">", "<=", ">=", "==", "!=", NULL };
		for (int i = 0; cmp[i]; i++)
			if (strcmp(op, cmp[i]) == 0 && (i == 0 ? pa && pb : pa || pb) &&
			    !grow((void **)&w->defs, &w->cdefs, w->ndefs + 1, sizeof *w->defs, w))
				w->defs[w->ndefs++] = (defer){ n, off };
		if (!strcmp(op, "&&") || !strcmp(op, "||")) {
			condition(w, a, off);
			condition(w, b, off);
		}
		if (strcmp(op, "=") == 0) {
			int v = ref_var(w, a);
			if (v >= 0 && w->vars[v].pointer &&
			    !grow((void **)&w->vars[v].asg, &w->vars[v].casg, w->vars[v].nasg + 1,
			          sizeof *w->vars[v].asg, w))
				w->vars[v].asg[w->vars[v].nasg++] = b;
		}
	} else if (strcmp(k, "MemberExpr") == 0 || strcmp(k, "InitListExpr") == 0) {
		/* a union's member named or initialised: a union declared in a type name (a compound
		 * literal, a cast) has no RecordDecl in the dump, so its use is judged */
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(n, "field");
		const char *ut = k[0] == 'M' ? type_of(child(n, 0)) : type_of(n);
		const char *mt = k[0] == 'M' ? type_of(n) : f ? type_of(f) : "";
		if (strstr(ut, "union ") && (contains_pointer(w, mt) || is_record(mt)))
			refuse(w, off, is_record(mt) ? "a union with a struct or union member, which "
			       "could hold a pointer" : "a union with a pointer member", KEEP);
	} else if (strcmp(k, "UnaryOperator") == 0) {
		if (strcmp(op, "!") == 0)
			condition(w, child(n, 0), off);
		if (strcmp(op, "&") == 0) {
			int v = ref_var(w, child(n, 0));
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
		int v = var_add(w, str(n, "id"));
		if (v >= 0) {
			w->vars[v].pointer = is_pointer(type_of(n), NULL);
			w->vars[v].param = k[0] == 'P';
			const cJSON *init = child(n, 0);
			if (w->vars[v].pointer && init && is_expr(init) &&
			    !grow((void **)&w->vars[v].asg, &w->vars[v].casg, w->vars[v].nasg + 1,
			          sizeof *w->vars[v].asg, w))
				w->vars[v].asg[w->vars[v].nasg++] = init;
		}
	}
}

/* Does any struct or union field hold a pointer (a field's type with a '*', or a field of a
 * record that holds one: a record's type has no '*', so one '*' anywhere decides)?  Before the
 * walk, so that a record defined after a cast is known at the cast. */
static int any_pointer_field(const cJSON *n, int depth)
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
		if (any_pointer_field(c, depth + 1))
			return 1;
	return 0;
}

static void visit(walk *w, const cJSON *n, long off, int top)
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
		judge(w, n, off);
	for (const cJSON *c = inner ? inner->child : NULL; c; c = c->next)
		visit(w, c, off, 0);
}

static void judge_deferred(walk *w)
{
	settle(w);
	for (int i = 0; i < w->ndefs; i++) {
		const cJSON *n = w->defs[i].node;
		const char *op = str(n, "opcode");
		int diff = strcmp(op, "-") == 0, eq = !strcmp(op, "==") || !strcmp(op, "!=");
		if (!diff && !eq) {
			/* even within one buffer: in + K wraps around past the top of the address space
			 * for the right K, so whether in + K < in tells the address */
			refuse(w, w->defs[i].off, "an ordered comparison of pointers: a pointer moved far "
			       "enough wraps around, so even within one buffer the order tells the address",
			       "compare indices instead");
			continue;
		}
		int a = origin(w, child(n, 0), 0), b = origin(w, child(n, 1), 0);
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
		refuse(w, w->defs[i].off, what, diff ? "subtract indices instead" :
		       "compare indices instead");
	}
}

/* ---- places in the text ---------------------------------------------------------------------- */

static const char *line_at(const char *s, int n, size_t *len);
static int source_col(const char *src, size_t sn, const char *pp, size_t pn, int col);

/* The student's file, line and column of byte off in text (after its #line markers). */
static void place(const char *text, long off, const char *kernel_path, const char *source,
                  char *file, size_t flen, int *line, int *col)
{
	int in_kernel = 1;
	snprintf(file, flen, "%s", kernel_path);
	int pline = 1;
	const char *ls = text, *end = text + strlen(text);
	const char *at = off >= 0 && off <= end - text ? text + off : end;
	for (const char *l = text; l <= at;) {
		const char *nl = memchr(l, '\n', end - l);
		if (!nl || nl >= at) {
			ls = l;
			break;
		}
		int n;
		char name[512];
		if (sscanf(l, "#line %d \"%511[^\"]\"", &n, name) == 2) {
			pline = n;
			in_kernel = strcmp(name, "<kernel>") == 0;
			snprintf(file, flen, "%s", in_kernel ? kernel_path : name);
		} else {
			pline++;
		}
		l = nl + 1;
		ls = l;
	}
	*line = pline;
	*col = (int)(at - ls) + 1;
	size_t sn;
	const char *sl = in_kernel ? line_at(source, pline, &sn) : NULL;
	if (sl)
		*col = source_col(sl, sn, ls, strcspn(ls, "\n"), *col);
}

/* The next token of s[0..n) from *i on, skipping blanks and comments: 1 and its start and
 * length, or 0 at the end.  Punctuators are one character each: both texts are cut alike. */
static int next_tok(const char *s, size_t n, size_t *i, size_t *start, size_t *len)
{
	size_t k = *i;
	for (;;) {
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k + 1 < n && s[k] == '/' && s[k + 1] == '/')
			return 0;
		if (k + 1 < n && s[k] == '/' && s[k + 1] == '*') {
			const char *e = k + 2 < n ? memmem(s + k + 2, n - k - 2, "*/", 2) : NULL;
			if (!e)
				return 0;
			k = (size_t)(e - s) + 2;
			continue;
		}
		break;
	}
	if (k >= n)
		return 0;
	size_t e = k + 1;
	if (isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '.') {
		while (e < n && (isalnum((unsigned char)s[e]) || s[e] == '_' || s[e] == '.'))
			e++;
	} else if (s[k] == '"' || s[k] == '\'') {
		while (e < n && s[e] != s[k])
			e += s[e] == '\\' ? 2 : 1;
		e = e < n ? e + 1 : n;
	}
	*start = k;
	*len = e - k;
	*i = e;
	return 1;
}

/* The column in the student's own line src (the same line before preprocessing) of the token
 * at column col of the preprocessed line pp: the same token when the line's tokens agree up
 * to it, else the first token where they part (a macro's use); col when there is none. */
static int source_col(const char *src, size_t sn, const char *pp, size_t pn, int col)
{
	size_t pi = 0, si = 0, ps, pl, ss, sl;
	while (next_tok(pp, pn, &pi, &ps, &pl)) {
		if (!next_tok(src, sn, &si, &ss, &sl))
			return col;
		if (ps + pl > (size_t)(col - 1) || pl != sl || memcmp(pp + ps, src + ss, pl) != 0)
			return (int)ss + 1;
	}
	return col;
}

/* Line n (1-based) of s: its start and length, or NULL. */
static const char *line_at(const char *s, int n, size_t *len)
{
	for (int i = 1; s && i < n; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s || !*s)
		return NULL;
	*len = strcspn(s, "\n");
	return s;
}

static int cmp_finding(const void *a, const void *b)
{
	long x = ((const finding *)a)->off, y = ((const finding *)b)->off;
	return x < y ? -1 : x > y;
}

/* The deepest nesting of [ and { in json (outside strings). */
static int json_depth(const char *s, size_t n)
{
	int d = 0, max = 0, in_str = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++d > max)
				max = d;
		} else if (c == ']' || c == '}') {
			d--;
		}
	}
	return max;
}

ptrcheck_result ptrcheck_ast(const char *json, size_t json_len, const char *text,
                             const char *main_file, const char *kernel_path, const char *source,
                             char *msg, size_t msglen)
{
	msg[0] = '\0';
	cJSON *root = cJSON_ParseWithLength(json, json_len);
	if (!root) {
		int deep = json_depth(json, json_len) >= CJSON_NESTING_LIMIT;
		snprintf(msg, msglen, "%s: error: %s\n", kernel_path, deep ?
		         "the kernel's syntax tree is nested too deeply for the grader to check it for "
		         "pointer tricks (an expression or block nested hundreds of levels deep): "
		         "split it up" :
		         "the grader could not read clang's syntax tree of the kernel, so it cannot "
		         "check it for pointer tricks");
		return PTRCHECK_REFUSED;
	}
	walk w = { .main_file = main_file, .cur_file = "" };
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "inner");
	w.record_with_pointer = any_pointer_field(root, 0);
	for (const cJSON *c = cJSON_IsArray(in) ? in->child : NULL; c; c = c->next)
		visit(&w, c, -1, 1);
	judge_deferred(&w);
	ptrcheck_result r = w.nf ? PTRCHECK_REFUSED : PTRCHECK_OK;
	if (w.oom) {
		snprintf(msg, msglen, "out of memory checking the kernel's pointers");
		r = PTRCHECK_ERROR;
	} else if (w.nf) {
		qsort(w.f, w.nf, sizeof w.f[0], cmp_finding);
		size_t k = 0;
		char seen[MAX_FINDINGS][640];
		for (int i = 0; i < w.nf && k < msglen; i++) {
			char file[600];
			int line, col, dup = 0;
			place(text, w.f[i].off, kernel_path, source, file, sizeof file, &line, &col);
			snprintf(seen[i], sizeof seen[i], "%s:%d:%d", file, line, col);
			for (int d = 0; d < i; d++)
				dup |= strcmp(seen[d], seen[i]) == 0;   /* one line per place in the source */
			if (!dup)
				k += (size_t)snprintf(msg + k, msglen - k, "%s: error: %s\n", seen[i],
				                      w.f[i].why);
		}
	}
	for (int i = 0; i < w.nvars; i++)
		free(w.vars[i].asg);
	free(w.vars);
	free(w.hash);
	free(w.defs);
	cJSON_Delete(root);
	return r;
}

/* ---- the confined clang ------------------------------------------------------------------------ */

static int ast_main(void *arg)
{
	const ptrcheck_run *r = arg;
	int out = open(r->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0 || dup2(out, 1) < 0)
		return 120;
	char *argv[] = { (char *)r->clang, "-cc1", "-x", "cl", "-cl-std=CL1.2", "-triple",
	                 "spir64-unknown-unknown", "-finclude-default-header",
	                 "-fdeclare-opencl-builtins", "-fsyntax-only", "-ast-dump=json",
	                 "-ferror-limit", "0", "-w", (char *)r->in, NULL };
	execv(r->clang, argv);
	return 121;
}

int ptrcheck_start(ptrcheck_run *r, const char *clang_path, const char *text,
                   const char *lesson_dir, const char *tmpdir, int tag, int confine,
                   double timeout_s, size_t mem_bytes, char *msg, size_t msglen)
{
	memset(r, 0, sizeof *r);
	msg[0] = '\0';
	r->clang = clang_path;
	snprintf(r->in, sizeof r->in, "%s/ast-%d.cl", tmpdir, tag);
	snprintf(r->out, sizeof r->out, "%s/ast-%d.json", tmpdir, tag);
	snprintf(r->err, sizeof r->err, "%s/ast-%d.log", tmpdir, tag);
	r->text = strdup(text);
	FILE *f = r->text ? fopen(r->in, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok) {
		snprintf(msg, msglen, "cannot write in %s: %s", tmpdir, strerror(errno));
		free(r->text);
		r->text = NULL;
		return -1;
	}
	confine_default(&r->pol, &r->cst, lesson_dir, tmpdir, NULL);
	memset(r->pol.exec, 0, sizeof r->pol.exec);
	r->pol.exec[0] = clang_path;
	if (realpath("/lib64/ld-linux-x86-64.so.2", r->interp))
		r->pol.exec[1] = r->interp;
	r->lim = (sandbox_limits){ timeout_s > 0 && timeout_s < 20 ? timeout_s : 20,
	                           mem_bytes && mem_bytes < ((size_t)2 << 30) ? mem_bytes :
	                           (size_t)2 << 30, r->err, confine ? &r->pol : NULL, 65536 };
	if (sandbox_spawn(ast_main, r, &r->lim, &r->child) != 0) {
		snprintf(msg, msglen, "cannot fork the pointer check: %s", strerror(errno));
		unlink(r->in);
		free(r->text);
		r->text = NULL;
		return -1;
	}
	r->started = 1;
	return 0;
}


ptrcheck_result ptrcheck_finish(ptrcheck_run *r, const char *kernel_path, const char *source,
                                char *msg, size_t msglen)
{
	msg[0] = '\0';
	if (!r->started) {
		snprintf(msg, msglen, "the pointer check was not started");
		return PTRCHECK_ERROR;
	}
	r->started = 0;
	sandbox_status st;
	sandbox_wait(&r->child, &st);
	ptrcheck_result res = PTRCHECK_REFUSED;
	size_t n = 0;
	if (st.end == SANDBOX_FAILED || (st.end == SANDBOX_EXITED && st.code >= 120)) {
		char *e = sandbox_slurp(r->err, 400, &n);
		snprintf(msg, msglen, "the pointer check could not run clang (%s)%s%s", st.what,
		         e && *e ? ": " : "", e ? e : "");
		free(e);
		res = PTRCHECK_ERROR;
	} else if (st.end == SANDBOX_EXITED && (st.code == 0 || st.code == 1)) {
		/* 1: clang found errors; what it could parse is judged, the build reports the rest */
		char *json = sandbox_slurp(r->out, MAX_JSON, &n);
		if (!json) {
			snprintf(msg, msglen, "cannot read the kernel's syntax tree");
			res = PTRCHECK_ERROR;
		} else if (n > MAX_JSON) {
			snprintf(msg, msglen, "%s: error: the kernel's syntax tree is over 64 MiB, too large "
			         "for the grader to check it for pointer tricks\n", kernel_path);
		} else {
			res = ptrcheck_ast(json, n, r->text, r->in, kernel_path, source, msg, msglen);
		}
		free(json);
	} else {
		/* a crash, a timeout, a file-size limit: the kernel is not known to be clean, and
		 * whether that is its fault or the limits' is for a control run on the lesson's
		 * solution to tell (check.c): never a pass either way */
		snprintf(msg, msglen, "%s: error: clang %s while the grader checked the kernel for "
		         "pointer tricks, so the kernel cannot be accepted\n", kernel_path, st.what);
		res = PTRCHECK_ERROR;
	}
	unlink(r->in);
	unlink(r->out);
	unlink(r->err);
	free(r->text);
	r->text = NULL;
	return res;
}
