/* check_an.c — the analysis child (check_an.h): every planned run of the kernel on Oclgrind,
 * one after another in one confined process, then the GPU time model's launches; and in the
 * parent, reading what it left in its private folder (summaries, raw outputs, its log) and
 * deciding whose failure a failure was. */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_an.h"
#include "check_prep.h"
#include "sandbox.h"
#include "trace.h"

/* No -I: the preprocessed text has no #include left (preproc.h). */
static void build_options(const check_opts *o, int tile, char *buf, size_t len)
{
	snprintf(buf, len, "-DTILE=%d -cl-kernel-arg-info", tile);
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
static void model_stage(const check_ctx *c, clrun *cl, int *opened)
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
		src[i] = check_pre_for(c, tiles[i]);
	gpum_run_all(cl, o, src, c->model == 2, c->trace_out);
}

/* The child's environment before any context opens: stdout away, the ICD and the plugin,
 * Oclgrind's limits. */
static void analysis_env(void)
{
	char icd[4200], plugin[4200], quiet[4200];
	check_root_path(icd, sizeof icd, CHECK_OCLGRIND_ICD_DIR);
	check_root_path(plugin, sizeof plugin, CHECK_TRACER_PLUGIN);
	check_root_path(quiet, sizeof quiet, CHECK_OCLGRIND_QUIET);
	/* before Oclgrind loads: its messages' instruction dumps answered by this library (a
	 * missing one only leaves them slow) */
	dlopen(quiet, RTLD_NOW | RTLD_GLOBAL);
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
}

/* A context whose checkers are those of banks_only (Oclgrind reads its checkers' settings
 * when a context is created), unless the open one has them (*opened: its banks_only, or -1
 * when none is open).  0, or 3 when Oclgrind would not open. */
