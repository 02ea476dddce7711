/* trace_finding.c — the tracer's findings: Oclgrind's diagnostic texts (data races, invalid
 * reads and writes, uninitialised values ...) parsed into a kind, a place and a variable,
 * counted once per place, and written early as a partial summary when a run finds much (a
 * time limit may kill it).  See trace.c for the rest of the analysis. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "trace_int.h"

static const char *
classify(const char *first)
{
	if (strstr(first, "FATAL ERROR"))
		return "internal_error";    /* Oclgrind itself gave up: not the kernel's fault */
	if (strstr(first, "data race"))
		return "data_race";
	if (strncmp(first, "Work-group divergence detected", 30) == 0)
		return "barrier_divergence";
	if (strstr(first, "ninitialized"))
		return "uninitialized";
	if (strncmp(first, "Invalid read of size", 20) == 0 ||
	    strncmp(first, "Invalid write of size", 21) == 0 ||
	    strncmp(first, "Invalid memory load", 19) == 0 ||
	    strncmp(first, "Invalid memory store", 20) == 0 ||
	    (strncmp(first, "Index (", 7) == 0 && strstr(first, "exceeds static array size")))
		return "out_of_bounds";
	return "other";
}

static const char *
space_word(const char *first, const char *at)
{
	static const char *words[] = { "local", "global", "constant", "private" };

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(at - first) >= n + 1 && strncmp(at - n, words[i], n) == 0 && at[-n - 1] == ' ')
			return words[i];
	}
	return NULL;
}

int
trace_parse_message(const char *text, trace_finding *f)
{
	memset(f, 0, sizeof *f);
	f->kind = "other";
	if (text == NULL)
		return -1;
	while (*text == '\n' || *text == '\r' || *text == ' ' || *text == '\t')
		text++;
	if (*text == '\0')
		return -1;

	size_t n = strcspn(text, "\n");
	if (n >= sizeof f->first_line)
		n = sizeof f->first_line - 1;
	memcpy(f->first_line, text, n);
	while (n > 0 && (f->first_line[n - 1] == ' ' || f->first_line[n - 1] == '\t' ||
	                 f->first_line[n - 1] == '\r'))
		n--;
	f->first_line[n] = '\0';
	f->kind = classify(f->first_line);

	const char *at = strstr(f->first_line, " memory address 0x");
	if (at != NULL) {
		f->has_address = 1;
		f->address = strtoull(at + strlen(" memory address 0x"), NULL, 16);
		f->space = space_word(f->first_line, at);
	}

	int nloc = 0;
	for (const char *p = strstr(text, "At line "); p != NULL; p = strstr(p + 1, "At line ")) {
		int line, col;
		if (sscanf(p, "At line %d (column %d)", &line, &col) != 2)
			continue;
		if (nloc == 0) {
			f->line = line;
			f->column = col;
		} else if (nloc == 1 && strcmp(f->kind, "data_race") == 0) {
			f->other_line = line;
			f->other_column = col;
		}
		nloc++;
	}
	/* "First entity: Global(..) Local(..) Group(x,y,z)" ... "Second entity: ... Group(..)" */
	const char *g1 = strstr(text, " Group("), *g2 = g1 ? strstr(g1 + 1, " Group(") : NULL;
	if (g1 && g2 && strcmp(f->kind, "data_race") == 0)
		f->across_groups = strncmp(g1, g2, strcspn(g1, ")") + 1) != 0;
	return 0;
}

/* The first line with "<space> memory address 0x..." replaced by the variable's name. */
static void
readable(const trace *t, const trace_finding *f, int var, char *out, size_t len)
{
	const char *at = strstr(f->first_line, " memory address 0x");

	if (var < 0 || at == NULL) {
		copy_str(out, len, f->first_line);
		return;
	}
	const char *end = at + strlen(" memory address 0x");
	while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f') || (*end >= 'A' && *end <= 'F'))
		end++;
	const variable *v = &t->vars[var];
	uint64_t off = trace_offset_in(t, var, f->address);
	char what[200];
	if (strcmp(f->kind, "out_of_bounds") == 0)
		snprintf(what, sizeof what, " memory of '%s', byte %" PRIu64 " (it has %" PRIu64 " bytes)",
		         v->name, off, v->bytes);
	else
		snprintf(what, sizeof what, " memory of '%s', byte %" PRIu64, v->name, off);
	snprintf(out, len, "%.*s%s%s", (int)(at - f->first_line), f->first_line, what, end);
}

static int
same_place(const trace_finding *a, const trace_finding *b)
{
	if (strcmp(a->kind, b->kind) != 0)
		return 0;
	if (a->line == b->line && a->column == b->column &&
	    a->other_line == b->other_line && a->other_column == b->other_column)
		return 1;
	return a->line == b->other_line && a->column == b->other_column &&
	       a->other_line == b->line && a->other_column == b->column;
}

