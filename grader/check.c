/* check.c — one `clgrade check`, as data flowing one way:
 *   kernel file -> confined preprocessor (includes, inline asm) -> sandboxed child (build,
 *   correctness, timing on the chosen device) -> sandboxed analysis child (the same kernel
 *   under Oclgrind with our tracer) -> criteria.  Children write into shared memory / a
 *   file, so a crash or a hang in the student's kernel is a finding, never a grader crash. */
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "check.h"
#include "bank.h"
#include "confine.h"
#include "diag.h"
#include "occ.h"
#include "localmem.h"
#include "preproc.h"
#include "sandbox.h"
#include "tilechoice.h"
#include "trace.h"

enum { PRE_MAX = LESSON_MAX_TILES + 1 };

typedef struct child_ctx {
	const check_opts *o;
	const char *source;       /* the student's file as written (for messages) */
	const char *pre[PRE_MAX]; /* ... as every compiler sees it, per TILE (preproc.h) */
	const char *pre_err[PRE_MAX]; /* or why the preprocessor refused it at that TILE */
	int pre_tile[PRE_MAX], npre;
	const char *pocl_cache;   /* POCL_CACHE_DIR */
	check_child *out;
	const check_report *rep;  /* analysis: the runs planned (rep->analyses) */
	const char *trace_out;    /* analysis: the folder the tracer writes its summaries into */
	int no_uninit;            /* analysis: leave Oclgrind's uninitialised-value checker off */
	int unoptimised;          /* analysis: build with -cl-opt-disable, checkers off (for the
	                             lines of accesses the optimiser merged) */
	long declared;            /* __local bytes the kernel declares at the lesson's TILE (-1: ?) */
	long declared_at[LESSON_MAX_TILES]; /* the same at each TILE of a sweep */
} child_ctx;

/* The preprocessed text for TILE=tile ("" when there is none: an empty program fails). */
static const char *pre_for(const child_ctx *c, int tile)
{
	for (int i = 0; i < c->npre; i++)
		if (c->pre_tile[i] == tile && c->pre[i])
			return c->pre[i];
	return "";
}

/* The preprocessor's refusal at TILE=tile (a sweep's TILE), or NULL. */
static const char *pre_error(const child_ctx *c, int tile)
{
	for (int i = 0; i < c->npre; i++)
		if (c->pre_tile[i] == tile && c->pre_err[i])
			return c->pre_err[i];
	return NULL;
}

static void stage(check_child *r, const char *fmt, int a, int b)
{
	snprintf(r->stage, sizeof r->stage, fmt, a, b);
}

/* No -I: the preprocessed text has no #include left (preproc.h). */
static void build_options(const check_opts *o, int tile, char *buf, size_t len)
{
	snprintf(buf, len, "-DTILE=%d -cl-kernel-arg-info", tile);
}

/* Build the student's source at TILE=tile; the log is rewritten against the student's file. */
static cl_kernel build_student(clrun *cl, const child_ctx *c, int tile, cl_int *err)
{
	check_child *r = c->out;
	const char *refused = pre_error(c, tile);
	if (refused) {            /* no compiler sees it: the preprocessor's message is the log */
		*err = CL_BUILD_PROGRAM_FAILURE;
		if (!r->log_tile || r->build_errors == 0) {
			snprintf(r->build_log, sizeof r->build_log, "%s", refused);
			r->build_errors = 1;
			r->log_tile = tile;
		}
		return NULL;
	}
	char opts[4200], *raw = malloc(65536);
	cl_program prog = NULL;
	build_options(c->o, tile, opts, sizeof opts);
	if (strstr(cl->info.platform, "NVIDIA"))   /* ptxas reports registers per work-item */
		strncat(opts, " -cl-nv-verbose", sizeof opts - strlen(opts) - 1);
	*err = clrun_build(cl, pre_for(c, tile), opts, &prog, raw ? raw : (char[1]){0}, raw ? 65536 : 1);
	const char *used = raw ? strstr(raw, "Used ") : NULL;
	if (used && strstr(used, " registers") && !r->registers)
		r->registers = atoi(used + 5);
	/* the main build's log, unless a later TILE's build is the first to fail */
	if (raw && (!r->log_tile || (*err != CL_SUCCESS && r->build_errors == 0))) {
		r->build_errors = diag_rewrite(raw, c->source, c->o->kernel, r->build_log,
		                               sizeof r->build_log);
		if (*err != CL_SUCCESS && r->build_errors == 0)   /* a link error: no location */
			r->build_errors = diag_unlocated(raw, c->source, c->o->kernel, r->build_log,
			                                 sizeof r->build_log);
		r->log_tile = tile;
	}
	free(raw);
	if (*err != CL_SUCCESS)
		return NULL;
	cl_kernel k = clCreateKernel(prog, c->o->l->kernel, err);
	clReleaseProgram(prog);
	return *err == CL_SUCCESS ? k : NULL;
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
	if (prog)
		clReleaseProgram(prog);
	return e == CL_SUCCESS ? k : NULL;
}

/* Elements that came out NaN from the NaN-filled output: run again on an output of zeros.
 * When all of them come out right now, they depend on the output's old contents: the
 * kernel reads the output before writing it (C[i] += ...), which the pattern then says
 * instead of "never written". */
static void check_reads_output(clrun *cl, cl_kernel k, clrun_bufs *b, const ref_problem *p,
                               int tile, float *out, check_run *run)
{
	if (p->kind->finish)   /* compared as finished values, not element by element */
		return;
	float *first = malloc(p->out_len * sizeof(float)), *again = malloc(p->out_len * sizeof(float));
	int viol;
	char msg[240];
	if (first && again && (memcpy(first, out, p->out_len * sizeof(float)),
	    clrun_fill_output(cl, b, 0u) == CL_SUCCESS) &&
	    clrun_launch(cl, k, b, tile, NULL) == CL_SUCCESS &&
	    clrun_download(cl, b, again, &viol, msg, sizeof msg) == CL_SUCCESS) {
		size_t dep = 0, nan = 0;
		for (size_t i = 0; i < p->out_len; i++) {
			nan += isnan(first[i]) != 0;
			dep += isnan(first[i]) && ref_element_ok(p, i, again[i]);
		}
		/* every one of them: a few that change between runs are a race, not a read */
		if (dep && dep == nan) {
			run->reads_output = 1;
			diag_reads_output(p->out_name, dep, p->out_len, run->cmp.pattern,
			                  sizeof run->cmp.pattern, NULL, 0);
		}
	}
	free(first);
	free(again);
}

