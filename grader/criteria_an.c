/* criteria_an.c — the criteria judged from the Oclgrind analysis (criteria.h): memory_safe,
 * race_free, uses_local, conflict_free, coalesced, from the typed analysis (rep->an) and the
 * tracer's summary.  Pure decisions: no OpenCL, no printing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "cause.h"
#include "criteria.h"
#include "diag.h"
#include "trace.h"

/* Does line `line` of source hold a conditional expression (`c ? a : b`): a guard of its own
 * around the access, beside the if's? */
static int line_has_ternary(const char *source, int line)
{
	const char *p = source;
	for (int n = 1; n < line && p; n++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p)
		return 0;
	const char *q = p + strcspn(p, "?\n");
	return *q == '?';
}

/* The first out-of-bounds access Oclgrind found runs under `if (cond)` with no `<=` in it,
 * and its line has no `? :` of its own: the guard stands, the index is what steps out.  Its
 * try into buf; 0 when that is not so, or when the guard itself is suspect: an `||` (either
 * side lets a work-item through) or no comparison at all (`if (1)`). */
/* Is word w in s, not as part of a longer name? */
static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
		int before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* A guard of two comparisons or more that names only one of a kind's several extents
 * (`row < cols && col < cols` where the kind has rows and cols): the guard is suspect. */
static int guard_mixes_extents(const kind *k, const char *cond)
{
	int first = k->n_inputs > 0 ? k->n_inputs + 1 : 2, extents = 0, named = 0, cmps = 0;
	for (int i = first; i < KIND_MAX_SCALARS + 4 && k->args[i]; i++) {
		extents++;
		named += has_word(cond, k->args[i]);
	}
	for (const char *p = cond; *p; p++)
		cmps += *p == '<' || *p == '>';
	return extents >= 2 && named == 1 && cmps >= 2;
}

/* Where the first out-of-bounds access Oclgrind found lands.  OOB_LOCAL_END: past the end
 * of a named __local array (name filled).  OOB_BEFORE: before the start of a buffer: Oclgrind's
 * address holds the buffer's number in its top 16 bits over a 48-bit offset, so an offset
 * below 0 borrows from the number and shows unnamed, its offset at 2^47 or more; local is
 * set when it is __local memory.  OOB_OTHER: anything else. */
enum { OOB_OTHER, OOB_LOCAL_END, OOB_BEFORE };

static int oob_place(const check_report *rep, char *name, size_t len, int *local)
{
	if (!rep->an.nfind[FIND_OUT_OF_BOUNDS])
		return OOB_OTHER;
	const char *m = rep->an.find[FIND_OUT_OF_BOUNDS][0].message, *p;
	unsigned long long byte, size, addr;
	*local = strstr(m, " local memory ") != NULL;
	if ((p = strstr(m, " local memory of '"))) {
		p += strlen(" local memory of '");
		size_t n = strcspn(p, "'");
		if (p[n] != '\'' || sscanf(p + n, "', byte %llu (it has %llu bytes)", &byte, &size) != 2 ||
		    byte < size || n == 0 || n >= len)
			return OOB_OTHER;
		snprintf(name, len, "%.*s", (int)n, p);
		return OOB_LOCAL_END;
	}
	if ((p = strstr(m, " memory address 0x")) && sscanf(p, " memory address 0x%llx", &addr) == 1 &&
	    (addr & ((1ull << 48) - 1)) >= 1ull << 47)
		return OOB_BEFORE;
	return OOB_OTHER;
}

/* The name of the array indexed at line:col of source (`tile[...]`, the column on its first
 * letter), into name; 0 when no identifier followed by '[' starts there. */
static int array_at(const char *source, int line, int col, char *name, size_t len)
{
	const char *p = source;
	for (int n = 1; n < line && p; n++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || col <= 0 || (int)strcspn(p, "\n") < col)
		return 0;
	p += col - 1;
	size_t n = 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	if (!n || n >= len || isdigit((unsigned char)*p) || p[n] != '[')
		return 0;
	snprintf(name, len, "%.*s", (int)n, p);
	return 1;
}

/* The first out-of-bounds access is into __local memory, past the end of an array or before
 * its start: the array's size or the index into it is wrong, whatever guards the __global
 * accesses.  Its try into buf; 0 when that is not so. */
