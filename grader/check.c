/* check.c — one `clgrade check`, as data flowing one way:
 *   kernel file -> confined preprocessor (includes, inline asm) -> sandboxed child (build,
 *   correctness, timing on the chosen device) -> sandboxed analysis child (the same kernel
 *   under Oclgrind with our tracer) -> criteria.  Children write into shared memory / a
 *   file, so a crash or a hang in the student's kernel is a finding, never a grader crash. */
#include <fcntl.h>
#include <sys/file.h>
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
#include "devrun.h"
#include "diag.h"
#include "occ.h"
#include "localmem.h"
#include "preproc.h"
#include "regest.h"
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
	const check_report *rep;  /* analysis: the runs planned (rep->analyses) */
	const char *trace_out;    /* analysis: the folder the tracer writes its summaries into */
	int no_uninit;            /* analysis: leave Oclgrind's uninitialised-value checker off */
	int unoptimised;          /* analysis: build with -cl-opt-disable, checkers off (for the
	                             lines of accesses the optimiser merged) */
	long declared;            /* __local bytes the kernel declares at the lesson's TILE (-1: ?) */
	long declared_at[LESSON_MAX_TILES]; /* the same at each TILE of a sweep */
	int model;                /* analysis: the GPU time model's launches after the analysed
	                             ones (gpum_run.c); 2: all but the baseline's (kept) */
} child_ctx;

/* The preprocessed text for TILE=tile ("" when there is none: an empty program fails). */
static const char *pre_for(const child_ctx *c, int tile)
{
	for (int i = 0; i < c->npre; i++)
		if (c->pre_tile[i] == tile && c->pre[i])
			return c->pre[i];
	return "";
}

/* No -I: the preprocessed text has no #include left (preproc.h). */
static void build_options(const check_opts *o, int tile, char *buf, size_t len)
{
	snprintf(buf, len, "-DTILE=%d -cl-kernel-arg-info", tile);
}

/* --memory bounds the check as a whole: with the analysis beside it, each child gets half,
 * on top of what its runtime holds once open. */
