/* criteria.c — the criteria stage (criteria.h): turn what the stages measured into ✓/✗ per
 * criterion, each ✗ with the reason and what to try; here the build, the runs, correctness
 * and speed, and the verdict; the criteria judged from the Oclgrind analysis are in
 * criteria_an.c.  Pure decisions: no OpenCL, no printing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "check.h"
#include "check_prep.h"
#include "criteria.h"
#include "regest.h"
#include "tilechoice.h"
#include "diag.h"
#include "bank.h"
#include "trace.h"


void crit_set(check_crit *c, check_status st, const char *try_, const char *fmt, ...)
{
	if (!c)
		return;
	va_list ap;
	va_start(ap, fmt);
	c->status = st;
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
	snprintf(c->try_, sizeof c->try_, "%s", try_ ? try_ : "");
}

int crit_findings(const check_report *rep, check_find_kind k1, int k2, char *buf, size_t len)
{
	const check_analysis *an = &rep->an;
	int n1 = an->nfind[k1], n2 = k2 >= 0 ? an->nfind[k2] : 0;
	int kept1 = n1 < CHECK_FIND_KEEP ? n1 : CHECK_FIND_KEEP;
	int kept2 = n2 < CHECK_FIND_KEEP ? n2 : CHECK_FIND_KEEP;
	size_t pos = 0;
	buf[0] = '\0';
	for (int i = 0, j = 0, quoted = 0; quoted < 3 && (i < kept1 || j < kept2) && pos < len; quoted++) {
		const check_finding *f = j >= kept2 || (i < kept1 && an->find[k1][i].order <
		                         an->find[k2][j].order) ? &an->find[k1][i++] : &an->find[k2][j++];
		char with[48] = "";
		if (f->other_line > 0)
			snprintf(with, sizeof with, " (with line %d)", f->other_line);
		char at[48] = "";   /* Oclgrind gives no line for some findings: no ":0:0" then */
		if (f->line > 0)
			snprintf(at, sizeof at, ":%d:%d", f->line, f->column);
		int k = snprintf(buf + pos, len - pos, "%s%s%s: %s%s", pos ? "; " : "",
		                 rep->opts.kernel, at, f->message, with);
		pos = k > 0 ? pos + (size_t)k : pos;
	}
	return n1 + n2;
}

/* The build's first error is on a line that declares a name the grader defines with -D
 * (TILE): the compiler saw the grader's number in its place. */
static void own_macro_note(const check_opts *o, const char *source, const char *first,
                           char *msg, size_t len)
{
	const char *at = strstr(first, ".cl:");
	int line = at ? atoi(at + 4) : 0;
	if (line > 0 && source && diag_declares(source, line, "TILE"))
		snprintf(msg + strlen(msg), len - strlen(msg), " -- line %d declares TILE, which the "
		         "grader defines for each build (-DTILE=%d): the compiler reads your declaration "
		         "with %d in the name's place", line, o->l->tile, o->l->tile);
}

/* The compiler refused the kernel: its first error, in the student's file, with a note when
 * the kernel's own TILE clashes with the grader's -DTILE. */
static void compile_error(const check_opts *o, const char *source, const check_child *ch,
                          check_crit *c)
{
	char first[600];
	diag_first_error(ch->build_log, first, sizeof first);
	crit_set(c, CRIT_FAIL, "fix the first error first: later ones often follow from it",
	    "%s", first[0] ? first : "the build failed");
	if (!first[0])
		snprintf(c->msg, sizeof c->msg, "the build failed (%s)", clrun_errstr(ch->build_err));
	own_macro_note(o, source, first, c->msg, sizeof c->msg);
	if (strstr(c->msg, "declares TILE"))
		snprintf(c->try_, sizeof c->try_, "remove your own TILE and use the grader's: "
		         "every build gets it as -DTILE, and lesson 4 builds at several");
}

