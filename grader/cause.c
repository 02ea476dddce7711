/* cause.c — one diagnosis over every criterion's evidence: which failure is the cause, and
 * which failures are its symptoms (cause.h).  Kind-agnostic: the words come from the
 * findings' lines and the criteria's own messages. */
#include <stdio.h>
#include <string.h>

#include "cause.h"

check_crit *check_crit_find(check_report *rep, lesson_crit id)
{
	for (int i = 0; i < rep->ncrit; i++)
		if (rep->crit[i].id == id)
			return &rep->crit[i];
	return NULL;
}

static int failed(check_report *rep, lesson_crit id)
{
	const check_crit *c = check_crit_find(rep, id);
	return c && c->status == CRIT_FAIL;
}

static int guard_writes(const check_report *rep);

/* The cause the analysis' findings show, strongest first: a barrier not every work-item
 * reaches makes everything after it undefined; a race on __local memory makes a result
 * depend on timing; an out-of-bounds access reads or writes what is not the kernel's; two
 * work-items storing to one element lose one of them; an unwritten value is garbage. */
static void cause_of_findings(check_report *rep, check_cause *c)
{
	const check_analysis *an = &rep->an;
	char at[32];   /* " at line N", or "" where Oclgrind gave no line (a merged store) */
	memset(c, 0, sizeof *c);
	int local_races = an->nfind[FIND_DATA_RACE] - an->races_global, local_oob = 0;
	for (int i = 0; i < an->nfind[FIND_OUT_OF_BOUNDS] && i < CHECK_FIND_KEEP; i++)
		local_oob |= cause_local_oob(&an->find[FIND_OUT_OF_BOUNDS][i]);
	/* an index past a __local array lands in the next row's cells, or another work-item's:
	 * the race Oclgrind reports beside it follows from the overrun (l6_tile_for_16.cl) */
	if (local_oob && failed(rep, CRIT_MEMORY_SAFE))
		local_races = 0;
	if (an->nfind[FIND_BARRIER_DIVERGENCE] && failed(rep, CRIT_RACE_FREE)) {
		c->kind = CAUSE_DIVERGENCE, c->crit = CRIT_RACE_FREE;
		c->line = an->find[FIND_BARRIER_DIVERGENCE][0].line;
		snprintf(at, sizeof at, c->line > 0 ? " on line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the barrier%s that not every work-item of a "
		         "work-group reaches", at);
	} else if (local_races > 0 && failed(rep, CRIT_RACE_FREE)) {
		c->kind = CAUSE_LOCAL_RACE, c->crit = CRIT_RACE_FREE;
		c->line = an->find[FIND_DATA_RACE][0].line;
		snprintf(at, sizeof at, c->line > 0 ? " at line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the data race on __local memory%s (a work-item "
		         "reads what another writes with no barrier between)", at);
	} else if (an->nfind[FIND_OUT_OF_BOUNDS] && failed(rep, CRIT_MEMORY_SAFE)) {
		c->kind = CAUSE_OUT_OF_BOUNDS, c->crit = CRIT_MEMORY_SAFE;
		c->line = an->find[FIND_OUT_OF_BOUNDS][0].line;
		c->local = cause_local_oob(&an->find[FIND_OUT_OF_BOUNDS][0]);
		snprintf(at, sizeof at, c->line > 0 ? " at line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the out-of-bounds access%s%s", c->local ?
		         " of __local memory" : "", at);
	} else if (an->nfind[FIND_DATA_RACE] && an->races_global == an->nfind[FIND_DATA_RACE] &&
	           guard_writes(rep) && failed(rep, CRIT_MEMORY_SAFE)) {
		/* two work-items on one element of a buffer that the runs also wrote past: the
		 * store's guard lets through indices that run off a row into the next one's */
		c->kind = CAUSE_OUT_OF_BOUNDS, c->crit = CRIT_MEMORY_SAFE;
		c->line = an->find[FIND_DATA_RACE][0].line;
		snprintf(at, sizeof at, c->line > 0 ? " at line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the store past its buffer%s (its guard lets "
		         "through indices that land on other work-items' elements)", at);
	} else if (an->nfind[FIND_DATA_RACE] && failed(rep, CRIT_RACE_FREE)) {
		c->kind = CAUSE_GLOBAL_RACE, c->crit = CRIT_RACE_FREE;
		c->line = an->find[FIND_DATA_RACE][0].line;
		snprintf(at, sizeof at, c->line > 0 ? " at line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the data race on __global memory%s (two "
		         "work-items on one element)", at);
	} else if (an->nfind[FIND_UNINITIALIZED] && failed(rep, CRIT_MEMORY_SAFE)) {
		c->kind = CAUSE_UNINITIALIZED, c->crit = CRIT_MEMORY_SAFE;
		c->line = an->find[FIND_UNINITIALIZED][0].line;
		snprintf(at, sizeof at, c->line > 0 ? " at line %d" : "", c->line);
		snprintf(c->what, sizeof c->what, "the read of an uninitialised value%s", at);
	}
}

int cause_local_oob(const check_finding *f)
{
	return strstr(f->message, "local memory") != NULL ||
	       strstr(f->message, "exceeds static array") != NULL;
}

/* Was a run right at a size with no partial work-group (a multiple of TILE in each of the
 * kind's dimensions)? */
static int right_without_edge(const check_report *rep)
{
	const lesson *l = rep->opts.l;
	for (int i = 0; i < rep->child.nruns; i++) {
		const check_run *r = &rep->child.runs[i];
		int t = r->tile > 0 ? r->tile : l->tile;
		int whole = r->cols % t == 0 && (l->kind->dims == 1 || r->rows % t == 0);
		if (r->done && r->cmp.passed && whole && r->rows * r->cols > 1)
			return 1;
	}
	return 0;
}

