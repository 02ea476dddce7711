/* gpum_run.c — the GPU time model's launches (gpumodel.h): the student's kernel and the
 * lesson's baseline once more under Oclgrind, at the kind's model size, Oclgrind's checkers off.
 * They run in the analysis child (check_an.c, analysis_main), after its analysed launches, in the
 * same Oclgrind process: no second process, runtime or context of checkers to start.  The
 * child leaves a marker before them, so that the parent judges the analysis by the analysed
 * launches alone: a model launch that fails, crashes or outlasts the time limit leaves only no
 * prediction, never a finding.  Each launch's trace summary goes to "model-<i>.json" in the
 * analysis' private folder; the parent reads them into rep->model[] (gpum_run_collect).
 * The baseline's summary is kept in build/gpum-baselines/ (gpum_run_cached): its accesses do
 * not depend on the input's values, so it is the same for every check of the lesson until the
 * baseline, the lesson's TILE, the model size or the tracer plugin changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "ref.h"
#include "sandbox.h"

#define GPUM_MARK "model-begun"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

lesson_size gpum_model_size(const kind *k, int tile)
{
	lesson_size s = k->model_size;
	/* each dimension that holds groups: at least two tiles, a multiple of TILE (matmul at
	 * TILE 32: 64x64), so every group is interior and the loop over tiles runs twice */
	int *d[2] = { &s.rows, &s.cols };
	for (int i = 0; i < 2 && tile > 0; i++)
		if (*d[i] > 1)
			*d[i] = (*d[i] < 2 * tile ? 2 * tile : *d[i] + tile - 1) / tile * tile;
	return s;
}

int gpum_run_plan(const lesson *l, int tiles[CHECK_MODEL_RUNS])
{
	if (!l->kind->model_size.cols)
		return 0;
	int n = 0;
	tiles[n++] = l->tile;                     /* 0: the student's kernel at the lesson's TILE */
	tiles[n++] = l->baseline ? l->tile : 0;   /* 1: the baseline (0: none)                   */
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i] && n < CHECK_MODEL_RUNS; i++)
		tiles[n++] = l->tiles[i] == l->tile ? 0 : l->tiles[i];   /* 2...: the sweep's others */
	return n;
}