/* Run kernel k at one size and compare; records into run.  Returns 0 when it ran. */
static int correctness_run(clrun *cl, cl_kernel k, const check_opts *o, int rows, int cols,
                           int tile, uint64_t seed, check_run *run)
{
	ref_problem p;
	clrun_bufs b;
	run->rows = rows, run->cols = cols, run->tile = tile;
	if (ref_setup(&p, o->l->kind, rows, cols, tile, seed) != 0)
		return -1;
	float *out = malloc(p.out_len * sizeof(float));
	run->err = out ? clrun_upload(cl, &p, &b, 1) : CL_OUT_OF_HOST_MEMORY;
	if (run->err == CL_SUCCESS)
		run->err = clrun_launch(cl, k, &b, tile, NULL);
	if (run->err == CL_SUCCESS)
		run->err = clrun_download(cl, &b, out, &run->violations, run->guard_msg,
		                          sizeof run->guard_msg);
	if (run->err == CL_SUCCESS) {
		ref_compare(&p, out, tile, &run->cmp);
		run->done = 1;
	}
	if (run->done && (run->cmp.unwritten || run->cmp.nonfinite))
		check_reads_output(cl, k, &b, &p, tile, out, run);
	clrun_release(&b);
	free(out);
	ref_free(&p);
	return run->err == CL_SUCCESS ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Student and baseline interleaved on the same buffers: warm-up (checked for correctness at
 * this large size), then alternating launches; medians of the profiling events. */
/* Download the output and check it: fully against the reference where there is one,
 * else on sampled elements (ref_check_sample).  Records into run. */
static void verify(clrun *cl, const clrun_bufs *b, const ref_problem *p, int tile, float *out,
                   uint64_t seed, check_run *run)
{
	run->err = clrun_download(cl, b, out, &run->violations, run->guard_msg, sizeof run->guard_msg);
	if (run->err != CL_SUCCESS)
		return;
	if (p->expect)
		ref_compare(p, out, tile, &run->cmp);
	else
		ref_check_sample(p, out, 64, seed, &run->cmp);
	run->done = 1;
}

/* Student and baseline interleaved on the same buffers, the output refilled before every
 * launch; then one more student launch, verified, so the timed kernel is the checked one
 * (a kernel cannot tell the two apart).  Medians of the profiling events. */
static void timing(clrun *cl, cl_kernel k, cl_kernel base, const child_ctx *c, int tile)
{
	check_child *r = c->out;
	const lesson *l = c->o->l;
	ref_problem p;
	clrun_bufs b;
	/* a GPU needs a large problem to dwarf launch costs; its full CPU reference would take
	 * seconds, so there the output is checked on sampled elements */
	int gpu = strcmp(r->dev.type, "GPU") == 0;
	lesson_size ts = gpu ? l->kind->time_size_gpu : l->kind->time_size;
	int rows = ts.rows, cols = ts.cols;
	stage(r, "timing at %dx%d", rows, cols);
	if ((gpu ? ref_setup_inputs : ref_setup)(&p, l->kind, rows, cols, tile, c->o->seed + 99) != 0)
		return;
	check_run *run = &r->runs[r->nruns++];
	run->rows = rows, run->cols = cols, run->tile = tile;
	float *out = malloc(p.out_len * sizeof(float));
	double ks[16], bs[16], cs[16], w = 0, bw = 0, cw = 0;
	clrun_copy copy = { 0 };
	int copying = 0;
	run->err = out ? clrun_upload(cl, &p, &b, 1) : CL_OUT_OF_HOST_MEMORY;
	if (run->err == CL_SUCCESS)
		run->err = clrun_launch(cl, k, &b, tile, &w);              /* warm-up */
	if (run->err == CL_SUCCESS)
		verify(cl, &b, &p, tile, out, c->o->seed, run);
	if (run->err != CL_SUCCESS || !run->cmp.passed || run->violations)
		goto out;
	if (base && (clrun_reset_output(cl, &b) != CL_SUCCESS ||
	             clrun_launch(cl, base, &b, l->tile, &bw) != CL_SUCCESS))
		r->baseline_failed = 1, base = NULL;
	/* a copy of the same bytes in the same run: the bandwidth the kernel is shown beside */
	if (l->kind->copy_floats)
		copying = clrun_copy_open(cl, &b, (size_t)l->kind->copy_floats(rows, cols), &copy) ==
		          CL_SUCCESS && clrun_copy_launch(cl, &copy, &cw) == CL_SUCCESS;
	/* about half a second of timed launches in all, 3 to 15 of each */
	int reps = (int)(500.0 / (w + bw + cw + 1e-3));
	reps = reps < 3 ? 3 : reps > 15 ? 15 : reps;
	for (int i = 0; i < reps; i++) {
		if (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		    (run->err = clrun_launch(cl, k, &b, tile, &ks[i])) != CL_SUCCESS)
			goto out;
		if (base && (clrun_reset_output(cl, &b) != CL_SUCCESS ||
		             clrun_launch(cl, base, &b, l->tile, &bs[i]) != CL_SUCCESS))
			r->baseline_failed = 1, base = NULL;
		if (copying && clrun_copy_launch(cl, &copy, &cs[i]) != CL_SUCCESS)
			copying = 0;
	}
	if (clrun_reset_output(cl, &b) != CL_SUCCESS ||
	    (run->err = clrun_launch(cl, k, &b, tile, NULL)) != CL_SUCCESS)
		goto out;
	verify(cl, &b, &p, tile, out, c->o->seed + 1, run);
	if (!run->cmp.passed || run->violations)
		goto out;                 /* right once, wrong when timed: not timed */
	r->kernel_ms = median(ks, reps);
	r->baseline_ms = base ? median(bs, reps) : 0;
	r->copy_ms = copying ? median(cs, reps) : 0;
	r->time_rows = rows, r->time_cols = cols, r->time_reps = reps;
	r->timed = 1;
out:
	clrun_copy_close(&copy);
	clrun_release(&b);
	free(out);
	ref_free(&p);
}

/* Lesson 4: the same kernel at every TILE of the sweep. */
static void tile_sweep(clrun *cl, const child_ctx *c)
{
	check_child *r = c->out;
	const lesson *l = c->o->l;
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++) {
		check_tile *t = &r->tiles[r->ntiles++];
		int tile = t->tile = l->tiles[i];
		stage(r, "TILE=%d sweep%.0d", tile, 0);
		if ((size_t)tile * tile > r->dev.max_wg) {
			t->err = CL_INVALID_WORK_GROUP_SIZE;
			continue;
		}
		cl_kernel k = build_student(cl, c, tile, &t->err);
		if (!k)
			continue;
		size_t wg, runtime;
		lmem_source src;
		t->built = 1;
		clrun_kernel_info(cl, k, &runtime, &wg);
		t->local_bytes = lmem_pick(runtime, c->declared_at[i], -1, &src);
		check_run run = {0};
		t->correct = correctness_run(cl, k, c->o, 100, 100, tile, c->o->seed + tile, &run) == 0 &&
		             run.cmp.passed && !run.violations;
		t->err = run.err;
		ref_problem p;
		clrun_bufs b;
		lesson_size ts = strcmp(r->dev.type, "GPU") == 0 ? l->kind->time_size_gpu : l->kind->time_size;
		if (t->correct && ref_setup_inputs(&p, l->kind, ts.rows, ts.cols, tile, 7) == 0) {
			double ms[3];
			if (clrun_upload(cl, &p, &b, 1) == CL_SUCCESS &&
			    clrun_launch(cl, k, &b, tile, &ms[0]) == CL_SUCCESS &&
			    clrun_launch(cl, k, &b, tile, &ms[0]) == CL_SUCCESS &&
			    clrun_launch(cl, k, &b, tile, &ms[1]) == CL_SUCCESS &&
			    clrun_launch(cl, k, &b, tile, &ms[2]) == CL_SUCCESS) {
				t->ms = median(ms, 3);
				t->timed = 1;
			}
			clrun_release(&b);
			ref_free(&p);
		}
		clReleaseKernel(k);
	}
}

