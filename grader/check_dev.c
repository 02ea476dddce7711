/* check_dev.c — the device run of a check (check_dev.h): the probe, the run child with the
 * parent's judgement of its bytes, the build's control run, and PoCL's other work-group
 * method for a kernel PoCL miscompiled.  Shared pages are copied once before judging, so what
 * is judged cannot change under the parent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_cache.h"
#include "check_dev.h"
#include "check_sum.h"
#include "check_prep.h"

void check_dev_source(const check_ctx *c, devrun_src *s, const char *wg_method)
{
	memset(s, 0, sizeof *s);
	s->o = c->o;
	s->npre = c->npre < DEVRUN_MAX_BUILDS ? c->npre : DEVRUN_MAX_BUILDS;
	for (int i = 0; i < s->npre; i++) {
		s->pre[i] = c->pre_err[i] ? "" : c->pre[i] ? c->pre[i] : "";
		s->pre_tile[i] = c->pre_tile[i];
	}
	s->pocl_cache = c->pocl_cache;
	s->wg_method = wg_method;
}

devrun_probe *check_dev_probe(const check_opts *o, const devrun_src *s, const confine_policy *pol,
                               sandbox_status *st, devrun_plan *guess, ref_problem **refs)
{
	devrun_probe *shared = sandbox_shared(sizeof *shared), *pr = malloc(sizeof *pr);
	sandbox_child child;
	devrun_ctx x = { s, NULL, shared, NULL, check_memory_share(o), NULL };
	/* the parent's clock: S for the lesson's build, half of S more for each further one */
	sandbox_limits lim = { o->timeout_s * (1 + 0.5 * (s->npre - 1)), 0, NULL, pol, 0 };
	if (!shared || !pr) {
		if (shared)
			sandbox_unshare(shared, sizeof *shared);
		free(pr);
		return NULL;
	}
	if (sandbox_spawn(devrun_probe_main, &x, &lim, &child) != 0) {
		memset(st, 0, sizeof *st);
		st->end = SANDBOX_FAILED;
		snprintf(st->what, sizeof st->what, "fork failed: %s", strerror(errno));
	} else {
		if (guess && devrun_plan_make(o, "CPU", guess) == 0)
			*refs = devrun_refs_make(guess, o, 0, guess->nslots, 0, NULL);
		sandbox_wait(&child, st);
	}
	memcpy(pr, shared, sizeof *pr);
	sandbox_unshare(shared, sizeof *shared);
	return pr;
}

/* Wait until the run child has done its correctness slots (or ended, or passed deadline).
 * 1 when it is waiting for the parent's word. */
static int wait_corrected(sandbox_child *c, const devrun_page *pg, double deadline)
{
	for (;;) {
		if (__atomic_load_n(&pg->corrected, __ATOMIC_SEQ_CST))
			return 1;
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid == c->pid || check_mono() > deadline)
			return 0;
		usleep(2000);
	}
}

/* Copy bytes [from, to) of the page out of shared memory into copy (as big as the page),
 * with the page's head (its slots' results) each time: what is judged cannot change. */
static void page_copy(devrun_page *copy, const devrun_page *pg, size_t from, size_t to)
{
	memcpy(copy, pg, sizeof *pg);
	if (to > from && from >= sizeof *pg)
		memcpy((char *)copy + from, (const char *)pg + from, to - from);
}

/* A status is the child's word too: 126, the status of a child the sandbox could not confine,
 * comes from the kernel's own process when the probe, under the same confinement, was
 * confined; and a child that exits 0 before every planned run came back (page c2; go: the
 * parent's word) skipped them (a process a kernel has taken over can call exit). */
static void settle_end(const devrun_plan *pl, const devrun_page *c2, int go, sandbox_status *st)
{
	if (st->end == SANDBOX_FAILED && st->code == SANDBOX_CONFINE_FAILED) {
		st->end = SANDBOX_EXITED;
		snprintf(st->what, sizeof st->what, "exited with status 126");
	}
	int complete = c2 != NULL;
	for (int i = 0; c2 && i < pl->nslots; i++) {
		int needed = i < pl->ncorrect || go == 1;
		const devrun_slot_out *so = &c2->out[i];
		if (needed && !(so->reached && (so->done || so->err != CL_SUCCESS)))
			complete = 0;
		if (i < pl->ncorrect && so->reached && so->err != CL_SUCCESS)
			break;                /* the child stops at a failed launch, as it should */
	}
	if (st->end == SANDBOX_EXITED && (st->code == 0 || st->code == 3) && !complete) {
		st->code = -1;
		snprintf(st->what, sizeof st->what, "ended before every planned run came back");
	}
}