static void eval_builds(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_BUILDS);
	const check_child *ch = &rep->child;
	char first[600];
	if (rep->refused[0])
		crit_set(c, CRIT_FAIL, check_prep_try(rep->refused), "%s", rep->refused);
	else if (!ch->built && ch->build_err != 0)
		compile_error(o, source, ch, c);
	else if (!ch->built && rep->control_build == 1) {
		crit_set(c, CRIT_FAIL, "look for what makes the compiler run away: a huge expression or "
		    "macro expansion, a large __constant array, a loop it must unroll without end",
		    "the kernel did not build within the grader's limits (the child %s), though the "
		    "lesson's reference solution builds under the same limits", rep->run_end);
	} else if (!ch->built && rep->child_timed_out) {
		/* the probe gets --timeout S for the lesson's build and S/2 for each further TILE's
		 * (check_dev.c): one that takes longer is a grader that is overloaded */
		crit_set(c, CRIT_NOT_CHECKED, NULL, "the grader could not build the kernel within its "
		    "time limit (--timeout %g s; the child %s): the machine may be overloaded; raise "
		    "--timeout", o->timeout_s, rep->run_end);
		rep->grader_failed = 1;
	} else if (!ch->built && o->mem_bytes && rep->child_crashed) {
		/* the compiler itself ran out of the address space --memory gives the child */
		crit_set(c, CRIT_NOT_CHECKED, NULL, "the grader could not build the kernel within its "
		    "--memory limit of %zu MiB (the child %s): raise --memory", o->mem_bytes >> 20,
		    rep->run_end);
		rep->grader_failed = 1;
	} else if (!ch->built)
		crit_set(c, CRIT_FAIL, "", "the grader's child %s", rep->run_end);
	else if (!ch->kernel_found)
		crit_set(c, CRIT_FAIL, "keep the kernel's name and signature exactly as the lesson gives them",
		    "the file builds but has no kernel named %s", o->l->kernel);
	else if (ch->signature[0])
		crit_set(c, CRIT_FAIL, "keep the kernel's parameter list exactly as the lesson gives it; "
		    "anything else the kernel needs (a __local tile, a size) it declares or computes "
		    "inside", "%s", ch->signature);
	else {
		crit_set(c, CRIT_PASS, NULL, "built with -DTILE=%d on %s", o->l->tile, ch->dev.name);
		for (int i = 0; i < ch->ntiles; i++) {
			const check_tile *t = &ch->tiles[i];
			if (t->built || t->err == CL_INVALID_WORK_GROUP_SIZE)
				continue;  /* a TILE the device cannot hold is not a build failure */
			diag_first_error(ch->build_log, first, sizeof first);
			crit_set(c, CRIT_FAIL, "the kernel must build for every TILE the grader passes: write it "
			    "in terms of TILE, with no #if on its value", "builds at TILE=%d but not at "
			    "TILE=%d: %s", o->l->tile, t->tile, first[0] ? first : clrun_errstr(t->err));
			break;
		}
	}
}

static const check_run *first_launch_error(const check_child *ch)
{
	for (int i = 0; i < ch->nruns; i++)
		if (ch->runs[i].err != CL_SUCCESS)
			return &ch->runs[i];
	return ch->wide_planned && ch->wide.err != CL_SUCCESS ? &ch->wide : NULL;   /* the wide run's */
}

/* What to look for when the runs timed out: an endless loop, a skipped barrier (when the
 * kernel has one), or work that grows too fast (the kind's words); into buf. */
static const char *timeout_try(const check_opts *o, const char *source, char *buf, size_t len)
{
	if (diag_has_barrier(source))
		snprintf(buf, len, "look for a loop whose bound or index never changes for some "
		         "work-item, a barrier inside a branch that not every work-item takes, or far "
		         "more work than the lesson needs (%s)", lesson_say(o->l, KS_WORK_GROWS));
	else
		snprintf(buf, len, "look for a loop whose bound or index never changes for some "
		         "work-item (a loop on a value the kernel never updates, or a counter stepping "
		         "the wrong way), or far more work than the lesson needs (a loop nest deeper "
		         "than the lesson's, or a stride that revisits elements: the sizes checked "
		         "grow large)");
	return buf;
}

/* The device refused the launch's work-group.  When its work-items fit the maximum, the size
 * is not what it refused: a reqd_work_group_size in the kernel other than the launch's is. */
static void refused_group(const check_opts *o, const char *source, check_crit *c,
                          const check_child *ch, const check_run *bad)
{
	int need = o->l->kind->group_size(bad->tile);
	size_t allowed = ch->kernel_max_wg < ch->dev.max_wg && ch->kernel_max_wg ?
	                 ch->kernel_max_wg : ch->dev.max_wg;
	if ((size_t)need <= allowed && source && strstr(source, "reqd_work_group_size"))
		crit_set(c, CRIT_FAIL, "make the kernel's reqd_work_group_size(...) the lesson's local "
		    "size (the lesson's README gives it), or remove the attribute", "the device "
		    "refused the launch's work-group of %d work-items at TILE=%d although it allows "
		    "%zu (%s): the kernel's __attribute__((reqd_work_group_size(...))) asks for "
		    "another local size than the lesson launches", need, bad->tile, allowed,
		    clrun_errstr(bad->err));
	else if ((size_t)need <= allowed)
		crit_set(c, CRIT_FAIL, "the kernel must accept the lesson's local size (the lesson's "
		    "README gives it): look for what in it fixes another one", "the device refused the "
		    "launch's work-group of %d work-items at TILE=%d although it allows %zu (%s)",
		    need, bad->tile, allowed, clrun_errstr(bad->err));
	else
		crit_set(c, CRIT_FAIL, "use a smaller TILE: a work-group's work-items must fit the device's "
		    "maximum work-group size", "the device refused a work-group at TILE=%d: %d "
		    "work-items needed, %zu allowed (%s)", bad->tile, need, allowed,
		    clrun_errstr(bad->err));
}

