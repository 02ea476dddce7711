/* devrun_judge.c — the parent's side of a check's device run: the plan (slots, seeds and
 * sizes the run child follows), the inputs staged into the page, the probe's builds taken
 * into the check, and the judgement of the bytes the run child handed back (references,
 * guard zones, unchanged inputs, medians of the timed samples).  See devrun.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "devrun_int.h"
#include "localmem.h"
#include "ref.h"
#include "sandbox.h"

/* ---- the parent: plan and judgement --------------------------------------------------- */

int devrun_slot_setup(const devrun_slot *sl, const kind *k, int with_ref, ref_problem *p)
{
	if (sl->wide)
		return ref_setup_wide(p, k, sl->rows, sl->cols, sl->tile, sl->seed, with_ref);
	return (with_ref ? ref_setup : ref_setup_inputs)(p, k, sl->rows, sl->cols, sl->tile, sl->seed);
}

static int add_slot(devrun_plan *pl, devrun_slot_kind kd, const kind *k, int rows, int cols,
                    int tile, uint64_t seed, int wide)
{
	ref_problem p;
	devrun_slot sl = { kd, rows, cols, tile, seed, 0, { 0 }, pl->arena_floats, 0, 0, 0, wide };
	if (pl->nslots >= DEVRUN_MAX_SLOTS)
		return -1;
	ref_shape(&p, k, rows, cols, tile, wide);   /* the lengths only: no input drawn */
	devrun_slot *s = &pl->s[pl->nslots++];
	*s = sl;
	s->nbuf = p.n_in + 1;
	for (int i = 0; i < p.n_in; i++)
		s->len[i] = p.in_len[i];
	s->len[p.n_in] = p.out_len;
	for (int i = 0; i < s->nbuf; i++)
		pl->arena_floats += devrun_whole(s->len[i]);
	if (kd != SLOT_TIME) {   /* a rerun on a zeroed output tells "reads it first" (judge_reread) */
		s->reread_off = pl->arena_floats;
		pl->arena_floats += p.out_len;
	}
	return 0;
}

int devrun_plan_make(const check_opts *o, const char *dev_type, devrun_plan *pl)
{
	const lesson *l = o->l;
	int gpu = strcmp(dev_type, "GPU") == 0;
	memset(pl, 0, sizeof *pl);
	pl->wide = -1;
	for (int i = 0; i < LESSON_MAX_SIZES && l->kind->sizes[i].rows; i++)
		if (add_slot(pl, SLOT_CORRECT, l->kind, l->kind->sizes[i].rows, l->kind->sizes[i].cols,
		             l->tile, o->seed + i, 0) != 0)
			return -1;
	/* the wide run last: judged apart (check_child.wide), after every size of the lesson */
	lesson_size ws = l->kind->wide_size;
	if (ws.rows) {
		if (add_slot(pl, SLOT_CORRECT, l->kind, ws.rows, ws.cols, l->tile, o->seed + 50, 1) != 0)
			return -1;
		pl->wide = pl->nslots - 1;
	}
	pl->ncorrect = pl->nslots;
	if (!l->tiles[0]) {
		lesson_size ts = gpu ? l->kind->time_size_gpu : l->kind->time_size;
		if (add_slot(pl, SLOT_TIME, l->kind, ts.rows, ts.cols, l->tile, o->seed + 99, 0) != 0)
			return -1;
		/* a CPU's time judges nothing (the speedup is the predicted one, or not judged):
		 * its fewest launches; a GPU's is the verdict, over half a second */
		pl->s[pl->nslots - 1].window_ms = gpu ? DEVRUN_WINDOW_GPU_MS : DEVRUN_WINDOW_CPU_MS;
	}
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		if (add_slot(pl, SLOT_SWEEP, l->kind, 100, 100, l->tiles[i], o->seed + l->tiles[i], 0) != 0)
			return -1;
	/* a GPU gets an untimed launch of each kernel at the timing size first, for its clocks
	 * and caches; on a CPU the first timed launch is one of three, whose median judges
	 * nothing (the student's kernel ran at the same local size in the correctness runs) */
	for (int i = pl->ncorrect; i < pl->nslots; i++)
		pl->s[i].warm_up = gpu;
	if (l->tiles[0] && l->baseline) {
		pl->locals = 1;
		memcpy(pl->local_shape, devrun_local_shapes, sizeof devrun_local_shapes);
		/* on a CPU at N = 256: a naive launch at the sweep's N would cost the check seconds */
		pl->local_n = gpu ? l->kind->time_size_gpu.rows : 256;
		pl->locals_warm = gpu;
	}
	return 0;
}

