/* criteria_an.c — the criteria judged from the Oclgrind analysis (criteria.h): race_free,
 * uses_local, conflict_free, coalesced, from the typed analysis (rep->an) and the tracer's
 * summary (memory_safe: criteria_mem.c).  Pure decisions: no OpenCL, no printing. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"
#include "cause.h"
#include "criteria.h"
#include "diag.h"
#include "trace.h"

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

/* A race the kernel's design makes, which no barrier added between the racing lines fixes:
 * a double buffer of which every use names one half (As[cur] staged and read in one step),
 * CUDA's warp-synchronous last steps.  1 when c is set. */
static int race_by_design(const char *source, const check_report *rep, const char *var,
                          const char *found, check_crit *c)
{
	char sub[64], try_[400];
	if (diag_one_buffer(source, var, sub, sizeof sub)) {
		snprintf(try_, sizeof try_, "stage each step into one buffer and read the other: the "
		         "stores into %s[t & 1] while the step's reads come from %s[(t & 1) ^ 1], the "
		         "buffer the step before filled, with one barrier per step after the staging",
		         var, var);
		crit_set(c, CRIT_FAIL, try_, "%s -- %s is a double buffer, yet every use names %s[%s]: "
		    "the step stages into the buffer it reads, so work-items overwrite values others "
		    "still read (and those are two steps old); a barrier between them would not make "
		    "the step right", found, var, var, sub);
		return 1;
	}
	if (rep->an.races_global == 0 && diag_warp_sync(source)) {
		crit_set(c, CRIT_FAIL, "keep barrier(CLK_LOCAL_MEM_FENCE) after every step of the tree, "
		    "the last ones too: OpenCL promises nothing of warps, and volatile orders no work-item "
		    "against another", "%s -- the last steps run without a barrier for the work-items "
		    "below 32 through a volatile __local array (CUDA's warp-synchronous unrolling): a "
		    "warp's lanes need not run in step, on a GPU either (Volta and later schedule them "
		    "apart)", found);
		return 1;
	}
	return 0;
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
	char div[500], own[400];
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
	else if (found[0] && race_by_design(source, rep, var, found, c))
		;   /* a double buffer's one half, a warp-synchronous tree */
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
		         "model's run; the analysis ran at TILE=%d, where a warp holds other work-items)",
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
