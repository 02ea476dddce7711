/* devrun.c — the device run of a check: a probe child that builds but never launches, a run
 * child that launches and hands back raw bytes, and the parent's judgement of those bytes
 * (devrun.h says why it is split this way). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "devrun.h"
#include "guard.h"
#include "localmem.h"
#include "ref.h"
#include "sandbox.h"

/* ---- both children ---------------------------------------------------------------------- */

/* The memory limit starts once the device is open, on CPU devices only (a GPU driver reserves
 * far more address space than any kernel's host memory: NVIDIA's fails to load under 8 GiB),
 * on top of what the runtime already holds (PoCL's reservations grow with the cores). */
/* ---- the runtime, loaded once in the parent ------------------------------------------- */

static pthread_t preload_thread;
static int preload_running;

static void *preload_main(void *arg)
{
	(void)arg;
	/* mapped and relocated here, the library (and LLVM under it) comes with fork to every
	 * child that opens the device: 7-20 ms to open it there instead of 40 (a fork-and-open
	 * micro-benchmark on this machine).  Loading runs no OpenCL: PoCL reads its settings
	 * and finds its devices at the first clGetPlatformIDs, in the child. */
	dlopen("libpocl.so.2", RTLD_NOW | RTLD_LOCAL);
	return NULL;
}

void devrun_preload_start(void)
{
	if (!preload_running)
		preload_running = pthread_create(&preload_thread, NULL, preload_main, NULL) == 0;
}

void devrun_preload_join(void)
{
	if (preload_running)
		pthread_join(preload_thread, NULL);
	preload_running = 0;
}

static int open_device(const devrun_ctx *x, clrun *cl, char *err, size_t errlen)
{
	const devrun_src *s = x->src;
	setenv("CUDA_CACHE_DISABLE", "1", 1);   /* NVIDIA's cache would hide ptxas's report */
	setenv("POCL_CACHE_DIR", s->pocl_cache, 1);
	/* PoCL compiles a work-group function per local size at a kernel's first launch, in the
	 * process that launches it.  Without specialisation it uses the one generic function that
	 * a build compiles when asked for its binary (devrun_probe_main): the probe compiles
	 * everything, and the run child launches without compiling anything.  The workitemrepl
	 * rerun needs the local size known, so it specialises (and compiles) as before. */
	if (s->wg_method)
		setenv("POCL_WORK_GROUP_METHOD", s->wg_method, 1);
	else
		setenv("POCL_WORK_GROUP_SPECIALIZATION", "0", 1);
	if (clrun_open(cl, s->o->device, err, errlen) != 0)
		return -1;
	if (x->mem_share && strcmp(cl->info.type, "GPU") != 0) {
		size_t lim = sandbox_address_space() + x->mem_share;
		struct rlimit as = { lim, lim };
		setrlimit(RLIMIT_AS, &as);
	}
	return 0;
}

static const char *pre_for(const devrun_src *s, int tile)
{
	for (int i = 0; i < s->npre; i++)
		if (s->pre_tile[i] == tile && s->pre[i])
			return s->pre[i];
	return NULL;
}

/* Build the student's text at TILE=tile; facts into b when b is not NULL. */
static cl_kernel build_student(clrun *cl, const devrun_src *s, int tile, devrun_build *b)
{
	const char *text = pre_for(s, tile);
	cl_int err = CL_BUILD_PROGRAM_FAILURE;
	if (b)
		b->tile = tile, b->nargs = -1;
	if (!text || !*text) {          /* refused by the preprocessor: no compiler sees it */
		if (b)
			b->err = err;
		return NULL;
	}
	char opts[128];
	snprintf(opts, sizeof opts, "-DTILE=%d -cl-kernel-arg-info%s", tile,
	         strstr(cl->info.platform, "NVIDIA") ? " -cl-nv-verbose" : "");
	cl_program prog = NULL;
	static char scratch[DEVRUN_LOG];
	char *log = b ? b->log : scratch;
	err = clrun_build(cl, text, opts, &prog, log, DEVRUN_LOG);
	cl_kernel k = NULL;
	if (err == CL_SUCCESS)
		k = clCreateKernel(prog, s->o->l->kernel, &err);
	if (k && b)
		clrun_compile_all(cl, prog);   /* the probe: every work-group function, for the cache */
	if (prog)
		clReleaseProgram(prog);
	if (!b)
		return k;
	b->err = err;
	const char *used = strstr(log, "Used ");
	if (used && strstr(used, " registers"))
		b->registers = atoi(used + 5);
	const char *spill = strstr(log, " bytes spill stores"), *d = spill;   /* ", 64 bytes ..." */
	while (d && d > log && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d && d < spill)
		b->spill_bytes = atoi(d);
	if (k) {
		b->kernel_found = 1;
		clrun_kernel_info(cl, k, &b->local_runtime, &b->max_wg);
		b->nargs = clrun_kernel_args(cl, k, b->args, 16);
	}
	return k;
}