/* Bytes of address space this process holds now (/proc/self/statm), 0 when unknown. */
static size_t address_space(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* The seed's local-size experiment: the lesson's baseline (the naive kernel, which takes any
 * local size, unlike a TILE x TILE tiled one) timed at square and non-square local sizes. */
static void local_sweep(clrun *cl, const child_ctx *c)
{
	static const int shapes[CHECK_MAX_LOCALS][2] = { { 8, 8 }, { 16, 16 }, { 32, 8 } };
	check_child *r = c->out;
	const lesson *l = c->o->l;
	cl_kernel base = build_baseline(cl, l);
	/* on a CPU at N = 256 (a naive launch at the sweep's N would cost the check seconds) */
	lesson_size ts = strcmp(r->dev.type, "GPU") == 0 ? l->kind->time_size_gpu : (lesson_size){ 256, 256 };
	ref_problem p;
	clrun_bufs b;
	if (!base || ref_setup_inputs(&p, l->kind, ts.rows, ts.cols, l->tile, 7) != 0) {
		if (base)
			clReleaseKernel(base);
		return;
	}
	if (clrun_upload(cl, &p, &b, 1) == CL_SUCCESS) {
		for (int i = 0; i < CHECK_MAX_LOCALS; i++) {
			check_local *lc = &r->locals[r->nlocals++];
			double ms[3];
			lc->lx = shapes[i][0], lc->ly = shapes[i][1], lc->n = ts.rows;
			stage(r, "local size %dx%d", lc->lx, lc->ly);
			if ((size_t)lc->lx * lc->ly > r->dev.max_wg)
				continue;
			if (clrun_launch_local(cl, base, &b, lc->lx, lc->ly, &ms[0]) == CL_SUCCESS &&
			    clrun_launch_local(cl, base, &b, lc->lx, lc->ly, &ms[0]) == CL_SUCCESS &&
			    clrun_launch_local(cl, base, &b, lc->lx, lc->ly, &ms[1]) == CL_SUCCESS &&
			    clrun_launch_local(cl, base, &b, lc->lx, lc->ly, &ms[2]) == CL_SUCCESS) {
				lc->ms = median(ms, 3);
				lc->timed = 1;
			}
		}
		clrun_release(&b);
	}
	ref_free(&p);
	clReleaseKernel(base);
}

/* --memory bounds the check as a whole: with the analysis beside it, each child gets half,
 * on top of what its runtime holds once open. */
static size_t memory_share(const check_opts *o)
{
	return o->analysis ? o->mem_bytes / 2 : o->mem_bytes;
}

/* Timing waits until the parent says the analysis child is done: no shared CPU on a clock. */
static void wait_for_analysis(check_child *r)
{
	stage(r, "waiting for the analysis to finish%.0d%.0d", 0, 0);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	r->wait_began = t.tv_sec + t.tv_nsec * 1e-9;
	while (!__atomic_load_n(&r->analysis_done, __ATOMIC_SEQ_CST))
		usleep(2000);
}

static int child_main(void *arg)
{
	const child_ctx *c = arg;
	const check_opts *o = c->o;
	const lesson *l = o->l;
	check_child *r = c->out;
	clrun cl;
	/* NVIDIA's compute cache would hide ptxas's register report on a rebuild */
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	setenv("POCL_CACHE_DIR", c->pocl_cache, 1);
	stage(r, "opening the OpenCL device%.0d%.0d", 0, 0);
	if (clrun_open(&cl, o->device, r->open_err, sizeof r->open_err) != 0)
		return 3;
	r->opened = 1;
	r->dev = cl.info;
	/* The memory limit starts now, on CPU devices only (a GPU driver reserves far more
	 * address space than any kernel's host memory: NVIDIA's fails to load under 8 GiB), and
	 * on top of what the runtime already holds: PoCL's reservations grow with the cores
	 * (Ubuntu 24.04's PoCL 5.0 on 16 cores aborted every build under a flat 8 GiB) */
	if (o->mem_bytes && strcmp(r->dev.type, "GPU") != 0) {
		size_t lim = address_space() + memory_share(o);
		struct rlimit as = { lim, lim };
		setrlimit(RLIMIT_AS, &as);
	}
	stage(r, "building the kernel (TILE=%d)%.0d", l->tile, 0);
	cl_kernel k = build_student(&cl, c, l->tile, &r->build_err);
	r->built = r->build_err == CL_SUCCESS || r->build_err == CL_INVALID_KERNEL_NAME;
	struct timespec bt;
	clock_gettime(CLOCK_MONOTONIC, &bt);
	r->built_at = bt.tv_sec + bt.tv_nsec * 1e-9;
	if (!k)
		return 0;
	r->kernel_found = 1;
	diag_arg args[16];
	int nargs = clrun_kernel_args(&cl, k, args, 16);
	if (nargs >= 0 && diag_signature(l->kind->args, l->kind->n_inputs, nargs <= 16 ? args : NULL,
	                                 nargs, r->signature, sizeof r->signature) != 0)
		return 0;             /* not launched: the grader cannot pass it the lesson's arguments */
	clrun_kernel_info(&cl, k, &r->local_runtime, &r->kernel_max_wg);
	r->local_declared = c->declared;
	r->local_bytes = lmem_pick(r->local_runtime, c->declared, -1, &r->local_source);
	r->local_limit = r->dev.local_mem;
	if (o->local_mem && o->local_mem < r->local_limit)
		r->local_limit = o->local_mem;
	if (r->local_bytes > r->local_limit) {
		r->over_budget = 1;   /* a finding with both numbers, not a launch failure */
		return 0;
	}
	int ok = 1;
	for (int i = 0; i < LESSON_MAX_SIZES && l->kind->sizes[i].rows && ok; i++) {
		check_run *run = &r->runs[r->nruns++];
		stage(r, "running at %dx%d", l->kind->sizes[i].rows, l->kind->sizes[i].cols);
		ok = correctness_run(&cl, k, o, l->kind->sizes[i].rows, l->kind->sizes[i].cols, l->tile,
		                     o->seed + i, run) == 0;
	}
	int right = ok;             /* time only a kernel that is right so far */
	for (int i = 0; i < r->nruns; i++)
		right = right && r->runs[i].done && r->runs[i].cmp.passed && !r->runs[i].violations;
	if (right && !l->tiles[0]) {   /* a TILE sweep (lesson 4) times every TILE itself */
		cl_kernel base = l->baseline ? build_baseline(&cl, l) : NULL;
		wait_for_analysis(r);
		r->baseline_failed = l->baseline && !base;
		timing(&cl, k, base, c, l->tile);
		if (base)
			clReleaseKernel(base);
	}
	clReleaseKernel(k);
	if (ok && l->tiles[0]) {
		wait_for_analysis(r);
		tile_sweep(&cl, c);
		if (l->baseline)
			local_sweep(&cl, c);
	}
	clrun_close(&cl);
	r->finished = 1;
	return 0;
}

/* ---- analysis under Oclgrind ---------------------------------------------------------- */

/* What `make` builds for the analysis, under the suite's root. */
#define OCLGRIND_ICD_DIR "build/oclgrind-icd"
#define TRACER_PLUGIN    "build/libcltrace.so"

static void root_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", lesson_root(), rel);
}

/* The tracer's summary of analysis run i, in the analysis' private folder. */
static void trace_file(const char *dir, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/trace-%d.json", dir, i);
}

/* Where run i's analysed launch leaves its wrong result's pattern (verify_analysed). */
static void wrong_file(const char *dir, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/wrong-%d.txt", dir, i);
}

/* Every planned run on Oclgrind, one after another in this one child: each writes its own
 * summary (CLTRACE_OUT) and names the problem's extent (CLTRACE_EXTENT: dimension 0 walks
 * cols, dimension 1 rows) so that only work-groups wholly inside it are priced. */
/* The analysed launch computed the right answer?  A kernel that skips its work, or does it
 * differently, only at the analysis size would otherwise show the checkers a kernel that is
 * not the one graded.  Writes "wrong-<i>.txt" into dir with the pattern when it did not. */
static void verify_analysed(clrun *cl, const clrun_bufs *b, const ref_problem *p,
                            const check_analysis_run *ar, const char *dir, int i)
{
	float *out = malloc((p->out_len ? p->out_len : 1) * sizeof *out);
	check_run run = { .rows = ar->rows, .cols = ar->cols, .tile = ar->tile };
	char path[4300];
	if (!out)
		return;
	run.err = clrun_read_output(cl, b, out);
	if (run.err == CL_SUCCESS && p->expect)
		ref_compare(p, out, ar->tile, &run.cmp);
	if (run.err == CL_SUCCESS && p->expect && !run.cmp.passed) {
		wrong_file(dir, i, path, sizeof path);
		FILE *f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s", run.cmp.pattern);
			fclose(f);
		}
	}
	free(out);
}