size_t devrun_page_bytes(const devrun_plan *pl)
{
	return sizeof(devrun_page) + pl->arena_floats * sizeof(float);
}

void devrun_stage(const devrun_plan *pl, const kind *k, int at, char *buf, size_t len)
{
	if (at < 0 || at > pl->nslots) {
		snprintf(buf, len, "building the kernel");
		return;
	}
	if (at == pl->nslots) {
		snprintf(buf, len, "timing the baseline at other local sizes");
		return;
	}
	const devrun_slot *s = &pl->s[at];
	if (s->kind == SLOT_SWEEP)
		snprintf(buf, len, "TILE=%d sweep", s->tile);
	else
		snprintf(buf, len, "%s at %s", s->kind == SLOT_TIME ? "timing" : "running",
		         KIND_SIZE(k, s->rows, s->cols));
}

/* Build i of the probe (b) into ch: the log the report shows (refused[i] when the grader
 * refused that text), the registers, the sweep's TILE rows. */
static void take_build(const devrun_build *b, int i, const char *const *refused,
                       const char *source, const check_opts *o, const long *declared_at,
                       check_child *ch)
{
	const lesson *l = o->l;
	char raw[DEVRUN_LOG];
	snprintf(raw, sizeof raw, "%.*s", DEVRUN_LOG - 1, b->log);
	const char *why = refused ? refused[i] : NULL;
	int main_build = i == 0, fails = b->err != CL_SUCCESS;
	if (b->registers > 0 && !ch->registers)
		ch->registers = b->registers, ch->spill_bytes = b->spill_bytes;
	/* the main build's log, unless a later TILE's build is the first to fail */
	if (main_build || (fails && ch->build_errors == 0)) {
		if (why) {
			snprintf(ch->build_log, sizeof ch->build_log, "%s", why);
			ch->build_errors = 1;
		} else {
			ch->build_errors = diag_rewrite(raw, source, o->kernel, ch->build_log,
			                                sizeof ch->build_log);
			if (fails && ch->build_errors == 0)   /* a link error: no location */
				ch->build_errors = diag_unlocated(raw, source, o->kernel, ch->build_log,
				                                  sizeof ch->build_log);
		}
		ch->log_tile = b->tile;
	}
	/* the sweep's TILEs (one equal to the lesson's is built once, as b[0]) */
	for (int t = 0; t < LESSON_MAX_TILES && l->tiles[t]; t++)
		if (l->tiles[t] == b->tile) {
			check_tile *ct = &ch->tiles[t];
			ct->tile = b->tile, ct->built = b->kernel_found, ct->err = b->err;
			lmem_source ls;
			ct->local_bytes = lmem_pick(b->local_runtime, declared_at[t], -1, &ls);
		}
}