static int analysis_open(const check_ctx *c, clrun *cl, int *opened, int banks_only)
{
	char err[256];
	if (*opened == banks_only)
		return 0;
	if (*opened >= 0)
		clrun_close(cl);
	const char *on = banks_only ? "0" : "1";
	setenv("OCLGRIND_DATA_RACES", on, 1);
	/* two work-items writing one element is a race even with the same value */
	setenv("OCLGRIND_UNIFORM_WRITES", on, 1);
	setenv("OCLGRIND_UNINITIALIZED", c->no_uninit ? "0" : on, 1);
	if (clrun_open(cl, "Oclgrind", err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return 3;
	}
	if (*opened < 0 && c->o->mem_bytes) {   /* --memory: see check_memory_share */
		size_t lim = sandbox_address_space() + check_memory_share(c->o);
		struct rlimit as = { lim, lim };
		setrlimit(RLIMIT_AS, &as);
	}
	*opened = banks_only;
	return 0;
}

/* Analysis run i on cl: build, set up, launch with the tracer, keep the output.  0, or the
 * child's status: 4 no kernel built, 5 no problem set up, 6 the launch failed. */
static int analysis_run(const check_ctx *c, clrun *cl, int i, char *log)
{
	const check_opts *o = c->o;
	const check_analysis_run *ar = &c->rep->analyses[i];
	char opts[4200], path[4300], extent[64];
	build_options(o, ar->tile, opts, sizeof opts);
	if (c->unoptimised)
		strncat(opts, " -cl-opt-disable", sizeof opts - strlen(opts) - 1);
	cl_program prog;
	cl_int e = clrun_build(cl, check_pre_for(c, ar->tile), opts, &prog, log ? log : (char[1]){0},
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
	e = clrun_upload(cl, &p, &b, 0);
	if (e == CL_SUCCESS)
		e = clrun_launch(cl, k, &b, ar->tile, NULL);
	clFinish(cl->queue);
	if (e == CL_SUCCESS && !c->unoptimised)
		write_analysed(cl, &b, &p, c->trace_out, i);
	clrun_release(&b);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	ref_free(&p);
	return e != CL_SUCCESS ? 6 : 0;
}

static int analysis_main(void *arg)
{
	const check_ctx *c = arg;
	analysis_env();
	clrun cl;
	char *log = malloc(65536);
	int opened = -1;          /* the checkers of the open context: banks_only, or -1 */
	for (int i = 0; i < c->rep->nanalyses; i++) {
		int rc = analysis_open(c, &cl, &opened, c->rep->analyses[i].banks_only || c->unoptimised);
		if (rc == 0)
			rc = analysis_run(c, &cl, i, log);
		if (rc)
			return rc;
	}
	free(log);
	if (c->model && !c->unoptimised)
		model_stage(c, &cl, &opened);
	if (opened >= 0)
		clrun_close(&cl);
	return 0;
}

/* A summary the analysis child wrote, parsed; NULL when it is missing, cut off or not JSON. */
static cJSON *read_json(const char *path)
{
	size_t n;
	char *s = sandbox_slurp(path, 64u << 20, &n);
	cJSON *j = s && n <= 64u << 20 ? cJSON_Parse(s) : NULL;
	free(s);
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

/* n rounded up to a multiple of d (a dimension of 1 stays 1: a 1-D kind's rows). */
static int multiple_above(int n, int d)
{
	return n <= 1 ? n : (n + d - 1) / d * d;
}

/* A kernel that tests its size's divisibility by 2^k (ptrcheck_size.c) takes one branch at
 * every size of the analysis (odd) and the other at the GPU's: one more run, at the first
 * multiple of the largest 2^k above the range's start, where its findings and its output are
 * judged (its sites would count twice beside run 0's). */
static void divisible_run(check_report *rep, int tile)
{
	if (!rep->size_div_mask || rep->nanalyses >= CHECK_MAX_ANALYSES)
		return;
	int d = 1 << (31 - __builtin_clz(rep->size_div_mask));
	const check_analysis_run *r0 = &rep->analyses[0];
	check_analysis_run *r = &rep->analyses[rep->nanalyses++];
	*r = *r0;
	r->rows = multiple_above(r0->lo.rows, d), r->cols = multiple_above(r0->lo.cols, d);
	r->tile = tile, r->banks_only = 0, r->findings_only = 1;
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
	divisible_run(rep, at);
}

/* Start the analysis child, or say in rep->analysis_note why there is none. */
void check_an_start(const check_ctx *main_ctx, const char *tmp, const confine_policy *pol,
                           check_report *rep, check_an *a)
{
	const check_opts *o = main_ctx->o;
	char icd[4200], plugin[4200], lib[4096] = "";
	memset(a, 0, sizeof *a);
	check_root_path(icd, sizeof icd, CHECK_OCLGRIND_ICD_DIR "/oclgrind.icd");
	check_root_path(plugin, sizeof plugin, CHECK_TRACER_PLUGIN);
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
	a->t0 = check_mono();
	a->running = sandbox_spawn(analysis_main, &a->c, &a->lim, &a->child) == 0;
}

/* The summaries of every run, merged; NULL when the first is missing.  *all: every run
 * wrote one. */
static cJSON *read_traces(const check_an *a, int n, int *all)
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
		else if (run && a->c.rep->analyses[i].findings_only)
			trace_merge_findings(merged, run);
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
static void sites_unoptimised(check_report *rep, check_an *a, double left)
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
static void judge_analysed(check_report *rep, const check_an *a)
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
static void model_settle(check_an *a, sandbox_status *st)
{
	struct stat ms;
	char mark[4300];
	gpum_run_mark_path(a->dir, mark, sizeof mark);
	int at = stat(mark, &ms) == 0;
	if (gpum_run_marked(a->dir) && st->end != SANDBOX_FAILED) {
		if (st->end == SANDBOX_TIMEOUT) {
			/* how long the model's launches had: from the marker to the limit */
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			double s = at ? (double)(now.tv_sec - ms.st_mtim.tv_sec) +
			                1e-9 * (double)(now.tv_nsec - ms.st_mtim.tv_nsec) : 0;
			a->model_s = s > 0.01 ? s : 0.01;
		}
		st->end = SANDBOX_EXITED;
		st->code = 0;
	}
}

/* Oclgrind 21.10's uninitialised-value checker aborts on some kernels: run again without
 * it, within what is left (left seconds) of the analysis' own time limit, rather than lose
 * races, bounds and banks too.  *st and *all are the new run's. */
static void retry_without_uninit(check_report *rep, check_an *a, double left, sandbox_status *st,
                                 int *all)
{
	cJSON_Delete(rep->analysis);
	for (int i = 0; i < rep->nanalyses; i++) {   /* the aborted run's verdicts go with it */
		char stale[4300];
		out_file(a->dir, i, stale, sizeof stale);
		unlink(stale);
	}
	a->c.no_uninit = 1;
	a->lim.timeout_s = left;
	sandbox_run(analysis_main, &a->c, &a->lim, st);
	model_settle(a, st);
	rep->analysis = read_traces(a, rep->nanalyses, all);
	rep->an.uninit_checked = 0;
	snprintf(rep->analysis_note, sizeof rep->analysis_note, "Oclgrind's uninitialised-value "
	         "checker failed on this kernel (an Oclgrind limitation), so reads of "
	         "uninitialised memory were not checked");
}

/* Whose failure it was when the child did not run every run through (all: every run wrote
 * a summary): the grader's own (Oclgrind would not open, memory ran out, the host's or the
 * --memory limit's; its time limit is judged in check_lesson), or the kernel's. */
static void judge_end(check_report *rep, const check_an *a, const sandbox_status *st, int all)
{
	cJSON *complete = cJSON_GetObjectItem(rep->analysis, "complete");
	int exited = st->end == SANDBOX_EXITED;
	int ended_badly = !exited || st->code != 0 || !rep->analysis || !all || cJSON_IsFalse(complete);
	const char *ran_out = ended_badly ? log_grader_failure(a->log) : NULL;
	if ((exited && (st->code == 3 || st->code == 5)) || ran_out) {
		rep->analysis_grader = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "%s",
		         exited && st->code == 3 ? "Oclgrind would not start" :
		         ran_out ? ran_out : "it ran out of memory (raise --memory)");
	} else if (ended_badly) {
		/* Oclgrind is here and ran: a kernel it could not run through is a finding, or a
		 * kernel would only have to break Oclgrind to skip every check that needs it */
		static const char *why[] = { [4] = "it does not build under Oclgrind",
		                             [6] = "its launch failed under Oclgrind" };
		rep->analysis_failed = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "%s",
		         exited && (st->code == 4 || st->code == 6) ? why[st->code] :
		         st->end == SANDBOX_TIMEOUT ? "it did not finish under Oclgrind within the time limit"
		         : !exited ? st->what : "Oclgrind stopped before the kernel's end");
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis could "
		         "not run the kernel through (%s): races, out-of-bounds reads and bank conflicts "
		         "are failed, not passed", rep->analysis_failure);
	}
}

