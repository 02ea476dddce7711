/* check.c — the driver of one `clgrade check`: a compiler's pass pipeline, data flowing one
 * way, each stage in its own file handing the next a typed result:
 *   check_prep.c   kernel file -> read, hashed, confined preprocessor (includes, inline asm)
 *   check_cache.c  the check's own PoCL cache (seeded, the probe's builds kept)
 *   check_dev.c    sandboxed probe and run child (build, correctness, timing on the device)
 *   check_an.c     sandboxed analysis child beside it (the kernel under Oclgrind, our tracer)
 *   check_sum.c    the tracer's summary, typed (check_analysis)
 *   check_view.c   the figures the renderers print (occupancy, rates, speedup, TILE rows)
 *   gpum_check.c   the GPU time model;  criteria.c  the criteria;  report*.c  the renderers.
 * Children write into shared memory / a file, so a crash or a hang in the student's kernel is
 * a finding, never a grader crash.  This file only orders the stages and weighs what a
 * failed child means (the kernel's fault, or the grader's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "check_an.h"
#include "check_cache.h"
#include "check_ctx.h"
#include "check_dev.h"
#include "check_prep.h"
#include "check_sum.h"
#include "check_view.h"
#include "confine.h"
#include "criteria.h"
#include "devrun.h"
#include "regest.h"
#include "sandbox.h"

/* An error of the grader's: rep->grader_error, the analysis waited for, 2. */
static int grader_failed(check_report *rep, check_an *an, const char *why)
{
	snprintf(rep->grader_error, sizeof rep->grader_error, "%s", why);
	if (an && an->running)
		check_an_finish(rep, an);
	return 2;
}

/* The cache, then the probe (the analysis already beside it): the kernel built at every TILE
 * into rep->child; pl the CPU plan laid out meanwhile, *refs its references.  0, or 2. */
static int probe(const check_opts *o, const check_ctx *c, const check_confinement *cc,
                 const devrun_src *src, devrun_plan *pl, ref_problem **refs, check_an *an,
                 check_report *rep)
{
	sandbox_status st;
	check_cache_seed(o, src, &cc->run_pol);
	int restored = check_cache_restore(o, src);
	devrun_probe *pr = check_dev_probe(o, src, &cc->run_pol, &st, pl, refs);
	if (pr && !restored && st.end == SANDBOX_EXITED && st.code == 0 && pr->finished &&
	    pr->nbuilds > 0 && pr->b[0].kernel_found)   /* a failed build keeps nothing */
		check_cache_keep(o, src);
	if (!pr || !pl || st.end == SANDBOX_FAILED) {
		free(pr);
		devrun_refs_free(pl, *refs);
		*refs = NULL;
		return grader_failed(rep, an, pr && pl ? st.what : "out of memory");
	}
	const char *refused[DEVRUN_MAX_BUILDS] = { 0 };
	for (int i = 0; i < c->npre && i < DEVRUN_MAX_BUILDS; i++)
		refused[i] = c->pre_err[i];
	devrun_take_probe(pr, src, c->source, refused, c->declared, c->declared_at, &rep->child);
	check_dev_end(&st, "building the kernel", rep);
	free(pr);
	check_child *ch = &rep->child;
	if (!ch->built && ch->opened && (rep->child_timed_out || (o->mem_bytes && rep->child_crashed)))
		rep->control_build = check_dev_control(o, c, cc);
	return 0;
}

/* The run child, when the kernel is there to launch (*launched), the analysis finished
 * while it runs (or here, when nothing is launched).  0, or 2. */
static int launch(const check_opts *o, const check_confinement *cc, const devrun_src *src,
                  devrun_plan *pl, ref_problem *refs, check_an *an, check_report *rep,
                  int *launched)
{
	check_child *ch = &rep->child;
	sandbox_status st;
	int go = !rep->run_end[0] && ch->opened && ch->kernel_found && !ch->signature[0] &&
	         !ch->over_budget;
	*launched = go;
	if (!go || !refs || strcmp(ch->dev.type, "CPU") != 0) {
		devrun_refs_free(pl, refs);   /* the guess was wrong, or nothing is launched */
		refs = NULL;
	}
	if (go && !refs && devrun_plan_make(o, ch->dev.type, pl) != 0)
		return grader_failed(rep, an, "out of memory");
	if (!go) {
		if (an->running)
			check_an_finish(rep, an);
		return 0;
	}
	if (check_dev_run(o, src, pl, refs, &cc->run_pol, an->running ? an : NULL, rep, &st) != 0)
		return grader_failed(rep, an, "cannot fork: out of processes?");
	check_dev_end(&st, ch->stage, rep);
	if (st.end == SANDBOX_FAILED)
		return grader_failed(rep, NULL, st.what);
	return 0;
}

/* Whose failure the analysis' was: a time limit the kernel meets on the device without
 * findings is the grader's; a grader's failure the solution does not share is the kernel's
 * (check_an_control).  Without an analysis of its own the kernel's summary goes. */