static cl_kernel build_baseline(clrun *cl, const lesson *l)
{
	char path[4096], opts[64], log[4096];
	lesson_path(l, "baseline", path, sizeof path);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char src[8192];
	size_t n = fread(src, 1, sizeof src - 1, f);
	fclose(f);
	src[n] = '\0';
	snprintf(opts, sizeof opts, "-DTILE=%d", l->tile);
	cl_program prog;
	cl_int e = clrun_build(cl, src, opts, &prog, log, sizeof log);
	cl_kernel k = e == CL_SUCCESS ? clCreateKernel(prog, l->baseline_kernel, &e) : NULL;
	if (k)
		clrun_compile_all(cl, prog);
	if (prog)
		clReleaseProgram(prog);
	return e == CL_SUCCESS ? k : NULL;
}

/* ---- the probe child: builds, never launches ------------------------------------------- */

/* Is TILE=t one the device builds the kernel at: the lesson's, or one of its sweep? */
static int swept(const lesson *l, int t)
{
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		if (l->tiles[i] == t)
			return 1;
	return t == l->tile;
}

int devrun_probe_main(void *arg)
{
	const devrun_ctx *x = arg;
	const devrun_src *s = x->src;
	devrun_probe *pr = x->probe;
	clrun cl;
	if (open_device(x, &cl, pr->open_err, sizeof pr->open_err) != 0)
		return 3;
	pr->opened = 1;
	pr->dev = cl.info;
	for (int i = 0; i < s->npre && i < DEVRUN_MAX_BUILDS; i++) {
		if (!swept(s->o->l, s->pre_tile[i]))
			continue;             /* the analysis' own TILE (lesson.h analysis_tile) */
		devrun_build *b = &pr->b[pr->nbuilds++];
		if ((size_t)s->pre_tile[i] * s->pre_tile[i] > cl.info.max_wg && i > 0) {
			b->tile = s->pre_tile[i], b->err = CL_INVALID_WORK_GROUP_SIZE, b->nargs = -1;
			b->finished = 1;
			continue;
		}
		cl_kernel k = build_student(&cl, s, s->pre_tile[i], b);
		b->finished = 1;
		if (k)
			clReleaseKernel(k);
		if (i == 0 && !k)
			break;                /* nothing else is built for a kernel that is not there */
	}
	/* the baseline is the seed's (devrun_seed_main), already in the cache */
	clrun_close(&cl);
	pr->finished = 1;
	return 0;
}

/* The seed's local-size experiment (lesson 4): the baseline at square and non-square sizes. */
static const int local_shapes[CHECK_MAX_LOCALS][2] = { { 8, 8 }, { 16, 16 }, { 32, 8 } };

/* ---- the seeding child: only the grader's own kernels --------------------------------- */

/* Fill the cache named by POCL_CACHE_DIR with what the grader itself builds and launches for
 * the lesson: the baseline at the lesson's local size and the sweep's local sizes, the copy
 * kernel, the runtime's fill.  No student code is in this process. */
int devrun_seed_main(void *arg)
{
	const devrun_ctx *x = arg;
	const lesson *l = x->src->o->l;
	char err[256];
	clrun cl;
	if (open_device(x, &cl, err, sizeof err) != 0)
		return 3;
	ref_problem p;
	clrun_bufs b = { 0 };
	cl_kernel base = l->baseline ? build_baseline(&cl, l) : NULL;
	/* a small size and the timing size: PoCL specialises a kernel for small grids apart */
	lesson_size sizes[2] = { l->kind->sizes[1].rows ? l->kind->sizes[1] : l->kind->sizes[0],
	                         strcmp(cl.info.type, "GPU") == 0 ? l->kind->time_size_gpu :
	                                                             l->kind->time_size };
	for (int z = 0; z < 2; z++) {
	lesson_size s = sizes[z];
	if (ref_setup_inputs(&p, l->kind, s.rows, s.cols, l->tile, 1) == 0) {
		if (clrun_upload(&cl, &p, &b, 1) == CL_SUCCESS) {
			clrun_reset_output(&cl, &b);
			clrun_fill_output(&cl, &b, 0u);
			if (base)
				clrun_launch(&cl, base, &b, l->tile, NULL);
			for (int i = 0; base && l->tiles[0] && i < CHECK_MAX_LOCALS; i++)
				clrun_launch_local(&cl, base, &b, local_shapes[i][0], local_shapes[i][1], NULL);
			clrun_copy copy = { 0 };
			if (l->kind->copy_floats &&
			    clrun_copy_open(&cl, &b, (size_t)l->kind->copy_floats(s.rows, s.cols), &copy) ==
			    CL_SUCCESS)
				clrun_copy_launch(&cl, &copy, NULL);
			clrun_copy_close(&copy);
			clFinish(cl.queue);
		}
		clrun_release(&b);
		ref_free(&p);
	}
	}
	if (base)
		clReleaseKernel(base);
	clrun_close(&cl);
	return 0;
}