static void eval_runs(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_RUNS);
	const check_child *ch = &rep->child;
	const check_run *bad = first_launch_error(ch);
	char crash_try[400], slow_try[400];
	snprintf(crash_try, sizeof crash_try, "a crash of the host after a kernel ran is almost "
	         "always an access outside a buffer (a write that corrupted the host's memory, or a "
	         "read far past the end): guard every load and store (%s)",
	         lesson_say(o->l, KS_GUARD));
	if (rep->child_timed_out)
		crit_set(c, CRIT_FAIL, timeout_try(o, source, slow_try, sizeof slow_try), "%s",
		    rep->run_end);
	else if (rep->child_crashed)
		crit_set(c, CRIT_FAIL, crash_try, "%s", rep->run_end);
	else if (ch->over_budget)
		crit_set(c, CRIT_FAIL, "shrink the __local arrays (a smaller TILE, fewer or smaller arrays): "
		    "`build/clgrade occupancy` shows what each size costs", "over the local-memory "
		    "budget: the kernel needs %zu bytes of __local memory per work-group, %s %zu%s; "
		    "not launched", ch->local_bytes, o->local_mem || ch->local_limit >= ch->dev.local_mem ?
		    "the device allows" : "the lessons' GPU allows", ch->local_limit,
		    o->local_mem && o->local_mem < ch->dev.local_mem ? " (--local-mem)" :
		    ch->local_limit < ch->dev.local_mem ? " (NVIDIA's OpenCL on an H200; this CPU "
		    "device emulates more, and --local-mem sets another budget)" :
		    " (CL_DEVICE_LOCAL_MEM_SIZE)");
	else if (bad && (bad->err == CL_INVALID_WORK_GROUP_SIZE || bad->err == CL_INVALID_WORK_ITEM_SIZE))
		refused_group(o, source, c, ch, bad);
	else if (bad && ch->local_bytes > ch->dev.local_mem)
		crit_set(c, CRIT_FAIL, "shrink the __local arrays (a smaller TILE, or fewer arrays)",
		    "the kernel needs %zu bytes of __local memory per work-group; the device has "
		    "%llu (%s)", ch->local_bytes, ch->dev.local_mem, clrun_errstr(bad->err));
	else if (bad && (bad->err == CL_INVALID_KERNEL_ARGS || bad->err == CL_INVALID_ARG_SIZE ||
	                 bad->err == CL_INVALID_ARG_VALUE || bad->err == CL_INVALID_ARG_INDEX))
		crit_set(c, CRIT_FAIL, "keep the kernel's parameter list exactly as the lesson gives it "
		    "(pointers to float, then const int)", "the grader could not pass the lesson's "
		    "arguments to the kernel: %s (%d)", clrun_errstr(bad->err), bad->err);
	else if (bad)
		crit_set(c, CRIT_FAIL, "an error reported while the kernel ran is almost always an "
		    "out-of-bounds access: guard every load and store with the real size",
		    "the device reported an error running the kernel at %s: %s (%d)%s",
		    KIND_SIZE(o->l->kind, bad->rows, bad->cols), clrun_errstr(bad->err), bad->err, bad->err == -9999 ? ", NVIDIA's code "
		    "for an illegal memory access" : "");
	else
		crit_set(c, CRIT_PASS, NULL, "%d runs, no crash, no timeout", ch->nruns);
	(void)o;
}

/* correct: the first wrong run's pattern, and the cause the sizes, the output or the
 * interpreter point at. */
/* The kernel tests its size's divisibility by some 2^k (ptrcheck_size.c), and the native
 * runs are wrong exactly at the sizes that are multiples of it: the branch it picks there is
 * what is wrong, not a hard-coded size or the edges.  1 with extra and try_ written. */
static int divisible_wrong(const check_opts *o, const check_report *rep, char *extra,
                           size_t elen, char *try_, size_t tlen)
{
	const check_child *ch = &rep->child;
	for (int k = 16; k >= 1; k--)
		for (int at_multiples = 1; at_multiples >= 0; at_multiples--) {
			int d = 1 << k, wrong = 0, right = 0, fits = 1;
			long right_big = 0, wrong_small = 0;   /* the largest right, the smallest wrong */
			if (!(rep->size_div_mask & (1u << k)))
				continue;
			for (int i = 0; i < ch->nruns && fits; i++) {
				const check_run *r = &ch->runs[i];
				if (!r->done || (long)r->rows * r->cols == 1)
					continue;   /* one element hides most mistakes: it tells no branch */
				int multiple = r->cols % d == 0 && (o->l->kind->dims == 1 || r->rows % d == 0);
				int bad = !r->cmp.passed;
				long area = (long)r->rows * r->cols;
				fits = (multiple == at_multiples) == bad;
				wrong += bad, right += !bad;
				if (!bad && area > right_big)
					right_big = area;
				if (bad && (!wrong_small || area < wrong_small))
					wrong_small = area;
			}
			/* the branch is read only where a right size is near a wrong one's (within 4x
			 * a side): sizes right only because they are small (17 x 17 against a block of
			 * 128, wrong from 100 x 100 on) tell none */
			if (!fits || !wrong || !right || right_big * 16 < wrong_small)
				continue;
			const char *where = at_multiples ? "a multiple" : "no multiple";
			snprintf(extra, elen, " -- wrong at every size that is %s of %d and right at every "
			         "other: the branch your test at %s takes there is what is wrong (no size "
			         "is hard-coded)", where, d, rep->size_div_at);
			snprintf(try_, tlen, "check the code the test at %s picks when the size is %s of "
			         "%d, against the other branch, which is right", rep->size_div_at, where, d);
			return 1;
		}
	return 0;
}