static size_t memory_share(const check_opts *o)
{
	return o->analysis ? o->mem_bytes / 2 : o->mem_bytes;
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

/* Where run i's analysed launch leaves its output, raw (write_analysed). */
static void out_file(const char *dir, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/out-%d.bin", dir, i);
}

/* Every planned run on Oclgrind, one after another in this one child: each writes its own
 * summary (CLTRACE_OUT) and names the problem's extent (CLTRACE_EXTENT: dimension 0 walks
 * cols, dimension 1 rows) so that only work-groups wholly inside it are priced.  Each run's
 * output goes, as raw floats, into "out-<i>.bin" in dir: the parent compares it with its own
 * reference (judge_analysed), so a kernel that skips its work, or does it differently, only
 * at the analysis size cannot show the checkers a kernel that is not the one graded. */
static void write_analysed(clrun *cl, const clrun_bufs *b, const ref_problem *p,
                           const char *dir, int i)
{
	float *out = malloc((p->out_len ? p->out_len : 1) * sizeof *out);
	char path[4300];
	if (!out)
		return;
	if (clrun_read_output(cl, b, out) == CL_SUCCESS) {
		out_file(dir, i, path, sizeof path);
		FILE *f = fopen(path, "w");
		if (f) {
			fwrite(out, sizeof *out, p->out_len, f);
			fclose(f);
		}
	}
	free(out);
}

/* The GPU time model's launches after the analysed ones, in this process (gpum_run.c): the
 * marker first (from here on nothing is the analysis'), then a context with every checker
 * off, unless the last one had them off already. */
static void model_stage(const child_ctx *c, clrun *cl, int *opened)
{
	const check_opts *o = c->o;
	int tiles[CHECK_MODEL_RUNS], n = gpum_run_plan(o->l, tiles);
	const char *src[CHECK_MODEL_RUNS];
	char err[256];
	if (!n)
		return;
	gpum_run_mark(c->trace_out);
	if (*opened != 1) {
		clrun_close(cl);
		*opened = -1;
		setenv("OCLGRIND_DATA_RACES", "0", 1);
		setenv("OCLGRIND_UNIFORM_WRITES", "0", 1);
		setenv("OCLGRIND_UNINITIALIZED", "0", 1);
		setenv("OCLGRIND_MAX_ERRORS", "0", 1);
		if (clrun_open(cl, "Oclgrind", err, sizeof err) != 0)
			return;
		*opened = 1;
	}
	for (int i = 0; i < n; i++)
		src[i] = pre_for(c, tiles[i]);
	gpum_run_all(cl, o, src, c->model == 2, c->trace_out);
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
				size_t lim = sandbox_address_space() + memory_share(o);
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
			write_analysed(&cl, &b, &p, c->trace_out, i);
		clrun_release(&b);
		clReleaseKernel(k);
		clReleaseProgram(prog);
		ref_free(&p);
		if (e != CL_SUCCESS)
			return 6;
	}
	free(log);
	if (c->model && !c->unoptimised)
		model_stage(c, &cl, &opened);
	if (opened >= 0)
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

/* The runs: the seeded edge size at the lesson's TILE; with a TILE sweep, a banks-only run at
 * every other TILE of it (bank conflicts depend on TILE: a row of 32 floats is conflict-free
 * at TILE=32 and 4-way at TILE=8), each at its own size (lesson_analysis_size_at). */
static void analysis_plan(const check_opts *o, check_report *rep)
{
	const lesson *l = o->l;
	check_analysis_run *r = &rep->analyses[rep->nanalyses++];
	int at = lesson_analysis_tile(l);
	lesson_size s = lesson_analysis_size_at(l, o->seed, at, &r->lo, &r->hi);
	r->rows = s.rows, r->cols = s.cols, r->tile = at, r->banks_only = 0;
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++) {
		if (l->tiles[i] == l->tile || rep->nanalyses == CHECK_MAX_ANALYSES)
			continue;
		r = &rep->analyses[rep->nanalyses++];
		s = lesson_analysis_size_at(l, o->seed, l->tiles[i], &r->lo, &r->hi);
		r->rows = s.rows, r->cols = s.cols, r->tile = l->tiles[i], r->banks_only = 1;
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
	analysis_plan(o, rep);
	/* the check's private folder: no other user can plant a link where the child writes */
	snprintf(a->dir, sizeof a->dir, "%s", tmp);
	snprintf(a->log, sizeof a->log, "%s/oclgrind.log", a->dir);
	a->c = *main_ctx;
	a->c.rep = rep;
	a->c.trace_out = a->dir;
	a->c.model = gpum_run_cached(rep) ? 2 : 1;
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

/* Each analysed launch's output (out-<i>.bin), judged here against the parent's own
 * reference: the first wrong one's pattern into rep->analysis_wrong.  A file of the wrong
 * length is a wrong result. */
static void judge_analysed(check_report *rep, const analysis *a)
{
	const check_opts *o = a->c.o;
	for (int i = 0; i < rep->nanalyses && !rep->analysis_wrong[0]; i++) {
		const check_analysis_run *ar = &rep->analyses[i];
		char path[4300];
		ref_problem p;
		out_file(a->dir, i, path, sizeof path);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;             /* the launch did not finish: judged as such elsewhere */
		if (ref_setup(&p, o->l->kind, ar->rows, ar->cols, ar->tile, o->seed + 7 * i) == 0) {
			float *out = malloc((p.out_len + 1) * sizeof *out);
			size_t n = out ? fread(out, sizeof *out, p.out_len + 1, f) : 0;
			ref_result r = { 0 };
			if (out && n == p.out_len)
				ref_compare(&p, out, ar->tile, &r);
			else
				snprintf(r.pattern, sizeof r.pattern, "its output came back short");
			if (!out || n != p.out_len || !r.passed) {
				snprintf(rep->analysis_wrong, sizeof rep->analysis_wrong, "%s", r.pattern);
				rep->analysis_wrong_at = i;
			}
			free(out);
			ref_free(&p);
		}
		fclose(f);
		unlink(path);
	}
}

/* The child reached the GPU time model's launches (gpum_run.c): whatever ended it after
 * that (a crash, the time limit) is the model's, which then only predicts nothing; the
 * analysed launches are judged as if it had exited there. */
static void model_settle(const analysis *a, sandbox_status *st)
{
	if (gpum_run_marked(a->dir) && st->end != SANDBOX_FAILED) {
		st->end = SANDBOX_EXITED;
		st->code = 0;
	}
}

/* Wait for the analysis and read its summaries into rep->analysis. */
static void analysis_finish(check_report *rep, analysis *a)
{
	if (!a->running)
		return;
	sandbox_status st;
	sandbox_wait(&a->child, &st);
	model_settle(a, &st);
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
			out_file(a->dir, i, stale, sizeof stale);
			unlink(stale);
		}
		a->c.no_uninit = 1;
		a->lim.timeout_s = left;
		sandbox_run(analysis_main, &a->c, &a->lim, &st);
		model_settle(a, &st);
		rep->analysis = read_traces(a, rep->nanalyses, &all);
		rep->an.uninit_checked = 0;
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "Oclgrind's uninitialised-value "
		         "checker failed on this kernel (an Oclgrind limitation), so reads of "
		         "uninitialised memory were not checked");
	}
	judge_analysed(rep, a);
	gpum_run_collect(rep, a->dir);
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

