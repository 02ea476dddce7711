/* bank.c — price one warp-wide __local access under a vendor bank model.
 *
 * The exercises run on a CPU (PoCL/Oclgrind), which has no memory banks, yet the course has
 * to tell students which __local access would serialise on a GPU and by how much.  The
 * tracer groups the lanes of one warp executing one access site into an "instruction" and
 * hands it here; this file applies the model of GUIDE.md, appendix A.3:
 *
 *   - lane l touches 32-bit words a_l/4 .. a_l/4 + max(1, W/4) - 1; bank(w) = w mod B;
 *   - the lanes are split into phases (fixed lane groups that depend on the vendor, the
 *     width and, on NVIDIA, on whether a load's addresses are pair-uniform);
 *   - a phase costs the largest number of distinct words that its active lanes touch in one
 *     bank (same word = broadcast, counted once, for loads and stores alike), 0 if empty;
 *   - wavefronts = sum of the phase costs, ideal = non-empty phases, n_way = worst phase.
 *
 * Every vendor's phase moves at most B x 4 bytes, so the default grouping is consecutive
 * runs of B*4/W lanes; the vendor quirks on top of that are the NVIDIA uniform-pair merge
 * for 8/16-byte loads and the non-contiguous AMD ds_read_b128 lane groups.
 *
 * Nothing here allocates: one phase touches at most BANK_MAX_LANES * 4 words. */
#include "bank.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { MAX_WORDS = BANK_MAX_LANES * 4 };	/* 16-byte accesses touch four words */

/* The vendor rules that a bank_profile cannot express. */
typedef struct model {
	int pair_merge;                    /* NVIDIA: T^1/T^2-uniform 8/16-B loads merge phases */
	const unsigned char *b128_load;    /* lane -> phase for 16-B loads, NULL = consecutive */
	const unsigned char *b128_store;   /* lane -> phase for 16-B stores, NULL = consecutive */
} model;

/* AMD ds_read_b128 lane groups (AMD's LDS bank-conflict documentation, GUIDE.md appendix A.3; in issue order), as lane -> phase:
 *   gfx942: {0-3,20-23} {32-35,52-55} {4-7,16-19} {36-39,48-51}
 *           {8-11,28-31} {40-43,60-63} {12-15,24-27} {44-47,56-59}
 *   gfx1100: {0-3,20-23} {4-7,16-19} {8-11,28-31} {12-15,24-27}
 * i.e. within each 32-lane half, quad q shares its phase with quad q^5. */
#define Q(p) p, p, p, p
static const unsigned char cdna_b128_load[64] = {
	Q(0), Q(2), Q(4), Q(6), Q(2), Q(0), Q(6), Q(4),
	Q(1), Q(3), Q(5), Q(7), Q(3), Q(1), Q(7), Q(5),
};
static const unsigned char rdna_b128_load[32] = {
	Q(0), Q(1), Q(2), Q(3), Q(1), Q(0), Q(3), Q(2),
};
#undef Q

/* Same order as models[]; the first is the default. */
static const bank_profile profiles[] = {
	{ "nvidia",   "NVIDIA sm_75..sm_90 (32 banks x 4 B, warp 32)",            32, 32 },
	{ "amd-cdna", "AMD CDNA2/CDNA3 gfx90a/gfx942 (32 banks x 4 B, wave64)",   32, 64 },
	{ "amd-rdna", "AMD RDNA3 gfx1100 (32 banks x 4 B, wave32)",               32, 32 },
	{ "intel",    "Intel Gen9..Xe2 (16 banks x 4 B, SIMD16 sub-group)",       16, 16 },
};

/* Intel: the doc [U] only says "64 bytes in 16 banks", i.e. 64 B per clock.  We assume a
 * phase therefore moves at most 64 bytes: 16 lanes of 4 B, 8 lanes of 8 B, 4 lanes of 16 B,
 * which is the consecutive default below.  AMD b32/b64 stores are assumed to use the read
 * phases [U]; RDNA b128 stores are undocumented and assumed consecutive groups of 8 lanes,
 * like gfx942's ds_write_b128. */
static const model models[] = {
	{ 1, NULL, NULL },                      /* nvidia */
	{ 0, cdna_b128_load, NULL },            /* amd-cdna */
	{ 0, rdna_b128_load, NULL },            /* amd-rdna */
	{ 0, NULL, NULL },                      /* intel */
};

static const model generic_model = { 0, NULL, NULL };