static void correct_wrong(const check_opts *o, const char *source, check_report *rep,
                          const check_run *bad, int findings)
{
	check_crit *c = check_crit_find(rep, CRIT_CORRECT);
	const check_child *ch = &rep->child;
	char extra[400] = "", try_[300] = "compare your index arithmetic with the lesson's "
	                                  "text for this size";
	diag_size sizes[CHECK_MAX_RUNS];
	int ns = 0;
	for (int i = 0; i < ch->nruns; i++)
		if (ch->runs[i].done)
			sizes[ns++] = (diag_size){ ch->runs[i].rows, ch->runs[i].cols,
			                           ch->runs[i].cmp.passed,
			                           ch->runs[i].cmp.nonfinite > 0 };
	const check_run *nonzero = NULL;   /* a run whose output is not all 0 */
	for (int i = 0; i < ch->nruns && !nonzero; i++)
		if (ch->runs[i].done && !ch->runs[i].cmp.all_zero)
			nonzero = &ch->runs[i];
	int small = bad->rows < o->l->tile || bad->cols < o->l->tile;
	char pattern[sizeof bad->cmp.pattern];
	snprintf(pattern, sizeof pattern, "%s", bad->cmp.pattern);
	if (bad->cmp.all_zero && small && nonzero) {
		/* 0 only where the size is below TILE: a loop that runs no turn there */
		snprintf(pattern, sizeof pattern, "every element of %s is 0 at this size, below the "
		         "work-group's width of %d, and not at %s: the loop that adds into it runs "
		         "zero times here (a trip count that rounds down to 0, or that stops one "
		         "short, like k < n - 1)", o->l->kind->args[o->l->kind->n_inputs], o->l->tile,
		         KIND_SIZE(o->l->kind, nonzero->rows, nonzero->cols));
		snprintf(try_, sizeof try_, "%s", lesson_say(o->l, KS_ZERO_TRIP_TRY));
	} else if ((rep->correct_settled = bad->cmp.exact))   /* settled: no guess from the others */
		snprintf(try_, sizeof try_, "%s", bad->cmp.try_[0] ? bad->cmp.try_ :
		         lesson_say(o->l, KS_EXACT_TRY)[0] ? lesson_say(o->l, KS_EXACT_TRY) :
		         lesson_say(o->l, KS_ZERO_TRIP_TRY));
	else if (bad->reads_output)
		diag_reads_output(o->l->kind->args[o->l->kind->n_inputs], 0, 0, extra, 0, try_,
		                  sizeof try_);
	else if (!(rep->correct_from_branch = divisible_wrong(o, rep, extra, sizeof extra, try_,
	                                                      sizeof try_)) &&
	         !diag_sizes(o->l, sizes, ns, bad->tile, extra, sizeof extra, try_, sizeof try_))
		snprintf(try_, sizeof try_, "compare your index arithmetic with the lesson's text for "
		         "this size");   /* diag_sizes, saying nothing, emptied it */
	/* PoCL miscompiles a barrier inside an if that every work-item takes; Oclgrind,
	 * which follows the OpenCL rules, then computes the right result (verified) */
	char cond[160];
	int cl, bl = 0;
	if (rep->an.summary && !rep->analysis_wrong[0] && rep->nanalyses && !findings && source && strcmp(ch->dev.type, "CPU") == 0 &&
	    (bl = diag_barrier_in_if(source, cond, sizeof cond, &cl)) > 0) {
		/* in place of the size pattern's guess, which the verified analysis contradicts */
		snprintf(extra, sizeof extra, " -- but under Oclgrind, which follows the OpenCL "
		         "rules, it computes the right result at %s: PoCL can get a barrier inside "
		         "`if (%s)` (line %d) wrong even when every work-item takes it",
		         KIND_SIZE(o->l->kind, rep->analyses[0].rows, rep->analyses[0].cols), cond, cl);
		snprintf(try_, sizeof try_, "move the barrier on line %d out of the if: keep every "
		         "work-item on one path and guard only the loads and stores", bl);
	}
	crit_set(c, CRIT_FAIL, try_, "wrong at %s (seed %llu): %s%s",
	    KIND_SIZE(o->l->kind, bad->rows, bad->cols), (unsigned long long)o->seed,
	    pattern, extra);
}

/* correct, when no run is wrong at the lesson's inputs: not checked, wrong only on the wide
 * run's (kind.h wide_size, judged apart), or right */