/* Wait for the analysis and read its summaries into rep->analysis. */
void check_an_finish(check_report *rep, check_an *a)
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
	double left = a->lim.timeout_s - (check_mono() - a->t0);
	/* the checker's crash: its own internal error, or the child killed by SIGSEGV/SIGABRT
	 * (it segfaults on every float4 load, e.g. tests/fixtures/l5_float4_loads.cl) */
	int crashed = st.end == SANDBOX_SIGNALED && (st.code == SIGSEGV || st.code == SIGABRT ||
	                                             st.code == SIGBUS);
	if ((internal_error(rep->analysis, "Uninitialized") || crashed) && left > 0)
		retry_without_uninit(rep, a, left, &st, &all);
	judge_analysed(rep, a);
	gpum_run_collect(rep, a->dir);
	cJSON *complete = cJSON_GetObjectItem(rep->analysis, "complete");
	int exited = st.end == SANDBOX_EXITED;
	left = a->c.o->timeout_s - (check_mono() - a->t0);   /* the analysis' own limit, all runs */
	if (exited && st.code == 0 && all && cJSON_IsTrue(complete) && has_merged_sites(rep->analysis)
	    && left > 0)
		sites_unoptimised(rep, a, left);
	a->t1 = check_mono();
	rep->analysis_s = a->t1 - a->t0;
	if (st.end == SANDBOX_TIMEOUT)
		a->timed_out = 1;
	judge_end(rep, a, &st, all);
	unlink(a->log);
	a->running = 0;
}


/* What a control run of the solution runs: every planned run without the model's launches,
 * or every planned run and then the model's launches, as the kernel's own child did. */
enum { CONTROL_ANALYSIS = 0, CONTROL_WHOLE = 2 };

/* The lesson's solution through the analysis child, within timeout_s: every planned run
 * (CONTROL_ANALYSIS: model 0), or the same with the model's launches after them
 * (CONTROL_WHOLE: the baseline's too unless it was kept).  0, or -1 when there is no
 * solution to run. */
static int control_run(check_an *a, int what, double timeout_s, sandbox_status *st)
{
	char *sol = check_prep_solution(a->c.o);
	if (!sol)
		return -1;
	check_ctx k = a->c;
	for (int i = 0; i < k.npre; i++)
		k.pre[i] = sol;
	k.unoptimised = 0;
	if (what == CONTROL_ANALYSIS)
		k.model = 0;
	sandbox_limits lim = a->lim;
	lim.timeout_s = timeout_s;
	sandbox_run(analysis_main, &k, &lim, st);
	free(sol);
	return 0;
}

int check_an_model_control(check_report *rep, check_an *a)
{
	sandbox_status st;
	/* the whole child again, analysed runs and then the model's launches, under the whole
	 * limit the kernel's child had: the time the kernel's launches were left depends on how
	 * long its analysed runs took, and under load it shrank to a second, in which the
	 * solution's launches alone did not finish either (l5_pred_model_timeout.cl unscored) */
	if (control_run(a, CONTROL_WHOLE, a->c.o->timeout_s, &st) != 0)
		return -1;
	int ok = st.end == SANDBOX_EXITED && st.code == 0 && gpum_run_marked(a->dir);
	for (int i = 0; i < CHECK_MODEL_RUNS; i++) {
		char path[4300];
		snprintf(path, sizeof path, "%s/model-%d.json", a->dir, i);
		unlink(path);
	}
	for (int i = 0; i < rep->nanalyses; i++) {
		char path[4300];
		out_file(a->dir, i, path, sizeof path);
		unlink(path);
	}
	unlink(a->log);
	return ok ? 1 : -1;
}

int check_an_control(check_report *rep, check_an *a)
{
	sandbox_status st;
	int all = 0;
	if (control_run(a, CONTROL_ANALYSIS, a->c.o->timeout_s, &st) != 0)
		return -1;
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
	return ok ? 1 : -1;
}