/* The probe's builds into ch.  Strings the probe handed back are cut to their buffers. */
void devrun_take_probe(const devrun_probe *pr, const devrun_src *src, const char *source,
                       const char *const *refused, long declared, const long *declared_at,
                       check_child *ch)
{
	const check_opts *o = src->o;
	const lesson *l = o->l;
	ch->opened = pr->opened;
	snprintf(ch->open_err, sizeof ch->open_err, "%.*s", (int)sizeof pr->open_err - 1, pr->open_err);
	ch->dev = pr->dev;
	ch->dev.platform[sizeof ch->dev.platform - 1] = ch->dev.name[sizeof ch->dev.name - 1] = '\0';
	ch->dev.type[sizeof ch->dev.type - 1] = ch->dev.version[sizeof ch->dev.version - 1] = '\0';
	ch->dev.local_type[sizeof ch->dev.local_type - 1] = '\0';
	int n = pr->nbuilds < 0 ? 0 : pr->nbuilds > DEVRUN_MAX_BUILDS ? DEVRUN_MAX_BUILDS : pr->nbuilds;
	while (n > 0 && !pr->b[n - 1].finished)
		n--;                      /* a build the limit cut short says nothing */
	for (int i = 0; i < n; i++)
		take_build(&pr->b[i], i, refused, source, o, declared_at, ch);
	for (int t = 0; l->tiles[0] && t < LESSON_MAX_TILES && l->tiles[t]; t++)
		ch->ntiles = t + 1;
	/* a build the probe did not finish (its time limit ended it first, or before it began) is
	 * no compiler's verdict: neither built nor failed, so the time limit's branch judges it */
	const devrun_build *b0 = n && pr->b[0].finished ? &pr->b[0] : NULL;
	ch->build_err = b0 ? b0->err : 0;
	ch->built = b0 && (b0->err == CL_SUCCESS || b0->err == CL_INVALID_KERNEL_NAME);
	if (!b0 || !b0->kernel_found)
		return;
	ch->kernel_found = 1;
	int nargs = b0->nargs;
	diag_arg args[16];
	memcpy(args, b0->args, sizeof args);
	for (int i = 0; i < 16; i++)
		args[i].type[sizeof args[i].type - 1] = args[i].name[sizeof args[i].name - 1] = '\0';
	if (nargs >= 0 && diag_signature(l->kind->args, l->kind->n_inputs, nargs <= 16 ? args : NULL,
	                                 nargs, ch->signature, sizeof ch->signature) != 0)
		return;
	ch->local_runtime = b0->local_runtime;
	ch->kernel_max_wg = b0->max_wg;
	ch->local_declared = declared;
	ch->local_bytes = lmem_pick(ch->local_runtime, declared, -1, &ch->local_source);
	ch->local_limit = ch->dev.local_mem;
	/* a CPU device emulates __local memory (PoCL: 2 MiB): the lessons' GPU's budget judges
	 * (a kernel over it never launches there, and its GPU time cannot be predicted) */
	if (!o->local_mem && strcmp(ch->dev.type, "CPU") == 0 && DEVRUN_GPU_LOCAL < ch->local_limit)
		ch->local_limit = DEVRUN_GPU_LOCAL;
	if (o->local_mem && o->local_mem < ch->local_limit)
		ch->local_limit = o->local_mem;
	ch->over_budget = ch->local_bytes > ch->local_limit;
}

/* The slot's buffers against the problem p (the parent's own inputs): guard zones and
 * unchanged inputs. */
static void judge_buffers(const devrun_slot *sl, const devrun_page *pg, const ref_problem *p,
                          check_run *run)
{
	const char *names[3] = { p->in_name[0], p->in_name[1], p->out_name };
	for (int i = 0; i < sl->nbuf; i++) {
		const float *w = devrun_slot_buf(pg, sl, i);
		int is_out = i == sl->nbuf - 1;
		guard_violation v;
		char what[200] = "";
		if (guard_check(w, sl->len[i], &v))
			guard_describe(&v, what, sizeof what);
		else if (!is_out && memcmp(w + GUARD_FLOATS, p->in[i], sl->len[i] * sizeof(float)))
			snprintf(what, sizeof what, "the input was modified (it is read-only)");
		if (what[0] && run->violations++ == 0)
			snprintf(run->guard_msg, sizeof run->guard_msg, "%s: %s",
			         is_out ? names[2] : names[i], what);
	}
}

