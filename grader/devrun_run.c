/* devrun_run.c — the run child of a check's device run: it launches the parent's plan (the
 * correctness runs, the timed runs against the baseline, the TILE sweep, the local-size
 * experiment) and hands back raw buffers and samples in the shared page; nothing it says is
 * believed (devrun.h).  A kernel that writes past its guard zones is reported as a compromise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "devrun_int.h"
#include "localmem.h"
#include "ref.h"
#include "sandbox.h"

/* ---- the run child: launches, hands back bytes ------------------------------------------ */

/* Every buffer, guard zones and all, into the slot's arena. */
static cl_int read_back(clrun *cl, const clrun_bufs *b, devrun_page *pg, const devrun_slot *sl)
{
	for (int i = 0; i < b->n && i < sl->nbuf; i++) {
		if (b->len[i] != sl->len[i])
			return CL_INVALID_BUFFER_SIZE;
		cl_int e = clEnqueueReadBuffer(cl->queue, b->whole[i], CL_TRUE, 0,
		                               (b->len[i] + 2 * (size_t)GUARD_FLOATS) * sizeof(float),
		                               devrun_slot_buf(pg, sl, i), 0, NULL, NULL);
		if (e != CL_SUCCESS)
			return e;
	}
	return CL_SUCCESS;
}

/* A correctness slot: one launch, its buffers back; when the output holds NaN, once more on a
 * zeroed output (the parent tells a kernel that reads its output from one that skips it). */
static void run_correct(clrun *cl, cl_kernel k, devrun_page *pg, const devrun_slot *sl,
                        devrun_slot_out *so, const kind *kd)
{
	ref_problem p;
	clrun_bufs b = { 0 };
	if (devrun_slot_setup(sl, kd, 0, &p) != 0) {
		so->err = CL_OUT_OF_HOST_MEMORY;
		return;
	}
	so->err = clrun_upload(cl, &p, &b, 1);
	if (so->err == CL_SUCCESS)
		so->err = clrun_launch(cl, k, &b, sl->tile, NULL);
	if (so->err == CL_SUCCESS)
		so->err = read_back(cl, &b, pg, sl);
	so->done = so->err == CL_SUCCESS;
	const float *out = so->done ? devrun_slot_buf(pg, sl, sl->nbuf - 1) + GUARD_FLOATS : NULL;
	int nan = 0;
	for (size_t i = 0; out && sl->reread_off && i < sl->len[sl->nbuf - 1] && !nan; i++)
		nan = isnan(out[i]);
	if (nan && clrun_fill_output(cl, &b, 0u) == CL_SUCCESS &&
	    clrun_launch(cl, k, &b, sl->tile, NULL) == CL_SUCCESS &&
	    clrun_read_output(cl, &b, (float *)pg->arena + sl->reread_off) == CL_SUCCESS)
		so->reread = 1;
	clrun_release(&b);
	ref_free(&p);
}

/* How many launches of each fill the slot's window: 3 to DEVRUN_REPS. */
static int time_reps(const devrun_slot *sl, double w, double bw, double cw)
{
	int reps = (int)(sl->window_ms / (w + bw + cw + 1e-3));
	return reps < 3 ? 3 : reps > DEVRUN_REPS ? DEVRUN_REPS : reps;
}

/* The timing slot: a warm-up of each kernel on a GPU, then student and baseline interleaved (the slot's
 * window of launches with the copy below, 3 to DEVRUN_REPS each: half a second on a GPU, 100
 * ms on a CPU), then a copy of the same bytes as often, then one more launch whose buffers
 * come back: the timed kernel is the checked one (it cannot tell them apart).  The copies run before and after the pairs, never between them: a
 * kernel launched after the copy starts with the copy's written lines to evict from the L2
 * (on an H200 the baseline timed itself 0.95x in the student's slot, behind the copy). */