static int local_overrun(const char *source, const check_report *rep, char *buf, size_t len)
{
	char name[64], cond[160];
	int local, cl;
	int place = oob_place(rep, name, sizeof name, &local);
	const check_finding *f = &rep->an.find[FIND_OUT_OF_BOUNDS][0];
	if (place == OOB_OTHER || !local)
		return 0;
	int le = source && trace_guard_condition(source, f->line, cond, sizeof cond, &cl) &&
	         strstr(cond, "<=");
	if (place == OOB_LOCAL_END)
		snprintf(buf, len, "line %d indexes the __local array %s past its end: %s is too small "
		         "for the work-group, or the index into it runs past it -- work out the largest "
		         "index of %s any work-item of the work-group reaches there%s, and declare %s "
		         "that large or keep the index below its size", f->line, name, name, name,
		         le ? " (`<=` in the guard lets one more work-item in)" : "", name);
	else {
		if (!source || !array_at(source, f->line, f->column, name, sizeof name))
			snprintf(name, sizeof name, "a __local array");
		snprintf(buf, len, "line %d %s %s before its start: an index into it is "
		         "negative -- work out the smallest index that access reaches for any "
		         "work-item; a negative offset (a shift below the local id) must be added back "
		         "where the array starts, so that index 0 is the first element it holds",
		         f->line, strstr(f->message, "Invalid write") ? "writes" : "reads", name);
	}
	return 1;
}

static int index_past_guard(const check_opts *o, const char *source, const check_report *rep,
                            int before, char *buf, size_t len)
{
	char cond[160];
	int cl;
	if (!source || !rep->an.nfind[FIND_OUT_OF_BOUNDS])
		return 0;
	int line = rep->an.find[FIND_OUT_OF_BOUNDS][0].line;
	char gap[200], name[64] = "";
	const char *m = rep->an.find[FIND_OUT_OF_BOUNDS][0].message, *q = strstr(m, " of '");
	if (q)
		snprintf(name, sizeof name, "%.*s", (int)strcspn(q + 5, "'"), q + 5);
	if (line > 0 && line_has_ternary(source, line) &&   /* its guard, the ?:'s condition */
	    diag_ternary_cond(source, line, cond, sizeof cond) &&
	    diag_guard_gap(source, line, cond, name, o->l->kind->args, before, gap, sizeof gap)) {
		snprintf(buf, len, "line %d reads %s only where `%s` holds, and still reaches %s it: "
		         "%s -- the condition must bound every term of the index as the index "
		         "combines them", line, name, cond, before ? "before the start of" :
		         "past the end of", gap);
		return 1;
	}
	if (line <= 0 || !trace_guard_condition(source, line, cond, sizeof cond, &cl) ||
	    strstr(cond, "<=") || line_has_ternary(source, line) || strstr(cond, "||") ||
	    !strpbrk(cond, "<>") || guard_mixes_extents(o->l->kind, cond))
		return 0;
	if (diag_guard_gap(source, line, cond, name, o->l->kind->args, before, gap, sizeof gap)) {
		snprintf(buf, len, "line %d runs only where `%s` holds (line %d), and still reaches "
		         "%s its buffer: %s -- the guard must bound every term of the index as the "
		         "index combines them", line, cond, cl, before ? "before the start of" :
		         "past the end of", gap);
		return 1;
	}
	if (before)
		snprintf(buf, len, "line %d runs only where `%s` holds (line %d), and still reaches "
		         "before the start of its buffer: the index, not the guard, is wrong -- work "
		         "out the smallest index that access reaches for a work-item the condition "
		         "lets through: a negative offset takes it below 0", line, cond, cl);
	else
		snprintf(buf, len, "line %d runs only where `%s` holds (line %d), and still reaches "
		         "past the end: the index, not the guard, is wrong -- %s", line, cond, cl,
		         lesson_say(o->l, KS_INDEX_TRY));
	return 1;
}

/* Does line `line` of source (from p on) write name[...] with `=` or a compound `op=`?  2: a
 * compound one, 1: a plain one, 0: none. */
static int writes_array(const char *p, const char *name)
{
	size_t n = strlen(name);
	const char *end = p + strcspn(p, "\n");
	for (const char *q = strstr(p, name); q && q < end; q = strstr(q + 1, name)) {
		if ((q > p && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) ||
		    isalnum((unsigned char)q[n]) || q[n] == '_')
			continue;
		const char *r = q + n;
		while (*r == ' ' || *r == '\t')
			r++;
		if (*r != '[')
			continue;
		for (int depth = 0; r < end; r++)
			if ((depth += (*r == '[') - (*r == ']')) == 0)
				break;
		for (r++; *r == ' ' || *r == '\t'; r++)
			;
		if (r[0] == '=' && r[1] != '=')
			return 1;
		if (strchr("+-*/", r[0]) && r[0] && r[1] == '=')
			return 2;
	}
	return 0;
}