static void correct_end(const check_opts *o, check_report *rep, int done, const check_run *last,
                        double maxerr)
{
	check_crit *c = check_crit_find(rep, CRIT_CORRECT);
	const check_child *ch = &rep->child;
	const check_run *unfinished = NULL, *w = &ch->wide;
	int guard_writes = 0;   /* a write past a buffer the lesson's runs made too: memory_safe's */
	for (int i = 0; i < ch->nruns; i++) {
		if (!ch->runs[i].done && !unfinished)
			unfinished = &ch->runs[i];
		guard_writes += ch->runs[i].violations > 0;
	}
	if (!done)
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not checked: the kernel did not run");
	else if (unfinished || rep->child_crashed || rep->child_timed_out || (ch->wide_planned && !w->done))
		crit_set(c, CRIT_NOT_CHECKED, NULL, "right up to %s, but not checked at every size: the "
		    "kernel did not finish %s", KIND_SIZE(o->l->kind, last->rows, last->cols), unfinished ?
		    "every run" : "the runs after it");
	else if (ch->wide_planned && (!w->cmp.passed || (w->violations && !guard_writes))) {
		char msg[sizeof c->msg], try_[sizeof c->try_];
		diag_wide(o->l, w->rows, w->cols, (unsigned long long)o->seed, w->cmp.passed ?
		          w->guard_msg : w->cmp.pattern, msg, sizeof msg, try_, sizeof try_);
		crit_set(c, CRIT_FAIL, try_, "%s", msg);
	} else   /* max_rel_error: |got - expect| / the element's scale (kind.h: bound) */
		crit_set(c, CRIT_PASS, NULL, "%d sizes up to %s, %s; largest error %.2g of the scale",
		    done, KIND_SIZE(o->l->kind, last->rows, last->cols), lesson_say(o->l, KS_SCALE),
		    maxerr);
}

static void eval_correct(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_CORRECT);
	const check_child *ch = &rep->child;
	const check_run *bad = NULL, *last = NULL;
	int done = 0, findings = 0;   /* Oclgrind's findings: they explain a wrong result there */
	for (int k = 0; k < FIND_KINDS; k++)
		findings += rep->an.nfind[k];
	double maxerr = 0;
	for (int i = 0; i < ch->nruns; i++) {
		const check_run *r = &ch->runs[i];
		if (!r->done)
			continue;
		done++;
		last = r;
		if (r->cmp.max_rel_error > maxerr)
			maxerr = r->cmp.max_rel_error;
		if (!r->cmp.passed && (!bad || (r->cmp.exact && !bad->cmp.exact)))
			bad = r;   /* the first wrong size, or one that settles the cause */
	}
	if (bad) {
		correct_wrong(o, source, rep, bad, findings);
		return;
	}
	for (int i = 0; i < ch->ntiles; i++)
		if (ch->tiles[i].built && !ch->tiles[i].correct) {
			crit_set(c, CRIT_FAIL, "write the kernel in terms of TILE only (no fixed tile size), "
			    "and guard the edges", "right at TILE=%d but wrong at TILE=%d (%s)",
			    o->l->tile, ch->tiles[i].tile, KIND_SIZE(o->l->kind, 100, 100));
			return;
		}
	/* both runtimes must agree: right natively and wrong under Oclgrind fails too */
	if (rep->analysis_wrong[0]) {
		crit_correct_analysis_wrong(o, rep, done);
		return;
	}
	/* on a CPU device a native run alone never passes: when the interpreter could not run the
	 * kernel through, for the kernel's own fault, its outputs were never confirmed */
	if (rep->analysis_failed && strcmp(ch->dev.type, "CPU") == 0 && done) {
		crit_set(c, CRIT_FAIL, "make the kernel run through under Oclgrind too (see the note on the "
		    "analysis): its results there are part of the check", "right natively, but not "
		    "confirmed under Oclgrind (%s): on a CPU device the kernel runs as native code, so "
		    "a native run alone cannot pass it", rep->analysis_failure);
		return;
	}
	correct_end(o, rep, done, last, maxerr);
}

/* Would the kernel spill registers on a GPU, by the estimate from its text (regest.h)?  Only
 * where the lesson counts its FMAs (lesson 7: the estimate is made and shown there) and the
 * device's compiler did not count them itself. */
static int spills(const check_opts *o, const check_report *rep)
{
	return o->l->kind->fma_count && rep->child.registers <= 0 && rep->reg_estimate > REGEST_MAX;
}

/* On a CPU device speed is judged from the prediction (GUIDE.md "Predicted GPU time"):
 * 1 when c is set, 0 when the measured time decides (no prediction, no GPU bar).  s is the
 * measured ratio, predicted the prediction's words. */