static int analysis_main(void *arg)
{
	const child_ctx *c = arg;
	const check_opts *o = c->o;
	const check_report *rep = c->rep;
	char icd[4200], plugin[4200], err[256], opts[4200], path[4300], extent[64];
	root_path(icd, sizeof icd, OCLGRIND_ICD_DIR);
	root_path(plugin, sizeof plugin, TRACER_PLUGIN);
	/* the kernel's printf goes to stdout: away from the log (stderr), which the parent scans
	 * for the runtime's own failures (log_grader_failure), so no kernel can print them */
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		fflush(stdout);
		dup2(null, 1);
		close(null);
	}
	setenv("OCL_ICD_VENDORS", icd, 1);
	setenv("OCLGRIND_PLUGINS", plugin, 1);
	/* as roomy as the devices the check runs on: the device's own budget is judged there */
	setenv("OCLGRIND_LOCAL_MEM_SIZE", "262144", 1);
	setenv("OCLGRIND_MAX_WGSIZE", "4096", 1);
	/* Oclgrind prints at most this many messages (printing them costs more than the run);
	 * our plugin still receives every one */
	setenv("OCLGRIND_MAX_ERRORS", "1000", 1);
	clrun cl;
	char *log = malloc(65536);
	int opened = -1;          /* the checkers of the open context: banks_only, or -1 */
	for (int i = 0; i < rep->nanalyses; i++) {
		const check_analysis_run *ar = &rep->analyses[i];
		int banks_only = ar->banks_only || c->unoptimised;
		if (opened != banks_only) {
			/* Oclgrind reads its checkers' settings when a context is created */
			if (opened >= 0)
				clrun_close(&cl);
			const char *on = banks_only ? "0" : "1";
			setenv("OCLGRIND_DATA_RACES", on, 1);
			/* two work-items writing one element is a race even with the same value */
			setenv("OCLGRIND_UNIFORM_WRITES", on, 1);
			setenv("OCLGRIND_UNINITIALIZED", c->no_uninit ? "0" : on, 1);
			if (clrun_open(&cl, "Oclgrind", err, sizeof err) != 0) {
				fprintf(stderr, "%s\n", err);
				return 3;
			}
			if (opened < 0 && o->mem_bytes) {   /* --memory: see memory_share */
				size_t lim = address_space() + memory_share(o);
				struct rlimit as = { lim, lim };
				setrlimit(RLIMIT_AS, &as);
			}
			opened = banks_only;
		}
		build_options(o, ar->tile, opts, sizeof opts);
		if (c->unoptimised)
			strncat(opts, " -cl-opt-disable", sizeof opts - strlen(opts) - 1);
		cl_program prog;
		cl_int e = clrun_build(&cl, pre_for(c, ar->tile), opts, &prog, log ? log : (char[1]){0},
		                       log ? 65536 : 1);
		cl_kernel k = e == CL_SUCCESS ? clCreateKernel(prog, o->l->kernel, &e) : NULL;
		if (!k)
			return 4;
		ref_problem p;
		clrun_bufs b;
		if (ref_setup(&p, o->l->kind, ar->rows, ar->cols, ar->tile, o->seed + 7 * i) != 0)
			return 5;
		trace_file(c->trace_out, i, path, sizeof path);
		snprintf(extent, sizeof extent, "%d %d", ar->cols, ar->rows);
		setenv("CLTRACE_OUT", path, 1);
		setenv("CLTRACE_EXTENT", extent, 1);
		e = clrun_upload(&cl, &p, &b, 0);
		if (e == CL_SUCCESS)
			e = clrun_launch(&cl, k, &b, ar->tile, NULL);
		clFinish(cl.queue);
		if (e == CL_SUCCESS && !c->unoptimised)
			verify_analysed(&cl, &b, &p, ar, c->trace_out, i);
		clrun_release(&b);
		clReleaseKernel(k);
		clReleaseProgram(prog);
		ref_free(&p);
		if (e != CL_SUCCESS)
			return 6;
	}
	free(log);
	clrun_close(&cl);
	return 0;
}

static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n > 0 ? malloc(n + 1) : NULL;
	cJSON *j = NULL;
	if (s && fread(s, 1, n, f) == (size_t)n) {
		s[n] = '\0';
		j = cJSON_Parse(s);
	}
	free(s);
	fclose(f);
	return j;
}

/* Did Oclgrind abort with an internal error whose message mentions what? */
static int internal_error(cJSON *summary, const char *what)
{
	cJSON *f, *all = summary ? cJSON_GetObjectItem(summary, "findings") : NULL;
	cJSON_ArrayForEach(f, all) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind"));
		const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(f, "message"));
		if (k && m && strcmp(k, "internal_error") == 0 && strstr(m, what))
			return 1;
	}
	return 0;
}

/* The analysis in flight: a child running the kernel under Oclgrind with our tracer. */
typedef struct analysis {
	int running;
	int confine_failed;       /* a grader failure, never the student's */
	child_ctx c;
	sandbox_child child;
	sandbox_limits lim;
	double t0, t1;            /* when it started and ended (CLOCK_MONOTONIC) */
	int timed_out;            /* stopped by the time limit: the kernel's fault only if the
	                             kernel also hangs outside Oclgrind (see check_lesson) */
	char dir[4096], log[4200];
} analysis;

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The runs: the seeded edge size at the lesson's TILE; with a TILE sweep, the same size again
 * at the TILE the student chose (bank conflicts depend on it). */
static void analysis_plan(const check_opts *o, const char *source, check_report *rep)
{
	const lesson *l = o->l;
	check_analysis_run *r = &rep->analyses[rep->nanalyses++];
	lesson_size s = lesson_analysis_size_at(l, o->seed, l->tile, &r->lo, &r->hi);
	r->rows = s.rows, r->cols = s.cols, r->tile = l->tile, r->banks_only = 0;
	int chosen = l->tiles[0] ? tile_chosen(rep, source) : 0;
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i] && chosen != l->tile; i++)
		if (l->tiles[i] == chosen) {
			r = &rep->analyses[rep->nanalyses++];
			s = lesson_analysis_size_at(l, o->seed, chosen, &r->lo, &r->hi);
			r->rows = s.rows, r->cols = s.cols, r->tile = chosen, r->banks_only = 1;
		}
}

/* Start the analysis child, or say in rep->analysis_note why there is none. */
static void analysis_start(const child_ctx *main_ctx, const char *tmp, const confine_policy *pol,
                           check_report *rep, analysis *a)
{
	const check_opts *o = main_ctx->o;
	char icd[4200], plugin[4200], lib[4096] = "";
	memset(a, 0, sizeof *a);
	root_path(icd, sizeof icd, OCLGRIND_ICD_DIR "/oclgrind.icd");
	root_path(plugin, sizeof plugin, TRACER_PLUGIN);
	FILE *f = fopen(icd, "r");
	if (f) {
		if (!fgets(lib, sizeof lib, f))
			lib[0] = '\0';
		fclose(f);
		lib[strcspn(lib, "\n")] = '\0';
	}
	const char *missing = !f ? "build/oclgrind-icd/oclgrind.icd: run `make`" :
	                      !lib[0] || access(lib, R_OK) ? "the package oclgrind: `sudo make deps`" :
	                      access(plugin, R_OK) ? "build/libcltrace.so: run `make`" : NULL;
	if (missing) {
		rep->analysis_grader = 1;
		rep->an.state = ANALYSIS_UNAVAILABLE;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "missing %s", missing);
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the grader could not run the "
		         "Oclgrind analysis (missing %s): races, out-of-bounds reads, uninitialised "
		         "__local, bank conflicts and coalescing are not checked", missing);
		return;
	}
	analysis_plan(o, main_ctx->source, rep);
	/* the check's private folder: no other user can plant a link where the child writes */
	snprintf(a->dir, sizeof a->dir, "%s", tmp);
	snprintf(a->log, sizeof a->log, "%s/oclgrind.log", a->dir);
	a->c = *main_ctx;
	a->c.out = NULL;
	a->c.rep = rep;
	a->c.trace_out = a->dir;
	a->lim = (sandbox_limits){ o->timeout_s, 0, a->log, pol, 1 << 20 };  /* memory: analysis_main */
	a->t0 = mono();
	a->running = sandbox_spawn(analysis_main, &a->c, &a->lim, &a->child) == 0;
}

/* The summaries of every run, merged; NULL when the first is missing.  *all: every run
 * wrote one. */
static cJSON *read_traces(const analysis *a, int n, int *all)
{
	cJSON *merged = NULL;
	char path[4300];
	*all = 1;
	for (int i = 0; i < n; i++) {
		trace_file(a->dir, i, path, sizeof path);
		cJSON *run = read_json(path);
		*all = *all && run;
		if (run && !merged)
			merged = trace_merge_first(run);
		else if (run)
			trace_merge(merged, run);
		cJSON_Delete(run);
		unlink(path);
	}
	return merged;
}

/* Does a site of the summary have no line of its own (the optimiser merged the accesses of an
 * if and its else into one instruction)? */
static int has_merged_sites(cJSON *summary)
{
	static const char *lists[] = { "local_sites", "global_sites" };
	cJSON *s;
	for (int l = 0; l < 2; l++)
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, lists[l]))
			if (cJSON_IsTrue(cJSON_GetObjectItem(s, "merged")))
				return 1;
	return 0;
}

/* The sites again from a build without optimisation, where each access keeps its own line;
 * the findings stay those of the checked, optimised build.  Within the time left. */