static void weigh_analysis(const check_opts *o, check_an *an, check_report *rep)
{
	cJSON *found = cJSON_GetObjectItem(rep->analysis, "findings");
	if (an->timed_out && !rep->child_timed_out && cJSON_GetArraySize(found) == 0) {
		/* the kernel runs fine on the device and Oclgrind found nothing wrong before
		 * the limit: the limit is the grader's (with findings, they are the kernel's) */
		rep->analysis_failed = 0;
		rep->analysis_grader = 1;
		snprintf(rep->analysis_failure, sizeof rep->analysis_failure, "it did not finish "
		         "under Oclgrind within the --timeout of %g s", o->timeout_s);
	}
	if (rep->analysis_grader && an->t0 > 0 && rep->child.kernel_found) {
		rep->control_analysis = check_an_control(rep, an);
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
	if (an->model_s > 0 && !rep->analysis_grader && o->l->speedup_gpu > 0 &&
	    strcmp(rep->child.dev.type, "GPU") != 0) {
		/* the prediction judges speed here: was the model's time the kernel's to lose? */
		rep->model_cut_s = an->model_s;
		rep->model_control = check_an_model_control(rep, an);
	}
	if (rep->analysis_grader && an->t0 > 0) {
		cJSON_Delete(rep->analysis);
		rep->analysis = NULL;
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the grader could not "
		         "finish the Oclgrind analysis: %s; races, out-of-bounds reads, bank "
		         "conflicts and coalescing are not checked", rep->analysis_failure);
	}
}

/* The probe, the analysis beside it, then the run child; confined by cc.  0, or 2 with
 * rep->grader_error set. */
static int run_children(const check_opts *o, check_ctx *c, const check_confinement *cc,
                        check_report *rep)
{
	check_an an = { 0 };
	devrun_src src;
	check_dev_source(c, &src, NULL);
	if (!o->analysis)
		snprintf(rep->analysis_note, sizeof rep->analysis_note, "the Oclgrind analysis was "
		         "skipped (--no-analysis): races, out-of-bounds reads, bank conflicts and "
		         "coalescing are not checked");
	if (o->analysis)
		check_an_start(c, cc->an, &cc->an_pol, rep, &an);
	devrun_plan *pl = malloc(sizeof *pl);
	ref_problem *refs = NULL;
	int launched = 0;
	int rc = probe(o, c, cc, &src, pl, &refs, &an, rep);
	if (rc == 0)
		rc = launch(o, cc, &src, pl, refs, &an, rep, &launched);
	free(pl);
	if (rc)
		return rc;
	if (launched && check_dev_miscompiled(rep))
		check_dev_workitemrepl(o, c, cc, rep);
	if (an.confine_failed)
		return grader_failed(rep, NULL, "the sandbox could not confine its child");
	weigh_analysis(o, &an, rep);
	check_child *ch = &rep->child;
	if (!ch->opened)
		return grader_failed(rep, NULL, ch->open_err[0] ? ch->open_err : rep->run_end);
	check_sum_local(rep);
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
	char dir[4096], icd[4200], plugin[4200], quiet[4200], base[4200];
	snprintf(cc->run, sizeof cc->run, "%s/run", tmp);
	snprintf(cc->an, sizeof cc->an, "%s/an", tmp);
	if ((mkdir(cc->run, 0700) != 0 && errno != EEXIST) ||
	    (mkdir(cc->an, 0700) != 0 && errno != EEXIST))
		return -1;
	lesson_path(o->l, "dir", dir, sizeof dir);
	check_root_path(icd, sizeof icd, CHECK_OCLGRIND_ICD_DIR);
	check_root_path(plugin, sizeof plugin, CHECK_TRACER_PLUGIN);
	check_root_path(quiet, sizeof quiet, CHECK_OCLGRIND_QUIET);
	check_root_path(base, sizeof base, "grader/baselines");
	const char *extra[] = { icd, plugin, quiet, base, NULL };
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
	char *source = check_prep_read(o, err, sizeof err, rep->refused, sizeof rep->refused);
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
	check_ctx c = { .o = o, .source = source, .pocl_cache = cache, .declared = -1 };
	if (!rep->refused[0])
		devrun_preload_start();   /* beside the preprocessors (they only exec clang) */
	int rc = rep->refused[0] ? 1 : check_prep_run(o, source, tmp, &c, rep);
	devrun_preload_join();
	if (rc == 0) {
		check_prep_declared(o, source, &c);
		rep->reg_estimate = regest_kernel(source, o->l->kernel, o->l->tile);
		check_cache_make(tmp, cache, sizeof cache);
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
	for (int i = 0; i < CHECK_PRE_MAX; i++) {
		free((char *)c.pre[i]);
		free((char *)c.pre_err[i]);
	}
	sandbox_tmp_remove(tmp);
	if (rc == 2) {
		free(source);
		check_free(rep);
		return rep->exit_code = 2;
	}
	check_sum_analysis(o, rep);
	check_view_occupancy(o, rep);
	check_view_rates(o, rep);
	gpum_check(o, rep);
	check_view_predicted(rep);
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