static void run_time(clrun *cl, cl_kernel k, cl_kernel base, devrun_page *pg,
                     const devrun_slot *sl, devrun_slot_out *so, const lesson *l)
{
	ref_problem p;
	clrun_bufs b = { 0 };
	clrun_copy copy = { 0 };
	double w = 0, bw = 0, cw = 0;
	if (ref_setup_inputs(&p, l->kind, sl->rows, sl->cols, sl->tile, sl->seed) != 0) {
		so->err = CL_OUT_OF_HOST_MEMORY;
		return;
	}
	so->err = clrun_upload(cl, &p, &b, 1);
	so->copy_ok = so->err == CL_SUCCESS && l->kind->copy_floats &&
	              clrun_copy_open(cl, &b, (size_t)l->kind->copy_floats(sl->rows, sl->cols), &copy) ==
	              CL_SUCCESS && clrun_copy_launch(cl, &copy, &cw) == CL_SUCCESS;
	if (so->err == CL_SUCCESS && sl->warm_up)
		so->err = clrun_launch(cl, k, &b, sl->tile, &w);
	if (so->err != CL_SUCCESS)
		goto out;
	so->base_ok = base && (!sl->warm_up || (clrun_reset_output(cl, &b) == CL_SUCCESS &&
	                                       clrun_launch(cl, base, &b, l->tile, &bw) == CL_SUCCESS));
	int reps = DEVRUN_REPS;
	for (int i = 0; i < reps; i++) {
		if (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		    (so->err = clrun_launch(cl, k, &b, sl->tile, &so->ks[i])) != CL_SUCCESS)
			goto out;
		if (so->base_ok && (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		                    clrun_launch(cl, base, &b, l->tile, &so->bs[i]) != CL_SUCCESS))
			so->base_ok = 0;
		if (i == 0)   /* the pairs that fit the window: from the warm-up, else this pair */
			reps = time_reps(sl, sl->warm_up ? w : so->ks[0],
			                 !so->base_ok ? 0 : sl->warm_up ? bw : so->bs[0], cw);
	}
	for (int i = 0; i < reps && so->copy_ok; i++)
		if (clrun_copy_launch(cl, &copy, &so->cs[i]) != CL_SUCCESS)
			so->copy_ok = 0;
	if (clrun_reset_output(cl, &b) != CL_SUCCESS ||
	    (so->err = clrun_launch(cl, k, &b, sl->tile, NULL)) != CL_SUCCESS)
		goto out;
	so->err = read_back(cl, &b, pg, sl);
	so->done = so->err == CL_SUCCESS;
	so->reps = reps;
out:
	clrun_copy_close(&copy);
	clrun_release(&b);
	ref_free(&p);
}

/* A sweep slot (lesson 4): the kernel built at the slot's TILE, one launch whose buffers come
 * back, then three timed launches at the timing size. */
static void run_sweep(clrun *cl, const devrun_src *s, devrun_page *pg, const devrun_slot *sl,
                      devrun_slot_out *so, const lesson *l, lesson_size ts)
{
	cl_kernel k = devrun_build_student(cl, s, sl->tile, NULL);
	if (!k) {
		so->err = CL_BUILD_PROGRAM_FAILURE;
		return;
	}
	run_correct(cl, k, pg, sl, so, l->kind);
	ref_problem p;
	clrun_bufs b;
	if (so->done && ref_setup_inputs(&p, l->kind, ts.rows, ts.cols, sl->tile, 7) == 0) {
		if (clrun_upload(cl, &p, &b, 1) == CL_SUCCESS &&
		    (!sl->warm_up || clrun_launch(cl, k, &b, sl->tile, &so->ks[0]) == CL_SUCCESS) &&
		    clrun_launch(cl, k, &b, sl->tile, &so->ks[0]) == CL_SUCCESS &&
		    clrun_launch(cl, k, &b, sl->tile, &so->ks[1]) == CL_SUCCESS &&
		    clrun_launch(cl, k, &b, sl->tile, &so->ks[2]) == CL_SUCCESS)
			so->reps = 3;
		clrun_release(&b);
		ref_free(&p);
	}
	clReleaseKernel(k);
}

/* The seed's local-size experiment: the lesson's baseline (the naive kernel, which takes any
 * local size) timed at square and non-square local sizes. */
static void run_locals(clrun *cl, const devrun_plan *pl, devrun_page *pg, const lesson *l)
{
	cl_kernel base = devrun_build_baseline(cl, l);
	ref_problem p;
	clrun_bufs b;
	if (!base || ref_setup_inputs(&p, l->kind, pl->local_n, pl->local_n, l->tile, 7) != 0) {
		if (base)
			clReleaseKernel(base);
		return;
	}
	if (clrun_upload(cl, &p, &b, 1) == CL_SUCCESS) {
		for (int i = 0; i < CHECK_MAX_LOCALS; i++) {
			int lx = pl->local_shape[i][0], ly = pl->local_shape[i][1];
			pg->nlocals = i + 1;
			if ((size_t)lx * ly > cl->info.max_wg)
				continue;
			double *ms = pg->local_ms[i];     /* raw: the parent takes the median */
			if ((!pl->locals_warm || clrun_launch_local(cl, base, &b, lx, ly, &ms[0]) ==
			     CL_SUCCESS) &&
			    clrun_launch_local(cl, base, &b, lx, ly, &ms[0]) == CL_SUCCESS &&
			    clrun_launch_local(cl, base, &b, lx, ly, &ms[1]) == CL_SUCCESS &&
			    clrun_launch_local(cl, base, &b, lx, ly, &ms[2]) == CL_SUCCESS)
				pg->local_ok[i] = 1;
		}
		clrun_release(&b);
	}
	ref_free(&p);
	clReleaseKernel(base);
}