static void sites_unoptimised(check_report *rep, analysis *a, double left)
{
	sandbox_status st;
	int all;
	a->c.unoptimised = 1;
	a->lim.timeout_s = left;
	sandbox_run(analysis_main, &a->c, &a->lim, &st);
	a->c.unoptimised = 0;
	cJSON *u = read_traces(a, rep->nanalyses, &all);
	const char *fo = cJSON_GetStringValue(cJSON_GetObjectItem(rep->analysis, "fingerprint"));
	const char *fu = cJSON_GetStringValue(cJSON_GetObjectItem(u, "fingerprint"));
	/* the unoptimised build names lines only where it accesses memory exactly as the graded,
	 * optimised one does: a kernel whose -O0 code differs (type punning the optimiser folds)
	 * would otherwise show the verdicts another kernel */
	int ran = st.end == SANDBOX_EXITED && st.code == 0 && u && all &&
	          cJSON_IsTrue(cJSON_GetObjectItem(u, "complete"));
	int same = fo && fu && strcmp(fo, fu) == 0;
	if (ran && fo && fu && !same)
		rep->an.sites_unoptimised = -1;   /* it ran through, and accessed memory otherwise */
	if (ran && same) {
		static const char *lists[] = { "local_sites", "global_sites" };
		for (int l = 0; l < 2; l++)
			cJSON_ReplaceItemInObject(rep->analysis, lists[l],
			                          cJSON_DetachItemFromObject(u, lists[l]));
		rep->an.sites_unoptimised = 1;
	}
	cJSON_Delete(u);
}

/* Did the child's log say the grader's resources ran out?  Why, or NULL. */
static const char *log_grader_failure(const char *path)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	/* "std::bad_alloc", "LLVM ERROR: out of memory", glibc's "cannot allocate memory for
	 * thread-local data" */
	if (strstr(buf, "bad_alloc") || strcasestr(buf, "out of memory") ||
	    strcasestr(buf, "cannot allocate memory"))
		return "it ran out of memory (raise --memory)";
	/* a thread Oclgrind could not start (EAGAIN: the process limit, which counts every process
	 * of the user, on a machine busy with other work) */
	if (strcasestr(buf, "resource temporarily unavailable") || strstr(buf, "std::system_error") ||
	    strstr(buf, "pthread_create"))
		return "it could not start a thread (too many processes on this machine)";
	return NULL;
}

/* Wait for the analysis and read its summaries into rep->analysis. */
static void analysis_finish(check_report *rep, analysis *a)
{
	if (!a->running)
		return;
	sandbox_status st;
	sandbox_wait(&a->child, &st);
	int all;
	a->confine_failed = st.end == SANDBOX_FAILED;
	rep->analysis = read_traces(a, rep->nanalyses, &all);
	rep->an.uninit_checked = 1;
	double left = a->lim.timeout_s - (mono() - a->t0);
	/* the checker's crash: its own internal error, or the child killed by SIGSEGV/SIGABRT
	 * (it segfaults on every float4 load, e.g. tests/fixtures/l5_float4_loads.cl) */
	int crashed = st.end == SANDBOX_SIGNALED && (st.code == SIGSEGV || st.code == SIGABRT ||
	                                             st.code == SIGBUS);
	if ((internal_error(rep->analysis, "Uninitialized") || crashed) && left > 0) {
		/* Oclgrind 21.10's uninitialised-value checker aborts on some kernels: run again
		 * without it, within what is left of the analysis' own time limit, rather than
		 * lose races, bounds and banks too */
		cJSON_Delete(rep->analysis);
		for (int i = 0; i < rep->nanalyses; i++) {   /* the aborted run's verdicts go with it */
			char stale[4300];
			wrong_file(a->dir, i, stale, sizeof stale);
			unlink(stale);
		}
		a->c.no_uninit = 1;
		a->lim.timeout_s = left;
		sandbox_run(analysis_main, &a->c, &a->lim, &st);
		rep->analysis = read_traces(a, rep->nanalyses, &all);
		rep->an.uninit_checked = 0;
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "Oclgrind's uninitialised-value "
		         "checker failed on this kernel (an Oclgrind limitation), so reads of "
		         "uninitialised memory were not checked");
	}
	for (int i = 0; i < rep->nanalyses && !rep->analysis_wrong[0]; i++) {
		char path[4300];
		wrong_file(a->dir, i, path, sizeof path);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(rep->analysis_wrong, 1, sizeof rep->analysis_wrong - 1, f) : 0;
		if (f)
			fclose(f);
		rep->analysis_wrong[n] = '\0';
		rep->analysis_wrong_at = i;
		unlink(path);
	}
	cJSON *complete = cJSON_GetObjectItem(rep->analysis, "complete");
	int exited = st.end == SANDBOX_EXITED;
	left = a->c.o->timeout_s - (mono() - a->t0);   /* the analysis' own limit, all runs */
	if (exited && st.code == 0 && all && cJSON_IsTrue(complete) && has_merged_sites(rep->analysis)
	    && left > 0)
		sites_unoptimised(rep, a, left);
	a->t1 = mono();
	rep->analysis_s = a->t1 - a->t0;
	if (st.end == SANDBOX_TIMEOUT)
		a->timed_out = 1;
	/* The grader's own failures: Oclgrind would not open, memory ran out (the host's or the
	 * --memory limit's), or its time limit (judged in check_lesson) */
	int ended_badly = !exited || st.code != 0 || !rep->analysis || !all || cJSON_IsFalse(complete);
	const char *ran_out = ended_badly ? log_grader_failure(a->log) : NULL;
	if ((exited && (st.code == 3 || st.code == 5)) || ran_out) {
		rep->analysis_grader = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "%s",
		         exited && st.code == 3 ? "Oclgrind would not start" :
		         ran_out ? ran_out : "it ran out of memory (raise --memory)");
	} else if (!rep->analysis || !all || !exited || st.code != 0 || cJSON_IsFalse(complete)) {
		/* Oclgrind is here and ran: a kernel it could not run through is a finding, or a
		 * kernel would only have to break Oclgrind to skip every check that needs it */
		static const char *why[] = { [4] = "it does not build under Oclgrind",
		                             [6] = "its launch failed under Oclgrind" };
		rep->analysis_failed = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "%s",
		         exited && (st.code == 4 || st.code == 6) ? why[st.code] :
		         st.end == SANDBOX_TIMEOUT ? "it did not finish under Oclgrind within the time limit"
		         : !exited ? st.what : "Oclgrind stopped before the kernel's end");
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis could "
		         "not run the kernel through (%s): races, out-of-bounds reads and bank conflicts "
		         "are failed, not passed", rep->analysis_failure);
	}
	unlink(a->log);
	a->running = 0;
}

/* ---- the analysis, typed ---------------------------------------------------------------- */

static const char *find_names[FIND_KINDS] = {
	"out_of_bounds", "uninitialized", "data_race", "barrier_divergence",
};

static int num(cJSON *o, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void copy_str(char *dst, size_t len, cJSON *o, const char *k)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
	snprintf(dst, len, "%s", v ? v : "");
}

/* Words per lane between the active lanes of a site's worst warp: the first nonzero step. */
static int lane_stride(cJSON *site)
{
	cJSON *offs = cJSON_GetObjectItem(cJSON_GetObjectItem(site, "worst_lanes"), "offsets");
	int prev = -1, prev_lane = -1, stride = 0;
	for (int i = 0; i < cJSON_GetArraySize(offs) && !stride; i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		if (!cJSON_IsNumber(o))
			continue;   /* an inactive lane: the stride is per lane between active ones */
		if (prev >= 0)
			stride = (o->valueint - prev) / 4 / (i - prev_lane);
		prev = o->valueint, prev_lane = i;
	}
	return stride;
}

static void summarize_findings(cJSON *summary, check_analysis *an)
{
	cJSON *f;
	int order = 0;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(summary, "findings")) {
		const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(f, "kind"));
		order++;
		an->across_groups += cJSON_IsTrue(cJSON_GetObjectItem(f, "across_groups"));
		for (int i = 0; k && i < FIND_KINDS; i++) {
			if (strcmp(k, find_names[i]) != 0)
				continue;
			if (an->nfind[i] < CHECK_FIND_KEEP) {
				check_finding *x = &an->find[i][an->nfind[i]];
				const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(f, "message"));
				x->order = order;
				x->line = num(f, "line"), x->column = num(f, "column");
				x->other_line = num(f, "other_line");
				snprintf(x->message, sizeof x->message, "%s", m ? m : k);
			}
			an->nfind[i]++;
			const char *space = cJSON_GetStringValue(cJSON_GetObjectItem(f, "space"));
			int global = i == FIND_DATA_RACE && space && strcmp(space, "global") == 0;
			const char *m = cJSON_GetStringValue(cJSON_GetObjectItem(f, "message"));
			an->races_global += global;
			an->races_global_rw += global && m && strstr(m, "Read-write") != NULL;
		}
	}
}