/* The first uninitialised value Oclgrind found is written to __local array X on a line that
 * adds into X[...] (`+=`, any compound assignment), and no line above it writes X: the
 * kernel reads X before anything wrote it, and __local memory starts undefined.  Its try
 * into buf; 0 when that is not so. */
static int local_added_unset(const char *source, const check_report *rep, char *buf, size_t len)
{
	char name[64], *code;
	if (!source || !rep->an.nfind[FIND_UNINITIALIZED])
		return 0;
	const check_finding *f = &rep->an.find[FIND_UNINITIALIZED][0];
	const char *p = strstr(f->message, " local memory of '"), *s;
	if (!p || f->line <= 0)
		return 0;
	p += strlen(" local memory of '");
	size_t n = strcspn(p, "'");
	if (!n || n >= sizeof name || p[n] != '\'' || !(code = diag_clean(source)))
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)n, p);
	int l = 1, first = 0;
	for (s = code; l < f->line && s && !writes_array(s, name); l++)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	first = l == f->line && s && writes_array(s, name) == 2;
	free(code);
	if (!first)
		return 0;
	snprintf(buf, len, "line %d adds into %s[...] before anything wrote %s: __local memory "
	         "starts undefined, so the sum begins from garbage -- store the work-item's first "
	         "value with =, not +=, and add into %s only after that store and a barrier",
	         f->line, name, name, name);
	return 1;
}

/* A native run wrote outside a buffer (its guard zones): memory_safe fails with it, its try
 * the index's when a guard stands (before the start: a negative index), else the guard's. */
static int guard_zone_fail(const check_opts *o, const char *source, const check_report *rep,
                           check_crit *c)
{
	char try_[400];
	const check_child *ch = &rep->child;
	for (int i = 0; i < ch->nruns; i++)
		if (ch->runs[i].violations) {
			const char *g = ch->runs[i].guard_msg;
			int before = strstr(g, "before the start") && !strstr(g, "past the end");
			if (!index_past_guard(o, source, rep, before, try_, sizeof try_))
				snprintf(try_, sizeof try_, "guard every global access with the real size "
				         "(%s): the global size is rounded up to a multiple of the "
				         "work-group", lesson_say(o->l, KS_GUARD));
			crit_set(c, CRIT_FAIL, try_, "%s at %s", g,
			    KIND_SIZE(o->l->kind, ch->runs[i].rows, ch->runs[i].cols));
			return 1;
		}
	return 0;
}

void crit_memory(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_MEMORY_SAFE);
	const check_child *ch = &rep->child;
	char found[500], name[64], try_[400];
	int local, place = oob_place(rep, name, sizeof name, &local);
	if (guard_zone_fail(o, source, rep, c))
		return;
	if (crit_findings(rep, FIND_OUT_OF_BOUNDS, FIND_UNINITIALIZED, found, sizeof found)) {
		char try_[400], why[1];
		int unset = !rep->an.nfind[FIND_OUT_OF_BOUNDS];   /* nothing out of bounds */
		if (unset && (rep->local_added_unset = local_added_unset(source, rep, try_, sizeof try_)))
			unset = 0;                            /* a __local sum begun from garbage */
		if (unset)                                    /* a value unset */
			snprintf(try_, sizeof try_, "a value was used before anything wrote it: give "
			         "every private variable a value before adding into it (a sum starts "
			         "at 0), and read a __local element only after some work-item has "
			         "written it and a barrier has passed");
		else if (!rep->local_added_unset && !local_overrun(source, rep, try_, sizeof try_) &&
		         !index_past_guard(o, source, rep, place == OOB_BEFORE, try_, sizeof try_))
			snprintf(try_, sizeof try_, "%s", lesson_say(o->l, KS_OOB_TRY));
		for (int i = 0; i < ch->nruns; i++)
			if (ch->runs[i].reads_output)   /* the uninitialised value is the output's own */
				diag_reads_output(o->l->kind->args[o->l->kind->n_inputs], 0, 0, why, 0,
				                  try_, sizeof try_);
		crit_set(c, CRIT_FAIL, try_, "%s", found);
		return;
	}
	if (rep->child_crashed && ch->nruns) {
		snprintf(try_, sizeof try_, "a crash after a kernel ran is almost always an access "
		         "outside a buffer (a write that corrupted the host's memory, or a read far "
		         "past the end): guard every load and store (%s)", lesson_say(o->l, KS_GUARD));
		crit_set(c, CRIT_FAIL, try_, "the grader's child %s: the kernel is not memory-safe",
		    rep->run_end);
		return;
	}
	if (rep->an.state == ANALYSIS_FAILED) {
		crit_set(c, CRIT_FAIL, CRIT_ANALYSIS_TRY, "not shown: %s", rep->analysis_failure);
		return;
	}
	if (!ch->nruns || rep->child_timed_out)
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: the kernel did not %s",
		    ch->nruns ? "finish every run" : "run");
	else if (rep->an.state != ANALYSIS_DONE)
		crit_set(c, CRIT_NOT_CHECKED, NULL, "writes outside buffers: none (guard zones); "
		    "out-of-bounds reads and uninitialised __local reads: not checked (%s)",
		    rep->analysis_note);
	else if (!rep->an.uninit_checked)
		crit_set(c, CRIT_PASS, NULL, "no write outside a buffer (guard zones); no out-of-bounds "
		    "access under Oclgrind (uninitialised reads not checked: see the note)");
	else
		crit_set(c, CRIT_PASS, NULL, "no write outside a buffer (guard zones); no out-of-bounds or "
		    "uninitialised access under Oclgrind");
	(void)o;
}

