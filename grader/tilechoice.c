/* tilechoice.c — lesson 4's `tile_choice` criterion: the student records a TILE for the
 * NVIDIA sm_90 profile and the limiter of its occupancy, as two #defines in the kernel file;
 * the grader checks both against the occupancy calculator (occ.h):
 *   #define CHOSEN_TILE_SM90 32
 *   #define CHOSEN_LIMITER_SM90 warps        (threads is accepted for warps)
 * Right answer: among the TILEs of the sweep that launch, the highest occupancy, and among
 * those the fewest global loads per FLOP (4/TILE bytes: the largest TILE). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "occ.h"

/* Value token of "#define NAME value" into out; 0 when found. */
static int define_value(const char *src, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);
	for (const char *p = src; (p = strstr(p, name)); p += n) {
		const char *q = p;
		while (q > src && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q - 6 < src || strncmp(q - 6, "define", 6) != 0 || !isspace((unsigned char)p[n]))
			continue;
		const char *v = p + n;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t k = 0;
		while (v[k] && !isspace((unsigned char)v[k]) && k + 1 < len)
			k++;
		snprintf(out, len, "%.*s", (int)k, v);
		return 0;
	}
	return -1;
}

static occ_result sm90(int tile)
{
	occ_input in = { .work_group = tile * tile, .local_bytes = 2L * tile * tile * 4 };
	return occ_compute(occ_profile_find("nvidia-sm90"), &in);
}

void tile_eval(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = NULL;
	for (int i = 0; i < rep->ncrit; i++)
		if (rep->crit[i].id == CRIT_TILE_CHOICE)
			c = &rep->crit[i];
	if (!c)
		return;
	int best = 0;
	double best_occ = -1;
	for (int i = 0; i < LESSON_MAX_TILES && o->l->tiles[i]; i++) {
		occ_result r = sm90(o->l->tiles[i]);
		if (r.status == OCC_OK && r.occupancy >= best_occ) {
			best_occ = r.occupancy;  /* later tiles are larger: fewer loads per FLOP */
			best = o->l->tiles[i];
		}
	}
	char tile_s[32] = "", lim_s[32] = "";
	define_value(source, "CHOSEN_TILE_SM90", tile_s, sizeof tile_s);
	define_value(source, "CHOSEN_LIMITER_SM90", lim_s, sizeof lim_s);
	int chosen = 0;
	sscanf(tile_s, "%d", &chosen);
	c->status = CRIT_FAIL;
	if (!tile_s[0] || chosen <= 0) {
		snprintf(c->msg, sizeof c->msg, "no choice recorded: the file needs "
		         "`#define CHOSEN_TILE_SM90 <TILE>` (now: %s)", tile_s[0] ? tile_s : "missing");
		snprintf(c->try_, sizeof c->try_, "read the TILE sweep table above: which TILE launches, "
		         "keeps the highest sm90 occupancy, and loads the fewest bytes per FLOP?");
		return;
	}
	occ_result r = sm90(chosen);
	if (r.status != OCC_OK) {
		snprintf(c->msg, sizeof c->msg, "TILE=%d does not launch on sm_90: %s needs %ld %s, "
		         "the limit is %ld", chosen, occ_limiter_name(r.limiter), r.needed,
		         r.unit ? r.unit : "", r.available);
		snprintf(c->try_, sizeof c->try_, "a work-group holds at most 1024 work-items on NVIDIA: "
		         "TILE*TILE must not exceed it");
		return;
	}
	if (chosen != best) {
		occ_result b = sm90(best);
		snprintf(c->msg, sizeof c->msg, "TILE=%d gives %.0f%% occupancy on sm_90 and %.3f global "
		         "bytes per FLOP; another TILE reaches %.0f%% with fewer loads per FLOP", chosen,
		         100 * r.occupancy, 4.0 / chosen, 100 * b.occupancy);
		snprintf(c->try_, sizeof c->try_, "keep the occupancy, then take the TILE that reuses "
		         "each loaded element most often");
		return;
	}
	const char *want = occ_limiter_name(r.limiter);
	int same = strcmp(lim_s, want) == 0 || (strcmp(want, "warps") == 0 && strcmp(lim_s, "threads") == 0);
	if (!same) {
		snprintf(c->msg, sizeof c->msg, "TILE=%d is the right choice, but its occupancy limiter "
		         "is not \"%s\"%s: check `build/clgrade occupancy --profile nvidia-sm90 "
		         "--work-group %d --local-bytes %d`", chosen, lim_s[0] ? lim_s : "(missing "
		         "CHOSEN_LIMITER_SM90)", "", chosen * chosen, 2 * chosen * chosen * 4);
		snprintf(c->try_, sizeof c->try_, "the limiter is the resource that runs out first: "
		         "warps (threads), groups, registers or local_memory");
		return;
	}
	c->status = CRIT_PASS;
	snprintf(c->msg, sizeof c->msg, "TILE=%d: %.0f%% occupancy on sm_90 limited by %s, %.3f "
	         "global bytes per FLOP", chosen, 100 * r.occupancy, want, 4.0 / chosen);
}
