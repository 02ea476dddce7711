/* regest.c — registers per work-item (regest.h): NVIDIA's count where the device gave one,
 * else an estimate read from the kernel's text, and nvidia-sm90's occupancy at that count. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "check.h"
#include "occ.h"
#include "regest.h"

/* ---- a constant expression: + - * / % ( ), integers, TILE and object-like #defines ---- */

typedef struct ev { const char *src, *p; int tile, ok, depth; } ev;

static long ev_sum(ev *e);

static void skip(ev *e) { while (*e->p == ' ' || *e->p == '\t') e->p++; }

/* The text of `#define NAME text` in the source, into buf; 0 when there is none. */
static int define_of(const char *src, const char *name, size_t n, char *buf, size_t len)
{
	for (const char *l = src; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;
		while (*p == ' ' || *p == '\t') p++;
		if (strncmp(p, "#define", 7) != 0)
			continue;
		p += 7;
		while (*p == ' ' || *p == '\t') p++;
		if (strncmp(p, name, n) != 0 || (p[n] != ' ' && p[n] != '\t'))
			continue;
		p += n;
		size_t k = strcspn(p, "\n");
		const char *c = strstr(p, "/*");
		if (c && (size_t)(c - p) < k)
			k = (size_t)(c - p);
		snprintf(buf, len, "%.*s", (int)k, p);
		return 1;
	}
	return 0;
}

static long ev_atom(ev *e)
{
	skip(e);
	if (*e->p == '(') {
		e->p++;
		long v = ev_sum(e);
		skip(e);
		e->ok &= *e->p == ')';
		if (*e->p == ')')
			e->p++;
		return v;
	}
	if (isdigit((unsigned char)*e->p))
		return strtol(e->p, (char **)&e->p, 10);
	const char *s = e->p;
	while (isalnum((unsigned char)*e->p) || *e->p == '_')
		e->p++;
	size_t n = (size_t)(e->p - s);
	char text[256];
	if (n == 4 && strncmp(s, "TILE", 4) == 0)
		return e->tile;
	if (n == 0 || e->depth > 8 || !define_of(e->src, s, n, text, sizeof text)) {
		e->ok = 0;
		return 0;
	}
	ev sub = { e->src, text, e->tile, 1, e->depth + 1 };
	long v = ev_sum(&sub);
	e->ok &= sub.ok;
	return v;
}

static long ev_prod(ev *e)
{
	long v = ev_atom(e);
	for (skip(e); *e->p == '*' || *e->p == '/' || *e->p == '%'; skip(e)) {
		char op = *e->p++;
		long r = ev_atom(e);
		if (op == '*')
			v *= r;
		else if (r == 0)
			e->ok = 0;
		else
			v = op == '/' ? v / r : v % r;
	}
	return v;
}

static long ev_sum(ev *e)
{
	long v = ev_prod(e);
	for (skip(e); *e->p == '+' || *e->p == '-'; skip(e)) {
		char op = *e->p++;
		long r = ev_prod(e);
		v = op == '+' ? v + r : v - r;
	}
	return v;
}

long regest_eval(const char *source, const char *expr, int tile, int *ok)
{
	ev e = { source, expr, tile, 1, 0 };
	long v = ev_sum(&e);
	skip(&e);
	*ok = e.ok && *e.p == '\0';
	return *ok ? v : 0;
}

/* ---- the kernel's private arrays and vectors ---- */

/* 32-bit words of a type name at p (float, int, uint, float2..float16, ...); 0: none. */
static int type_words(const char *p, size_t *len)
{
	static const char *types[] = { "float", "int", "uint", "unsigned", NULL };
	for (int i = 0; types[i]; i++) {
		size_t n = strlen(types[i]);
		if (strncmp(p, types[i], n) != 0)
			continue;
		int w = isdigit((unsigned char)p[n]) ? atoi(p + n) : 1;
		size_t k = n;
		while (isdigit((unsigned char)p[k]))
			k++;
		if (isalnum((unsigned char)p[k]) || p[k] == '_')
			return 0;
		*len = k;
		return w;
	}
	return 0;
}

/* Words of one declaration after its type at p (up to ';'): arrays count every element,
 * vectors their width, plain scalars nothing. */
static long decl_words(const char *src, const char *p, int w, int tile)
{
	long total = 0;
	const char *end = strchr(p, ';');
	while (p && end && p < end) {
		while (p < end && !(isalpha((unsigned char)*p) || *p == '_'))
			p++;
		while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		long n = 1;
		int dims = 0;
		while (p < end && *p == '[') {
			const char *q = strchr(p, ']');
			char expr[128];
			int ok;
			snprintf(expr, sizeof expr, "%.*s", q ? (int)(q - p - 1) : 0, p + 1);
			long d = regest_eval(src, expr, tile, &ok);
			n *= ok && d > 0 ? d : 1;
			dims++;
			p = q ? q + 1 : end;
		}
		total += dims || w > 1 ? n * w : 0;
		int depth = 0;               /* to the next declarator: skip an initialiser */
		while (p < end && !(depth == 0 && *p == ',')) {
			depth += *p == '(' || *p == '{';
			depth -= *p == ')' || *p == '}';
			p++;
		}
		if (p < end)
			p++;
	}
	return total;
}