/* A data race between work-items of different work-groups (a barrier cannot order them)? */
static int race_across_groups(const check_report *rep)
{
	return rep->an.across_groups > 0;
}

/* Does every race finding name __global memory?  Such a race is between work-items that
 * write (or read and write) one element: an indexing problem no barrier can fix.  0: no;
 * 1: yes, all write-write; 2: yes, some read-write. */
static int races_all_global(const check_report *rep)
{
	const check_analysis *an = &rep->an;
	if (an->nfind[FIND_DATA_RACE] == 0 || an->nfind[FIND_BARRIER_DIVERGENCE] > 0 ||
	    an->races_global != an->nfind[FIND_DATA_RACE])
		return 0;
	return an->races_global_rw ? 2 : 1;
}

/* The first barrier divergence Oclgrind found, with the condition that lets some work-items
 * skip that barrier (trace_skip_condition); 0 when there is none. */
static int divergence(const check_opts *o, const char *source, const check_report *rep,
                      char *msg, size_t len)
{
	cJSON *f, *first = NULL;
	cJSON *all = rep->analysis ? cJSON_GetObjectItem(rep->analysis, "findings") : NULL;
	cJSON_ArrayForEach(f, all) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind"));
		int line = cJSON_GetObjectItem(f, "line") ? cJSON_GetObjectItem(f, "line")->valueint : 0;
		if (k && strcmp(k, "barrier_divergence") == 0 &&
		    (!first || line < cJSON_GetObjectItem(first, "line")->valueint))
			first = f;
	}
	if (!first)
		return 0;
	int line = cJSON_GetObjectItem(first, "line")->valueint, cl;
	int col = cJSON_GetObjectItem(first, "column") ? cJSON_GetObjectItem(first, "column")->valueint : 0;
	char cond[160];
	int why = source ? trace_skip_condition(source, line, cond, sizeof cond, &cl) : 0;
	int n = snprintf(msg, len, "%s:%d:%d: barrier divergence: not every work-item of a "
	                 "work-group reaches this barrier", o->kernel, line, col);
	if (why == 1)
		snprintf(msg + n, len - n, ": it is inside `if (%s)` (line %d), so the work-items for "
		         "which that is false never reach it while the others wait there", cond, cl);
	else if (why == 2)
		snprintf(msg + n, len - n, ": the work-items for which `%s` holds return at line %d, "
		         "before it, while the others wait there", cond, cl);
	else
		snprintf(msg + n, len - n, " (a condition or loop bound differs between work-items)");
	return 1;
}

/* Is the first race on a line where Oclgrind also found an out-of-bounds access?  Then one
 * step's work-items overlap because one too many takes part, not for want of a barrier. */
static int race_beside_overrun(const check_report *rep)
{
	const check_analysis *an = &rep->an;
	if (!an->nfind[FIND_DATA_RACE] || an->nfind[FIND_BARRIER_DIVERGENCE])
		return 0;
	const check_finding *r = &an->find[FIND_DATA_RACE][0];
	if (r->other_line && r->other_line != r->line)
		return 0;                 /* two statements: a missing barrier between them */
	int kept = an->nfind[FIND_OUT_OF_BOUNDS] < CHECK_FIND_KEEP ? an->nfind[FIND_OUT_OF_BOUNDS] :
	           CHECK_FIND_KEEP;
	for (int i = 0; i < kept; i++)
		if (an->find[FIND_OUT_OF_BOUNDS][i].line == r->line)
			return 1;
	return 0;
}

/* The first race is two writes of one statement to __local memory (no barrier could order
 * them: they are in one barrier interval), and nothing runs out of bounds: the loop or index
 * that shares the cells out gives one cell to two work-items. */