static const float *slot_out(const devrun_slot *sl, const devrun_page *pg)
{
	return devrun_slot_buf(pg, sl, sl->nbuf - 1) + GUARD_FLOATS;
}

/* Elements that came out NaN from the NaN-filled output, and right in the rerun on zeros:
 * all of them, so they depend on the output's old contents (C[i] += ...). */
static void judge_reread(const devrun_slot *sl, const devrun_page *pg, const ref_problem *p,
                         check_run *run)
{
	const float *first = slot_out(sl, pg), *again = (const float *)pg->arena + sl->reread_off;
	size_t nan = 0;
	for (size_t i = 0; i < p->out_len; i++)
		nan += isnan(first[i]) != 0;
	/* right as a whole on zeros (for a kind with a finish, its finished values: a partial
	 * sum is not compared element by element) */
	ref_result again_cmp;
	ref_compare(p, again, sl->tile, &again_cmp);
	size_t dep = again_cmp.passed ? nan : 0;
	if (dep) {
		run->reads_output = 1;
		diag_reads_output(p->out_name, dep, p->out_len, run->cmp.pattern,
		                  sizeof run->cmp.pattern, NULL, 0);
	}
}

/* One slot judged into run: 0 when it launched and came back.  ready: the slot's problem with
 * its reference, set up already (devrun_refs_make), or NULL. */
static int judge_slot(const devrun_slot *sl, const devrun_slot_out *so, const devrun_page *pg,
                      const check_opts *o, int full, const ref_problem *ready, check_run *run)
{
	ref_problem p;
	memset(run, 0, sizeof *run);
	run->rows = sl->rows, run->cols = sl->cols, run->tile = sl->tile;
	run->err = so->reached ? so->err : CL_SUCCESS;
	if (!so->reached || !so->done || so->err != CL_SUCCESS) {
		if (so->reached && so->err == CL_SUCCESS)
			run->err = CL_INVALID_OPERATION;   /* claimed success, brought nothing back */
		return -1;
	}
	if (ready)
		p = *ready;
	else if (devrun_slot_setup(sl, o->l->kind, full, &p) != 0)
		return -1;
	judge_buffers(sl, pg, &p, run);
	if (p.expect)
		ref_compare(&p, slot_out(sl, pg), sl->tile, &run->cmp);
	else
		ref_check_sample(&p, slot_out(sl, pg), 64, o->seed + 1, &run->cmp);
	run->done = 1;
	if (sl->reread_off && so->reread && (run->cmp.unwritten || run->cmp.nonfinite))
		judge_reread(sl, pg, &p, run);
	if (!ready)
		ref_free(&p);
	return 0;
}

ref_problem *devrun_refs_make(const devrun_plan *pl, const check_opts *o, int from, int to,
                              int gpu, ref_problem *r)
{
	if (!r)
		r = calloc(pl->nslots ? pl->nslots : 1, sizeof *r);
	for (int i = from; r && i < to && i < pl->nslots; i++) {
		const devrun_slot *sl = &pl->s[i];
		int full = sl->kind != SLOT_TIME || !gpu;   /* a GPU's timing size: sampled */
		if (devrun_slot_setup(sl, o->l->kind, full, &r[i]) != 0)
			memset(&r[i], 0, sizeof r[i]);         /* judge_slot sets it up itself */
	}
	return r;
}

void devrun_refs_free(const devrun_plan *pl, ref_problem *r)
{
	for (int i = 0; r && i < pl->nslots; i++)
		if (r[i].kind)
			ref_free(&r[i]);
	free(r);
}

static const ref_problem *ref_at(const ref_problem *refs, int i)
{
	return refs && refs[i].kind ? &refs[i] : NULL;
}

int devrun_sizes(const devrun_plan *pl)
{
	return pl->ncorrect - (pl->wide >= 0);
}