/* The lane -> bank picture of one warp of a site (its worst_lanes) and its busiest bank. */
static void lane_picture(cJSON *site, check_site *w)
{
	cJSON *wl = cJSON_GetObjectItem(site, "worst_lanes"), *banks = cJSON_GetObjectItem(wl, "banks");
	cJSON *offs = cJSON_GetObjectItem(wl, "offsets");
	const char *prof = cJSON_GetStringValue(cJSON_GetObjectItem(wl, "profile"));
	const bank_profile *bp = bank_profile_find(prof ? prof : "?");
	int n = cJSON_GetArraySize(banks);
	w->picture = 0;
	if (!cJSON_IsArray(banks) || !bp || n > BANK_MAX_LANES || cJSON_GetArraySize(offs) != n)
		return;
	uint64_t addr[BANK_MAX_LANES] = { 0 };
	unsigned char active[BANK_MAX_LANES] = { 0 };
	for (int i = 0; i < n; i++) {
		cJSON *b = cJSON_GetArrayItem(banks, i), *o = cJSON_GetArrayItem(offs, i);
		active[i] = cJSON_IsNumber(b) && cJSON_IsNumber(o);
		addr[i] = active[i] ? (uint64_t)o->valuedouble : 0;
		w->bank[i] = active[i] ? (signed char)b->valueint : -1;
	}
	bank_busy b = bank_busiest(bp, addr, active, n);
	w->picture = 1, w->nlanes = n;
	w->busy_bank = b.bank, w->busy_lanes = b.lanes, w->busy_words = b.words;
	w->inactive = b.inactive;
}

/* The worst __local site under the profile, and the load count. */
static void summarize_sites(cJSON *summary, const char *profile, check_analysis *an)
{
	cJSON *s, *worst = NULL;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, "local_sites")) {
		const char *access = cJSON_GetStringValue(cJSON_GetObjectItem(s, "access"));
		cJSON *p = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"), profile);
		int n = num(p, "n_way");
		an->local_sites++;
		an->local_loads += access && strcmp(access, "store") != 0;
		cJSON *bytes = cJSON_GetObjectItem(s, "bytes");
		double b = cJSON_IsNumber(bytes) ? bytes->valuedouble : 0;
		if (access && strcmp(access, "store") == 0)
			an->local_stored += b;
		else
			an->local_loaded += b;
		if (n <= an->worst.n_way)
			continue;
		an->has_worst = 1;
		worst = s;
		an->worst.n_way = n;
		an->worst.line = num(s, "line"), an->worst.column = num(s, "column");
		copy_str(an->worst.variable, sizeof an->worst.variable, s, "variable");
		copy_str(an->worst.access, sizeof an->worst.access, s, "access");
		an->worst.tile = num(s, "tile");
		an->worst.stride = lane_stride(s);
		lane_picture(s, &an->worst);
	}
	/* the first conflict-free access to the worst site's variable */
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, "local_sites")) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(s, "variable"));
		cJSON *nw = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"),
		                                                    profile), "n_way");
		if (!worst || s == worst || an->worst.free_line || !v || !an->worst.variable[0] ||
		    strcmp(v, an->worst.variable) || !cJSON_IsNumber(nw) || nw->valueint > 1)
			continue;
		an->worst.free_line = num(s, "line");
		copy_str(an->worst.free_access, sizeof an->worst.free_access, s, "access");
	}
}

/* rep->analysis (the tracer's JSON) into rep->an, once, and the analysis's final state. */
static void summarize_analysis(const check_opts *o, check_report *rep)
{
	check_analysis *an = &rep->an;
	if (!o->analysis)
		an->state = ANALYSIS_SKIPPED;
	else if (an->state == ANALYSIS_NOT_RUN && rep->analysis_failed)
		an->state = ANALYSIS_FAILED;
	else if (an->state == ANALYSIS_NOT_RUN && rep->analysis)
		an->state = ANALYSIS_DONE;
	/* global bytes: the first run's (the lesson's TILE, at the kind's analysis size) */
	cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0);
	cJSON *gb = cJSON_GetObjectItem(run ? run : rep->analysis, "global_bytes");
	const kind *k = o->l->kind;
	lesson_size as = rep->nanalyses ? (lesson_size){ rep->analyses[0].rows, rep->analyses[0].cols }
	                                : lesson_analysis_size(o->l, o->seed);
	an->summary = rep->analysis != NULL;
	if (!an->summary)
		return;
	summarize_findings(rep->analysis, an);
	summarize_sites(rep->analysis, o->profile, an);
	an->global_loaded = cJSON_IsNumber(cJSON_GetObjectItem(gb, "loaded")) ?
	                    cJSON_GetObjectItem(gb, "loaded")->valuedouble : 0;
	an->global_stored = cJSON_IsNumber(cJSON_GetObjectItem(gb, "stored")) ?
	                    cJSON_GetObjectItem(gb, "stored")->valuedouble : 0;
	an->loaded_per_unit = an->global_loaded / k->traffic_units(as.rows, as.cols);
	an->rows = as.rows, an->cols = as.cols;
}

/* ---- occupancy, for the report ------------------------------------------------------------ */

static check_occ occ_row(const occ_profile *p, const occ_input *in, int regs_used)
{
	occ_result r = occ_compute(p, in);
	check_occ o = { p->name, r.status == OCC_OK, r.groups_per_cu, r.occupancy,
	                occ_limiter_name(r.limiter), occ_status_name(r.status), r.unit,
	                r.needed, r.available, regs_used };
	return o;
}

/* The kernel through every profile: its work-group, its local bytes, and its registers where
 * the device's compiler reported them (NVIDIA counts, NVIDIA profiles only). */
static void occupancy(const check_opts *o, check_report *rep)
{
	const check_child *ch = &rep->child;
	rep->work_group = o->l->kind->group_size(o->l->tile);
	for (int i = 0; ch->kernel_found && i < occ_profile_count() && i < CHECK_MAX_OCC; i++) {
		const occ_profile *p = occ_profile_at(i);
		occ_input in = { .work_group = rep->work_group, .local_bytes = (long)ch->local_bytes };
		int regs = ch->registers && p->vendor == OCC_NVIDIA && strstr(ch->dev.platform, "NVIDIA");
		if (regs)
			in.registers = ch->registers;
		rep->occ[rep->nocc++] = occ_row(p, &in, regs);
	}
}

/* ---- orchestration -------------------------------------------------------------------- */

#define TERMINATE(s) ((s)[sizeof(s) - 1] = '\0')

/* The child shares an address space with the student's native kernel code on a CPU device:
 * take nothing from its page on trust. */
static void sanitize_child(check_child *r)
{
	if (r->nruns < 0 || r->nruns > CHECK_MAX_RUNS)
		r->nruns = r->nruns < 0 ? 0 : CHECK_MAX_RUNS;
	if (r->ntiles < 0 || r->ntiles > LESSON_MAX_TILES)
		r->ntiles = r->ntiles < 0 ? 0 : LESSON_MAX_TILES;
	if (r->nlocals < 0 || r->nlocals > CHECK_MAX_LOCALS)
		r->nlocals = r->nlocals < 0 ? 0 : CHECK_MAX_LOCALS;
	if (r->time_reps < 0)
		r->time_reps = 0;
	if (r->local_source != LMEM_RUNTIME && r->local_source != LMEM_DECLARED)
		r->local_source = LMEM_RUNTIME;
	TERMINATE(r->stage);
	TERMINATE(r->open_err);
	TERMINATE(r->build_log);
	TERMINATE(r->signature);
	TERMINATE(r->dev.platform);
	TERMINATE(r->dev.name);
	TERMINATE(r->dev.type);
	TERMINATE(r->dev.local_type);
	TERMINATE(r->dev.version);
	for (int i = 0; i < r->nruns; i++) {
		TERMINATE(r->runs[i].guard_msg);
		TERMINATE(r->runs[i].cmp.pattern);
	}
}

/* The student's file.  NULL with err set when it cannot be read at all (the grader cannot
 * run: exit 2); a file that is read but is no kernel source (binary, UTF-16, over 256 KiB)
 * comes back as "" with refused set: a `builds` finding, not a grader failure. */