static int same_cell_writes(const check_report *rep)
{
	const check_analysis *an = &rep->an;
	if (!an->nfind[FIND_DATA_RACE] || an->nfind[FIND_BARRIER_DIVERGENCE] ||
	    an->nfind[FIND_OUT_OF_BOUNDS])
		return 0;
	const check_finding *r = &an->find[FIND_DATA_RACE][0];
	return (!r->other_line || r->other_line == r->line) &&
	       strstr(r->message, "Write-write") && strstr(r->message, "local memory");
}

void crit_races(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_RACE_FREE);
	char found[500];
	int fence = diag_global_only_fence(source), global = 0;
	char var[64] = "__global memory";
	int n = crit_findings(rep, FIND_DATA_RACE, FIND_BARRIER_DIVERGENCE, found, sizeof found);
	if (n)
		global = races_all_global(rep);
	const char *named = strstr(found, " of '");   /* Oclgrind names the buffer */
	if (named)
		snprintf(var, sizeof var, "%.*s", (int)strcspn(named + 5, "'"), named + 5);
	char div[500], own[400], sub[64];
	if (divergence(o, source, rep, div, sizeof div))
		crit_set(c, CRIT_FAIL, lesson_say(o->l, KS_DIVERGENCE_TRY), "%s", div);
	else if (n && race_across_groups(rep) && diag_has_barrier(source) &&
	         rep->an.races_global_rw > 0)   /* one group reads what another writes; two
	                                           groups writing one element: indexing, below */
		crit_set(c, CRIT_FAIL, "work-groups cannot wait for each other inside one kernel: let each "
		    "work-item read only what its own work-group wrote (share it through __local "
		    "memory), or split the work into two kernel launches", "%s -- the racing "
		    "work-items are in different work-groups, and a barrier only synchronises the "
		    "work-items of one work-group", found);
	else if (global && snprintf(own, sizeof own, "make the store's index different for every "
	                            "work-item (each work-item computes and writes its own "
	                            "element%s), and read no element another work-item writes; a "
	                            "barrier cannot fix this, it orders only the work-items of one "
	                            "group", lesson_say(o->l, KS_STORE_OWN)) > 0)
		crit_set(c, CRIT_FAIL, own, "%s %s%s (an indexing "
		    "problem, not a missing barrier): %s", global == 1 ? "two work-items write one "
		    "element of" : "a work-item reads an element of", var, global == 1 ? "" :
		    " that another writes", found);
	else if (found[0] && fence)
		crit_set(c, CRIT_FAIL, "use barrier(CLK_LOCAL_MEM_FENCE) (or both flags) wherever the "
		    "work-items share __local memory", "%s:%d: barrier(CLK_GLOBAL_MEM_FENCE) orders "
		    "only __global memory, so the __local data it separates is not made visible to the "
		    "other work-items: %s", o->kernel, fence, found);
	else if (found[0] && diag_one_buffer(source, var, sub, sizeof sub) &&
	         snprintf(own, sizeof own, "stage each step into one buffer and read the other: "
	                  "the stores into %s[t & 1] while the step's reads come from %s[(t & 1) ^ "
	                  "1], the buffer the step before filled, with one barrier per step after "
	                  "the staging", var, var) > 0)
		crit_set(c, CRIT_FAIL, own, "%s -- %s is a double buffer, yet every use names %s[%s]: "
		    "the step stages into the buffer it reads, so work-items overwrite values others "
		    "still read (and those are two steps old); a barrier between them would not make "
		    "the step right", found, var, var, sub);
	else if (found[0] && race_beside_overrun(rep))
		crit_set(c, CRIT_FAIL, "the racing access also runs past the end of its array on the same "
		    "line (memory_safe): fix that index first -- an array smaller than what the "
		    "launch's work-items index (sized for another work-group), or a condition that "
		    "lets one too many through (a <= where < was meant), makes two of them touch one "
		    "element; a barrier cannot fix that", "%s", found);
	else if (found[0] && same_cell_writes(rep))
		crit_set(c, CRIT_FAIL, "the loop or index that shares the __local cells out among the "
		    "work-items gives some cells to two of them (check where it starts and its step: "
		    "it must step by the number of work-items that share it); a barrier cannot fix "
		    "that", "%s -- two work-items write one element on the same line", found);
	else if (found[0])
		crit_set(c, CRIT_FAIL, "a work-group must pass barrier(CLK_LOCAL_MEM_FENCE) after writing a "
		    "__local array and before reading it, and again before overwriting it; every "
		    "work-item must reach every barrier", "%s", found);
	else if (rep->an.state == ANALYSIS_FAILED)
		crit_set(c, CRIT_FAIL, CRIT_ANALYSIS_TRY, "not shown: %s", rep->analysis_failure);
	else if (rep->an.state != ANALYSIS_DONE)
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: %s",
		    rep->analysis_note[0] ? rep->analysis_note : "the kernel did not run");
	else
		crit_set(c, CRIT_PASS, NULL, "no data race or barrier divergence under Oclgrind");
	(void)o;
}

