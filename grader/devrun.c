/* devrun.c — the device run of a check: a probe child that builds but never launches, a run
 * child that launches and hands back raw bytes, and the parent's judgement of those bytes
 * (devrun.h says why it is split this way).  This file: what both children share (the
 * runtime preloaded in the parent, the device opened, the builds), the probe child and the
 * seeding child.  devrun_run.c is the run child; devrun_judge.c the parent's plan and
 * judgement. */
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

#include "devrun_int.h"
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

int devrun_open_device(const devrun_ctx *x, clrun *cl, char *err, size_t errlen)
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
cl_kernel devrun_build_student(clrun *cl, const devrun_src *s, int tile, devrun_build *b)
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

cl_kernel devrun_build_baseline(clrun *cl, const lesson *l)
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
	if (devrun_open_device(x, &cl, pr->open_err, sizeof pr->open_err) != 0)
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
		cl_kernel k = devrun_build_student(&cl, s, s->pre_tile[i], b);
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

const int devrun_local_shapes[CHECK_MAX_LOCALS][2] = { { 8, 8 }, { 16, 16 }, { 32, 8 } };

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
	if (devrun_open_device(x, &cl, err, sizeof err) != 0)
		return 3;
	ref_problem p;
	clrun_bufs b = { 0 };
	cl_kernel base = l->baseline ? devrun_build_baseline(&cl, l) : NULL;
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
				clrun_launch_local(&cl, base, &b, devrun_local_shapes[i][0],
				                   devrun_local_shapes[i][1], NULL);
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