unsigned long long check_hash(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* The file behind fd is the one at the real path want (not reached through a link)? */
static int fd_is(int fd, const char *want)
{
	char link[64], real[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, sizeof real - 1);
	if (n <= 0)
		return 0;
	real[n] = '\0';
	return strcmp(real, want) == 0;
}

static char *read_source(const check_opts *o, char *err, size_t errlen, char *refused,
                         size_t rlen)
{
	const char *path = o->kernel;
	struct stat st;
	/* one open, then everything from that descriptor: no second look at the path */
	int fd = sandbox_open_regular(path, o->within != NULL, &st);
	int ok = fd >= 0;
	if (ok && o->within && (!fd_is(fd, o->within) || st.st_nlink != 1)) {
		snprintf(err, errlen, "%s was not graded: %s", path, st.st_nlink != 1 ?
		         "it has more than one name (a hard link could name any file): copy it instead" :
		         "when the grader opened it, it was no longer the file it listed (a folder on "
		         "its path replaced by a link, or moved)");
		close(fd);
		return NULL;
	}
	FILE *f = ok ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot read %s (not a readable file%s)", path,
		         o->within ? ", or a link" : "");
		return NULL;
	}
	enum { MAX = 256 * 1024 };
	char *s = malloc(MAX + 1);
	size_t n = s ? fread(s, 1, MAX + 1, f) : 0;
	fclose(f);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (n > MAX || memchr(s, '\0', n)) {
		snprintf(refused, rlen, "%s is not a kernel source the grader accepts: %s", path,
		         n > MAX ? "over 256 KiB" : "it contains NUL bytes (binary, or UTF-16: save it "
		         "as UTF-8 or ASCII)");
		n = 0;
	}
	s[n] = '\0';
	return s;
}

/* The __local bytes the kernel declares, at the lesson's TILE and at each TILE of a sweep:
 * read in the parent, from the text alone, before any of the student's code runs. */
static void declared_bytes(const check_opts *o, const char *source, child_ctx *c)
{
	const lesson *l = o->l;
	c->declared = lmem_declared(source, l->kernel, l->tile, NULL, 0);
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		c->declared_at[i] = lmem_declared(source, l->kernel, l->tiles[i], NULL, 0);
}

/* Oclgrind allocates the kernel's __local variables itself: where the analysis ran, its
 * bytes count too (the largest known source wins, lmem_pick). */
static void local_from_analysis(check_report *rep)
{
	check_child *ch = &rep->child;
	/* the first run's: the lesson's TILE (a later run may be at the chosen TILE) */
	cJSON *run0 = cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0);
	cJSON *lb = run0 ? cJSON_GetObjectItem(run0, "local_bytes") : NULL;
	if (!ch->kernel_found || !cJSON_IsNumber(lb))
		return;
	rep->local_analysis = (long)lb->valuedouble;
	ch->local_bytes = lmem_pick(ch->local_runtime, ch->local_declared, rep->local_analysis,
	                            &ch->local_source);
}

/* --timeout S bounds the kernel's own time in the check's child: its build (slow while the
 * analysis shares the CPU; at most another S) and its wait for the analysis before timing
 * are added to its limit, as the child reports them, never more than the time that has
 * passed.  So a kernel
 * that hangs is stopped S seconds after its build, and neither a slow build on a loaded
 * machine nor a slow analysis fails a kernel that runs fine.  Watched without reaping the
 * child (sandbox_wait reaps it, and kills it once past its limit). */
static void watch_main(const check_opts *o, const check_child *shared, const analysis *an,
                       sandbox_child *c)
{
	for (;;) {
		double now = mono(), extra = 0;
		double built = shared->built_at, began = shared->wait_began;
		if (built > c->t0 && built <= now)
			extra += built - c->t0;
		else                      /* still building: the build may take another S */
			extra += now - c->t0 < o->timeout_s ? now - c->t0 : o->timeout_s;
		if (an->t1 > 0 && began > 0 && began <= an->t1)
			extra += an->t1 - (began > c->t0 ? began : c->t0);
		c->lim.timeout_s = o->timeout_s + (double)(long)(extra * 100 + 0.5) / 100;
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid == c->pid || now - c->t0 > c->lim.timeout_s)
			return;
		usleep(5000);
	}
}

/* The copy kernel's bandwidth and the kernel's fraction of it, for the report. */
static void copy_rates(const check_opts *o, check_report *rep)
{
	const check_child *ch = &rep->child;
	const kind *k = o->l->kind;
	if (!ch->timed || ch->copy_ms <= 0 || !k->copy_floats)
		return;
	rep->copy_gbps = 2.0 * sizeof(float) * k->copy_floats(ch->time_rows, ch->time_cols) /
	                 ch->copy_ms * 1e-6;
	rep->of_copy = k->work(ch->time_rows, ch->time_cols) / ch->kernel_ms * 1e-6 / rep->copy_gbps;
}

void crit_eval(const check_opts *o, const char *source, check_report *rep); /* criteria.c */

/* The grader's own PoCL cache, under build/: bounded by clearing it when over 256 MiB
 * (du of a warm cache of every lesson: a few MiB). */
static long long cache_bytes;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	cache_bytes += flag == FTW_F ? st->st_size : 0;
	return 0;
}

static void pocl_cache(const check_opts *o, const char *tmp, char *buf, size_t len)
{
	if (o->fresh_cache) {
		snprintf(buf, len, "%s/pocl", tmp);
	} else {
		snprintf(buf, len, "%s/build/pocl-cache", lesson_root());
		cache_bytes = 0;
		nftw(buf, add_size, 16, FTW_PHYS);
		if (cache_bytes > (256LL << 20))
			sandbox_rmtree(buf);
	}
	struct stat st;
	if (mkdir(buf, 0700) != 0 && (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode) ||
	                              access(buf, W_OK) != 0))
		snprintf(buf, len, "%s/pocl", tmp);   /* a read-only suite: a cache for this run */
	mkdir(buf, 0700);
}

/* Preprocess the source once per TILE the children build it at (preproc.h).  0; 1 when it is
 * refused (rep->refused); 2 when the grader could not (rep->grader_error). */
static int preprocess(const check_opts *o, const char *source, const char *tmp, child_ctx *c,
                      check_report *rep)
{
	char dir[4096];
	const lesson *l = o->l;
	lesson_path(l, "dir", dir, sizeof dir);
	int tiles[PRE_MAX] = { l->tile }, n = 1;
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++) {
		int seen = 0;
		for (int k = 0; k < n; k++)
			seen |= tiles[k] == l->tiles[i];
		if (!seen && n < PRE_MAX)
			tiles[n++] = l->tiles[i];
	}
	preproc_job jobs[PRE_MAX];
	char msgs[PRE_MAX][2048], *mp[PRE_MAX], *outs[PRE_MAX];
	preproc_result res[PRE_MAX];
	for (int i = 0; i < n; i++) {
		jobs[i] = (preproc_job){ source, o->kernel, dir, tmp, tiles[i], 1, o->timeout_s, NULL,
		                         { "" }, 0 };
		mp[i] = msgs[i];
	}
	if (l->tiles[0])   /* lesson 4: the CHOSEN_* values the compiler sees, at every TILE */
		for (int i = 0; i < n; i++)
			jobs[i].probe = tile_probe_names();
	preproc_run_all(jobs, n, outs, mp, sizeof msgs[0], res);
	if (jobs[0].probed) {
		rep->choice_probed = 1;
		memcpy(rep->choice_val, jobs[0].probe_val, sizeof rep->choice_val);
	}
	/* a choice that depends on TILE (`#define CHOSEN_TILE_SM86 TILE`, or one inside
	 * `#if TILE == 16`) is no choice: the first TILE where a value differs */
	for (int i = 1; i < n && jobs[0].probed; i++)
		for (int k = 0; k < PREPROC_MAX_PROBE && jobs[i].probed; k++)
			if (!rep->choice_vary_tile[k] && strcmp(jobs[i].probe_val[k], jobs[0].probe_val[k])) {
				rep->choice_vary_tile[k] = tiles[i];
				snprintf(rep->choice_vary_val[k], sizeof rep->choice_vary_val[k], "%s",
				         jobs[i].probe_val[k]);
			}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *msg = msgs[i];
		c->pre[i] = outs[i];
		c->pre_tile[i] = tiles[i];
		c->npre = i + 1;
		if (rc == 0 && res[i] == PREPROC_ERROR) {
			snprintf(rep->grader_error, sizeof rep->grader_error, "%s", msg);
			rc = 2;
		} else if (rc == 0 && res[i] == PREPROC_REFUSED && i > 0) {
			c->pre_err[i] = strdup(msg);   /* a sweep's TILE: that build fails, not the check */
		} else if (rc == 0 && res[i] == PREPROC_REFUSED) {
			char first[600];
			diag_first_error(msg, first, sizeof first);
			snprintf(rep->refused, sizeof rep->refused, "%s", first[0] ? first : msg);
			rep->refused[strcspn(rep->refused, "\n")] = '\0';
			if (strstr(rep->refused, "file not found"))
				snprintf(rep->refused + strlen(rep->refused), sizeof rep->refused -
				         strlen(rep->refused), " (refused before the build: only files in "
				         "the lesson's own folder can be included)");
			rc = 1;
		}
	}
	return rc;
}

