/* tilechoice.c — lesson 4's `tile_choice` criterion (tilechoice.h).  The student records a TILE
 * and its occupancy limiter for each judged profile as #defines in the kernel file:
 *   #define CHOSEN_TILE_SM90 32
 *   #define CHOSEN_LIMITER_SM90 warps        (threads is accepted for warps)
 *   #define CHOSEN_TILE_SM86 16
 *   #define CHOSEN_LIMITER_SM86 warps
 * Right answer per profile: among the TILEs of the sweep that launch, the highest occupancy,
 * and among those the fewest global loads per FLOP (4/TILE bytes: the largest TILE).  The
 * limiter must be one that binds at the chosen TILE (ties: any of them). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilechoice.h"

const tile_profile tile_profiles[TILE_NPROFILES] = {
	{ "nvidia-sm90", "SM90", "sm_90" },
	{ "nvidia-sm86", "SM86", "sm_86" },
};

int tile_registers(const check_report *rep, const occ_profile *p, int *assumed)
{
	*assumed = 0;
	if (p->vendor == OCC_NVIDIA && rep->child.registers && strstr(rep->child.dev.platform, "NVIDIA"))
		return rep->child.registers;
	*assumed = p->assumed_registers > 0;
	return p->assumed_registers;
}

long tile_local_bytes(const check_report *rep, int tile)
{
	for (int i = 0; i < rep->child.ntiles; i++) {
		const check_tile *t = &rep->child.tiles[i];
		if (t->tile == tile && t->built && t->local_bytes > 0)
			return (long)t->local_bytes;
	}
	return 2L * tile * tile * 4;
}

occ_result tile_occupancy(const check_report *rep, const occ_profile *p, int tile)
{
	int assumed;
	occ_input in = { .work_group = tile * tile, .local_bytes = tile_local_bytes(rep, tile),
	                 .registers = tile_registers(rep, p, &assumed) };
	return occ_compute(p, &in);
}

int tile_best(const check_report *rep, const occ_profile *p)
{
	int best = 0;
	double best_occ = -1;
	const int *tiles = rep->opts.l->tiles;
	for (int i = 0; i < LESSON_MAX_TILES && tiles[i]; i++) {
		occ_result r = tile_occupancy(rep, p, tiles[i]);
		if (r.status == OCC_OK && (r.occupancy > best_occ + 1e-9 ||
		    (r.occupancy > best_occ - 1e-9 && tiles[i] > best))) {
			best_occ = r.occupancy;
			best = tiles[i];
		}
	}
	return best;
}

/* A copy of src with every comment replaced by blanks (newlines kept). */
static char *strip_comments(const char *src)
{
	char *out = strdup(src);
	if (!out)
		return NULL;
	for (char *p = out; *p; p++) {
		if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
			if (!*p)
				break;
		} else if (p[0] == '/' && p[1] == '*') {
			*p++ = ' ';
			*p = ' ';
			while (p[1] && !(p[1] == '*' && p[2] == '/')) {
				p++;
				if (*p != '\n')
					*p = ' ';
			}
			if (p[1])
				p[1] = p[2] = ' ', p += 2;
		}
	}
	return out;
}

int tile_define(const char *src, const char *name, char *out, size_t len)
{
	char *text = strip_comments(src);
	int found = -1;
	size_t n = strlen(name);
	/* Every line is read: a second #define or an #undef of the name makes the text say two
	 * things (the compiler keeps the last, an #if 0 block none), so it is ambiguous (-2). */
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *p = line + strspn(line, " \t");
		if (*p++ != '#')
			continue;
		p += strspn(p, " \t");
		int undef = strncmp(p, "undef", 5) == 0 && (p[5] == ' ' || p[5] == '\t');
		if (!undef && (strncmp(p, "define", 6) != 0 || (p[6] != ' ' && p[6] != '\t')))
			continue;
		p += (undef ? 5 : 6) + strspn(p + (undef ? 5 : 6), " \t");
		if (strncmp(p, name, n) != 0 || (p[n] != ' ' && p[n] != '\t' && p[n] != '\n' && p[n] &&
		    p[n] != '\r'))
			continue;
		if (undef || found == 0) {
			found = -2;
			continue;
		}
		if (found == -2)
			continue;
		p += n + strspn(p + n, " \t");
		size_t k = strcspn(p, "\n");
		while (k && isspace((unsigned char)p[k - 1]))
			k--;
		snprintf(out, len, "%.*s", (int)k, p);
		found = 0;
	}
	free(text);
	return found;
}

const char *const *tile_probe_names(void)
{
	static const char *const names[] = { "CHOSEN_TILE_SM90", "CHOSEN_LIMITER_SM90",
	                                     "CHOSEN_TILE_SM86", "CHOSEN_LIMITER_SM86", NULL };
	return names;
}