void crit_local(const check_opts *o, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_USES_LOCAL);
	const check_child *ch = &rep->child;
	/* -1: no analysis, or one that did not finish (its counts are not the kernel's) */
	int loads = rep->an.summary && rep->an.state != ANALYSIS_FAILED ? rep->an.local_loads : -1;
	char msg[400];
	const char *token_try = NULL;
	const char *try_ = lesson_say(o->l, KS_LOCAL_TRY);
	/* Drivers report a few bytes for kernels without any __local data (NVIDIA: 1), so the
	 * device's number alone is trusted only above a token size. */
	if (!ch->kernel_found)
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: no kernel");
	else if (loads == 0)
		crit_set(c, CRIT_FAIL, try_, ch->local_bytes >= 64 ? "the kernel declares __local memory "
		    "but never reads it (Oclgrind saw no __local load)" : "the kernel uses no __local "
		    "memory (Oclgrind saw no __local access)");
	else if (loads < 0 && ch->local_bytes < 64 && ch->local_declared < 0)
		/* the runtime may answer 0 for arrays it has (PoCL 5), and the declarations could not
		 * be sized: only the analysis can tell, and it did not run */
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: the runtime reported %zu bytes of __local "
		    "memory and the grader could not size the kernel's __local declarations (constant "
		    "sizes of float/int/vector types, TILE and #defines can be read); the Oclgrind "
		    "analysis would show the accesses", ch->local_bytes);
	else if (loads < 0 && ch->local_bytes < 64)
		crit_set(c, CRIT_FAIL, try_, "the kernel uses no __local memory (%zu bytes per work-group)",
		    ch->local_bytes);
	else if (loads > 0 && o->l->kind->token_local &&
	         o->l->kind->token_local(&(kind_traffic){ rep->an.rows, rep->an.cols, rep->analyses[0].tile,
	                                                 rep->an.loaded_per_unit, rep->an.local_loaded,
	                                                 rep->an.local_stored },
	                                 msg, sizeof msg, &token_try))
		crit_set(c, CRIT_FAIL, token_try, "%s", msg);   /* a token __local round trip is not tiling */
	else
		crit_set(c, CRIT_PASS, NULL, "%zu bytes of __local memory per work-group (from %s)%s",
		    ch->local_bytes, lmem_source_text(ch->local_source),
		    loads > 0 ? ", read back by the kernel" : "");
}

/* The fix that works for the worst site's pattern (bank.h), from the lane stride of one warp
 * and from a conflict-free access to the same variable (a transpose's other side: swapping
 * this site's indices would only move the conflict there). */
static void conflict_fix(const lesson *l, const char *source, const check_site *w, int banks,
                         int wrong, char *buf, size_t len)
{
	/* swapping "its two indices" only where the access has two: a flat tile[r * W + c] has
	 * one (m3_l3_flat_pad_mismatch, a mutation review's kernel, was told to swap them) */
	int swap = l->kind->tile_2d && diag_subscripts(source, w->line, w->variable) != 1 &&
	           diag_square(source, w->variable);   /* Cs[TILE][BT + TILE]: no swapping */
	bank_words words = { lesson_say(l, KS_PAD), lesson_say(l, KS_SWIZZLE), swap,
	                     wrong, w->access[0] ? w->access : NULL };
	if (w->row_step)   /* the warp's get_local_id(1) lines meet in the banks (bank.h) */
		bank_fix_rows(w->row_step, banks, w->tile, w->nlanes, w->variable, buf, len);
	else
		bank_fix(&words, w->stride, banks, w->free_line,
		         w->free_access[0] ? w->free_access : NULL, w->free_broadcast, buf, len);
}

/* " at TILE=8 (the analysis ran at TILE=8, 16 and 32)", appended to msg: the runs' TILEs,
 * smallest first. */