/* Do the active lanes of a site's worst warp read at most two words (a broadcast, or two
 * halves of a warp on two rows' words)?  Then however its indices are ordered it is at most
 * 2-way, which conflict_free passes. */
static int lane_broadcast(cJSON *site)
{
	cJSON *offs = cJSON_GetObjectItem(cJSON_GetObjectItem(site, "worst_lanes"), "offsets");
	int words[2], nwords = 0, active = 0;
	for (int i = 0; i < cJSON_GetArraySize(offs); i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		if (!cJSON_IsNumber(o))
			continue;
		active++;
		int w = o->valueint / 4, seen = 0;
		for (int k = 0; k < nwords; k++)
			seen |= words[k] == w;
		if (!seen && nwords == 2)
			return 0;
		if (!seen)
			words[nwords++] = w;
	}
	return active > 2;
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
	w->row_step = bank_row_step(bp, addr, active, n, w->tile);
	w->picture = 1, w->nlanes = n;
	w->busy_bank = b.bank, w->busy_lanes = b.lanes, w->busy_words = b.words;
	w->inactive = b.inactive;
}

/* What the drawn lane -> bank grid of a site's worst warp needs beyond the tracer's banks
 * (bank.h): each lane's role ("roles": conflict, broadcast, alone, inactive) and, when the fix
 * the report proposes is padding (an even lane stride, and a kind whose __local arrays are
 * 2-D tiles: pads), the same warp after it ("padded":
 * the stride, the padded row, each lane's bank and the n-way there).  Added to the site's
 * worst_lanes, so the JSON carries them (report.c copies worst_lanes). */
static void annotate_lanes(cJSON *site, int pads)
{
	cJSON *wl = cJSON_GetObjectItem(site, "worst_lanes"), *offs = cJSON_GetObjectItem(wl, "offsets");
	const char *prof = cJSON_GetStringValue(cJSON_GetObjectItem(wl, "profile"));
	const char *acc = cJSON_GetStringValue(cJSON_GetObjectItem(site, "access"));
	const bank_profile *bp = bank_profile_find(prof ? prof : "?");
	int n = cJSON_GetArraySize(offs), width = num(site, "width"), store = !acc || strcmp(acc, "load");
	if (!bp || !cJSON_IsArray(offs) || n > BANK_MAX_LANES || cJSON_HasObjectItem(wl, "roles"))
		return;
	uint64_t addr[BANK_MAX_LANES] = { 0 }, fixed[BANK_MAX_LANES];
	unsigned char active[BANK_MAX_LANES] = { 0 };
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_GetArrayItem(offs, i);
		active[i] = cJSON_IsNumber(o);
		addr[i] = active[i] ? (uint64_t)o->valuedouble : 0;
	}
	width = width < 1 ? 4 : width > 16 ? 16 : width;
	bank_lane_role role[BANK_MAX_LANES];
	bank_roles(bp, addr, active, n, width, store, role);
	cJSON_AddNumberToObject(wl, "bank_count", bp->banks);
	cJSON *roles = cJSON_AddArrayToObject(wl, "roles");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(roles, cJSON_CreateString(bank_role_name(role[i])));
	int stride = lane_stride(site);
	if (!pads || num(wl, "n_way") <= 1 || !bank_padded(addr, n, stride, fixed))
		return;   /* pads 0: the kind's fix is no padding (a 1-D tree: sequential addressing) */
	cJSON *pd = cJSON_AddObjectToObject(wl, "padded"), *banks = cJSON_AddArrayToObject(pd, "banks");
	int bk[BANK_MAX_LANES];
	bank_lanes(bp, fixed, n, bk);
	bank_roles(bp, fixed, active, n, width, store, role);
	cJSON *froles = cJSON_AddArrayToObject(pd, "roles");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(banks, active[i] ? cJSON_CreateNumber(bk[i]) : cJSON_CreateNull());
		cJSON_AddItemToArray(froles, cJSON_CreateString(bank_role_name(role[i])));
	}
	cJSON_AddNumberToObject(pd, "stride", stride);
	cJSON_AddNumberToObject(pd, "row_words", stride + 1);
	cJSON_AddNumberToObject(pd, "n_way", bank_access(bp, fixed, active, n, width, store).n_way);
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
	if (worst)      /* the report marks the site it draws as the worst (report.c, html.c) */
		cJSON_AddTrueToObject(worst, "worst");
	/* the first conflict-free access to the worst site's variable, in the same run (TILE) */
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(summary, "local_sites")) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(s, "variable"));
		cJSON *nw = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "profiles"),
		                                                    profile), "n_way");
		if (!worst || s == worst || an->worst.free_line || !v || !an->worst.variable[0] ||
		    num(s, "tile") != an->worst.tile ||
		    strcmp(v, an->worst.variable) || !cJSON_IsNumber(nw) || nw->valueint > 1)
			continue;
		an->worst.free_line = num(s, "line");
		copy_str(an->worst.free_access, sizeof an->worst.free_access, s, "access");
		an->worst.free_broadcast = lane_broadcast(s);
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
	cJSON *site;
	cJSON_ArrayForEach(site, cJSON_GetObjectItem(rep->analysis, "local_sites"))
		annotate_lanes(site, k->tile_2d);
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
	/* the first run's: the lesson's TILE (later runs are at the other TILEs of a sweep) */
	cJSON *run0 = cJSON_GetArrayItem(cJSON_GetObjectItem(rep->analysis, "runs"), 0);
	cJSON *lb = run0 ? cJSON_GetObjectItem(run0, "local_bytes") : NULL;
	if (!ch->kernel_found || !cJSON_IsNumber(lb))
		return;
	rep->local_analysis = (long)lb->valuedouble;
	ch->local_bytes = lmem_pick(ch->local_runtime, ch->local_declared, rep->local_analysis,
	                            &ch->local_source);
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