/* name's index in tile_probe_names() (and rep->choice_val), or -1 */
static int probe_index(const char *name)
{
	const char *const *names = tile_probe_names();
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int tile_value(const check_report *rep, const char *src, const char *name, char *out, size_t len)
{
	int rc = tile_define(src, name, out, len), i = probe_index(name);
	if (rc == -2 || !rep->choice_probed || i < 0)
		return rc;
	if (rep->choice_vary_tile[i])
		return -4;
	const char *v = rep->choice_val[i];
	if (strcmp(v, name) == 0)   /* not defined where the file ends */
		return rc == 0 ? -3 : -1;
	size_t n = strlen(v);
	if (n >= 2 && v[0] == '(' && v[n - 1] == ')')
		snprintf(out, len, "%.*s", (int)(n - 2), v + 1);
	else
		snprintf(out, len, "%s", v);
	/* the compiler joins tokens with single spaces: "( 32 )" */
	char *s = out + strspn(out, " ");
	memmove(out, s, strlen(s) + 1);
	for (n = strlen(out); n && out[n - 1] == ' '; n--)
		out[n - 1] = '\0';
	return 0;
}

/* Does the student's limiter word name a limit that binds in r? ("threads" = warps) */
static int limiter_ok(const char *word, const occ_result *r)
{
	for (int l = OCC_LIMIT_WARPS; l <= OCC_LIMIT_LOCAL_MEMORY; l++)
		if ((r->limit_mask & (1u << l)) && (strcmp(word, occ_limiter_name(l)) == 0 ||
		    (l == OCC_LIMIT_WARPS && strcmp(word, "threads") == 0)))
			return 1;
	return 0;
}

/* The #defines as the compiler sees them (t_rc, l_rc: tile_value's answers for tname and
 * lname): 1 when each is one plain value, else 0 with msg/try_ filled in. */
static int judge_defines(const check_report *rep, const char *tname, const char *lname,
                         int t_rc, int l_rc, char *msg, size_t mlen, char *try_, size_t tlen)
{
	if (t_rc == -4 || l_rc == -4) {
		const char *vary = t_rc == -4 ? tname : lname;
		int k = probe_index(vary);
		const char *a = rep->choice_val[k], *b = rep->choice_vary_val[k];
		snprintf(msg, mlen, "%s depends on TILE: the compiler sees %s at TILE=%d but %s at "
		         "TILE=%d, so the file records no one choice", vary,
		         strcmp(a, vary) ? a : "no definition", rep->opts.l->tile,
		         strcmp(b, vary) ? b : "no definition", rep->choice_vary_tile[k]);
		snprintf(try_, tlen, "write the value itself, `#define %s ...`, outside every #if", vary);
		return 0;
	}
	if (t_rc == -3 || l_rc == -3) {
		const char *off = t_rc == -3 ? tname : lname;
		snprintf(msg, mlen, "%s is #defined only where the compiler never reaches it (inside "
		         "#if 0, or an #if that is off): the grader reads the choice the compiler sees",
		         off);
		snprintf(try_, tlen, "move `#define %s ...` outside every #if", off);
		return 0;
	}
	if (t_rc == -2 || l_rc == -2) {
		const char *twice = t_rc == -2 ? tname : lname;
		snprintf(msg, mlen, "%s is defined more than once (or #undef'd): the grader cannot "
		         "tell which choice is yours", twice);
		snprintf(try_, tlen, "keep exactly one `#define %s ...` line, outside any #if, and "
		         "delete the others", twice);
		return 0;
	}
	return 1;
}

/* A TILE that launches on p but is not the best of the sweep: which rule it breaks, never the
 * TILE that keeps both (hints.md: no answers). */
static void not_best(const check_report *rep, const tile_profile *tp, const occ_profile *p,
                     long chosen, int best, const occ_result *rr, char *msg, size_t mlen,
                     char *try_, size_t tlen)
{
	occ_result r = *rr;
	occ_result b = tile_occupancy(rep, p, best);
	snprintf(msg, mlen, "TILE=%ld on %s: %d group%s of %ld work-items per SM = %d of its "
	         "%d warp slots, %.0f%% occupancy, limited by %s, %.3f global bytes per FLOP; %s",
	         chosen, tp->short_name, r.groups_per_cu, r.groups_per_cu == 1 ? "" : "s",
	         chosen * chosen, r.active_warps, r.max_warps, 100 * r.occupancy,
	         occ_limiter_name(r.limiter), 4.0 / chosen,
	         b.occupancy > r.occupancy ? "another TILE of the sweep reaches a higher occupancy"
	         : "another TILE of the sweep reaches the same occupancy with fewer global bytes "
	           "per FLOP");
	snprintf(try_, tlen, "in the TILE sweep table below, keep the TILEs with the highest %s "
	         "occupancy, then take the one that loads the fewest bytes per FLOP",
	         tp->short_name);
}

/* One profile's choice: 1 right, else 0 with msg/try_ filled in. */
static int judge(const check_report *rep, const tile_profile *tp, const char *source,
                 char *msg, size_t mlen, char *try_, size_t tlen)
{
	const occ_profile *p = occ_profile_find(tp->profile);
	char tname[64], lname[64], tile_s[64] = "", lim_s[64] = "";
	snprintf(tname, sizeof tname, "CHOSEN_TILE_%s", tp->suffix);
	snprintf(lname, sizeof lname, "CHOSEN_LIMITER_%s", tp->suffix);
	int t_rc = tile_value(rep, source, tname, tile_s, sizeof tile_s);
	int l_rc = tile_value(rep, source, lname, lim_s, sizeof lim_s);
	if (!judge_defines(rep, tname, lname, t_rc, l_rc, msg, mlen, try_, tlen))
		return 0;
	int has_tile = t_rc == 0;
	int has_lim = l_rc == 0;
	const char *quoted = strchr("\"'", tile_s[0]) && tile_s[0] ? tname :
	                     strchr("\"'", lim_s[0]) && lim_s[0] ? lname : NULL;
	if (quoted) {
		snprintf(msg, mlen, "%s is written in quotes (%s): remove the quotes, the grader "
		         "reads a bare token", quoted, quoted == tname ? tile_s : lim_s);
		snprintf(try_, tlen, "write it as `#define %s %s`", quoted,
		         quoted == tname ? "16" : "warps");
		return 0;
	}
	char *end;
	long chosen = strtol(tile_s, &end, 10);
	if (!has_tile || *end || chosen <= 0) {
		snprintf(msg, mlen, "no choice recorded for %s: the file needs `#define %s <TILE>` "
		         "outside any comment (now: %s)", tp->short_name, tname,
		         has_tile ? tile_s : "missing");
		snprintf(try_, tlen, "read the TILE sweep table below: which TILE launches, keeps the "
		         "highest %s occupancy, and loads the fewest bytes per FLOP?", tp->short_name);
		return 0;
	}
	occ_result r = tile_occupancy(rep, p, (int)chosen);
	if (r.status != OCC_OK) {
		snprintf(msg, mlen, "TILE=%ld does not launch on %s: %s needs %ld %s, the limit is %ld",
		         chosen, tp->short_name, occ_limiter_name(r.limiter), r.needed,
		         r.unit ? r.unit : "", r.available);
		snprintf(try_, tlen, "a work-group holds at most %d work-items on %s: TILE*TILE must "
		         "not exceed it", p->max_wg_size, tp->short_name);
		return 0;
	}
	int best = tile_best(rep, p);
	if (chosen != best) {
		not_best(rep, tp, p, chosen, best, &r, msg, mlen, try_, tlen);
		return 0;
	}
	if (!has_lim || !limiter_ok(lim_s, &r)) {
		snprintf(msg, mlen, "TILE=%ld is the right choice for %s, but its occupancy limiter is "
		         "%s, not \"%s\": check `build/clgrade occupancy --profile %s --work-group %ld "
		         "--local-bytes %ld --registers %d`", chosen, tp->short_name,
		         occ_limiter_name(r.limiter), has_lim ? (lim_s[0] ? lim_s : "(empty)") : "(missing)",
		         tp->profile,
		         chosen * chosen, 2 * chosen * chosen * 4, tile_registers(rep, p, &(int){0}));
		snprintf(try_, tlen, "the limiter is the resource that runs out first: warps (threads), "
		         "groups, registers or local_memory; write it as `#define %s <limiter>`", lname);
		return 0;
	}
	snprintf(msg, mlen, "%s: TILE=%ld, %.0f%% limited by %s", tp->short_name, chosen,
	         100 * r.occupancy, occ_limiter_name(r.limiter));
	return 1;
}

void tile_eval(const check_opts *o, const char *source, check_report *rep)
{
	check_crit *c = NULL;
	for (int i = 0; i < rep->ncrit; i++)
		if (rep->crit[i].id == CRIT_TILE_CHOICE)
			c = &rep->crit[i];
	if (!c)
		return;
	char right[2][160], msg[600], try_[400];
	int n_right = 0;
	for (int i = 0; i < TILE_NPROFILES; i++) {
		if (!judge(rep, &tile_profiles[i], source, msg, sizeof msg, try_, sizeof try_)) {
			c->status = CRIT_FAIL;
			snprintf(c->msg, sizeof c->msg, "%s%s%s", msg, n_right ? " (right: " : "",
			         n_right ? right[0] : "");
			if (n_right)
				strncat(c->msg, ")", sizeof c->msg - strlen(c->msg) - 1);
			snprintf(c->try_, sizeof c->try_, "%s", try_);
			return;
		}
		snprintf(right[n_right++], sizeof right[0], "%s", msg);
	}
	const occ_profile *p = occ_profile_find(tile_profiles[0].profile);
	int assumed, regs = tile_registers(rep, p, &assumed);
	c->status = CRIT_PASS;
	snprintf(c->msg, sizeof c->msg, "%s; %s (at %d registers per work-item, %s)", right[0],
	         right[1], regs, assumed ? "assumed: this device does not report them" :
	         "as the device's compiler reported");
	(void)o;
}