/* Did a native run write past a buffer (guard zones)? */
static int guard_writes(const check_report *rep)
{
	for (int i = 0; i < rep->child.nruns; i++)
		if (rep->child.runs[i].violations)
			return 1;
	return 0;
}

/* Does cause c explain criterion id's failure?  Wrong results follow from every cause; a
 * native write past a buffer, or a read of __local memory never written (memory_safe with no
 * out-of-bounds finding), from a barrier some work-items skip; a crash from that or from an
 * out-of-bounds access; a hang from the barrier; two work-items on one __global element from
 * work-items past the end that store out of bounds, onto another one's element; global bytes
 * a tiled kernel seems to load beyond its tiles, from loads past the edge. */
static int explains(const check_report *rep, const check_cause *c, lesson_crit id)
{
	const check_analysis *an = &rep->an;
	switch (id) {
	case CRIT_CORRECT:   /* an unwritten value the edge work-items read explains only a result
	                        that is right where no work-item is past the edge; a result whose
	                        pattern names its own cause (the box the kernel adds) has it */
		return !rep->correct_settled && (c->kind != CAUSE_UNINITIALIZED ||
		       right_without_edge(rep) || rep->added_unset);
	case CRIT_MEMORY_SAFE:   /* an unwritten __local value is what a skipped or missing barrier
	                            leaves: read before the work-item that writes it has */
		return (c->kind == CAUSE_DIVERGENCE && !an->nfind[FIND_OUT_OF_BOUNDS]) ||
		       (c->kind == CAUSE_LOCAL_RACE && !an->nfind[FIND_OUT_OF_BOUNDS] &&
		        an->nfind[FIND_UNINITIALIZED] > 0 && !guard_writes(rep));
	case CRIT_RACE_FREE:     /* work-items past the end store onto another one's element;
	                            an index past a __local array lands in another's cells */
		return c->kind == CAUSE_OUT_OF_BOUNDS && an->nfind[FIND_DATA_RACE] &&
		       (an->races_global == an->nfind[FIND_DATA_RACE] || c->local) &&
		       !an->nfind[FIND_BARRIER_DIVERGENCE];
	case CRIT_USES_LOCAL:    /* loads past the edge add global bytes the tiles never needed */
		return c->kind == CAUSE_OUT_OF_BOUNDS && an->local_loads > 0;
	case CRIT_RUNS:
		return (c->kind == CAUSE_DIVERGENCE && (rep->child_timed_out || rep->child_crashed)) ||
		       (c->kind == CAUSE_OUT_OF_BOUNDS && rep->child_crashed);
	default:
		return 0;
	}
}

/* Lead a symptom's message with its cause, and send its try to the cause's.  When the cause
 * makes results depend on timing (a race, a skipped barrier), what the criterion read into
 * them (after " -- ", the grader's mark of a reading rather than a fact: a size pattern, a
 * kind's remark) goes, since the cause explains it; an out-of-bounds access of __global memory
 * keeps it (which sizes go wrong says where the access leaves the buffer), one of __local
 * memory does not (its index is the work-group's, whatever the size).  garbage: the cause is a __local
 * sum begun from an unwritten value (rep->added_unset), which makes results as
 * arbitrary as a race does. */
static void mark_symptom(check_crit *s, const check_crit *cause, const check_cause *c,
                         int garbage, int branch)
{
	char msg[sizeof s->msg], try_[sizeof s->try_];
	int timing = c->kind == CAUSE_DIVERGENCE || c->kind == CAUSE_LOCAL_RACE ||
	             c->kind == CAUSE_GLOBAL_RACE || (c->kind == CAUSE_UNINITIALIZED && garbage) ||
	             c->local;   /* past a __local array: the sizes do not say where */
	const char *guess = timing ? strstr(s->msg, " -- ") : NULL;
	int facts = guess ? (int)(guess - s->msg) : (int)strlen(s->msg);
	snprintf(msg, sizeof msg, "a symptom of %s (%s): %.*s", c->what, lesson_crit_id(cause->id),
	         facts, s->msg);
	if (!timing && s->id == CRIT_CORRECT && s->try_[0] && !branch)
		/* its own try says how the sizes it fails at reach outside the buffer (a divisibility
		 * test's branch, another reading of the sizes, is not the cause's) */
		snprintf(try_, sizeof try_, "%s", s->try_);
	else
		snprintf(try_, sizeof try_, "fix the cause first, then check again: %s", cause->try_);
	memcpy(s->msg, msg, sizeof msg);
	memcpy(s->try_, try_, sizeof try_);
	s->caused = 1;
	s->caused_by = cause->id;
}

void cause_apply(const check_opts *o, check_report *rep)
{
	(void)o;
	check_cause c;
	cause_of_findings(rep, &c);
	const check_crit *cc = c.kind ? check_crit_find(rep, c.crit) : NULL;
	if (!cc)
		return;
	for (int i = 0; i < rep->ncrit; i++) {
		check_crit *s = &rep->crit[i];
		if (s->status == CRIT_FAIL && s->id != c.crit && explains(rep, &c, s->id)) {
			mark_symptom(s, cc, &c, rep->added_unset, rep->correct_from_branch);
			c.nexplains++;
		}
	}
	if (c.nexplains)
		rep->cause = c;
}

const char *check_first_failure(const check_report *rep)
{
	if (rep->cause.kind != CAUSE_NONE)
		return lesson_crit_id(rep->cause.crit);
	for (int i = 0; i < rep->ncrit; i++)
		if (rep->crit[i].status == CRIT_FAIL)
			return lesson_crit_id(rep->crit[i].id);
	return NULL;
}