static void file_of(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void model_file(const char *dir, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/model-%d.json", dir, i);
}

/* A whole file as text (NULL when it cannot be read, or is over 64 MiB). */
static char *read_text(const char *path)
{
	size_t n;
	char *s = sandbox_slurp(path, 64u << 20, &n);
	if (s && n > 64u << 20) {
		free(s);
		s = NULL;
	}
	return s;
}

void gpum_run_mark(const char *dir)
{
	char path[4300];
	file_of(dir, GPUM_MARK, path, sizeof path);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

void gpum_run_mark_path(const char *dir, char *buf, size_t len)
{
	file_of(dir, GPUM_MARK, buf, len);
}

int gpum_run_marked(const char *dir)
{
	char path[4300];
	file_of(dir, GPUM_MARK, path, sizeof path);
	return unlink(path) == 0;
}

/* One launch at the model size: the summary into model-<i>.json.  0, or -1 (no summary). */
static int launch_one(clrun *cl, const check_opts *o, const char *src, const char *name,
                      int tile, const char *dir, int i)
{
	const kind *k = o->l->kind;
	lesson_size s = gpum_model_size(k, tile);
	char opts[64], path[4300], log[4096];
	snprintf(opts, sizeof opts, "-DTILE=%d -cl-kernel-arg-info", tile);   /* check_an.c's */
	cl_program prog = NULL;
	cl_int e = clrun_build(cl, src, opts, &prog, log, sizeof log);
	cl_kernel kn = e == CL_SUCCESS ? clCreateKernel(prog, name, &e) : NULL;
	ref_problem p;
	clrun_bufs b;
	if (kn && ref_setup_inputs(&p, k, s.rows, s.cols, tile, o->seed) == 0) {
		p.max_groups = k->model_groups;
		model_file(dir, i, path, sizeof path);
		setenv("CLTRACE_OUT", path, 1);
		unsetenv("CLTRACE_EXTENT");
		e = clrun_upload(cl, &p, &b, 0);
		if (e == CL_SUCCESS) {
			e = clrun_launch(cl, kn, &b, tile, NULL);
			clFinish(cl->queue);
			clrun_release(&b);
		}
		ref_free(&p);
	} else {
		e = CL_INVALID_KERNEL;
	}
	if (kn)
		clReleaseKernel(kn);
	if (prog)
		clReleaseProgram(prog);
	return e == CL_SUCCESS ? 0 : -1;
}

/* build/gpum-baselines/<key>.json: the baseline's text and name, the TILE, the model size
 * and the tracer plugin (its size and time) in the key.  0, or -1 (no baseline). */
static int cache_path(const check_opts *o, char *buf, size_t len)
{
	const lesson *l = o->l;
	char base[4200], plugin[4200];
	struct stat st;
	lesson_path(l, "baseline", base, sizeof base);
	snprintf(plugin, sizeof plugin, "%s/build/libcltrace.so", lesson_root());
	char *text = l->baseline ? read_text(base) : NULL;
	if (!text || stat(plugin, &st) != 0) {
		free(text);
		return -1;
	}
	lesson_size s = gpum_model_size(l->kind, l->tile);
	long long id[] = { l->tile, s.rows, s.cols, l->kind->model_groups, (long long)st.st_size,
	                   (long long)st.st_mtime, (long long)st.st_mtim.tv_nsec };
	unsigned long long h = check_hash(CHECK_HASH_INIT, text, strlen(text) + 1);
	h = check_hash(h, l->baseline_kernel, strlen(l->baseline_kernel) + 1);
	h = check_hash(h, id, sizeof id);
	free(text);
	snprintf(buf, len, "%s/build/gpum-baselines/%016llx.json", lesson_root(), h);
	return 0;
}

int gpum_run_cached(check_report *rep)
{
	char path[4400];
	if (cache_path(&rep->opts, path, sizeof path) != 0)
		return 0;
	char *s = read_text(path);
	cJSON *j = s ? cJSON_Parse(s) : NULL;
	free(s);
	if (j && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete"))) {
		cJSON_Delete(j);
		j = NULL;
	}
	rep->model[1] = j;
	return j != NULL;
}

/* Keep the baseline's summary just made (through a temporary file and rename). */
static void cache_store(const check_report *rep, const char *made)
{
	char path[4400], part[4500];
	if (cache_path(&rep->opts, path, sizeof path) != 0)
		return;
	*strrchr(path, '/') = '\0';
	if (mkdir(path, 0700) != 0 && access(path, W_OK) != 0)
		return;
	path[strlen(path)] = '/';
	snprintf(part, sizeof part, "%s.part-%d", path, (int)getpid());
	FILE *f = fopen(part, "w");
	if (!f)
		return;
	int ok = fputs(made, f) >= 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(part, path) != 0)
		unlink(part);
}

void gpum_run_all(clrun *cl, const check_opts *o, const char *const *src, int cached,
                  const char *dir)
{
	int tiles[CHECK_MODEL_RUNS], n = gpum_run_plan(o->l, tiles);
	double t0 = now();
	char base[4200], path[4300];
	lesson_path(o->l, "baseline", base, sizeof base);
	char *text = o->l->baseline && !cached ? read_text(base) : NULL;
	for (int i = 0; i < n; i++) {
		const char *s = i == 1 ? text : src[i];
		if (tiles[i] && s && s[0])
			launch_one(cl, o, s, i == 1 ? o->l->baseline_kernel : o->l->kernel, tiles[i], dir, i);
	}
	free(text);
	file_of(dir, "model-seconds", path, sizeof path);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%.6f\n", now() - t0);
		fclose(f);
	}
}

void gpum_run_collect(check_report *rep, const char *dir)
{
	int tiles[CHECK_MODEL_RUNS], n = gpum_run_plan(rep->opts.l, tiles);
	char path[4300];
	for (int i = 0; i < n; i++) {
		rep->model_tile[i] = tiles[i];
		if (i == 1 && rep->model[1])
			continue;             /* the kept baseline (gpum_run_cached) */
		model_file(dir, i, path, sizeof path);
		char *text = tiles[i] ? read_text(path) : NULL;
		cJSON *j = text ? cJSON_Parse(text) : NULL;
		/* a launch stopped part-way leaves an incomplete summary: no prediction from it */
		if (j && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete"))) {
			cJSON_Delete(j);
			j = NULL;
		}
		if (j && i == 1)
			cache_store(rep, text);
		free(text);
		rep->model[i] = j;
		unlink(path);
	}
	file_of(dir, "model-seconds", path, sizeof path);
	char *s = read_text(path);
	rep->model_s = s ? atof(s) : 0;
	free(s);
	unlink(path);
}