int check_dev_run(const check_opts *o, const devrun_src *s, const devrun_plan *pl,
                      ref_problem *refs, const confine_policy *pol, check_an *an,
                      check_report *rep, sandbox_status *st)
{
	size_t bytes = devrun_page_bytes(pl);
	devrun_page *pg = sandbox_shared(bytes);
	if (!pg)
		return -1;
	/* copied: the child's environment is scrubbed before it runs (sandbox_scrub_env) */
	static char how[16];
	const char *env = getenv("CLGRADE_TEST_COMPROMISE");
	snprintf(how, sizeof how, "%s", env ? env : "");
	devrun_ctx x = { s, pl, NULL, pg, check_memory_share(o), how[0] ? how : NULL };
	sandbox_limits lim = { 0, 0, NULL, pol, 0 };
	sandbox_child child;
	if (sandbox_spawn(devrun_run_main, &x, &lim, &child) != 0) {
		sandbox_unshare(pg, bytes);
		return -1;
	}
	/* the references while the child works; the correctness slots get S from the child's
	 * start, the analysis running beside them */
	int gpu = strcmp(rep->child.dev.type, "GPU") == 0;
	if (!refs)      /* not made during the probe (a GPU): now, while the child works */
		refs = devrun_refs_make(pl, o, 0, pl->ncorrect, gpu, NULL);
	int waiting = wait_corrected(&child, pg, child.t0 + o->timeout_s);
	/* the timing and sweep slots' too, while the analysis may still run (the child waits) */
	if (waiting && refs && pl->ncorrect < pl->nslots && !refs[pl->ncorrect].kind)
		refs = devrun_refs_make(pl, o, pl->ncorrect, pl->nslots, gpu, refs);
	if (!waiting)
		child.lim.timeout_s = o->timeout_s;   /* past it, or ended: sandbox_wait settles it */
	if (an)
		check_an_finish(rep, an);
	size_t head = sizeof *pg + (pl->ncorrect < pl->nslots ? pl->s[pl->ncorrect].off :
	                            pl->arena_floats) * sizeof(float);
	/* one copy for both judgements: the timing slots' bytes come after the correctness ones */
	devrun_page *c1 = ref_alloc(bytes), *c2 = c1;
	if (c1)
		page_copy(c1, pg, sizeof *pg, head);
	int right = c1 && devrun_judge_correct(pl, c1, o, refs, &rep->child);
	int launched = 1;
	for (int i = 0; c1 && i < rep->child.nruns; i++)
		launched = launched && rep->child.runs[i].done;
	launched = launched && rep->child.nruns == devrun_sizes(pl) && (pl->wide < 0 || rep->child.wide.done);
	int go = waiting && (o->l->tiles[0] ? launched : right) ? 1 : 2;
	/* S more from the word on, for timing and the sweep (waiting for it is no work) */
	if (waiting)
		child.lim.timeout_s = check_mono() - child.t0 + o->timeout_s;
	if (go == 1 && pl->nslots == pl->ncorrect && !pl->locals)
		go = 2;
	__atomic_store_n(&pg->go, go, __ATOMIC_SEQ_CST);
	sandbox_wait(&child, st);
	if (c2)
		page_copy(c2, pg, head, bytes);
	int at = c2 ? c2->at : -1;
	if (c2 && go == 1)
		devrun_judge_rest(pl, c2, o, refs, &rep->child);
	devrun_refs_free(pl, refs);
	settle_end(pl, c2, go, st);
	devrun_stage(pl, o->l->kind, at, rep->child.stage, sizeof rep->child.stage);
	free(c1);
	sandbox_unshare(pg, bytes);
	return 0;
}

void check_dev_end(const sandbox_status *st, const char *what, check_report *rep)
{
	if (st->end == SANDBOX_TIMEOUT || st->end == SANDBOX_SIGNALED ||
	    (st->end == SANDBOX_EXITED && st->code != 0 && st->code != 3)) {
		rep->child_crashed = st->end != SANDBOX_TIMEOUT;
		rep->child_timed_out = st->end == SANDBOX_TIMEOUT;
		snprintf(rep->run_end, sizeof rep->run_end, "%s while %s", st->what, what);
	}
}