int devrun_all_right(const devrun_plan *pl, const check_child *ch)
{
	int n = devrun_sizes(pl), right = ch->nruns >= n;   /* the timed run may follow them */
	for (int i = 0; right && i < n; i++)
		right = ch->runs[i].done && ch->runs[i].cmp.passed && !ch->runs[i].violations;
	return right && (pl->wide < 0 || (ch->wide.done && ch->wide.cmp.passed && !ch->wide.violations));
}

int devrun_judge_correct(const devrun_plan *pl, const devrun_page *pg, const check_opts *o,
                         const ref_problem *refs, check_child *ch)
{
	ch->nruns = 0;
	ch->wide_planned = pl->wide >= 0;
	memset(&ch->wide, 0, sizeof ch->wide);
	for (int i = 0; i < pl->ncorrect; i++) {
		check_run *run = i == pl->wide ? &ch->wide : &ch->runs[ch->nruns];
		int ok = judge_slot(&pl->s[i], &pg->out[i], pg, o, 1, ref_at(refs, i), run) == 0;
		if (!pg->out[i].reached)
			break;
		ch->nruns += i != pl->wide;
		if (!ok)
			break;
	}
	return devrun_all_right(pl, ch);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of n samples the child wrote; 0 when any is not a positive finite number. */
static double median(const double *in, int n)
{
	double v[DEVRUN_REPS];
	if (n <= 0 || n > DEVRUN_REPS)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(in[i]) || in[i] <= 0)
			return 0;
		v[i] = in[i];
	}
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void devrun_judge_rest(const devrun_plan *pl, const devrun_page *pg, const check_opts *o,
                       const ref_problem *refs, check_child *ch)
{
	for (int i = pl->ncorrect; i < pl->nslots; i++) {
		const devrun_slot *sl = &pl->s[i];
		const devrun_slot_out *so = &pg->out[i];
		if (sl->kind == SLOT_TIME && so->reached && ch->nruns < CHECK_MAX_RUNS) {
			check_run *run = &ch->runs[ch->nruns++];
			int gpu = strcmp(ch->dev.type, "GPU") == 0;
			if (judge_slot(sl, so, pg, o, !gpu, ref_at(refs, i), run) != 0 || !run->cmp.passed ||
			    run->violations)
				continue;   /* wrong when timed: not timed */
			ch->kernel_ms = median(so->ks, so->reps);
			ch->baseline_ms = so->base_ok ? median(so->bs, so->reps) : 0;
			ch->baseline_failed = o->l->baseline && !so->base_ok;
			ch->copy_ms = so->copy_ok ? median(so->cs, so->reps) : 0;
			ch->time_rows = sl->rows, ch->time_cols = sl->cols, ch->time_reps = so->reps;
			ch->timed = ch->kernel_ms > 0;
		}
		for (int t = 0; sl->kind == SLOT_SWEEP && t < ch->ntiles; t++) {
			check_tile *ct = &ch->tiles[t];
			if (ct->tile != sl->tile || !ct->built || !so->reached)
				continue;
			check_run run;
			ct->correct = judge_slot(sl, so, pg, o, 1, ref_at(refs, i), &run) == 0 && run.cmp.passed &&
			              !run.violations;
			ct->err = run.err;
			ct->ms = ct->correct && so->reps == 3 ? median(so->ks, 3) : 0;
			ct->timed = ct->ms > 0;
		}
	}
	int nl = pg->nlocals < 0 ? 0 : pg->nlocals > CHECK_MAX_LOCALS ? CHECK_MAX_LOCALS : pg->nlocals;
	for (int i = 0; pl->locals && i < nl; i++) {
		check_local *lc = &ch->locals[ch->nlocals++];
		lc->lx = pl->local_shape[i][0], lc->ly = pl->local_shape[i][1], lc->n = pl->local_n;
		lc->ms = pg->local_ok[i] ? median(pg->local_ms[i], 3) : 0;
		lc->timed = lc->ms > 0;
	}
}
