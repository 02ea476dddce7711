/* check_view.c — the view (check_view.h): what the renderers print that is computed from
 * the stages' results, computed once here, so that the renderers only format. */
#include <string.h>

#include "check_view.h"
#include "occ.h"
#include "tilechoice.h"

_Static_assert((int)CHECK_VIEW_PROFILES == (int)TILE_NPROFILES, "one view entry per judged profile");

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
void check_view_occupancy(const check_opts *o, check_report *rep)
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

/* The TILE sweep's rows (lesson 4): local bytes, global bytes per FLOP, occupancy on each
 * judged profile at the kernel's registers. */
static void tile_rows(check_report *rep)
{
	const check_child *ch = &rep->child;
	check_view *v = &rep->view;
	if (!ch->ntiles)
		return;
	v->sweep_registers = tile_registers(rep, occ_profile_find(tile_profiles[0].profile),
	                                    &v->sweep_assumed);
	for (int i = 0; i < ch->ntiles; i++) {
		const check_tile *t = &ch->tiles[i];
		check_view_tile *r = &v->tiles[i];
		r->local_bytes = tile_local_bytes(rep, t->tile);
		r->bytes_per_flop = 4.0 / t->tile;
		for (int k = 0; k < TILE_NPROFILES; k++) {
			const occ_profile *p = occ_profile_find(tile_profiles[k].profile);
			r->occ[k] = tile_occupancy(rep, p, t->tile);
			r->registers[k] = tile_registers(rep, p, &r->assumed[k]);
		}
	}
}

void check_view_rates(const check_opts *o, check_report *rep)
{
	const check_child *ch = &rep->child;
	const kind *k = o->l->kind;
	check_view *v = &rep->view;
	if (ch->timed) {
		double work = k->work(ch->time_rows, ch->time_cols);
		v->kernel_rate = work / ch->kernel_ms * 1e-6;
		if (ch->baseline_ms > 0) {
			v->baseline_rate = work / ch->baseline_ms * 1e-6;
			v->speedup = ch->baseline_ms / ch->kernel_ms;
		}
	}
	copy_rates(o, rep);
	tile_rows(rep);
}

void check_view_predicted(check_report *rep)
{
	const check_child *ch = &rep->child;
	if (rep->pred.kernel.ok && ch->timed && strcmp(ch->dev.type, "GPU") == 0)
		rep->view.measured_over_predicted = ch->kernel_ms / rep->pred.kernel.ms;
}