int check_dev_control(const check_opts *o, const check_ctx *c, const check_confinement *cc)
{
	char *sol = check_prep_solution(o);
	if (!sol)
		return -1;
	/* a cache of its own, a copy of the seed as the kernel's probe had it: what the
	 * kernel's probe compiled before its limit ended it (kept in the check's cache) made the
	 * solution's build fit the limit the kernel's had not, and the solution itself, graded
	 * with a cold cache and --timeout 0.6, failed builds (test_attack2) */
	char cache[4300];
	snprintf(cache, sizeof cache, "%s/control", c->pocl_cache);
	mkdir(cache, 0700);
	check_ctx k = *c;
	k.pocl_cache = cache;
	for (int i = 0; i < k.npre; i++)
		k.pre[i] = sol, k.pre_err[i] = NULL;
	devrun_src s;
	check_dev_source(&k, &s, NULL);
	check_cache_seed_copy(&s);
	sandbox_status st;
	devrun_probe *pr = check_dev_probe(o, &s, &cc->run_pol, &st, NULL, NULL);
	int ok = pr && st.end == SANDBOX_EXITED && st.code == 0 && pr->b[0].kernel_found;
	free(pr);
	free(sol);
	return ok ? 1 : -1;
}


int check_dev_miscompiled(const check_report *rep)
{
	const check_child *ch = &rep->child;
	int wrong = 0;
	/* from the summary itself: rep->an is filled after the children (check_sum_analysis) */
	int findings = check_sum_nfindings(rep->analysis);
	for (int i = 0; i < ch->nruns; i++)
		wrong += ch->runs[i].done && !ch->runs[i].cmp.passed && !ch->runs[i].violations;
	/* workitemrepl replicates the code once per work-item: past 256 of them (lesson 3's
	 * 32 x 32) its build alone outlasts the time limit */
	return wrong && !findings && rep->opts.l->kind->group_size(rep->opts.l->tile) <= 256 && rep->analysis && !rep->analysis_wrong[0] &&
	       !rep->analysis_failed && !rep->analysis_grader && !rep->child_crashed &&
	       !rep->child_timed_out && cJSON_IsTrue(cJSON_GetObjectItem(rep->analysis, "complete")) &&
	       strcmp(ch->dev.type, "CPU") == 0 && strstr(ch->dev.platform, "Portable Computing");
}

void check_dev_workitemrepl(const check_opts *o, const check_ctx *c,
                               const check_confinement *cc, check_report *rep)
{
	char cache[4300];
	snprintf(cache, sizeof cache, "%s/repl", c->pocl_cache);
	mkdir(cache, 0700);
	check_ctx k = *c;
	k.pocl_cache = cache;
	devrun_src s;
	check_dev_source(&k, &s, "workitemrepl");
	sandbox_status st;
	devrun_probe *pr = check_dev_probe(o, &s, &cc->run_pol, &st, NULL, NULL);
	int built = pr && st.end == SANDBOX_EXITED && st.code == 0 && pr->b[0].kernel_found;
	free(pr);
	devrun_plan *pl = built ? malloc(sizeof *pl) : NULL;
	check_report *again = pl ? calloc(1, sizeof *again) : NULL;
	if (again && devrun_plan_make(o, rep->child.dev.type, pl) == 0) {
		again->child = rep->child;   /* the probe's facts stay the first build's */
		memset(again->child.runs, 0, sizeof again->child.runs);
		again->child.nruns = again->child.timed = 0;
		for (int t = 0; t < again->child.ntiles; t++)
			again->child.tiles[t].correct = again->child.tiles[t].timed = 0;
		again->child.nlocals = 0;
		if (check_dev_run(o, &s, pl, NULL, &cc->run_pol, NULL, again, &st) == 0 &&
		    st.end == SANDBOX_EXITED && st.code == 0) {
			/* every planned correctness run back (a timing run may follow them) */
			if (devrun_all_right(pl, &again->child)) {
				rep->child = again->child;
				snprintf(rep->pocl_note, sizeof rep->pocl_note, "PoCL's default build of this "
				         "kernel computed wrong results, while Oclgrind (which follows the "
				         "OpenCL rules) computed the right ones and found nothing wrong, and so "
				         "did PoCL with its other work-group method (POCL_WORK_GROUP_METHOD="
				         "workitemrepl): a PoCL miscompile, not your mistake (a barrier inside "
				         "an if, or a `tid %% (2*s)` tree, are known triggers). The runs and "
				         "timings shown are workitemrepl's.");
			}
		}
	}
	free(again);
	free(pl);
}
