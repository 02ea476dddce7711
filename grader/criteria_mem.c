/* criteria_mem.c — memory_safe (criteria.h), judged from the guard zones of the native runs
 * and Oclgrind's out-of-bounds and uninitialised findings, with the try that names what the
 * access does wrong: an index past a __local array, a guard that misses a term of the index,
 * a __local sum begun from nothing.  Split from criteria_an.c.  Pure decisions. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The try for the first out-of-bounds access Oclgrind found, into buf, when its guard (a `?:`
 * on its line, else the `if` around it) says something: what the guard misses of the index
 * (diag_guard_gap); else, for an `if (cond)` with no `<=`, no `||`, a comparison, and no `?:`
 * of the line's own, "the index, not the guard, is wrong".  0 when neither holds. */
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
	if (line > 0 && diag_ternary_cond(source, line, cond, sizeof cond) &&   /* the ?:'s */
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
			const char *out = o->l->kind->args[o->l->kind->n_inputs];
			size_t on = strlen(out);
			if (o->l->kind->finish && !strncmp(g, out, on) && g[on] == ':')
				/* an output of one value per work-group (the reduction's partial sums)
				 * written past its end: its index, not a guard (partial[get_global_id(0)]) */
				snprintf(try_, sizeof try_, "%s", lesson_say(o->l, KS_INDEX_TRY));
			else if (!index_past_guard(o, source, rep, before, try_, sizeof try_))
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
		char sum[64];
		int dl, ul;
		if (unset && (rep->added_unset = local_added_unset(source, rep, try_, sizeof try_)))
			unset = 0;                            /* a __local sum begun from garbage */
		else if (unset && source && diag_unset_sum(source, sum, sizeof sum, &dl, &ul)) {
			unset = 0;                            /* a private sum begun from garbage */
			rep->added_unset = 1;
			snprintf(try_, sizeof try_, "line %d adds into %s, declared on line %d without a "
			         "value: a private variable starts undefined, so the sum begins from "
			         "garbage -- give %s its first value (0) before the loop that adds into "
			         "it", ul, sum, dl, sum);
		}
		if (unset)                                    /* a value unset */
			snprintf(try_, sizeof try_, "a value was used before anything wrote it: give "
			         "every private variable a value before adding into it (a sum starts "
			         "at 0), and read a __local element only after some work-item has "
			         "written it and a barrier has passed");
		else if (!rep->added_unset && !local_overrun(source, rep, try_, sizeof try_) &&
		         !index_past_guard(o, source, rep, place == OOB_BEFORE, try_, sizeof try_))
			snprintf(try_, sizeof try_, "%s", lesson_say(o->l, KS_OOB_TRY));
		for (int i = 0; i < ch->nruns && !rep->added_unset; i++)
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