/* Fault injection for the tests (CLGRADE_TEST_COMPROMISE): the run child behaves as if the
 * student's kernel had taken over the process, which on PoCL any kernel can (GUIDE, threat
 * model).  It gives the child no power it lacks: it only lets the tests show that the parent
 * believes none of it.
 *   "page"  every slot claims success; inputs and guard zones as pristine, outputs 12345.0,
 *           timings a microsecond
 *   "right" the same, with the reference's own result as the output (a wrong kernel whose
 *           process forges right answers)
 *   "fork"  a grandchild that tries to leave the process group, then sleeps a minute
 *   "hang"  claims its correctness slots done, then spins
 *   "exit0" runs its first slot for real, then exits 0 (skipping the rest)
 *   "exit126" exits with the status of a child the sandbox could not confine */
static int compromise(const char *how, const devrun_plan *pl, devrun_page *pg, const kind *kd)
{
	if (strcmp(how, "exit126") == 0)
		_exit(126);
	if (strcmp(how, "exit0") == 0)
		return 0;                 /* devrun_run_main stops after its first slot */
	if (strcmp(how, "fork") == 0) {
		if (fork() == 0) {
			prctl(PR_SET_NAME, "clgrade-forked");
			setsid();
			setpgid(0, 0);
			sleep(60);
			_exit(0);
		}
		return 0;
	}
	if (strcmp(how, "hang") == 0) {
		__atomic_store_n(&pg->corrected, 1, __ATOMIC_SEQ_CST);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	int right = strcmp(how, "right") == 0;
	for (int s = 0; s < pl->nslots; s++) {
		const devrun_slot *sl = &pl->s[s];
		ref_problem p;
		if (devrun_slot_setup(sl, kd, right, &p))
			continue;
		for (int i = 0; i < sl->nbuf; i++) {
			float *w = devrun_slot_buf(pg, sl, i);
			guard_fill(w, sl->len[i]);
			for (size_t e = 0; e < sl->len[i]; e++)
				w[GUARD_FLOATS + e] = i < p.n_in ? p.in[i][e] : right && p.expect && !kd->finish ?
				                      (float)p.expect[e] : 12345.0f;
		}
		devrun_slot_out *so = &pg->out[s];
		so->reached = so->done = 1, so->err = CL_SUCCESS, so->reps = 3, so->base_ok = 1;
		for (int r = 0; r < DEVRUN_REPS; r++)
			so->ks[r] = 1e-3, so->bs[r] = 1.0, so->cs[r] = 1e-3;
		ref_free(&p);
	}
	__atomic_store_n(&pg->at, pl->nslots - 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pg->corrected, 1, __ATOMIC_SEQ_CST);
	return 1;
}

int devrun_run_main(void *arg)
{
	const devrun_ctx *x = arg;
	const devrun_src *s = x->src;
	const devrun_plan *pl = x->plan;
	const lesson *l = s->o->l;
	devrun_page *pg = x->page;
	char err[256];
	clrun cl;
	pg->at = -1;
	const char *how = x->compromise;
	if (how && compromise(how, pl, pg, l->kind))
		return 0;
	if (devrun_open_device(x, &cl, err, sizeof err) != 0)
		return 3;
	cl_kernel k = devrun_build_student(&cl, s, l->tile, NULL);
	if (!k)
		return 4;
	for (int i = 0; i < pl->ncorrect; i++) {
		__atomic_store_n(&pg->at, i, __ATOMIC_SEQ_CST);
		pg->out[i].reached = 1;
		run_correct(&cl, k, pg, &pl->s[i], &pg->out[i], l->kind);
		if (pg->out[i].err != CL_SUCCESS)
			break;
		if (how && strcmp(how, "exit0") == 0)
			_exit(0);
	}
	__atomic_store_n(&pg->corrected, 1, __ATOMIC_SEQ_CST);
	int go;
	while ((go = __atomic_load_n(&pg->go, __ATOMIC_SEQ_CST)) == 0)
		usleep(2000);
	if (go != 1) {
		clReleaseKernel(k);
		clrun_close(&cl);
		return 0;
	}
	int gpu = strcmp(cl.info.type, "GPU") == 0;
	lesson_size ts = kind_sweep_size(l->kind, gpu);
	cl_kernel base = l->baseline && !l->tiles[0] ? devrun_build_baseline(&cl, l) : NULL;
	for (int i = pl->ncorrect; i < pl->nslots; i++) {
		const devrun_slot *sl = &pl->s[i];
		__atomic_store_n(&pg->at, i, __ATOMIC_SEQ_CST);
		pg->out[i].reached = 1;
		if (sl->kind == SLOT_TIME)
			run_time(&cl, k, base, pg, sl, &pg->out[i], l);
		else
			run_sweep(&cl, s, pg, sl, &pg->out[i], l, ts);
	}
	if (base)
		clReleaseKernel(base);
	clReleaseKernel(k);
	if (pl->locals) {
		__atomic_store_n(&pg->at, pl->nslots, __ATOMIC_SEQ_CST);
		run_locals(&cl, pl, pg, l);
	}
	clrun_close(&cl);
	return 0;
}