/* The build-and-run child and the analysis child, confined by pol.  0, or 2 with
 * rep->grader_error set. */
static int run_children(const check_opts *o, child_ctx *c, const check_confinement *cc,
                        check_report *rep)
{
	const confine_policy *pol = &cc->run_pol;
	check_child *shared = sandbox_shared(sizeof *shared);
	if (!shared) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "out of memory");
		return 2;
	}
	c->out = shared;
	sandbox_limits lim = { o->timeout_s, 0, NULL, pol, 0 };  /* memory: see child_main */
	sandbox_child main_child;
	sandbox_status st;
	analysis an = { 0 };
	/* The analysis runs beside the build and correctness runs; the child waits for it
	 * to end before timing, so the two never share the CPU while a clock runs. */
	shared->analysis_done = 1;
	if (!o->analysis)
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis was "
		         "skipped (--no-analysis): races, out-of-bounds reads, bank conflicts and "
		         "coalescing are not checked");
	if (o->analysis) {
		shared->analysis_done = 0;
		analysis_start(c, cc->an, &cc->an_pol, rep, &an);
		shared->analysis_done = !an.running;
	}
	if (sandbox_spawn(child_main, c, &lim, &main_child) != 0) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "cannot fork: out of processes?");
		if (an.running)
			analysis_finish(rep, &an);
		sandbox_unshare(shared, sizeof *shared);
		return 2;
	}
	analysis_finish(rep, &an);
	__atomic_store_n(&shared->analysis_done, 1, __ATOMIC_SEQ_CST);
	watch_main(o, shared, &an, &main_child);
	sandbox_wait(&main_child, &st);
	rep->child = *shared;
	sandbox_unshare(shared, sizeof *shared);
	sanitize_child(&rep->child);
	if (st.end == SANDBOX_FAILED || an.confine_failed) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s",
		         st.end == SANDBOX_FAILED ? st.what : "the sandbox could not confine its child");
		return 2;
	}
	if (st.end == SANDBOX_TIMEOUT || st.end == SANDBOX_SIGNALED ||
	    (st.end == SANDBOX_EXITED && st.code != 0 && st.code != 3)) {
		rep->child_crashed = st.end != SANDBOX_TIMEOUT;
		rep->child_timed_out = st.end == SANDBOX_TIMEOUT;
		snprintf(rep->run_end, sizeof rep->run_end, "%s while %s", st.what, rep->child.stage);
	}
	cJSON *found = cJSON_GetObjectItem(rep->analysis, "findings");
	if (an.timed_out && !rep->child_timed_out && cJSON_GetArraySize(found) == 0) {
		/* the kernel runs fine on the device and Oclgrind found nothing wrong before
		 * the limit: the limit is the grader's (with findings, they are the kernel's) */
		rep->analysis_failed = 0;
		rep->analysis_grader = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "it did not finish "
		         "under Oclgrind within the --timeout of %g s", o->timeout_s);
	}
	if (rep->analysis_grader && an.t0 > 0) {
		cJSON_Delete(rep->analysis);
		rep->analysis = NULL;
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the grader could not "
		         "finish the Oclgrind analysis: %s; races, out-of-bounds reads, bank "
		         "conflicts and coalescing are not checked", rep->analysis_failure);
	}
	if (!rep->child.opened) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s",
		         rep->child.open_err[0] ? rep->child.open_err : rep->run_end);
		return 2;
	}
	local_from_analysis(rep);
	if (!rep->child.built || !rep->child.kernel_found || rep->child.over_budget ||
	    rep->child.signature[0]) {
		check_free(rep);      /* nothing to analyse: the kernel is not there or never ran */
		rep->analysis_note[0] = '\0';
		rep->analysis_failed = rep->analysis_grader = 0;
		rep->an.state = ANALYSIS_NOT_RUN;
	}
	return 0;
}

int check_confine(const check_opts *o, const char *tmp, const char *cache,
                  check_confinement *cc)
{
	char dir[4096], icd[4200], plugin[4200], base[4200];
	snprintf(cc->run, sizeof cc->run, "%s/run", tmp);
	snprintf(cc->an, sizeof cc->an, "%s/an", tmp);
	if ((mkdir(cc->run, 0700) != 0 && errno != EEXIST) ||
	    (mkdir(cc->an, 0700) != 0 && errno != EEXIST))
		return -1;
	lesson_path(o->l, "dir", dir, sizeof dir);
	root_path(icd, sizeof icd, OCLGRIND_ICD_DIR);
	root_path(plugin, sizeof plugin, TRACER_PLUGIN);
	root_path(base, sizeof base, "grader/baselines");
	const char *extra[] = { icd, plugin, base, NULL };
	confine_default(&cc->run_pol, &cc->run_st, dir, cc->run, extra);
	if (cache)
		cc->run_pol.write[1] = cache;
	confine_default(&cc->an_pol, &cc->an_st, dir, cc->an, extra);
	return 0;
}

int check_lesson(const check_opts *o, check_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->opts = *o;
	rep->local_analysis = -1;
	char err[512], tmp[4096], cache[4200];
	char *source = read_source(o, err, sizeof err, rep->refused, sizeof rep->refused);
	if (source)
		snprintf(rep->source_hash, sizeof rep->source_hash, "%016llx",
		         check_hash(CHECK_HASH_INIT, source, strlen(source)));
	if (!source) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s", err);
		return rep->exit_code = 2;
	}
	snprintf(rep->confine_note, sizeof rep->confine_note, "%s", confine_missing());
	sandbox_tmp_sweep();
	if (sandbox_tmp_make(tmp, sizeof tmp) != 0) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "cannot make a private temporary "
		         "folder under $TMPDIR or /tmp");
		free(source);
		return rep->exit_code = 2;
	}
	child_ctx c = { .o = o, .source = source, .pocl_cache = cache, .declared = -1 };
	int rc = rep->refused[0] ? 1 : preprocess(o, source, tmp, &c, rep);
	if (rc == 0) {
		declared_bytes(o, source, &c);
		pocl_cache(o, tmp, cache, sizeof cache);
		check_confinement *cc = malloc(sizeof *cc);
		if (!cc || check_confine(o, tmp, cache, cc) != 0) {
			snprintf(rep->grader_error, sizeof rep->grader_error, "cannot lay out the private "
			         "folder %s: %s", tmp, strerror(errno));
			rc = 2;
		} else {
			rc = run_children(o, &c, cc, rep);
		}
		free(cc);
	}
	for (int i = 0; i < PRE_MAX; i++) {
		free((char *)c.pre[i]);
		free((char *)c.pre_err[i]);
	}
	sandbox_tmp_remove(tmp);
	if (rc == 2) {
		free(source);
		check_free(rep);
		return rep->exit_code = 2;
	}
	summarize_analysis(o, rep);
	copy_rates(o, rep);
	occupancy(o, rep);
	crit_eval(o, source, rep);
	free(source);
	return rep->exit_code;
}

void check_free(check_report *rep)
{
	cJSON_Delete(rep->analysis);
	rep->analysis = NULL;
}

const char *check_first_failure(const check_report *rep)
{
	for (int i = 0; i < rep->ncrit; i++)
		if (rep->crit[i].status == CRIT_FAIL)
			return lesson_crit_id(rep->crit[i].id);
	return NULL;
}