static void conflict_tiles(const check_report *rep, int tile, char *msg, size_t len)
{
	int t[CHECK_MAX_ANALYSES], n = 0;
	for (int i = 0; i < rep->nanalyses && n < CHECK_MAX_ANALYSES; i++) {
		int j = n++;
		for (; j > 0 && t[j - 1] > rep->analyses[i].tile; j--)
			t[j] = t[j - 1];
		t[j] = rep->analyses[i].tile;
	}
	size_t k = strlen(msg);
	k += snprintf(msg + k, k < len ? len - k : 0, " at TILE=%d (the analysis ran at TILE=", tile);
	for (int i = 0; i < n && k < len; i++)
		k += snprintf(msg + k, len - k, "%s%d", i == 0 ? "" : i + 1 == n ? " and " : ", ", t[i]);
	if (k < len)
		snprintf(msg + k, len - k, ")");
}

void crit_conflicts(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_CONFLICT_FREE);
	const check_analysis *an = &rep->an;
	const check_site *w = &an->worst;
	const bank_profile *bp = bank_profile_find(o->profile);
	if (an->state == ANALYSIS_FAILED && w->n_way <= lesson_conflict_max(o->l)) {
		crit_set(c, CRIT_FAIL, CRIT_ANALYSIS_TRY, "not shown: %s", rep->analysis_failure);
		return;   /* a partial run shows no conflict-free kernel (a conflict it saw, it fails) */
	}
	if (!an->summary) {
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: %s",
		    rep->analysis_note[0] ? rep->analysis_note : "the kernel did not run");
		return;
	}
	if (!an->has_worst) {
		crit_set(c, CRIT_NOT_CHECKED, NULL, "no __local access to check");
		return;
	}
	char fix[400];
	const check_crit *cc = check_crit_find(rep, CRIT_CORRECT);
	conflict_fix(o->l, source, w, bp ? bp->banks : 32, cc && cc->status == CRIT_FAIL, fix,
	             sizeof fix);
	if (w->n_way > lesson_conflict_max(o->l))
		crit_set(c, CRIT_FAIL, fix,
		    "%s:%d:%d: %s of %s is %d-way bank-conflicted on %s (lanes of one warp hit the same "
		    "bank %d times; conflict-free is 1)", o->kernel, w->line, w->column,
		    w->access[0] ? w->access : "access", w->variable[0] ? w->variable : "?", w->n_way,
		    bp ? bp->label : o->profile, w->n_way);
	else
		crit_set(c, CRIT_PASS, NULL, "worst __local access %d-way on %s (%s:%d)", w->n_way,
		    bp ? bp->label : o->profile, o->kernel, w->line);
	if (o->l->tiles[0] && w->tile)   /* analysed at more than one TILE */
		conflict_tiles(rep, w->tile, c->msg, sizeof c->msg);
	else if (an->worst_at_launch) {
		size_t k = strlen(c->msg);
		snprintf(c->msg + k, sizeof c->msg - k, " at TILE=%d, the launch's (the GPU time "
		         "model's run; the analysis ran at TILE=%d, where a warp spans other rows)",
		         w->tile, lesson_analysis_tile(o->l));
	}
}

#define COALESCE_MARGIN CHECK_COALESCE_MARGIN

/* The global site with the largest sectors/ideal ratio among the uncoalesced ones
 * (check_uncoalesced), else among all; *ratio = that ratio, *bad = it is uncoalesced. */
static cJSON *worst_global(const check_report *rep, double *ratio, int *bad)
{
	cJSON *s, *worst = NULL, *sites = rep->analysis ? cJSON_GetObjectItem(rep->analysis, "global_sites") : NULL;
	*ratio = 0, *bad = 0;
	cJSON_ArrayForEach(s, sites) {
		cJSON *sec = cJSON_GetObjectItem(s, "sectors"), *id = cJSON_GetObjectItem(s, "ideal_sectors");
		cJSON *req = cJSON_GetObjectItem(s, "requests");
		if (!cJSON_IsNumber(sec) || !cJSON_IsNumber(id) || id->valuedouble <= 0 ||
		    !cJSON_IsNumber(req) || req->valuedouble <= 0)
			continue;
		double r = sec->valuedouble / id->valuedouble;
		int u = check_uncoalesced(sec->valuedouble / req->valuedouble,
		                          id->valuedouble / req->valuedouble);
		if ((u && !*bad) || (u == *bad && r > *ratio))
			*ratio = r, worst = s, *bad = u;
	}
	return worst;
}