static int judge_predicted(const check_opts *o, check_report *rep, check_crit *c, double s,
                           const char *predicted)
{
	const check_child *ch = &rep->child;
	const check_predicted *pr = &rep->pred;
	if (!pr->ok && rep->model_cut_s > 0 && rep->model_control == 1) {
		/* a kernel heavy enough to outlast the model's launch must not lose only the
		 * prediction, and speed with it (tests/fixtures/l5_pred_model_timeout.cl) */
		c->predicted = 1;
		crit_set(c, CRIT_FAIL, "count the operations each work-item does per element it "
		    "owns: the lesson's kernel does a few, and a loop nest per element costs a GPU as "
		    "it costs the interpreter", "the GPU time model's launch "
		    "of your kernel did not finish in the %.1f s of the time limit left to it, though "
		    "the lesson's solution's does under the same limits: it does far more work per "
		    "element than the lesson needs, which a GPU pays for too (measured here: %.2fx, "
		    "not judged on a %s device)", rep->model_cut_s, s, ch->dev.type);
		return 1;
	}
	if (pr->ok && o->l->speedup_gpu > 0 && spills(o, rep)) {
		/* the model prices no spills: a kernel over NVIDIA's registers cannot be predicted
		 * (l7_spill.cl: 5.72x predicted, 0.10x measured on the H200) */
		c->predicted = 1;
		crit_set(c, CRIT_FAIL, lesson_say(o->l, KS_SPILL_TRY), "%s; but about %d registers "
		    "per work-item (the estimate under \"registers per work-item\" below) are more "
		    "than NVIDIA's %d: the rest would spill to local memory, off-chip, which the time "
		    "model does not price, so the prediction cannot pass it (measured here: %.2fx, not "
		    "judged on a %s device)", predicted, rep->reg_estimate, REGEST_MAX, s,
		    ch->dev.type);
		return 1;
	}
	if (pr->ok && o->l->speedup_gpu > 0) {
		/* a CPU cannot show what the lesson pays off on a GPU: judged from the prediction
		 * (GUIDE.md "Predicted GPU time"), against the GPU's bar */
		char why[600];
		const gpum_result *k = &pr->kernel;
		if (k->limiter == GPUM_FLOPS && k->flops_line > 0 &&
		    (k->arith_pipe != 0 || k->counted_flops > 1.1 * k->flops_nominal))
			/* the kernel's own arithmetic, beyond what the problem needs (l5_alu_chain) */
			snprintf(why, sizeof why, "line %d:%d does %.0f%% of the %s your kernel would "
			         "do on the GPU (%.3g operations, %.3g ms at its peak rate), more than the "
			         "result needs: keep only the arithmetic that goes into the result",
			         k->flops_line, k->flops_column, 100 * k->flops_share,
			         k->arith_pipe == 1 ? "special-function work (sqrt, exp, sin, division)" :
			         k->arith_pipe == 2 ? "integer arithmetic (divisions, multiplies, "
			         "shifts)" : "floating-point work",
			         k->pipe_ops[k->arith_pipe], k->term_ms[GPUM_FLOPS]);
		else if (k->limiter == GPUM_DRAM && k->private_dram && k->private_line > 0)
			/* a private array in local memory, off-chip (l5_private_spill) */
			snprintf(why, sizeof why, "line %d:%d indexes a private array with a value known "
			         "only at run time: a GPU keeps such arrays (%.0f bytes per work-item) in "
			         "local memory, off-chip, not in registers, and its traffic (%.3g bytes) "
			         "goes to the DRAM: index it with constants or counters of loops the "
			         "compiler unrolls, or keep the values in registers or __local memory",
			         k->private_line, k->private_column, k->private_per_item, k->private_bytes);
		else
			snprintf(why, sizeof why, "on a GPU your kernel would be limited by %s (the "
			         "\"predicted on\" line below); the lesson's steps say what removes that "
			         "limit", k->limiter_text);
		c->predicted = 1;
		crit_set(c, pr->speedup >= o->l->speedup_gpu ? CRIT_PASS : CRIT_FAIL, why, "%s; the bar on a GPU is %.2fx (measured here: %.2fx, not "
		    "judged on a %s device)", predicted, o->l->speedup_gpu, s, ch->dev.type);
		return 1;
	}
	return 0;
}