/* PoCL's kernel cache.  Every check has its own, in its private folder: the children that
 * build and launch the student's kernel write it, so no entry a student's code could have
 * written is read by another check.  It starts as a copy of build/pocl-seed, a cache that
 * only the grader's own code fills (devrun_seed_main: the lesson's baseline, the copy kernel,
 * the runtime's fill, each launched once), once per lesson, device and baseline source, under
 * a lock (two graders of a batch).  The seed is cleared when over 64 MiB. */
static long long cache_bytes;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	cache_bytes += flag == FTW_F ? st->st_size : 0;
	return 0;
}

/* build/<name>, emptied when over cap bytes, made when missing: 0, or -1 when unusable. */
static int cache_folder(const char *name, long long cap, char *buf, size_t len)
{
	snprintf(buf, len, "%s/build/%s", lesson_root(), name);
	cache_bytes = 0;
	nftw(buf, add_size, 16, FTW_PHYS);
	if (cache_bytes > cap)
		sandbox_rmtree(buf);
	return mkdir(buf, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* The stamp that says the seed holds the lesson's kernels for this device and baseline. */
static void seed_stamp(const check_opts *o, const char *seed, char *buf, size_t len)
{
	char path[4096], src[8192] = "";
	lesson_path(o->l, "baseline", path, sizeof path);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(src, 1, sizeof src - 1, f) : 0;
	if (f)
		fclose(f);
	unsigned long long h = check_hash(CHECK_HASH_INIT, src, n);
	const char *dev = o->device ? o->device : "";
	h = check_hash(h, dev, strlen(dev));
	snprintf(buf, len, "%s/.seeded-%s-%d-%016llx", seed, o->l->slug, o->l->tile, h);
}

static void pocl_seed(const check_opts *o, const devrun_src *s, const confine_policy *run_pol)
{
	char seed[4200], stamp[4400], lock[4300];
	if (cache_folder("pocl-seed", 64LL << 20, seed, sizeof seed) != 0)
		return;               /* a read-only suite: every check compiles everything */
	snprintf(lock, sizeof lock, "%s/.lock", seed);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) != 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	seed_stamp(o, seed, stamp, sizeof stamp);
	if (access(stamp, F_OK) != 0) {
		/* the first check of a lesson: say why it is slow (stderr: the report is the same) */
		fprintf(stderr, "clgrade: compiling the grader's own kernels for lesson %d into "
		        "build/pocl-seed (once per lesson and device: later checks start from it)\n",
		        o->l->number);
		devrun_src ss = *s;
		ss.pocl_cache = seed;
		confine_policy pol = *run_pol;
		pol.write[1] = seed;
		devrun_ctx x = { &ss, NULL, NULL, NULL, memory_share(o), NULL };
		sandbox_limits lim = { o->timeout_s, 0, NULL, &pol, 0 };
		sandbox_status st;
		if (sandbox_run(devrun_seed_main, &x, &lim, &st) == 0 && st.end == SANDBOX_EXITED &&
		    st.code == 0) {
			int t = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
			if (t >= 0)
				close(t);
		}
	}
	sandbox_copytree(seed, s->pocl_cache);
	flock(fd, LOCK_UN);
	close(fd);
}

static void pocl_cache(const char *tmp, char *buf, size_t len)
{
	snprintf(buf, len, "%s/pocl", tmp);
	mkdir(buf, 0700);
}

/* The probe's builds, kept for the next check of the same text: build/pocl-builds/<key>, a copy
 * of the check's cache taken right after the probe, before any student code has run in this
 * check (the probe only compiles), keyed by every text it compiled, the options' TILEs, the
 * device asked for and the work-group method.  The next check of that text starts its cache
 * from it, so its probe loads instead of compiling; what the run child writes (the launch-time
 * work-group functions) is never kept.  Cleared past 256 MiB. */
static void build_key(const check_opts *o, const devrun_src *s, char *buf, size_t len)
{
	unsigned long long h = CHECK_HASH_INIT;
	for (int i = 0; i < s->npre; i++) {
		h = check_hash(h, s->pre[i], strlen(s->pre[i]) + 1);
		h = check_hash(h, &s->pre_tile[i], sizeof s->pre_tile[i]);
	}
	const char *dev = o->device ? o->device : "", *wg = s->wg_method ? s->wg_method : "";
	h = check_hash(h, dev, strlen(dev) + 1);
	h = check_hash(h, wg, strlen(wg) + 1);
	snprintf(buf, len, "%s/build/pocl-builds/%016llx", lesson_root(), h);
}

/* 1 when a kept copy of the probe's builds was copied into the check's cache. */
static int builds_restore(const check_opts *o, const devrun_src *s)
{
	char kept[4300];
	build_key(o, s, kept, sizeof kept);
	struct stat st;
	if (lstat(kept, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return sandbox_copytree(kept, s->pocl_cache) == 0;
}

static void builds_keep(const check_opts *o, const devrun_src *s)
{
	char kept[4300], part[4400], root[4200];
	if (cache_folder("pocl-builds", 256LL << 20, root, sizeof root) != 0)
		return;
	build_key(o, s, kept, sizeof kept);
	snprintf(part, sizeof part, "%s.part-%d", kept, (int)getpid());
	if (sandbox_copytree(s->pocl_cache, part) != 0 || rename(part, kept) != 0)
		sandbox_rmtree(part);     /* another grader kept it first, or the disk is full */
}

/* ---- control runs: is a failure the kernel's or the grader's environment's? ------------
 * When a stage fails for want of time or memory, the lesson's reference solution goes
 * through the same stage under the same limits.  If it fails too, the environment is at fault
 * (exit 2, NOT GRADED); if it passes, the kernel is (its criteria fail, with the reason).  So
 * no kernel can turn its FAIL into NOT GRADED by being heavy only where the grader looks. */

/* The lesson's reference solution, read by the parent (malloc'd), or NULL. */
static char *solution_text(const check_opts *o)
{
	char path[4096];
	lesson_path(o->l, "solution", path, sizeof path);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = malloc(256 * 1024 + 1);
	size_t n = s ? fread(s, 1, 256 * 1024, f) : 0;
	fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}

/* 1: the solution preprocesses under job's limits; -1: it does not (or cannot be read). */
static int control_preprocess(const preproc_job *job, const check_opts *o)
{
	char *sol = solution_text(o), *out = NULL, msg[2048];
	if (!sol)
		return -1;
	preproc_job j = *job;
	j.source = sol;
	j.probe = NULL;
	int ok = preproc_run(&j, &out, msg, sizeof msg) == PREPROC_OK;
	free(out);
	free(sol);
	return ok ? 1 : -1;
}

/* Preprocess the source once per TILE the children build it at (preproc.h).  0; 1 when it is
 * refused (rep->refused); 2 when the grader could not (rep->grader_error). */
static int preprocess(const check_opts *o, const char *source, const char *tmp, child_ctx *c,
                      check_report *rep)
{
	char dir[4096];
	const lesson *l = o->l;
	lesson_path(l, "dir", dir, sizeof dir);
	int tiles[PRE_MAX] = { l->tile, lesson_analysis_tile(l) }, n = 1 + (tiles[1] != tiles[0]);
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
		/* side by side, each within its share of --memory */
		jobs[i] = (preproc_job){ source, o->kernel, dir, tmp, tiles[i], 1, o->timeout_s,
		                         o->mem_bytes / (size_t)n, NULL, { "" }, 0 };
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
		if (rc == 0 && res[i] == PREPROC_ERROR && control_preprocess(&jobs[i], o) == 1) {
			/* the solution goes through under the same limits: the file is at fault */
			snprintf(rep->refused, sizeof rep->refused, "%s: the preprocessor could not finish "
			         "on this file (%.300s), though it does on the lesson's solution under the "
			         "same limits: look for macros that expand without end", o->kernel, msg);
			rep->refused[strcspn(rep->refused, "\n")] = ' ';
			rc = 1;
		} else if (rc == 0 && res[i] == PREPROC_ERROR) {
			/* the solution does not go through either: the environment's limits */
			snprintf(rep->grader_error, sizeof rep->grader_error, "the grader could not "
			         "preprocess the kernel (nor the lesson's solution, under the same limits: "
			         "raise --memory or --timeout): %.300s", msg);
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

/* ---- the device run (devrun.h): a probe that builds, a child that launches -------------- */

/* The device run's inputs, from the check's context. */
static void devrun_source(const child_ctx *c, devrun_src *s, const char *wg_method)
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

/* The probe child: builds at every TILE, never launches.  Its page, copied (malloc'd), or
 * NULL; *st how it ended.  While it builds, the parent lays out the plan of a CPU device and
 * makes its references (*guess, *refs): the probe's device is nearly always the CPU, and the
 * parent has nothing else to do. */
static devrun_probe *run_probe(const check_opts *o, const devrun_src *s, const confine_policy *pol,
                               sandbox_status *st, devrun_plan *guess, ref_problem **refs)
{
	devrun_probe *shared = sandbox_shared(sizeof *shared), *pr = malloc(sizeof *pr);
	sandbox_child child;
	devrun_ctx x = { s, NULL, shared, NULL, memory_share(o), NULL };
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
		    si.si_pid == c->pid || mono() > deadline)
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

/* The run child on the plan: launches, hands back bytes; the parent judges them into
 * rep->child.  The analysis (an) ends while it runs its correctness slots; it waits for the
 * parent's word before timing, so timing never shares the CPU with the analysis.  Its limit is
 * the parent's: S for the correctness runs plus the time it waited for the analysis, then S
 * for timing and the sweep.  0, or -1 when it could not be started. */
static int run_device(const check_opts *o, const devrun_src *s, const devrun_plan *pl,
                      ref_problem *refs, const confine_policy *pol, analysis *an,
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
	devrun_ctx x = { s, pl, NULL, pg, memory_share(o), how[0] ? how : NULL };
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
		analysis_finish(rep, an);
	size_t head = sizeof *pg + (pl->ncorrect < pl->nslots ? pl->s[pl->ncorrect].off :
	                            pl->arena_floats) * sizeof(float);
	/* one copy for both judgements: the timing slots' bytes come after the correctness ones */
	devrun_page *c1 = malloc(bytes), *c2 = c1;
	if (c1)
		page_copy(c1, pg, sizeof *pg, head);
	int right = c1 && devrun_judge_correct(pl, c1, o, refs, &rep->child);
	int launched = 1;
	for (int i = 0; c1 && i < rep->child.nruns; i++)
		launched = launched && rep->child.runs[i].done;
	launched = launched && rep->child.nruns == pl->ncorrect;
	int go = waiting && (o->l->tiles[0] ? launched : right) ? 1 : 2;
	/* S more from the word on, for timing and the sweep (waiting for it is no work) */
	if (waiting)
		child.lim.timeout_s = mono() - child.t0 + o->timeout_s;
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
	/* A status is the child's word too: 126, the status of a child the sandbox could not
	 * confine, comes from the kernel's own process when the probe, under the same
	 * confinement, was confined; and a child that exits 0 before every planned run came back
	 * skipped them (a process a kernel has taken over can call exit) */
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
	devrun_stage(pl, o->l->kind, at, rep->child.stage, sizeof rep->child.stage);
	free(c1);
	sandbox_unshare(pg, bytes);
	return 0;
}

/* How a child ended, into the report: a crash or a hang while it did `what`. */
static void child_end(const sandbox_status *st, const char *what, check_report *rep)
{
	if (st->end == SANDBOX_TIMEOUT || st->end == SANDBOX_SIGNALED ||
	    (st->end == SANDBOX_EXITED && st->code != 0 && st->code != 3)) {
		rep->child_crashed = st->end != SANDBOX_TIMEOUT;
		rep->child_timed_out = st->end == SANDBOX_TIMEOUT;
		snprintf(rep->run_end, sizeof rep->run_end, "%s while %s", st->what, what);
	}
}

/* 1: the solution builds at the same TILEs within the probe's limits; -1: it does not. */
static int control_build(const check_opts *o, const child_ctx *c, const check_confinement *cc)
{
	char *sol = solution_text(o);
	if (!sol)
		return -1;
	child_ctx k = *c;
	for (int i = 0; i < k.npre; i++)
		k.pre[i] = sol, k.pre_err[i] = NULL;
	devrun_src s;
	devrun_source(&k, &s, NULL);
	sandbox_status st;
	devrun_probe *pr = run_probe(o, &s, &cc->run_pol, &st, NULL, NULL);
	int ok = pr && st.end == SANDBOX_EXITED && st.code == 0 && pr->b[0].kernel_found;
	free(pr);
	free(sol);
	return ok ? 1 : -1;
}

/* 1: the solution runs through every planned analysis run under the analysis' limits (its
 * own time limit, the same --memory); -1: it does not. */
static int control_analysis(check_report *rep, analysis *a)
{
	const check_opts *o = a->c.o;
	char *sol = solution_text(o);
	if (!sol)
		return -1;
	child_ctx k = a->c;
	for (int i = 0; i < k.npre; i++)
		k.pre[i] = sol;
	k.unoptimised = k.model = 0;
	sandbox_limits lim = a->lim;
	lim.timeout_s = o->timeout_s;
	sandbox_status st;
	int all = 0;
	sandbox_run(analysis_main, &k, &lim, &st);
	cJSON *t = read_traces(a, rep->nanalyses, &all);
	int ok = st.end == SANDBOX_EXITED && st.code == 0 && t && all &&
	         cJSON_IsTrue(cJSON_GetObjectItem(t, "complete"));
	cJSON_Delete(t);
	for (int i = 0; i < rep->nanalyses; i++) {
		char path[4300];
		out_file(a->dir, i, path, sizeof path);
		unlink(path);
	}
	unlink(a->log);
	free(sol);
	return ok ? 1 : -1;
}

/* Native results wrong where the interpreter, which follows the OpenCL rules, computed the
 * right one and found nothing wrong: PoCL miscompiles some constructs (a barrier inside an if
 * every work-item takes; the classic `tid % (2*s)` reduction tree, pocl issue 1390).  Run the
 * kernel again with PoCL's other work-group method (workitemrepl, a fresh cache); when every
 * run agrees with the interpreter now, those runs are judged and the report names PoCL's
 * miscompile.  Otherwise the first runs stand (a kernel right under one runtime and wrong under
 * the other fails).  Only for work-groups of at most 256 work-items. */
static int miscompiled(const check_report *rep)
{
	const check_child *ch = &rep->child;
	int wrong = 0, findings = 0;
	for (int k = 0; k < FIND_KINDS; k++)
		findings += rep->an.nfind[k];
	for (int i = 0; i < ch->nruns; i++)
		wrong += ch->runs[i].done && !ch->runs[i].cmp.passed && !ch->runs[i].violations;
	/* workitemrepl replicates the code once per work-item: past 256 of them (lesson 3's
	 * 32 x 32) its build alone outlasts the time limit */
	return wrong && !findings && rep->opts.l->kind->group_size(rep->opts.l->tile) <= 256 && rep->analysis && !rep->analysis_wrong[0] &&
	       !rep->analysis_failed && !rep->analysis_grader && !rep->child_crashed &&
	       !rep->child_timed_out && cJSON_IsTrue(cJSON_GetObjectItem(rep->analysis, "complete")) &&
	       strcmp(ch->dev.type, "CPU") == 0 && strstr(ch->dev.platform, "Portable Computing");
}

static void rerun_workitemrepl(const check_opts *o, const child_ctx *c,
                               const check_confinement *cc, check_report *rep)
{
	char cache[4300];
	snprintf(cache, sizeof cache, "%s/repl", c->pocl_cache);
	mkdir(cache, 0700);
	child_ctx k = *c;
	k.pocl_cache = cache;
	devrun_src s;
	devrun_source(&k, &s, "workitemrepl");
	sandbox_status st;
	devrun_probe *pr = run_probe(o, &s, &cc->run_pol, &st, NULL, NULL);
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
		if (run_device(o, &s, pl, NULL, &cc->run_pol, NULL, again, &st) == 0 &&
		    st.end == SANDBOX_EXITED && st.code == 0) {
			/* every planned correctness run back (a timing run may follow them) */
			int right = again->child.nruns >= pl->ncorrect;
			for (int i = 0; right && i < pl->ncorrect; i++)
				right = right && again->child.runs[i].done && again->child.runs[i].cmp.passed &&
				        !again->child.runs[i].violations;
			if (right) {
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

/* The probe, the analysis beside it, then the run child; confined by cc.  0, or 2 with
 * rep->grader_error set. */
static int run_children(const check_opts *o, child_ctx *c, const check_confinement *cc,
                        check_report *rep)
{
	analysis an = { 0 };
	sandbox_status st;
	devrun_src src;
	devrun_source(c, &src, NULL);
	if (!o->analysis)
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis was "
		         "skipped (--no-analysis): races, out-of-bounds reads, bank conflicts and "
		         "coalescing are not checked");
	if (o->analysis)
		analysis_start(c, cc->an, &cc->an_pol, rep, &an);
	pocl_seed(o, &src, &cc->run_pol);
	int restored = builds_restore(o, &src);
	devrun_plan *pl = malloc(sizeof *pl);
	ref_problem *refs = NULL;
	devrun_probe *pr = run_probe(o, &src, &cc->run_pol, &st, pl, &refs);
	if (pr && !restored && st.end == SANDBOX_EXITED && st.code == 0 && pr->finished &&
	    pr->nbuilds > 0 && pr->b[0].kernel_found)   /* a failed build keeps nothing */
		builds_keep(o, &src);
	if (!pr || !pl || st.end == SANDBOX_FAILED) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s",
		         pr && pl ? st.what : "out of memory");
		free(pr);
		devrun_refs_free(pl, refs);
		free(pl);
		if (an.running)
			analysis_finish(rep, &an);
		return 2;
	}
	const char *refused[DEVRUN_MAX_BUILDS] = { 0 };
	for (int i = 0; i < c->npre && i < DEVRUN_MAX_BUILDS; i++)
		refused[i] = c->pre_err[i];
	devrun_take_probe(pr, &src, c->source, refused, c->declared, c->declared_at, &rep->child);
	child_end(&st, "building the kernel", rep);
	free(pr);
	check_child *ch = &rep->child;
	if (!ch->built && ch->opened && (rep->child_timed_out || (o->mem_bytes && rep->child_crashed)))
		rep->control_build = control_build(o, c, cc);
	int launch = !rep->run_end[0] && ch->opened && ch->kernel_found && !ch->signature[0] &&
	             !ch->over_budget;
	if (!launch || !refs || strcmp(ch->dev.type, "CPU") != 0) {
		devrun_refs_free(pl, refs);   /* the guess was wrong, or nothing is launched */
		refs = NULL;
	}
	if (launch && !refs && devrun_plan_make(o, ch->dev.type, pl) != 0) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "out of memory");
		free(pl);
		if (an.running)
			analysis_finish(rep, &an);
		return 2;
	}
	if (launch) {
		if (run_device(o, &src, pl, refs, &cc->run_pol, an.running ? &an : NULL, rep,
		               &st) != 0) {
			snprintf(rep->grader_error, sizeof rep->grader_error, "cannot fork: out of processes?");
			free(pl);
			if (an.running)
				analysis_finish(rep, &an);
			return 2;
		}
		child_end(&st, ch->stage, rep);
		if (st.end == SANDBOX_FAILED) {
			snprintf(rep->grader_error, sizeof rep->grader_error, "%s", st.what);
			free(pl);
			return 2;
		}
	} else if (an.running) {
		analysis_finish(rep, &an);
	}
	free(pl);
	if (launch && miscompiled(rep))
		rerun_workitemrepl(o, c, cc, rep);
	if (an.confine_failed) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "the sandbox could not confine its child");
		return 2;
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
	if (rep->analysis_grader && an.t0 > 0 && ch->kernel_found) {
		rep->control_analysis = control_analysis(rep, &an);
		if (rep->control_analysis == 1) {
			/* the solution runs through under the same limits: the kernel's own failure */
			rep->analysis_grader = 0;
			rep->analysis_failed = 1;
			snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis "
			         "could not run the kernel through (%s), though the lesson's reference "
			         "solution runs through under the same limits: races, out-of-bounds reads "
			         "and bank conflicts are failed, not passed", rep->analysis_failure);
		}
	}
	if (rep->analysis_grader && an.t0 > 0) {
		cJSON_Delete(rep->analysis);
		rep->analysis = NULL;
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the grader could not "
		         "finish the Oclgrind analysis: %s; races, out-of-bounds reads, bank "
		         "conflicts and coalescing are not checked", rep->analysis_failure);
	}
	if (!ch->opened) {
		snprintf(rep->grader_error, sizeof rep->grader_error, "%s",
		         ch->open_err[0] ? ch->open_err : rep->run_end);
		return 2;
	}
	local_from_analysis(rep);
	if (!ch->built || !ch->kernel_found || ch->over_budget || ch->signature[0]) {
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
	if (!rep->refused[0])
		devrun_preload_start();   /* beside the preprocessors (they only exec clang) */
	int rc = rep->refused[0] ? 1 : preprocess(o, source, tmp, &c, rep);
	devrun_preload_join();
	if (rc == 0) {
		declared_bytes(o, source, &c);
		rep->reg_estimate = regest_kernel(source, o->l->kernel, o->l->tile);
		pocl_cache(tmp, cache, sizeof cache);
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
	gpum_check(o, rep);
	crit_eval(o, source, rep);
	rep->source = source;
	return rep->exit_code;
}

void check_free(check_report *rep)
{
	cJSON_Delete(rep->analysis);
	rep->analysis = NULL;
	free(rep->source);
	rep->source = NULL;
	for (int i = 0; i < CHECK_MODEL_RUNS; i++) {
		cJSON_Delete(rep->model[i]);
		rep->model[i] = NULL;
	}
}