static void
add_finding(trace *t, const trace_finding *f, int var)
{
	for (int i = 0; i < t->nfindings; i++) {
		finding *g = &t->findings[i];
		if (!same_place(&g->f, f) || (g->var >= 0 && var >= 0 && g->var != var))
			continue;
		g->count++;
		int across = g->f.across_groups | f->across_groups;
		if (g->var < 0 && var >= 0) {   /* a later message names the variable */
			g->var = var;
			g->f = *f;
			readable(t, f, var, g->message, sizeof g->message);
		}
		g->f.across_groups = across;
		return;
	}
	if (t->nfindings == TRACE_MAX_FINDINGS) {
		t->dropped++;
		return;
	}
	finding *g = &t->findings[t->nfindings++];
	g->f = *f;
	g->var = var;
	g->count = 1;
	readable(t, f, var, g->message, sizeof g->message);
}

/* A run that finds much can be slow under Oclgrind, and a time limit kills it without a
 * word: so, at most twice a second while findings are new, the findings so far are written
 * to $CLTRACE_OUT as an incomplete summary ("complete": false, "partial": true, findings
 * only).  The run's end overwrites it.  Called with t->lock held. */
static void
write_partial(trace *t)
{
	const char *path = getenv("CLTRACE_OUT");
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = ts.tv_sec + ts.tv_nsec * 1e-9;
	if (!path || !*path || t->nfindings == t->partial_findings || now - t->partial_at < 0.5)
		return;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "kernel", t->kernel);
	cJSON_AddBoolToObject(root, "complete", 0);
	cJSON_AddBoolToObject(root, "partial", 1);
	cJSON_AddItemToObject(root, "findings", trace_findings_json(t));
	cJSON_AddNumberToObject(root, "messages", (double)t->messages);
	char *js = cJSON_Print(root);
	cJSON_Delete(root);
	FILE *f = js ? fopen(path, "w") : NULL;
	if (f) {
		fputs(js, f);
		fclose(f);
	}
	cJSON_free(js);
	t->partial_findings = t->nfindings;
	t->partial_at = now;
}

void
trace_message(trace *t, trace_msg_type type, const char *text)
{
	trace_finding f;

	if (trace_parse_message(text, &f) != 0)
		return;
	f.type = type;
	int var = -1;
	if (f.has_address && f.space != NULL && strcmp(f.space, "private") != 0)
		var = trace_var_of(t, strcmp(f.space, "local") == 0 ? TRACE_LOCAL : TRACE_GLOBAL, f.address);
	pthread_mutex_lock(&t->lock);
	t->messages++;
	add_finding(t, &f, var);
	write_partial(t);
	pthread_mutex_unlock(&t->lock);
}

static const char *type_names[] = { "debug", "info", "warning", "error" };

/* Findings by place, so that the report does not depend on thread timing. */
static int
cmp_finding(const void *a, const void *b)
{
	const finding *x = *(const finding *const *)a, *y = *(const finding *const *)b;
	int c;

	if (x->f.line != y->f.line)
		return x->f.line < y->f.line ? -1 : 1;
	if (x->f.column != y->f.column)
		return x->f.column < y->f.column ? -1 : 1;
	if ((c = strcmp(x->f.kind, y->f.kind)) != 0)
		return c;
	if (x->f.other_line != y->f.other_line)
		return x->f.other_line < y->f.other_line ? -1 : 1;
	return x->var < y->var ? -1 : x->var > y->var;
}

cJSON *
trace_findings_json(const trace *t)
{
	cJSON *a = cJSON_CreateArray();
	const finding *order[TRACE_MAX_FINDINGS];

	for (int i = 0; i < t->nfindings; i++)
		order[i] = &t->findings[i];
	qsort(order, (size_t)t->nfindings, sizeof *order, cmp_finding);
	for (int i = 0; i < t->nfindings; i++) {
		const finding *g = order[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", g->f.kind);
		cJSON_AddStringToObject(o, "severity",
		                        (unsigned)g->f.type < 4 ? type_names[g->f.type] : "error");
		cJSON_AddNumberToObject(o, "line", g->f.line);
		cJSON_AddNumberToObject(o, "column", g->f.column);
		if (strcmp(g->f.kind, "data_race") == 0) {
			cJSON_AddNumberToObject(o, "other_line", g->f.other_line);
			cJSON_AddNumberToObject(o, "other_column", g->f.other_column);
			cJSON_AddBoolToObject(o, "across_groups", g->f.across_groups);
		}
		add_name(o, "variable", trace_var_name(t, g->var));
		if (g->f.space)
			cJSON_AddStringToObject(o, "space", g->f.space);
		cJSON_AddStringToObject(o, "message", g->message);
		cJSON_AddNumberToObject(o, "count", (double)g->count);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