int regest_kernel(const char *source, const char *kernel, int tile)
{
	const char *k = source ? source : "";
	size_t kn = strlen(kernel);
	while ((k = strstr(k, kernel)) != NULL) {   /* the name as a function: NAME ( */
		const char *q = k + kn;
		while (isspace((unsigned char)*q))
			q++;
		if (*q == '(' && (k == source || !(isalnum((unsigned char)k[-1]) || k[-1] == '_')))
			break;
		k += kn;
	}
	const char *body = k ? strchr(k, '{') : NULL;
	if (!body)
		return -1;
	long words = 0;
	int depth = 0;
	for (const char *p = body; *p; p++) {
		depth += *p == '{';
		if (*p == '}' && --depth == 0)
			break;
		size_t len;
		int w = (p == body || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) ? type_words(p, &len) : 0;
		if (!w || (p - body >= 8 && strstr(p - 8, "__local") && strstr(p - 8, "__local") < p))
			continue;
		const char *q = p + len;
		if (*q != ' ' && *q != '\t')
			continue;            /* a cast or a call, not a declaration */
		words += decl_words(source, q, w, tile);
		p = strchr(p, ';') ? strchr(p, ';') : p;
	}
	return (int)(REGEST_BASE + words);
}

/* ---- the report ---- */

typedef struct regs_view { int count, estimated, spill; occ_result r; } regs_view;

/* The count the report shows: the device compiler's, else the estimate (0: neither). */
static regs_view view_of(const check_report *rep)
{
	regs_view v = { 0 };
	const check_child *ch = &rep->child;
	v.count = ch->registers > 0 ? ch->registers : rep->reg_estimate;
	v.estimated = ch->registers <= 0;
	v.spill = ch->spill_bytes;
	if (v.count > 0) {
		occ_input in = { .work_group = rep->work_group, .local_bytes = (long)ch->local_bytes,
		                 .registers = v.count > REGEST_MAX ? REGEST_MAX : v.count };
		v.r = occ_compute(occ_profile_default(), &in);
	}
	return v;
}

void regest_print(FILE *f, const check_report *rep)
{
	regs_view v = view_of(rep);
	if (!rep->child.kernel_found || v.count <= 0 || !rep->opts.l->kind->fma_count)
		return;
	if (v.estimated)
		fprintf(f, "registers per work-item: about %d, an estimate from the kernel's private "
		        "arrays and vectors (%d + %d for indices and addresses; this device's compiler "
		        "reports none)%s\n", v.count, v.count - REGEST_BASE, REGEST_BASE,
		        v.count > REGEST_MAX ? ": more than NVIDIA's 255, so they would spill to "
		        "local memory" : "");
	else
		fprintf(f, "registers per work-item: %d (NVIDIA's compiler)%s\n", v.count,
		        v.spill > 0 ? "" : ", none spilled");
	if (v.spill > 0)
		fprintf(f, "  %d bytes spilled to local memory (ptxas' spill stores): the register "
		        "block does not fit in %d registers, and local memory is off-chip\n", v.spill,
		        REGEST_MAX);
	if (v.r.status == OCC_OK)
		fprintf(f, "  nvidia-sm90 at %d registers: %d groups of %d per SM, %.0f%% occupancy, "
		        "limited by %s%s\n", v.count > REGEST_MAX ? REGEST_MAX : v.count,
		        v.r.groups_per_cu, rep->work_group, 100 * v.r.occupancy,
		        occ_limiter_name(v.r.limiter), v.estimated ? " (at the estimate)" : "");
}

void regest_json(cJSON *root, const check_report *rep)
{
	regs_view v = view_of(rep);
	if (!rep->child.kernel_found || v.count <= 0 || !rep->opts.l->kind->fma_count)
		return;
	cJSON *o = cJSON_AddObjectToObject(root, "registers");
	cJSON_AddNumberToObject(o, "count", v.count);
	cJSON_AddStringToObject(o, "source", v.estimated ? "estimate" : "compiler");
	cJSON_AddNumberToObject(o, "spill_bytes", v.spill);
	cJSON_AddBoolToObject(o, "would_spill", v.count > REGEST_MAX || v.spill > 0);
	if (v.r.status == OCC_OK) {
		cJSON_AddNumberToObject(o, "sm90_groups", v.r.groups_per_cu);
		cJSON_AddNumberToObject(o, "sm90_occupancy", v.r.occupancy);
		cJSON_AddStringToObject(o, "sm90_limiter", occ_limiter_name(v.r.limiter));
	}
}