/* ---- the run child: launches, hands back bytes ------------------------------------------ */

static float *slot_buf(const devrun_page *pg, const devrun_slot *sl, int i)
{
	size_t off = sl->off;
	for (int k = 0; k < i; k++)
		off += sl->len[k] + 2 * (size_t)GUARD_FLOATS;
	return (float *)pg->arena + off;
}

/* Every buffer, guard zones and all, into the slot's arena. */
static cl_int read_back(clrun *cl, const clrun_bufs *b, devrun_page *pg, const devrun_slot *sl)
{
	for (int i = 0; i < b->n && i < sl->nbuf; i++) {
		if (b->len[i] != sl->len[i])
			return CL_INVALID_BUFFER_SIZE;
		cl_int e = clEnqueueReadBuffer(cl->queue, b->whole[i], CL_TRUE, 0,
		                               (b->len[i] + 2 * (size_t)GUARD_FLOATS) * sizeof(float),
		                               slot_buf(pg, sl, i), 0, NULL, NULL);
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
	if (ref_setup_inputs(&p, kd, sl->rows, sl->cols, sl->tile, sl->seed) != 0) {
		so->err = CL_OUT_OF_HOST_MEMORY;
		return;
	}
	so->err = clrun_upload(cl, &p, &b, 1);
	if (so->err == CL_SUCCESS)
		so->err = clrun_launch(cl, k, &b, sl->tile, NULL);
	if (so->err == CL_SUCCESS)
		so->err = read_back(cl, &b, pg, sl);
	so->done = so->err == CL_SUCCESS;
	const float *out = so->done ? slot_buf(pg, sl, sl->nbuf - 1) + GUARD_FLOATS : NULL;
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

/* The timing slot: warm-up, then student and baseline interleaved (about half a second of
 * launches with the copy below, 3 to DEVRUN_REPS each), then a copy of the same bytes as
 * often, then one more launch whose buffers come back: the timed kernel is the checked one (it
 * cannot tell them apart).  The copies run before and after the pairs, never between them: a
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
	if (so->err == CL_SUCCESS)
		so->err = clrun_launch(cl, k, &b, sl->tile, &w);
	if (so->err != CL_SUCCESS)
		goto out;
	so->base_ok = base && clrun_reset_output(cl, &b) == CL_SUCCESS &&
	              clrun_launch(cl, base, &b, l->tile, &bw) == CL_SUCCESS;
	int reps = (int)(500.0 / (w + bw + cw + 1e-3));
	reps = reps < 3 ? 3 : reps > DEVRUN_REPS ? DEVRUN_REPS : reps;
	for (int i = 0; i < reps; i++) {
		if (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		    (so->err = clrun_launch(cl, k, &b, sl->tile, &so->ks[i])) != CL_SUCCESS)
			goto out;
		if (so->base_ok && (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		                    clrun_launch(cl, base, &b, l->tile, &so->bs[i]) != CL_SUCCESS))
			so->base_ok = 0;
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
	cl_kernel k = build_student(cl, s, sl->tile, NULL);
	if (!k) {
		so->err = CL_BUILD_PROGRAM_FAILURE;
		return;
	}
	run_correct(cl, k, pg, sl, so, l->kind);
	ref_problem p;
	clrun_bufs b;
	if (so->done && ref_setup_inputs(&p, l->kind, ts.rows, ts.cols, sl->tile, 7) == 0) {
		if (clrun_upload(cl, &p, &b, 1) == CL_SUCCESS &&
		    clrun_launch(cl, k, &b, sl->tile, &so->ks[0]) == CL_SUCCESS &&
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
	cl_kernel base = build_baseline(cl, l);
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
			if (clrun_launch_local(cl, base, &b, lx, ly, &ms[0]) == CL_SUCCESS &&
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
		if ((right ? ref_setup : ref_setup_inputs)(&p, kd, sl->rows, sl->cols, sl->tile, sl->seed))
			continue;
		for (int i = 0; i < sl->nbuf; i++) {
			float *w = slot_buf(pg, sl, i);
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
	if (open_device(x, &cl, err, sizeof err) != 0)
		return 3;
	cl_kernel k = build_student(&cl, s, l->tile, NULL);
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
	lesson_size ts = gpu ? l->kind->time_size_gpu : l->kind->time_size;
	cl_kernel base = l->baseline && !l->tiles[0] ? build_baseline(&cl, l) : NULL;
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

/* ---- the parent: plan and judgement --------------------------------------------------- */

static size_t whole(size_t len)
{
	return len + 2 * (size_t)GUARD_FLOATS;
}

static int add_slot(devrun_plan *pl, devrun_slot_kind kd, const kind *k, int rows, int cols,
                    int tile, uint64_t seed)
{
	ref_problem p;
	if (pl->nslots >= DEVRUN_MAX_SLOTS || ref_setup_inputs(&p, k, rows, cols, tile, seed) != 0)
		return -1;
	devrun_slot *s = &pl->s[pl->nslots++];
	*s = (devrun_slot){ kd, rows, cols, tile, seed, p.n_in + 1, { 0 }, pl->arena_floats, 0 };
	for (int i = 0; i < p.n_in; i++)
		s->len[i] = p.in_len[i];
	s->len[p.n_in] = p.out_len;
	for (int i = 0; i < s->nbuf; i++)
		pl->arena_floats += whole(s->len[i]);
	if (kd != SLOT_TIME) {   /* a rerun on a zeroed output tells "reads it first" (judge_reread) */
		s->reread_off = pl->arena_floats;
		pl->arena_floats += p.out_len;
	}
	ref_free(&p);
	return 0;
}

int devrun_plan_make(const check_opts *o, const char *dev_type, devrun_plan *pl)
{
	const lesson *l = o->l;
	int gpu = strcmp(dev_type, "GPU") == 0;
	memset(pl, 0, sizeof *pl);
	for (int i = 0; i < LESSON_MAX_SIZES && l->kind->sizes[i].rows; i++)
		if (add_slot(pl, SLOT_CORRECT, l->kind, l->kind->sizes[i].rows, l->kind->sizes[i].cols,
		             l->tile, o->seed + i) != 0)
			return -1;
	pl->ncorrect = pl->nslots;
	if (!l->tiles[0]) {
		lesson_size ts = gpu ? l->kind->time_size_gpu : l->kind->time_size;
		if (add_slot(pl, SLOT_TIME, l->kind, ts.rows, ts.cols, l->tile, o->seed + 99) != 0)
			return -1;
	}
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		if (add_slot(pl, SLOT_SWEEP, l->kind, 100, 100, l->tiles[i], o->seed + l->tiles[i]) != 0)
			return -1;
	if (l->tiles[0] && l->baseline) {
		pl->locals = 1;
		memcpy(pl->local_shape, local_shapes, sizeof local_shapes);
		/* on a CPU at N = 256: a naive launch at the sweep's N would cost the check seconds */
		pl->local_n = gpu ? l->kind->time_size_gpu.rows : 256;
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
	for (int i = 0; i < n; i++) {
		const devrun_build *b = &pr->b[i];
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
	for (int t = 0; l->tiles[0] && t < LESSON_MAX_TILES && l->tiles[t]; t++)
		ch->ntiles = t + 1;
	const devrun_build *b0 = n ? &pr->b[0] : NULL;
	ch->build_err = b0 ? b0->err : CL_BUILD_PROGRAM_FAILURE;
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
		const float *w = slot_buf(pg, sl, i);
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
	return slot_buf(pg, sl, sl->nbuf - 1) + GUARD_FLOATS;
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
	else if ((full ? ref_setup : ref_setup_inputs)(&p, o->l->kind, sl->rows, sl->cols, sl->tile,
	                                               sl->seed) != 0)
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
		if ((full ? ref_setup : ref_setup_inputs)(&r[i], o->l->kind, sl->rows, sl->cols,
		                                          sl->tile, sl->seed) != 0)
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

int devrun_judge_correct(const devrun_plan *pl, const devrun_page *pg, const check_opts *o,
                         const ref_problem *refs, check_child *ch)
{
	int right = 1;
	ch->nruns = 0;
	for (int i = 0; i < pl->ncorrect; i++) {
		check_run *run = &ch->runs[ch->nruns];
		int ok = judge_slot(&pl->s[i], &pg->out[i], pg, o, 1, ref_at(refs, i), run) == 0;
		if (!pg->out[i].reached)
			break;
		ch->nruns++;
		right = right && ok && run->cmp.passed && !run->violations;
		if (!ok)
			break;
	}
	return right && ch->nruns == pl->ncorrect;
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
