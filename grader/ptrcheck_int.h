/* ptrcheck_int.h — what the files of the pointer check share (ptrcheck.c, ptrcheck_walk.c,
 * ptrcheck_rules.c): the walk's state over clang's JSON syntax tree, its helpers and the
 * rules' entry points.  Private to those files: the API is ptrcheck.h. */
#ifndef PTRCHECK_INT_H
#define PTRCHECK_INT_H

#include <stddef.h>
#include <string.h>
#include <cjson/cJSON.h>

enum { MAX_JSON = 64 << 20, MAX_FINDINGS = 8, FIX_ROUNDS = 64 };

enum { O_NONE = -1, O_UNKNOWN = -2, O_NULL = -3 };

typedef struct var {
	const char *id;
	int pointer, param, escaped;
	int origin;              /* pointer variables: O_* or the index of what it points into */
	const cJSON **asg;       /* the values assigned to it */
	int nasg, casg;
	/* the size test (ptrcheck_size.c), for variables that are not pointers */
	int kernel_size;         /* a scalar parameter of a __kernel: a size */
	int addr;                /* its address taken */
	const cJSON **sasg;      /* the values assigned to it (for a helper's parameter: the
	                            arguments of its calls; a compound assignment or ++ itself) */
	int nsasg, csasg;
	const cJSON *loops[4];   /* the loops that step it (a counter), more: loops_over */
	int nloops, loops_over;
	int varying;             /* a counter of a loop whose trip count is not a constant */
	int size;                /* SZ_*: what its value depends on */
	int seen;                /* ptrcheck_size.c reach(): visited in this pass */
	int ndecay, nsub;        /* an array's decays to a pointer, and those a subscript's */
} var;

/* What a value depends on (ptrcheck_size.c): something else (memory, a mix), constants only,
 * the problem's size and constants only, a group's id, a local id, a global id (a group's id
 * and a local one), nothing yet (while settling), and what the search cannot tell (a
 * variable whose address is taken, a private pointer's target, get_global_offset()): with
 * a size it is a size, never an honest bound. */
enum { SZ_OTHER, SZ_CONST, SZ_SIZE, SZ_GROUP, SZ_LOCAL, SZ_GID, SZ_NONE, SZ_UNKNOWN };

/* How a size test reads (ptrcheck.h ptrcheck_sizes.how): the size with a constant, two sizes
 * with each other, a size-made value as a truth value; a group's id, a global id. */
enum { SZH_CONST, SZH_SIZES, SZH_TRUTH, SZH_GROUP = 0, SZH_GID = 1 };

typedef struct sz_fn {
	const char *id;
	int kernel;                    /* a __kernel function */
	int params[16], nparams;
} sz_fn;

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
	/* the size test (ptrcheck_size.c) */
	int in_kernel;                 /* the function walked now is a __kernel */
	int cur_fn;                    /* its index in fns, or -1 */
	sz_fn *fns;
	int nfns, cfns;
	defer *cmps, *calls;           /* comparisons; calls of the kernel text's functions */
	int ncmps, ccmps, ncalls, ccalls;
	defer *loops, *truths;         /* loop statements; operands read as truth values */
	int *truth_fn;                 /* each truth's function, when a helper returns it; or -1 */
	int nloops, cloops, ntruths, ctruths, ctruth_fn, truth_pending;
	long size_at[MAX_FINDINGS];    /* the size tests found, at these bytes */
	int size_how[MAX_FINDINGS];    /* SZH_* of each */
	int nsize;
	unsigned div_mask;             /* bit k: a test of divisibility by 2^k of the size */
	long div_at;                   /* the first of those, or -1 */
	int ngroup;                    /* comparisons of a group's id with a constant */
	long group_at;                 /* the first of those, or -1 */
	int group_how;                 /* SZH_GROUP or SZH_GID, of the first */
	int stamp;                     /* reach()'s pass */
} walk;

/* Types, from clang's type strings. */
/* The type string clang wrote for node n ("desugaredQualType" when a typedef hides it). */
static inline const char *type_of(const cJSON *n)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(n, "type");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(t, "desugaredQualType");
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(t, "qualType");
	return cJSON_IsString(d) ? d->valuestring : cJSON_IsString(q) ? q->valuestring : "";
}