enum { NPROFILES = sizeof(profiles) / sizeof(profiles[0]) };

int
bank_profile_count(void)
{
	return NPROFILES;
}

const bank_profile *
bank_profile_at(int i)
{
	if (i < 0 || i >= NPROFILES)
		return NULL;
	return &profiles[i];
}

const bank_profile *
bank_profile_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (int i = 0; i < NPROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

/* The vendor rules of p: by identity, else by name and shape (a copied profile), else
 * none, so a caller-made profile gets the plain "B x 4 bytes per phase" model. */
static const model *
model_of(const bank_profile *p)
{
	for (int i = 0; i < NPROFILES; i++)
		if (p == &profiles[i])
			return &models[i];
	for (int i = 0; i < NPROFILES; i++)
		if (p->name != NULL && strcmp(p->name, profiles[i].name) == 0 &&
		    p->banks == profiles[i].banks && p->warp == profiles[i].warp)
			return &models[i];
	return &generic_model;
}

/* Width class that selects the phases: 4 (1, 2, 4 B), 8 or 16 bytes.  Widths that are not a
 * power of two round up (a 12-byte piece is phased like a 16-byte one). */
static int
width_class(int width)
{
	if (width <= 4)
		return 4;
	if (width <= 8)
		return 8;
	return 16;
}

/* Words one lane touches: 1 below 4 bytes, else ceil(W/4) (= W/4 for 4, 8, 16). */
static int
words_per_lane(int width)
{
	return width < 4 ? 1 : (width + 3) / 4;
}

static int
is_active(const unsigned char *active, int l)
{
	return active == NULL || active[l] != 0;
}

/* NVIDIA uniform pairs: every active lane T whose partner T^x is active (and present)
 * has the same address as that partner.  A lane whose partner is inactive is no
 * evidence against it. */
static int
pairs_uniform(const uint64_t *addr, const unsigned char *active, int nlanes, int x)
{
	for (int t = 0; t < nlanes; t++) {
		int u = t ^ x;
		if (!is_active(active, t) || u >= nlanes || !is_active(active, u))
			continue;
		if (addr[t] != addr[u])
			return 0;
	}
	return 1;
}

/* How the lanes are grouped: either a lane -> phase table or runs of `run` lanes. */
typedef struct phasing {
	const unsigned char *table;
	int run;
} phasing;

static phasing
phasing_of(const bank_profile *p, const model *m, const uint64_t *addr,
           const unsigned char *active, int nlanes, int wclass, int is_store)
{
	phasing ph = { NULL, p->banks * 4 / wclass };

	if (ph.run < 1)
		ph.run = 1;
	if (wclass == 16 && (is_store ? m->b128_store : m->b128_load) != NULL) {
		ph.table = is_store ? m->b128_store : m->b128_load;
		return ph;
	}
	if (m->pair_merge && !is_store && wclass > 4 &&
	    (pairs_uniform(addr, active, nlanes, 1) || pairs_uniform(addr, active, nlanes, 2)))
		ph.run *= 2;
	return ph;
}

static int
phase_of(const phasing *ph, int lane)
{
	return ph->table != NULL ? ph->table[lane] : lane / ph->run;
}

static int
phase_count(const phasing *ph, int nlanes)
{
	int n = 0;

	for (int l = 0; l < nlanes; l++)
		if (phase_of(ph, l) + 1 > n)
			n = phase_of(ph, l) + 1;
	return n;
}

/* Order words by (bank, word), so that equal words and same-bank words are adjacent.
 * Insertion sort: a phase holds at most MAX_WORDS words and usually arrives nearly sorted. */
static int
before(uint64_t a, uint64_t b, uint64_t banks)
{
	if (a % banks != b % banks)
		return a % banks < b % banks;
	return a < b;
}

static void
sort_words(uint64_t *w, int n, uint64_t banks)
{
	for (int i = 1; i < n; i++) {
		uint64_t x = w[i];
		int j = i;
		while (j > 0 && before(x, w[j - 1], banks)) {
			w[j] = w[j - 1];
			j--;
		}
		w[j] = x;
	}
}

/* Cycles of one phase: the most distinct words in one bank. */
static int
phase_cycles(uint64_t *w, int n, uint64_t banks)
{
	int worst = 0, run = 0;

	sort_words(w, n, banks);
	for (int i = 0; i < n; i++) {
		if (i > 0 && w[i] == w[i - 1])
			continue;		/* broadcast / same-word store */
		if (i > 0 && w[i] % banks == w[i - 1] % banks)
			run++;
		else
			run = 1;
		if (run > worst)
			worst = run;
	}
	return worst;
}

/* Words touched by the active lanes of phase `ph_id`; returns how many. */
static int
gather_phase(const phasing *ph, int ph_id, const uint64_t *addr, const unsigned char *active,
             int nlanes, int width, uint64_t *w)
{
	int n = 0, nw = words_per_lane(width);

	for (int l = 0; l < nlanes; l++) {
		if (!is_active(active, l) || phase_of(ph, l) != ph_id)
			continue;
		for (int k = 0; k < nw; k++)
			w[n++] = addr[l] / 4 + (uint64_t)k;
	}
	return n;
}

bank_cost
bank_access(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
            int nlanes, int width, int is_store)
{
	bank_cost c = { 0, 0, 0 };
	uint64_t w[MAX_WORDS];

	/* Caller bugs; clamped too, so that a build with NDEBUG stays in bounds. */
	assert(p != NULL && p->banks > 0);
	assert(width >= 1 && width <= 16);	/* the caller splits wider accesses into 16 B */
	assert(nlanes >= 0 && nlanes <= p->warp && nlanes <= BANK_MAX_LANES);
	if (width < 1)
		width = 1;
	if (width > 16)
		width = 16;
	if (nlanes > p->warp)
		nlanes = p->warp;
	if (nlanes > BANK_MAX_LANES)
		nlanes = BANK_MAX_LANES;
	if (nlanes <= 0 || addr == NULL)
		return c;

	phasing ph = phasing_of(p, model_of(p), addr, active, nlanes, width_class(width),
	                        is_store);
	int nph = phase_count(&ph, nlanes);
	for (int i = 0; i < nph; i++) {
		int n = gather_phase(&ph, i, addr, active, nlanes, width, w);
		if (n == 0)
			continue;
		int cyc = phase_cycles(w, n, (uint64_t)p->banks);
		c.wavefronts += cyc;
		c.ideal_wavefronts++;
		if (cyc > c.n_way)
			c.n_way = cyc;
	}
	return c;
}

void
bank_lanes(const bank_profile *p, const uint64_t *addr, int nlanes, int *bank_out)
{
	assert(p != NULL && p->banks > 0);
	for (int l = 0; l < nlanes; l++)
		bank_out[l] = (int)((addr[l] / 4) % (uint64_t)p->banks);
}

bank_busy
bank_busiest(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
             int nlanes)
{
	bank_busy best = { 0, 0, 0, 0 };

	assert(p != NULL && p->banks > 0);
	for (int l = 0; l < nlanes; l++)
		best.inactive += !is_active(active, l);
	for (int b = 0; b < p->banks; b++) {
		bank_busy cur = { b, 0, 0, best.inactive };
		for (int l = 0; l < nlanes; l++) {
			if (!is_active(active, l) || (int)((addr[l] / 4) % (uint64_t)p->banks) != b)
				continue;
			cur.lanes++;
			int seen = 0;	/* is this lane's word already counted? */
			for (int m = 0; m < l && !seen; m++)
				seen = is_active(active, m) && addr[m] / 4 == addr[l] / 4;
			cur.words += !seen;
		}
		if (cur.words > best.words || (cur.words == best.words && cur.lanes > best.lanes))
			best = cur;
	}
	return best;
}

void
bank_roles(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
           int nlanes, int width, int is_store, bank_lane_role *role_out)
{
	assert(p != NULL && p->banks > 0 && nlanes <= BANK_MAX_LANES);
	if (width < 1)
		width = 1;
	phasing ph = phasing_of(p, model_of(p), addr, active, nlanes, width_class(width),
	                        is_store);
	uint64_t banks = (uint64_t)p->banks;
	for (int l = 0; l < nlanes; l++) {
		int clash = 0, share = 0;
		for (int m = 0; m < nlanes && is_active(active, l); m++) {
			if (m == l || !is_active(active, m) || phase_of(&ph, m) != phase_of(&ph, l))
				continue;
			uint64_t a = addr[l] / 4, b = addr[m] / 4;
			clash |= a != b && a % banks == b % banks;
			share |= a == b;
		}
		role_out[l] = !is_active(active, l) ? BANK_LANE_INACTIVE : clash ? BANK_LANE_CONFLICT :
		              share ? BANK_LANE_BROADCAST : BANK_LANE_ALONE;
	}
}

const char *
bank_role_name(bank_lane_role r)
{
	static const char *names[] = { "inactive", "conflict", "broadcast", "alone" };
	return (unsigned)r < 4 ? names[r] : "?";
}

int
bank_padded(const uint64_t *addr, int nlanes, int stride, uint64_t *out)
{
	if (stride < 2 || stride % 2 != 0)
		return 0;
	for (int l = 0; l < nlanes; l++) {
		uint64_t w = addr[l] / 4, s = (uint64_t)stride;
		out[l] = ((w / s) * (s + 1) + w % s) * 4 + addr[l] % 4;
	}
	return 1;
}

static int gcd_int(int a, int b)
{
	a = a < 0 ? -a : a;
	while (b) {
		int t = a % b;
		a = b, b = t;
	}
	return a ? a : 1;
}

void
bank_fix(const bank_words *w, int stride, int banks, int other_line, const char *other_access,
         int other_broadcast, char *buf, size_t len)
{
	char swap[240] = "", alt[300] = "";
	if (w->swap && other_line > 0 && !other_broadcast && w->result_wrong) {
		/* the likely fix first: the access is the bug, and its conflict a symptom */
		int store = w->access && strcmp(w->access, "store") == 0;
		const char *other = other_access ? other_access : "access";
		snprintf(buf, len, "the results are wrong too, so this access may %s the array the "
		         "other way round from the %s on line %d: swap its two indices, so that it %s "
		         "that %s %s and neighbouring lanes touch neighbouring words; if the layout is "
		         "meant, %s", store ? "write" : "read", other, other_line,
		         store ? "writes where" : "reads what", other, store ? "reads" : "wrote",
		         w->pad);
		return;
	}
	if (w->swap && other_line > 0 && !other_broadcast)
		snprintf(swap, sizeof swap, "; swapping the indices here would only move the "
		         "conflict to the %s on line %d, which walks the other way",
		         other_access ? other_access : "access", other_line);
	else if (w->swap && other_line > 0)
		snprintf(swap, sizeof swap, ", or swap the indices in every access to the array (the "
		         "%s on line %d reads at most two words per warp, a broadcast, and stays "
		         "conflict-free either way)", other_access ? other_access : "access", other_line);
	else if (w->swap)
		snprintf(swap, sizeof swap, ", or swap the indices in every access to the array so "
		         "neighbouring lanes touch neighbouring words");
	if (w->swizzle && w->swizzle[0])
		snprintf(alt, sizeof alt, ", or %s", w->swizzle);
	if (stride && stride % banks == 0)
		snprintf(buf, len, "neighbouring lanes are %d words apart, a multiple of the %d banks, "
		         "so they all hit one bank: %s%s%s", stride, banks, w->pad, alt, swap);
	else if (stride && stride % 2 == 0)
		snprintf(buf, len, "neighbouring lanes are %d words apart; with an even stride, lanes "
		         "that differ by %d (the %d banks over gcd(%d, %d)) share a bank: %s%s%s",
		         stride, banks / gcd_int(stride, banks), banks, stride, banks, w->pad, alt, swap);
	else
		snprintf(buf, len, "make the lanes of one warp touch different banks: %s%s%s", w->pad,
		         alt, swap);
}

long
bank_row_step(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
              int nlanes, int row_lanes)
{
	assert(p != NULL && p->banks > 0);
	if (row_lanes <= 0 || row_lanes >= nlanes || !is_active(active, 0) ||
	    !is_active(active, row_lanes))
		return 0;
	if (bank_busiest(p, addr, active, row_lanes).words > 1 ||
	    bank_busiest(p, addr, active, nlanes).words <= 1)
		return 0;
	return ((long)(addr[row_lanes] / 4)) - (long)(addr[0] / 4);
}

void
bank_fix_rows(long step, int banks, int row_lanes, int nlanes, const char *variable,
              char *buf, size_t len)
{
	const char *v = variable && *variable ? variable : "the array";
	char multiple[64] = "";
	if (step % banks == 0)
		snprintf(multiple, sizeof multiple, ", a multiple of the %d banks", banks);
	snprintf(buf, len, "one warp holds %d values of get_local_id(1), %d work-items each (the "
	         "work-group is TILE=%d wide); the work-items of one value alone are conflict-free, "
	         "but the next value's words lie %ld further%s, so the %d values fall on the same "
	         "banks: make the last dimension of %s TILE long, not a fixed size, so that the "
	         "warp's words lie end to end", nlanes / row_lanes, row_lanes, row_lanes, step,
	         multiple, nlanes / row_lanes, v);
}