static void eval_speedup(const check_opts *o, check_report *rep)
{
	check_crit *c = check_crit_find(rep, CRIT_SPEEDUP);
	const check_child *ch = &rep->child;
	int gpu = strcmp(ch->dev.type, "GPU") == 0;
	double bar = gpu ? o->l->speedup_gpu : o->l->speedup_cpu;
	if (!ch->timed || ch->baseline_ms <= 0) {
		int outside = 0;
		for (int i = 0; i < ch->nruns; i++)
			outside += ch->runs[i].violations;
		crit_set(c, CRIT_NOT_CHECKED, NULL, "not timed: %s", ch->baseline_failed ?
		    "the baseline kernel failed to run" : outside ? "the kernel wrote outside a buffer" :
		    "the kernel is not correct yet");
		return;
	}
	double s = rep->view.speedup;   /* baseline_ms / kernel_ms (check_view.c) */
	const check_predicted *pr = &rep->pred;
	char measured[240], predicted[400] = "";
	if (pr->ok)
		snprintf(predicted, sizeof predicted, "predicted on %s: %.2fx at %s (%.3g ms vs "
		         "%.3g ms; limited by %s)", pr->profile->label, pr->speedup,
		         KIND_SIZE(o->l->kind, pr->rows, pr->cols),
		         pr->kernel.ms, pr->baseline.ms, pr->kernel.limiter_text);
	snprintf(measured, sizeof measured, "%.2fx the %s at %s (%.3g ms vs %.3g ms, "
	         "median of %d interleaved runs)", s, lesson_baseline_name(o->l), KIND_SIZE(o->l->kind, ch->time_rows,
	         ch->time_cols), ch->kernel_ms,
	         ch->baseline_ms, ch->time_reps);
	if (!gpu && judge_predicted(o, rep, c, s, predicted))
		return;
	if (bar <= 0) {
		/* measured, not judged: see GUIDE.md "Speedup thresholds" */
		crit_set(c, CRIT_NOT_CHECKED, NULL, "%s; not judged on a %s device: there __local memory is "
		    "ordinary cached RAM, so %s -- judge speed on a GPU (make check LESSON=%d "
		    "DEVICE=<gpu>)", measured, ch->dev.type, o->l->kind->cpu_speed_note, o->l->number);
		return;
	}
	crit_set(c, s >= bar ? CRIT_PASS : CRIT_FAIL, lesson_say(o->l, KS_SPEED_TRY),
	    "%s; the bar on a %s device is %.2fx%s%s", measured, ch->dev.type,
	    bar, predicted[0] ? "; " : "", predicted);
}


/* Can this environment judge speed?  A GPU with the lesson's bar; a CPU device from the
 * prediction (GUIDE.md "Predicted GPU time"), where the Oclgrind analysis runs, unless the
 * kernel was timed and the model could not predict it (the grader's limit, not the kernel's).
 * Then a kernel that does not build or is not correct loses the point as it does on a GPU. */
static int speed_judgeable(const check_opts *o, const check_report *rep, int no_oclgrind)
{
	if (strcmp(rep->child.dev.type, "GPU") == 0)
		return o->l->speedup_gpu > 0;
	if (o->l->speedup_cpu > 0)
		return 1;
	if (rep->model_cut_s > 0 && rep->model_control == 1)
		return o->l->speedup_gpu > 0;   /* the model's launch outlasted by the kernel's fault */
	return o->l->speedup_gpu > 0 && !no_oclgrind && !(rep->child.timed && !rep->pred.ok);
}

/* Mark what the environment, not the kernel, left unchecked: scores leave it out. */
static void mark_env(const check_opts *o, check_report *rep)
{
	int no_oclgrind = !o->analysis || rep->analysis_grader;
	for (int i = 0; i < rep->ncrit; i++) {
		check_crit *c = &rep->crit[i];
		if (c->status != CRIT_NOT_CHECKED)
			continue;
		if (c->id == CRIT_SPEEDUP)
			c->env = !speed_judgeable(o, rep, no_oclgrind);
		else if (rep->grader_failed)
			c->env = 1;
		else if (c->id == CRIT_MEMORY_SAFE || c->id == CRIT_RACE_FREE || c->id == CRIT_CONFLICT_FREE ||
		         c->id == CRIT_USES_LOCAL || c->id == CRIT_COALESCED)
			c->env = no_oclgrind;
	}
}

/* A test of the size's divisibility by 2^k takes another branch at the model's launch than at
 * the GPU's size (lesson 6's 6143 x 8191 against its model's 64 x 64), where the prediction
 * is judged; the analysis' odd sizes never take its divisible branch (Known limitations). */
static int divisibility_differs(const lesson *l, unsigned mask)
{
	lesson_size m = gpum_model_size(l->kind, l->tile), g = l->kind->time_size_gpu;
	for (int k = 1; k <= 16; k++) {
		int d = 1 << k;
		if ((mask & (1u << k)) && ((m.rows % d == 0) != (g.rows % d == 0) ||
		                           (m.cols % d == 0) != (g.cols % d == 0)))
			return 1;
	}
	return 0;
}

/* A kernel that compares its size with a constant (rep->size_tests, ptrcheck_size.c), or
 * a group's id with one (rep->group_tests), may take
 * another path at sizes the analysis did not run: what was judged from the analysis cannot
 * pass it (on a CPU device the predicted speedup is judged from the analysis too). */