static inline int is_record(const char *t)
{
	return strstr(t, "struct ") || strstr(t, "union ") || strstr(t, "(unnamed") ||
	       strstr(t, "(anonymous");
}

/* ptrcheck_walk.c: is t a pointer type ("float *", "__global float *__private",
 * "__local float (*)[17]")?  *pointee_end, when given, is where the pointee's spelling ends. */
int ptr_is_pointer(const char *t, size_t *pointee_end);

/* ptrcheck_walk.c: the walk's state.  *p grown to hold need elements of size (w->oom and -1
 * when memory runs out); the variable of clang id `id`, added when new (-1: none or no
 * memory); a finding at byte off (one per place, at most MAX_FINDINGS). */
int ptr_grow(void **p, int *cap, int need, size_t size, walk *w);
int ptr_var_add(walk *w, const char *id);
void ptr_refuse(walk *w, long off, const char *what, const char *advice);
/* ... a refusal of another kind than a pointer's, its whole reason in why. */
void ptr_refuse_text(walk *w, long off, const char *why);

/* Tree helpers: a string member ("" when absent); is n's kind k; n's i-th inner node; is n
 * an expression. */
static inline const char *str(const cJSON *n, const char *key)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(n, key);
	return cJSON_IsString(s) ? s->valuestring : "";
}

static inline int kind_is(const cJSON *n, const char *k)
{
	return strcmp(str(n, "kind"), k) == 0;
}

static inline const cJSON *child(const cJSON *n, int i)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(n, "inner");
	return cJSON_IsArray(in) ? cJSON_GetArrayItem(in, i) : NULL;
}

static inline int is_expr(const cJSON *n)
{
	return cJSON_GetObjectItemCaseSensitive(n, "valueCategory") != NULL;
}

/* ptrcheck_walk.c: the variable a DeclRefExpr names (through parentheses), or -1. */
int ptr_ref_var(walk *w, const cJSON *e);

/* ptrcheck_walk.c: what pointer expression e points into (a variable's index or O_*), once
 * ptr_settle has propagated every pointer variable's assignments to a fixed point. */
int ptr_origin(walk *w, const cJSON *e, int depth);
void ptr_settle(walk *w);

/* ptrcheck_walk.c: does any struct or union in tree n hold a pointer (before the walk); the
 * walk of node n and its children (top: a top-level declaration), judging every node of the
 * kernel's own text at byte off (ptr_judge). */
int ptr_any_pointer_field(const cJSON *n, int depth);
void ptr_visit(walk *w, const cJSON *n, long off, int top);

/* ptrcheck_rules.c: node n judged at byte off (a refusal, or a comparison deferred until
 * every pointer's origin is known, or a pointer variable's assignment noted); the deferred
 * comparisons and differences judged at the walk's end. */
void ptr_judge(walk *w, const cJSON *n, long off);
void ptr_judge_deferred(walk *w);

/* ptrcheck_size.c: node n noted for the size test (functions, parameters, assignments,
 * comparisons, calls); after the walk, the comparisons of the problem's size with constants
 * found (w->size_at). */
void ptr_size_note(walk *w, const cJSON *n, long off);
void ptr_size_judge(walk *w);
void ptr_size_free(walk *w);

/* The size test's limits: settling rounds, recursion depth, how far from 0 the ids every
 * analysed launch runs reach (the analysed sizes start above 16 along each dimension), a
 * constant taken as far. */
enum { SZ_ROUNDS = 32, SZ_DEPTH = 200, SZ_NEAR = 16, SZ_FAR = 1L << 30 };

/* Expression e without parentheses and casts. */
static inline const cJSON *sz_strip(const cJSON *e)
{
	while (e && (kind_is(e, "ParenExpr") || kind_is(e, "ImplicitCastExpr") ||
	             kind_is(e, "CStyleCastExpr")))
		e = child(e, 0);
	return e;
}

/* ptrcheck_reach.c: the value of an integer constant expression e (literals, casts,
 * arithmetic), or 0; is a global id's comparison `a op b` (b NULL: a read as a truth value)
 * near the ids every analysed launch runs, so that they answer it as a GPU's would? */
int ptr_const_value(const cJSON *e, long *v, int depth);
long ptr_gid_reach(walk *w, const cJSON *a, const cJSON *b);
int ptr_gid_near(walk *w, const cJSON *a, const cJSON *b, const char *op);

#endif