void crit_coalesced(const check_opts *o, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_COALESCED);
	double ratio;
	int bad;
	cJSON *w = worst_global(rep, &ratio, &bad);
	if (rep->analysis_failed && !bad) {
		crit_set(c, CRIT_FAIL, CRIT_ANALYSIS_TRY, "not shown: %s", rep->analysis_failure);
		return;
	}
	if (!rep->analysis) {
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: %s",
		    rep->analysis_note[0] ? rep->analysis_note : "the kernel did not run");
		return;
	}
	if (!w) {
		crit_set(c, CRIT_NOT_CHECKED, NULL, "no global access in a full warp to check");
		return;
	}
	double req = cJSON_GetObjectItem(w, "requests")->valuedouble;
	double spr = cJSON_GetObjectItem(w, "sectors")->valuedouble / req;
	double ideal = cJSON_GetObjectItem(w, "ideal_sectors")->valuedouble / req;
	const char *var = cJSON_GetStringValue(cJSON_GetObjectItem(w, "variable"));
	const char *acc = cJSON_GetStringValue(cJSON_GetObjectItem(w, "access"));
	int line = cJSON_GetObjectItem(w, "line")->valueint, col = cJSON_GetObjectItem(w, "column")->valueint;
	if (bad)
		crit_set(c, CRIT_FAIL, o->l->kind->coalesce_try ? o->l->kind->coalesce_try :
		    "make consecutive get_local_id(0) touch consecutive addresses in every global load "
		    "and store", "%s:%d:%d: the %s %s %s needs %.1f sectors "
		    "(32 bytes each) per warp request where %.1f would do (%.1fx; coalesced is within %.0fx "
		    "or %.0f sectors): "
		    "neighbouring work-items touch far-apart addresses", o->kernel, line, col,
		    acc ? acc : "access", acc && strcmp(acc, "store") == 0 ? "to" : "of",
		    var ? var : "?", spr, ideal, ratio, COALESCE_MARGIN, CHECK_COALESCE_SLACK);
	else
		crit_set(c, CRIT_PASS, NULL, "every global load and store within %.0fx (or %.0f sectors) of its "
		    "ideal sectors per warp request (worst: line %d, %.1f vs %.1f)", COALESCE_MARGIN,
		    CHECK_COALESCE_SLACK, line, spr, ideal);
}

/* correct: right natively, wrong at the size the Oclgrind analysis ran at (done: the
 * native runs that finished). */
void crit_correct_analysis_wrong(const check_opts *o, check_report *rep, int done)
{
	check_crit *c = check_crit_find(rep, CRIT_CORRECT);
	const check_child *ch = &rep->child;
	const check_analysis_run *ar = &rep->analyses[rep->analysis_wrong_at];
	int all = done == ch->nruns && !rep->child_crashed && !rep->child_timed_out;
	const check_finding *f = NULL;
	for (int k = 0; k < FIND_KINDS && !f; k++)
		f = rep->an.nfind[k] ? &rep->an.find[k][0] : NULL;
	char why[200] = "";
	/* past a __local array: the result's pattern over the output says nothing of where */
	int local = f == &rep->an.find[FIND_OUT_OF_BOUNDS][0] && cause_local_oob(f);
	if (f)
		snprintf(why, sizeof why, "%s Oclgrind found %s on line %d there, which explains "
		         "it", local ? ":" : ";", local ? "an access past a __local array" :
		         f == &rep->an.find[FIND_OUT_OF_BOUNDS][0] ? "an out-of-bounds access" :
		         f == &rep->an.find[FIND_DATA_RACE][0] ? "a data race" :
		         f == &rep->an.find[FIND_UNINITIALIZED][0] ? "an uninitialised read" :
		         "a divergent barrier", f->line);
	char try_[300], at[40] = "";
	if (f)
		snprintf(try_, sizeof try_, "fix the finding Oclgrind names (memory_safe / "
		         "race_free): the result depends on it");
	else if (ar->tile > 0 && ar->tile != o->l->tile)   /* built at another TILE (lesson.h) */
		snprintf(try_, sizeof try_, "the analysis builds the kernel at TILE=%d, the runs "
		         "at TILE=%d: write every size in terms of TILE (a block or tile size written "
		         "as a number, like 128 or 16 * WPT, is wrong at the other TILE)", ar->tile,
		         o->l->tile);
	else
		snprintf(try_, sizeof try_, "the kernel must compute the same thing at every size: "
		         "look for a condition on the size arguments that changes what it does");
	if (ar->tile > 0 && ar->tile != o->l->tile)
		snprintf(at, sizeof at, " at TILE=%d", ar->tile);
	crit_set(c, CRIT_FAIL, try_,
	    "wrong at %s, the size the Oclgrind analysis ran at%s (seed %llu)%s: %s%s",
	    KIND_SIZE(o->l->kind, ar->rows, ar->cols), at, (unsigned long long)o->seed,
	    all ? ", though right at every other size" : "", local ? "" : rep->analysis_wrong,
	    why + (local ? 2 : 0));
}