static void size_tests(const check_opts *o, check_report *rep)
{
	static const lesson_crit from_analysis[] = { CRIT_RACE_FREE, CRIT_CONFLICT_FREE,
	                                             CRIT_COALESCED, CRIT_SPEEDUP };
	int div = rep->size_div_mask && divisibility_differs(o->l, rep->size_div_mask);
	int general = rep->size_tests || rep->group_tests;
	int d = rep->size_div_mask ? 1 << (31 - __builtin_clz(rep->size_div_mask)) : 0;
	if (d && rep->nanalyses && (rep->analyses[0].rows % d || rep->analyses[0].cols % d)) {
		const check_analysis_run *m = &rep->analyses[rep->nanalyses - 1];
		char also[160] = "";
		if (m->findings_only)
			snprintf(also, sizeof also, "the analysis ran at %s too, a multiple, for its races, "
			         "out-of-bounds and uninitialised accesses and its results; but ",
			         KIND_SIZE(o->l->kind, m->rows, m->cols));
		snprintf(rep->size_note, sizeof rep->size_note, "the kernel tests whether its size is "
		         "a multiple of %d at %s: %sits bank conflicts and coalescing are those of %s, "
		         "which is not, so the branch a GPU's size takes was not checked for them", d,
		         rep->size_div_at, also,
		         KIND_SIZE(o->l->kind, rep->analyses[0].rows, rep->analyses[0].cols));
	}
	if ((!general && !div) || !rep->nanalyses)
		return;
	char what[760];
	if (rep->size_tests)
		snprintf(what, sizeof what, "%s at %s", rep->size_test_what, rep->size_test_at);
	else if (rep->group_tests)
		snprintf(what, sizeof what, "compares %s with a constant at %s (the analysis runs a few "
		         "groups, the GPU time model's launch two, a GPU thousands)",
		         rep->group_test_what, rep->group_test_at);
	else
		snprintf(what, sizeof what, "tests its size's divisibility at %s, which the GPU time "
		         "model's launch and the GPU's size answer differently", rep->size_div_at);
	for (size_t i = 0; i < sizeof from_analysis / sizeof from_analysis[0]; i++) {
		check_crit *c = check_crit_find(rep, from_analysis[i]);
		int speed = c && c->id == CRIT_SPEEDUP;
		if (!c || c->status != CRIT_PASS || (speed && !c->predicted) || (!general && !speed))
			continue;
		char was[sizeof c->msg];
		snprintf(was, sizeof was, "%s", c->msg);
		crit_set(c, CRIT_FAIL, "let the size enter only the bounds of indices and loops, where "
		    "it meets a work-item's id or a loop variable: a kernel's work must not change with "
		    "its size in ways the checked sizes do not show",
		    "not vouched for: the kernel %s, so %s it may take a path that the analysis at "
		    "%s%s never ran; there: %.300s", what, rep->size_tests || !rep->group_tests ?
		    "at other sizes" : "in the groups a GPU has and the checks do not",
		    KIND_SIZE(o->l->kind, rep->analyses[0].rows, rep->analyses[0].cols),
		    c->id == CRIT_SPEEDUP ? " or the GPU time model's launch" : "", was);
	}
}

void crit_eval(const check_opts *o, const char *source, check_report *rep)
{
	for (int id = 0; id < CRIT_COUNT; id++)
		if (o->l->criteria & CRIT_BIT(id))
			rep->crit[rep->ncrit++].id = (lesson_crit)id;
	eval_builds(o, source, rep);
	int built = check_crit_find(rep, CRIT_BUILDS)->status == CRIT_PASS;
	if (built) {
		eval_runs(o, source, rep);
		eval_correct(o, source, rep);
		crit_memory(o, source, rep);
		if (check_crit_find(rep, CRIT_RACE_FREE))
			crit_races(o, source, rep);
		if (check_crit_find(rep, CRIT_USES_LOCAL))
			crit_local(o, rep);
		if (check_crit_find(rep, CRIT_CONFLICT_FREE))
			crit_conflicts(o, source, rep);
		if (check_crit_find(rep, CRIT_COALESCED))
			crit_coalesced(o, rep);
		if (check_crit_find(rep, CRIT_SPEEDUP))
			eval_speedup(o, rep);
		if (check_crit_find(rep, CRIT_TILE_CHOICE))
			tile_eval(o, source, rep);
		size_tests(o, rep);
	}
	int failed = 0;
	for (int i = 0; i < rep->ncrit; i++) {
		if (!built && rep->crit[i].id != CRIT_BUILDS)
			crit_set(&rep->crit[i], CRIT_NOT_CHECKED, NULL, "not checked: the %s",
			    rep->grader_failed ? "grader could not build the kernel (see builds)" :
			    rep->child.signature[0] ? "kernel does not take the lesson's arguments" :
			    "kernel does not build");
		failed += rep->crit[i].status == CRIT_FAIL;
	}
	mark_env(o, rep);
	if (built)
		cause_apply(o, rep);
	rep->verdict_pass = failed == 0;
	rep->exit_code = failed ? 1 : 0;
	/* The grader's own failure is never the student's: exit 2, so that batch grades the
	 * row again on resume, whatever else was found */
	if (rep->analysis_grader && built && o->analysis)
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s", rep->analysis_note);
	if ((rep->analysis_grader && built && o->analysis) || rep->grader_failed) {
		if (!rep->grader_error[0])
			snprintf(rep->grader_error, sizeof rep->grader_error, "%s",
			         check_crit_find(rep, CRIT_BUILDS)->msg);
		rep->verdict_pass = 0;
		rep->exit_code = 2;
	}
}
