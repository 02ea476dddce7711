/* gpum_check.c — the GPU time model inside one check: the model runs' summaries (gpum_run.c)
 * and the occupancy into a predicted time of the student's kernel and of the
 * baseline at the lesson's GPU timing size (gpumodel.h).  Computed before any renderer runs;
 * report_gpum.c only prints rep->pred. */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "occ.h"
#include "ref.h"

/* One launch of kind k at rows x cols, TILE tile: work-items and inner trips per work-item. */
static void launch_size(const kind *k, int tile, lesson_size s, int max_groups, ref_problem *p,
                        double *items, double *trips)
{
	size_t global[3] = { 1, 1, 1 }, local[3] = { 1, 1, 1 };
	memset(p, 0, sizeof *p);
	p->kind = k;
	p->tile = tile;
	k->shape(p, s.rows, s.cols);
	p->max_groups = max_groups;
	int dims = k->geometry(p, tile, global, local);
	*items = 1;
	for (int d = 0; d < dims; d++)
		*items *= (double)global[d];
	double work = p->flops > 0 ? p->flops / 2 : (double)p->in_len[0];
	*trips = *items > 0 ? work / *items : 0;
}

static void launch_of(const kind *k, int tile, int groups_per_sm, gpum_launch *l)
{
	ref_problem pm, pt;
	memset(l, 0, sizeof *l);
	launch_size(k, tile, gpum_model_size(k, tile), k->model_groups, &pm, &l->items_m,
	            &l->trips_m);
	launch_size(k, tile, k->time_size_gpu, 0, &pt, &l->items_t, &l->trips_t);
	l->group_size = k->group_size(tile);
	l->groups_t = l->items_t / (l->group_size > 0 ? l->group_size : 1);
	l->flops_t = pt.flops;
	for (int i = 0; i < pt.n_in; i++)
		l->bytes_in_t += (double)pt.in_len[i] * sizeof(float);
	l->bytes_out_t = (double)pt.out_len * sizeof(float);
	l->groups_per_sm = groups_per_sm;
}

/* Groups per SM of the student's kernel: the report's occupancy row of the profile. */
static int student_groups(const check_report *rep, const char *profile)
{
	for (int i = 0; i < rep->nocc; i++)
		if (strcmp(rep->occ[i].profile, profile) == 0)
			return rep->occ[i].fits ? rep->occ[i].groups_per_cu : 0;
	return 0;
}

/* Groups per SM of the baseline, or of the student's kernel at another TILE of the sweep: the
 * occupancy calculator on the work-group and the __local bytes Oclgrind allocated in that run. */
static int tile_groups(const check_opts *o, const cJSON *summary, int tile, const char *profile)
{
	const occ_profile *p = occ_profile_find(profile);
	const cJSON *lb = cJSON_GetObjectItemCaseSensitive(summary, "local_bytes");
	occ_input in = { .work_group = o->l->kind->group_size(tile),
	                 .local_bytes = cJSON_IsNumber(lb) ? (long)lb->valuedouble : 0 };
	occ_result r = p ? occ_compute(p, &in) : (occ_result){ 0 };
	return r.status == OCC_OK ? r.groups_per_cu : 0;
}

/* Lesson 4: the student's kernel at each TILE of the sweep, in its order (shown, not judged);
 * the lesson's TILE is run 0's prediction. */
static void predict_sweep(const check_opts *o, check_report *rep)
{
	check_predicted *pr = &rep->pred;
	const kind *k = o->l->kind;
	for (int t = 0; t < LESSON_MAX_TILES && o->l->tiles[t]; t++) {
		check_predicted_tile *pt = &pr->tiles[pr->ntiles++];
		pt->tile = o->l->tiles[t];
		if (pt->tile == o->l->tile) {
			pt->kernel = pr->kernel;
			continue;
		}
		for (int i = 2; i < CHECK_MODEL_RUNS; i++)
			if (rep->model_tile[i] == pt->tile && rep->model[i]) {
				gpum_launch l;
				launch_of(k, pt->tile, tile_groups(o, rep->model[i], pt->tile,
				                                   pr->profile->name), &l);
				gpum_predict(pr->profile, rep->model[i], &l, &pt->kernel);
			}
	}
}

void gpum_check(const check_opts *o, check_report *rep)
{
	check_predicted *pr = &rep->pred;
	const kind *k = o->l->kind;
	pr->profile = gpum_profile_at(0);
	pr->rows = k->time_size_gpu.rows;
	pr->cols = k->time_size_gpu.cols;
	if (!rep->model[0] || !pr->profile || !rep->analysis || rep->analysis_failed ||
	    rep->analysis_grader)
		return;
	gpum_launch l;
	launch_of(k, o->l->tile, student_groups(rep, pr->profile->name), &l);
	if (gpum_predict(pr->profile, rep->model[0], &l, &pr->kernel) != 0) {
		snprintf(pr->why, sizeof pr->why, "the kernel does not fit %s, or made no access",
		         pr->profile->label);
		return;
	}
	if (o->l->tiles[0])
		predict_sweep(o, rep);
	if (!o->l->baseline)
		return;
	launch_of(k, o->l->tile, tile_groups(o, rep->model[1], o->l->tile, pr->profile->name), &l);
	if (!rep->model[1] || gpum_predict(pr->profile, rep->model[1], &l, &pr->baseline) != 0) {
		snprintf(pr->why, sizeof pr->why, "the baseline could not be analysed");
		return;
	}
	pr->speedup = pr->kernel.ms > 0 ? pr->baseline.ms / pr->kernel.ms : 0;
	pr->ok = 1;
}
