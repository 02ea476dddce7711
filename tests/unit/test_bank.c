/* test_bank.c — Check unit tests for the __local bank model (grader/bank.c).
 *
 * The NVIDIA rows are the measured Nsight Compute numbers of GUIDE.md appendix A.3 (one warp,
 * one shared instruction, offsets in 4-byte words per lane i); the AMD, RDNA and Intel rows
 * are worked out by hand from the vendors' documented models.  Every expectation is an exact number. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bank.h"

enum { LD = 0, ST = 1 };

typedef int (*offset_fn)(int i);	/* lane i -> offset in 4-byte words */

/* One instruction of a full warp.  n_way 0 = not checked. */
typedef struct row {
	const char *profile;
	const char *pattern;
	int width;
	int store;
	offset_fn off;
	int wavefronts;
	int conflicts;		/* wavefronts - ideal_wavefronts */
	int n_way;
} row;

/* ---- offset formulas (words) ---- */
static int o_i(int i) { return i; }
static int o_2i(int i) { return 2 * i; }
static int o_4i(int i) { return 4 * i; }
static int o_8i(int i) { return 8 * i; }
static int o_16i(int i) { return 16 * i; }
static int o_17i(int i) { return 17 * i; }
static int o_32i(int i) { return 32 * i; }
static int o_33i(int i) { return 33 * i; }
static int o_64i(int i) { return 64 * i; }
static int o_zero(int i) { (void)i; return 0; }
static int o_32_imod2(int i) { return 32 * (i % 2); }
static int o_2_imod16(int i) { return 2 * (i % 16); }
static int o_halves_rows(int i) { return 2 * (i % 16) + 64 * (i / 16); }
static int o_pairs_half(int i) { return 32 * (i % 2) + 2 * (i / 2); }
static int o_2_idiv2(int i) { return 2 * (i / 2); }
static int o_t2_8(int i) { return 2 * (2 * (i / 4) + (i % 2)); }
static int o_4_idiv2(int i) { return 4 * (i / 2); }
static int o_pairs_quarter(int i) { return 32 * (i % 2) + 4 * (i / 2); }
static int o_t2_16(int i) { return 4 * (2 * (i / 4) + (i % 2)); }
static int o_4_idiv4(int i) { return 4 * (i / 4); }
static int o_4_imod16(int i) { return 4 * (i % 16); }
static int o_4_imod8(int i) { return 4 * (i % 8); }
static int o_8_idiv2(int i) { return 8 * (i / 2); }

/* 16-byte patterns that tell the AMD b128 lane groups apart.  Quad q = i/4 reads 16 B in
 * its own 32-word row, in the low (h=0) or high (h=1) half of the banks.
 * q^5 same half, q^1 other half: conflicts in the AMD read groups {q, q^5}, not in runs of 8. */
static int
o_quad_pair5(int i)
{
	int q = i / 4, h = (q & 1) ^ ((q >> 2) & 1);
	return 32 * q + 16 * h + 4 * (i % 4);
}

/* q^1 same half, q^5 other half: conflicts in runs of 8 lanes, not in the AMD read groups. */
static int
o_quad_pair1(int i)
{
	int q = i / 4, h = (q >> 2) & 1;
	return 32 * q + 16 * h + 4 * (i % 4);
}

/* The patterns measured on an H200 with Nsight Compute (GUIDE.md appendix A.3): every row. */
static const row nvidia_rows[] = {
	{ "nvidia", "stride 1", 4, LD, o_i, 1, 0, 1 },
	{ "nvidia", "stride 2", 4, LD, o_2i, 2, 1, 2 },
	{ "nvidia", "stride 32", 4, LD, o_32i, 32, 31, 32 },
	{ "nvidia", "stride 33 (padding)", 4, LD, o_33i, 1, 0, 1 },
	{ "nvidia", "broadcast", 4, LD, o_zero, 1, 0, 1 },
	{ "nvidia", "two words, same bank", 4, LD, o_32_imod2, 2, 1, 2 },
	{ "nvidia", "contiguous", 8, LD, o_2i, 2, 0, 1 },
	{ "nvidia", "stride 2 elements", 8, LD, o_4i, 4, 2, 2 },
	{ "nvidia", "halves same addresses", 8, LD, o_2_imod16, 2, 0, 1 },
	{ "nvidia", "halves same banks, diff. addresses", 8, LD, o_halves_rows, 2, 0, 1 },
	{ "nvidia", "pairs collide inside a half", 8, LD, o_pairs_half, 4, 2, 2 },
	{ "nvidia", "broadcast", 8, LD, o_zero, 1, 0, 1 },
	{ "nvidia", "T^1-uniform pairs", 8, LD, o_2_idiv2, 1, 0, 1 },
	{ "nvidia", "T^2-uniform pairs", 8, LD, o_t2_8, 1, 0, 1 },
	{ "nvidia", "T^1-uniform, 16 values over 256 B", 8, LD, o_4_idiv2, 2, 1, 2 },
	{ "nvidia", "all lanes banks 0-1, diff. addresses", 8, LD, o_64i, 32, 30, 16 },
	{ "nvidia", "contiguous", 16, LD, o_4i, 4, 0, 1 },
	{ "nvidia", "stride 2 elements", 16, LD, o_8i, 8, 4, 2 },
	{ "nvidia", "pairs collide inside a quarter", 16, LD, o_pairs_quarter, 8, 4, 2 },
	{ "nvidia", "T^1-uniform pairs", 16, LD, o_4_idiv2, 2, 0, 1 },
	{ "nvidia", "T^2-uniform pairs", 16, LD, o_t2_16, 2, 0, 1 },
	{ "nvidia", "quads uniform", 16, LD, o_4_idiv4, 2, 0, 1 },
	{ "nvidia", "broadcast", 16, LD, o_zero, 2, 0, 1 },
	{ "nvidia", "halves same", 16, LD, o_4_imod16, 4, 0, 1 },
	{ "nvidia", "quarters same", 16, LD, o_4_imod8, 4, 0, 1 },
	{ "nvidia", "T^1-uniform, 32-B stride", 16, LD, o_8_idiv2, 4, 2, 2 },
	{ "nvidia", "st stride 1", 4, ST, o_i, 1, 0, 1 },
	{ "nvidia", "st stride 2", 4, ST, o_2i, 2, 1, 2 },
	{ "nvidia", "st stride 32", 4, ST, o_32i, 32, 31, 32 },
	{ "nvidia", "st all lanes same word", 4, ST, o_zero, 1, 0, 1 },
	{ "nvidia", "st contiguous", 8, ST, o_2i, 2, 0, 1 },
	{ "nvidia", "st same addr", 8, ST, o_zero, 2, 0, 1 },
	{ "nvidia", "st T^1-uniform", 8, ST, o_2_idiv2, 2, 0, 1 },
	{ "nvidia", "st stride 2", 8, ST, o_4i, 4, 2, 2 },
	{ "nvidia", "st contiguous", 16, ST, o_4i, 4, 0, 1 },
	{ "nvidia", "st stride 2", 16, ST, o_8i, 8, 4, 2 },
	{ "nvidia", "st same addr", 16, ST, o_zero, 4, 0, 1 },
};

/* Hand-derived rows for the other profiles (full wave each). */
static const row other_rows[] = {
	/* gfx942 wave64: b32 {0..31},{32..63}; b64 4 x 16; b128 reads quad pairs, writes 8 x 8 */
	{ "amd-cdna", "stride 1", 4, LD, o_i, 2, 0, 1 },
	{ "amd-cdna", "stride 2", 4, LD, o_2i, 4, 2, 2 },
	{ "amd-cdna", "stride 32", 4, LD, o_32i, 64, 62, 32 },
	{ "amd-cdna", "stride 33", 4, LD, o_33i, 2, 0, 1 },
	{ "amd-cdna", "broadcast", 4, LD, o_zero, 2, 0, 1 },
	{ "amd-cdna", "st stride 32", 4, ST, o_32i, 64, 62, 32 },
	{ "amd-cdna", "contiguous", 8, LD, o_2i, 4, 0, 1 },
	{ "amd-cdna", "T^1-uniform (no merge)", 8, LD, o_2_idiv2, 4, 0, 1 },
	{ "amd-cdna", "stride 2 elements", 8, LD, o_4i, 8, 4, 2 },
	{ "amd-cdna", "st contiguous", 8, ST, o_2i, 4, 0, 1 },
	{ "amd-cdna", "contiguous", 16, LD, o_4i, 8, 0, 1 },
	{ "amd-cdna", "st contiguous", 16, ST, o_4i, 8, 0, 1 },
	{ "amd-cdna", "quads q,q^5 same half", 16, LD, o_quad_pair5, 16, 8, 2 },
	{ "amd-cdna", "st quads q,q^5 same half", 16, ST, o_quad_pair5, 8, 0, 1 },
	{ "amd-cdna", "quads q,q^1 same half", 16, LD, o_quad_pair1, 8, 0, 1 },
	{ "amd-cdna", "st quads q,q^1 same half", 16, ST, o_quad_pair1, 16, 8, 2 },
	{ "amd-cdna", "stride 2 elements", 16, LD, o_8i, 16, 8, 2 },
	/* RDNA3 wave32: b32 one phase, b64 2 x 16, b128 reads quad pairs (4 phases) */
	{ "amd-rdna", "stride 1", 4, LD, o_i, 1, 0, 1 },
	{ "amd-rdna", "stride 2", 4, LD, o_2i, 2, 1, 2 },
	{ "amd-rdna", "stride 32", 4, LD, o_32i, 32, 31, 32 },
	{ "amd-rdna", "stride 33", 4, LD, o_33i, 1, 0, 1 },
	{ "amd-rdna", "contiguous", 8, LD, o_2i, 2, 0, 1 },
	{ "amd-rdna", "T^1-uniform (no merge)", 8, LD, o_2_idiv2, 2, 0, 1 },
	{ "amd-rdna", "contiguous", 16, LD, o_4i, 4, 0, 1 },
	{ "amd-rdna", "quads q,q^5 same half", 16, LD, o_quad_pair5, 8, 4, 2 },
	{ "amd-rdna", "st quads q,q^5 same half", 16, ST, o_quad_pair5, 4, 0, 1 },
	{ "amd-rdna", "quads q,q^1 same half", 16, LD, o_quad_pair1, 4, 0, 1 },
	{ "amd-rdna", "broadcast", 16, LD, o_zero, 4, 0, 1 },
	/* Intel SIMD16, 16 banks: 4 B one phase, 8 B 2 x 8 lanes, 16 B 4 x 4 lanes */
	{ "intel", "stride 1", 4, LD, o_i, 1, 0, 1 },
	{ "intel", "stride 2", 4, LD, o_2i, 2, 1, 2 },
	{ "intel", "slm[j*16] (guide: 1/16 bandwidth)", 4, LD, o_16i, 16, 15, 16 },
	{ "intel", "stride 17", 4, LD, o_17i, 1, 0, 1 },
	{ "intel", "stride 32", 4, ST, o_32i, 16, 15, 16 },
	{ "intel", "broadcast", 4, LD, o_zero, 1, 0, 1 },
	{ "intel", "contiguous", 8, LD, o_2i, 2, 0, 1 },
	{ "intel", "T^1-uniform (no merge)", 8, LD, o_2_idiv2, 2, 0, 1 },
	{ "intel", "stride 2 elements", 8, LD, o_4i, 4, 2, 2 },
	{ "intel", "contiguous", 16, LD, o_4i, 4, 0, 1 },
	{ "intel", "stride 2 elements", 16, LD, o_8i, 8, 4, 2 },
	{ "intel", "broadcast", 16, ST, o_zero, 4, 0, 1 },
};

#define NROWS(t) ((int)(sizeof(t) / sizeof((t)[0])))

static const bank_profile *
profile(const char *name)
{
	const bank_profile *p = bank_profile_find(name);
	ck_assert_msg(p != NULL, "no profile %s", name);
	return p;
}

static bank_cost
price_row(const row *r, const bank_profile *p)
{
	uint64_t addr[BANK_MAX_LANES];

	for (int i = 0; i < p->warp; i++)
		addr[i] = 4 * (uint64_t)r->off(i);
	return bank_access(p, addr, NULL, p->warp, r->width, r->store);
}

static void
check_row(const row *r)
{
	const bank_profile *p = profile(r->profile);
	bank_cost c = price_row(r, p);

	ck_assert_msg(c.wavefronts == r->wavefronts,
	              "%s %s %s %d B: wavefronts %d, want %d", r->profile,
	              r->store ? "st" : "ld", r->pattern, r->width, c.wavefronts, r->wavefronts);
	ck_assert_msg(c.wavefronts - c.ideal_wavefronts == r->conflicts,
	              "%s %s %s %d B: conflicts %d, want %d", r->profile,
	              r->store ? "st" : "ld", r->pattern, r->width,
	              c.wavefronts - c.ideal_wavefronts, r->conflicts);
	if (r->n_way != 0)
		ck_assert_msg(c.n_way == r->n_way, "%s %s %d B: n_way %d, want %d",
		              r->profile, r->pattern, r->width, c.n_way, r->n_way);
}

START_TEST(test_nvidia_measured)
{
	check_row(&nvidia_rows[_i]);
}
END_TEST

START_TEST(test_other_vendors)
{
	check_row(&other_rows[_i]);
}
END_TEST

/* ---- Mark Harris' transpose, 1024 x 1024, TILE_DIM 32, BLOCK_ROWS 8 (measured whole kernel) ----
 * A block is 32 x 8 threads: warp y holds lanes x = 0..31.  Every block addresses its tile
 * alike, so one block times 1024 blocks gives the kernel totals. */
enum { TILE = 32, BLOCK_ROWS = 8, BLOCKS = (1024 / TILE) * (1024 / TILE) };

typedef struct totals {
	long instr, wavefronts, conflicts;
} totals;

/* tile[row][col] with row pitch `pitch` floats; transposed reads swap row and col. */
static totals
tile_access(int pitch, int transposed, int store)
{
	const bank_profile *p = bank_profile_at(0);
	totals t = { 0, 0, 0 };

	for (int y = 0; y < BLOCK_ROWS; y++)
		for (int j = 0; j < TILE; j += BLOCK_ROWS) {
			uint64_t addr[32];
			for (int x = 0; x < 32; x++) {
				int r = transposed ? x : y + j, c = transposed ? y + j : x;
				addr[x] = 4 * (uint64_t)(r * pitch + c);
			}
			bank_cost bc = bank_access(p, addr, NULL, 32, 4, store);
			t.instr++;
			t.wavefronts += bc.wavefronts;
			t.conflicts += bc.wavefronts - bc.ideal_wavefronts;
		}
	t.instr *= BLOCKS;
	t.wavefronts *= BLOCKS;
	t.conflicts *= BLOCKS;
	return t;
}

static void
check_totals(totals t, long instr, long wavefronts, long conflicts)
{
	ck_assert_int_eq(t.instr, instr);
	ck_assert_int_eq(t.wavefronts, wavefronts);
	ck_assert_int_eq(t.conflicts, conflicts);
}

START_TEST(test_transpose_copy_shared)
{
	check_totals(tile_access(32, 0, ST), 32768, 32768, 0);
	check_totals(tile_access(32, 0, LD), 32768, 32768, 0);
}
END_TEST

START_TEST(test_transpose_coalesced)
{
	check_totals(tile_access(32, 0, ST), 32768, 32768, 0);
	check_totals(tile_access(32, 1, LD), 32768, 1048576, 1015808);
}
END_TEST

START_TEST(test_transpose_no_bank_conflicts)
{
	check_totals(tile_access(33, 0, ST), 32768, 32768, 0);
	check_totals(tile_access(33, 1, LD), 32768, 32768, 0);
}
END_TEST

START_TEST(test_transpose_per_instruction)
{
	const bank_profile *p = bank_profile_at(0);
	uint64_t a32[32], a33[32];

	for (int col = 0; col < 32; col++) {
		for (int x = 0; x < 32; x++) {
			a32[x] = 4 * (uint64_t)(x * 32 + col);
			a33[x] = 4 * (uint64_t)(x * 33 + col);
		}
		bank_cost c = bank_access(p, a32, NULL, 32, 4, LD);
		ck_assert_int_eq(c.wavefronts, 32);
		ck_assert_int_eq(c.ideal_wavefronts, 1);
		ck_assert_int_eq(c.n_way, 32);
		c = bank_access(p, a33, NULL, 32, 4, LD);
		ck_assert_int_eq(c.wavefronts, 1);
		ck_assert_int_eq(c.ideal_wavefronts, 1);
		ck_assert_int_eq(c.n_way, 1);
	}
}
END_TEST

/* ---- partial warps, inactive lanes, sub-word widths ---- */

static void
fill(uint64_t *addr, int n, offset_fn off)
{
	for (int i = 0; i < n; i++)
		addr[i] = 4 * (uint64_t)off(i);
}

static void
expect(bank_cost c, int wavefronts, int ideal, int n_way)
{
	ck_assert_int_eq(c.wavefronts, wavefronts);
	ck_assert_int_eq(c.ideal_wavefronts, ideal);
	ck_assert_int_eq(c.n_way, n_way);
}

START_TEST(test_empty)
{
	const bank_profile *p = bank_profile_at(0);
	uint64_t addr[32];
	unsigned char none[32] = { 0 };

	fill(addr, 32, o_32i);
	expect(bank_access(p, addr, NULL, 0, 4, LD), 0, 0, 0);
	expect(bank_access(p, addr, none, 32, 4, LD), 0, 0, 0);
	expect(bank_access(p, addr, none, 32, 16, ST), 0, 0, 0);
}
END_TEST

START_TEST(test_partial_warp)
{
	const bank_profile *nv = profile("nvidia"), *cdna = profile("amd-cdna");
	uint64_t addr[64];

	fill(addr, 64, o_i);
	expect(bank_access(nv, addr, NULL, 16, 4, LD), 1, 1, 1);
	expect(bank_access(cdna, addr, NULL, 40, 4, LD), 2, 2, 1);	/* 32 + 8 lanes */
	expect(bank_access(cdna, addr, NULL, 20, 4, LD), 1, 1, 1);
	fill(addr, 64, o_2i);
	expect(bank_access(nv, addr, NULL, 16, 8, LD), 1, 1, 1);	/* second half empty */
	expect(bank_access(nv, addr, NULL, 17, 8, LD), 2, 2, 1);
	fill(addr, 64, o_32i);
	expect(bank_access(nv, addr, NULL, 5, 4, LD), 5, 1, 5);
	expect(bank_access(cdna, addr, NULL, 48, 4, ST), 48, 2, 32);	/* 32-way + 16-way */
	fill(addr, 64, o_4i);
	expect(bank_access(nv, addr, NULL, 9, 16, LD), 2, 2, 1);	/* lanes 0-7, lane 8 */
}
END_TEST

/* An odd partial warp of T^1-uniform pairs still merges: lane 16 has no partner. */
START_TEST(test_partial_warp_merge)
{
	const bank_profile *nv = profile("nvidia");
	uint64_t addr[32];

	fill(addr, 32, o_2_idiv2);
	expect(bank_access(nv, addr, NULL, 17, 8, LD), 1, 1, 1);
	expect(bank_access(nv, addr, NULL, 17, 8, ST), 2, 2, 1);
}
END_TEST

START_TEST(test_inactive_lanes)
{
	const bank_profile *nv = profile("nvidia");
	uint64_t addr[32];
	unsigned char even[32], one[32] = { 0 }, all_but_1[32];

	for (int i = 0; i < 32; i++) {
		even[i] = (i % 2 == 0);
		all_but_1[i] = (i != 1);
	}
	fill(addr, 32, o_32i);
	expect(bank_access(nv, addr, even, 32, 4, LD), 16, 1, 16);
	one[5] = 1;
	expect(bank_access(nv, addr, one, 32, 4, LD), 1, 1, 1);
	expect(bank_access(nv, addr, one, 32, 16, LD), 1, 1, 1);

	/* an inactive lane's conflicting address does not count */
	fill(addr, 32, o_i);
	addr[1] = 4 * 32;
	expect(bank_access(nv, addr, all_but_1, 32, 4, LD), 1, 1, 1);
	expect(bank_access(nv, addr, NULL, 32, 4, LD), 2, 1, 2);

	/* 8-B loads, only lanes 0..15 active: the second phase is empty */
	unsigned char low[32];
	for (int i = 0; i < 32; i++)
		low[i] = i < 16;
	fill(addr, 32, o_2i);
	expect(bank_access(nv, addr, low, 32, 8, LD), 1, 1, 1);
}
END_TEST

/* Merge test only over active partners: even lanes alone are vacuously T^1-uniform, so an
 * 8-B load merges into one 32-lane phase where lanes 0 and 16 share banks 0-1. */
START_TEST(test_merge_ignores_inactive_partners)
{
	const bank_profile *nv = profile("nvidia");
	uint64_t addr[32];
	unsigned char even[32];

	for (int i = 0; i < 32; i++)
		even[i] = (i % 2 == 0);
	fill(addr, 32, o_2i);
	expect(bank_access(nv, addr, even, 32, 8, LD), 2, 1, 2);
	expect(bank_access(nv, addr, even, 32, 8, ST), 2, 2, 1);	/* stores never merge */
	/* one active pair that disagrees blocks the merge */
	even[3] = 1;
	expect(bank_access(nv, addr, even, 32, 8, LD), 2, 2, 1);
}
END_TEST

START_TEST(test_sub_word_widths)
{
	const bank_profile *nv = profile("nvidia");
	uint64_t addr[32];

	for (int i = 0; i < 32; i++)
		addr[i] = (uint64_t)i;			/* char: 8 words, one per bank */
	expect(bank_access(nv, addr, NULL, 32, 1, LD), 1, 1, 1);
	for (int i = 0; i < 32; i++)
		addr[i] = 2 * (uint64_t)i;		/* short: 16 words */
	expect(bank_access(nv, addr, NULL, 32, 2, ST), 1, 1, 1);
	for (int i = 0; i < 32; i++)
		addr[i] = 128 * (uint64_t)i + 3;	/* char, every lane in bank 0 */
	expect(bank_access(nv, addr, NULL, 32, 1, LD), 32, 1, 32);
	for (int i = 0; i < 32; i++)
		addr[i] = 128 * (uint64_t)(i % 2) + (uint64_t)(i / 2);	/* words 0-3 and 32-35 */
	expect(bank_access(nv, addr, NULL, 32, 1, LD), 2, 1, 2);
}
END_TEST

/* Different words of one bank conflict; different bytes of one word do not. */
START_TEST(test_broadcast)
{
	const bank_profile *nv = profile("nvidia");
	uint64_t addr[32];

	for (int i = 0; i < 32; i++)
		addr[i] = 8 + (uint64_t)(i % 4);	/* bytes of word 2 */
	expect(bank_access(nv, addr, NULL, 32, 1, LD), 1, 1, 1);
	for (int i = 0; i < 32; i++)
		addr[i] = 4 * (uint64_t)(i % 3) * 32;	/* 3 words of bank 0, many lanes each */
	expect(bank_access(nv, addr, NULL, 32, 4, LD), 3, 1, 3);
	expect(bank_access(nv, addr, NULL, 32, 4, ST), 3, 1, 3);
}
END_TEST

/* ---- profiles ---- */

START_TEST(test_profile_lookup)
{
	static const struct { const char *name; int banks, warp; } want[] = {
		{ "nvidia", 32, 32 }, { "amd-cdna", 32, 64 }, { "amd-rdna", 32, 32 }, { "intel", 16, 16 },
	};

	ck_assert_int_eq(bank_profile_count(), 4);
	ck_assert_str_eq(bank_profile_at(0)->name, "nvidia");
	for (int i = 0; i < 4; i++) {
		const bank_profile *p = bank_profile_find(want[i].name);
		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p->name, want[i].name);
		ck_assert_int_eq(p->banks, want[i].banks);
		ck_assert_int_eq(p->warp, want[i].warp);
		ck_assert_int_le(p->warp, BANK_MAX_LANES);
		ck_assert_ptr_nonnull(p->label);
		ck_assert_int_gt((int)strlen(p->label), 0);
		ck_assert_ptr_eq(bank_profile_at(i), p);
	}
	ck_assert_str_eq(bank_profile_at(0)->label, "NVIDIA sm_75..sm_90 (32 banks x 4 B, warp 32)");
	ck_assert_ptr_null(bank_profile_find("bogus"));
	ck_assert_ptr_null(bank_profile_find("NVIDIA"));
	ck_assert_ptr_null(bank_profile_find(""));
	ck_assert_ptr_null(bank_profile_find(NULL));
	ck_assert_ptr_null(bank_profile_at(-1));
	ck_assert_ptr_null(bank_profile_at(4));
}
END_TEST

/* A copy of a built-in profile keeps its vendor rules; a made-up one gets plain runs of
 * banks*4/width lanes and no merge. */
START_TEST(test_profile_copies)
{
	bank_profile nv = *bank_profile_at(0);
	bank_profile cdna = *profile("amd-cdna");
	bank_profile custom = { "custom", "8 banks", 8, 16 };
	uint64_t addr[64];

	fill(addr, 64, o_2_idiv2);
	expect(bank_access(&nv, addr, NULL, 32, 8, LD), 1, 1, 1);
	fill(addr, 64, o_quad_pair5);
	expect(bank_access(&cdna, addr, NULL, 64, 16, LD), 16, 8, 2);
	fill(addr, 64, o_i);
	expect(bank_access(&custom, addr, NULL, 16, 4, LD), 2, 2, 1);	/* 2 x 8 lanes */
	fill(addr, 64, o_2_idiv2);
	expect(bank_access(&custom, addr, NULL, 16, 8, LD), 4, 4, 1);	/* 4 x 4, no merge */
}
END_TEST

START_TEST(test_bank_lanes)
{
	uint64_t addr[64];
	int bank[64];

	fill(addr, 32, o_33i);
	bank_lanes(profile("nvidia"), addr, 32, bank);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(bank[i], i);
	fill(addr, 32, o_32i);
	bank_lanes(profile("amd-rdna"), addr, 32, bank);
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(bank[i], 0);
	fill(addr, 16, o_17i);
	bank_lanes(profile("intel"), addr, 16, bank);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(bank[i], i);
	for (int i = 0; i < 64; i++)
		addr[i] = 130 + 4 * (uint64_t)i;	/* byte 130 is in word 32 */
	bank_lanes(profile("amd-cdna"), addr, 64, bank);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(bank[i], i % 32);
}
END_TEST


/* ---- the lane -> bank picture's words and the fix text ---- */

START_TEST(test_busiest_broadcast_and_inactive)
{
	const bank_profile *p = bank_profile_find("nvidia");
	uint64_t a[32];
	unsigned char on[32];
	/* Bs[tx][k] at TILE=16: lane l reads word 16*(l%16); lanes l and l+16 share it */
	for (int l = 0; l < 32; l++)
		a[l] = 4u * 16u * (uint64_t)(l % 16), on[l] = 1;
	bank_busy b = bank_busiest(p, a, on, 32);
	ck_assert_int_eq(b.words, 8);          /* words 0, 32, ..., 224 of bank 0 */
	ck_assert_int_eq(b.lanes, 16);
	ck_assert_int_eq(b.bank, 0);
	ck_assert_int_eq(b.inactive, 0);
	/* half the warp inactive: its lanes neither count nor share */
	for (int l = 16; l < 32; l++)
		on[l] = 0, a[l] = 0;
	b = bank_busiest(p, a, on, 32);
	ck_assert_int_eq(b.inactive, 16);
	ck_assert_int_eq(b.lanes, 8);
	ck_assert_int_eq(b.words, 8);
	/* a column walk of a 32-wide tile: 32 words in one bank */
	for (int l = 0; l < 32; l++)
		a[l] = 4u * 32u * (uint64_t)l + 4u * 5u, on[l] = 1;
	b = bank_busiest(p, a, NULL, 32);
	ck_assert_int_eq(b.bank, 5);
	ck_assert_int_eq(b.words, 32);
	ck_assert_int_eq(b.lanes, 32);
}
END_TEST

/* The roles the HTML page colours lanes by, and the layout after padding. */
START_TEST(test_roles_and_padding)
{
	const bank_profile *p = bank_profile_find("nvidia");
	uint64_t a[32], fixed[32];
	unsigned char on[32];
	bank_lane_role r[32];
	/* a column walk of a 32-wide tile: every lane collides on bank 0 */
	for (int l = 0; l < 32; l++)
		a[l] = 4u * 32u * (uint64_t)l, on[l] = 1;
	bank_roles(p, a, on, 32, 4, 0, r);
	for (int l = 0; l < 32; l++)
		ck_assert_int_eq(r[l], BANK_LANE_CONFLICT);
	/* padded to 33 words a row: one bank per lane, conflict-free */
	ck_assert_int_eq(bank_padded(a, 32, 32, fixed), 1);
	for (int l = 0; l < 32; l++)
		ck_assert_uint_eq(fixed[l], 4u * 33u * (uint64_t)l);
	bank_roles(p, fixed, on, 32, 4, 0, r);
	for (int l = 0; l < 32; l++)
		ck_assert_int_eq(r[l], BANK_LANE_ALONE);
	ck_assert_int_eq(bank_access(p, fixed, on, 32, 4, 0).n_way, 1);
	/* one word for the whole warp (a broadcast), half the warp inactive */
	for (int l = 0; l < 32; l++)
		a[l] = 40, on[l] = l < 16;
	bank_roles(p, a, on, 32, 4, 0, r);
	ck_assert_int_eq(r[0], BANK_LANE_BROADCAST);
	ck_assert_int_eq(r[15], BANK_LANE_BROADCAST);
	ck_assert_int_eq(r[16], BANK_LANE_INACTIVE);
	ck_assert_str_eq(bank_role_name(r[16]), "inactive");
	/* nothing to pad: an odd stride, or none */
	ck_assert_int_eq(bank_padded(a, 32, 33, fixed), 0);
	ck_assert_int_eq(bank_padded(a, 32, 0, fixed), 0);
}
END_TEST

START_TEST(test_fix_never_swaps_a_transpose)
{
	char buf[600];
	const bank_words tile = { "pad each row by one element (tile[TILE][TILE+1])",
	                          "XOR-swizzle the column", 1, 0 };
	bank_fix(&tile, 32, 32, 9, "store", 0, buf, sizeof buf);
	ck_assert_ptr_nonnull(strstr(buf, "tile[TILE][TILE+1]"));
	ck_assert_ptr_nonnull(strstr(buf, "would only move the conflict to the store on line 9"));
	ck_assert_ptr_null(strstr(buf, "so neighbouring lanes touch neighbouring words"));
	bank_fix(&tile, 16, 32, 0, NULL, 0, buf, sizeof buf);   /* every access conflicted: swap them all */
	ck_assert_ptr_nonnull(strstr(buf, "swap the indices in every access"));
	bank_fix(&tile, 0, 32, 12, "load", 0, buf, sizeof buf);
	ck_assert_ptr_nonnull(strstr(buf, "move the conflict to the load on line 12"));
}
END_TEST

START_TEST(test_fix_swaps_beside_a_broadcast)
{
	/* the other access reads one word for the whole warp: swapping both keeps it 1-way */
	char buf[600];
	const bank_words tile = { "pad each row by one element", "XOR-swizzle the column", 1, 0 };
	bank_fix(&tile, 16, 32, 21, "load", 1, buf, sizeof buf);
	ck_assert_ptr_null(strstr(buf, "would only move"));
	ck_assert_ptr_nonnull(strstr(buf, "swap the indices in every access"));
	ck_assert_ptr_nonnull(strstr(buf, "line 21 reads at most two words per warp"));
}
END_TEST

START_TEST(test_fix_when_the_result_is_wrong_too)
{
	/* a load that reads the tile the other way round from its store: the swap is the fix */
	char buf[600];
	const bank_words tile = { "pad each row by one element", "XOR-swizzle the column", 1, 1 };
	bank_fix(&tile, 16, 32, 33, "store", 0, buf, sizeof buf);
	ck_assert_ptr_null(strstr(buf, "would only move"));
	ck_assert_ptr_nonnull(strstr(buf, "swap its two indices"));
	ck_assert_ptr_nonnull(strstr(buf, "the store on line 33"));
	ck_assert(strstr(buf, "swap its two indices") < strstr(buf, "pad each row"));
}
END_TEST

START_TEST(test_fix_in_one_dimension)
{
	/* a 1-D array (lesson 5's tree): no rows to pad, no indices to swap */
	char buf[600];
	const bank_words flat = { "let neighbouring lanes use neighbouring words", "", 0, 0 };
	bank_fix(&flat, 8, 32, 15, "store", 0, buf, sizeof buf);
	ck_assert_ptr_nonnull(strstr(buf, "neighbouring lanes use neighbouring words"));
	ck_assert_ptr_null(strstr(buf, "row"));
	ck_assert_ptr_null(strstr(buf, "swap"));
	ck_assert_ptr_null(strstr(buf, "line 15"));
}
END_TEST

/* A warp that holds 4 lines of an 8-wide work-group (TILE=8): lane l is (tx, ty) = (l % 8,
 * l / 8).  As[ty][tx] with a row of 32 floats: each line alone is conflict-free, the lines
 * are 32 words apart and meet in one bank (4-way): the step is 32.  As[ty][k], the same row,
 * is a broadcast per line: the same.  With a row of TILE = 8 floats the warp's words lie end
 * to end: conflict-free, no step.  A column walk within a line (Bs[tx][k], row 8) conflicts
 * inside one line: not this pattern.  A warp of one line (TILE >= 32) never is. */
START_TEST(test_row_step)
{
	const bank_profile *p = bank_profile_find("nvidia");
	uint64_t a[32];
	for (int l = 0; l < 32; l++)
		a[l] = 4u * (32u * (uint64_t)(l / 8) + (uint64_t)(l % 8));
	ck_assert_int_eq(bank_access(p, a, NULL, 32, 4, 1).n_way, 4);
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 8), 32);
	for (int l = 0; l < 32; l++)
		a[l] = 4u * (32u * (uint64_t)(l / 8) + 3u);
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 8), 32);
	for (int l = 0; l < 32; l++)
		a[l] = 4u * (8u * (uint64_t)(l / 8) + (uint64_t)(l % 8));
	ck_assert_int_eq(bank_access(p, a, NULL, 32, 4, 1).n_way, 1);
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 8), 0);
	for (int l = 0; l < 32; l++)
		a[l] = 4u * 32u * (uint64_t)(l % 8);
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 8), 0);
	for (int l = 0; l < 32; l++)
		a[l] = 4u * 32u * (uint64_t)l;
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 32), 0);
	ck_assert_int_eq(bank_row_step(p, a, NULL, 32, 0), 0);
	unsigned char on[32];
	for (int l = 0; l < 32; l++)
		on[l] = l != 8, a[l] = 4u * (32u * (uint64_t)(l / 8) + (uint64_t)(l % 8));
	ck_assert_int_eq(bank_row_step(p, a, on, 32, 8), 0);   /* lane 8 inactive: no step known */
}
END_TEST

START_TEST(test_fix_rows)
{
	char buf[600];
	bank_fix_rows(32, 32, 8, 32, "As", buf, sizeof buf);
	ck_assert_ptr_nonnull(strstr(buf, "one warp holds 4 values of get_local_id(1), 8 work-items "
	                                  "each (the work-group is TILE=8 wide)"));
	ck_assert_ptr_nonnull(strstr(buf, "lie 32 further, a multiple of the 32 banks"));
	ck_assert_ptr_nonnull(strstr(buf, "make the last dimension of As TILE long"));
	bank_fix_rows(33, 32, 8, 32, NULL, buf, sizeof buf);
	ck_assert_ptr_null(strstr(buf, "a multiple"));
	ck_assert_ptr_nonnull(strstr(buf, "of the array TILE long"));
}
END_TEST

static Suite *
bank_suite(void)
{
	Suite *s = suite_create("bank");
	TCase *t;

	t = tcase_create("nvidia-measured");
	tcase_add_loop_test(t, test_nvidia_measured, 0, NROWS(nvidia_rows));
	suite_add_tcase(s, t);

	t = tcase_create("transpose");
	tcase_add_test(t, test_transpose_copy_shared);
	tcase_add_test(t, test_transpose_coalesced);
	tcase_add_test(t, test_transpose_no_bank_conflicts);
	tcase_add_test(t, test_transpose_per_instruction);
	suite_add_tcase(s, t);

	t = tcase_create("other-vendors");
	tcase_add_loop_test(t, test_other_vendors, 0, NROWS(other_rows));
	suite_add_tcase(s, t);

	t = tcase_create("lanes");
	tcase_add_test(t, test_empty);
	tcase_add_test(t, test_partial_warp);
	tcase_add_test(t, test_partial_warp_merge);
	tcase_add_test(t, test_inactive_lanes);
	tcase_add_test(t, test_merge_ignores_inactive_partners);
	tcase_add_test(t, test_sub_word_widths);
	tcase_add_test(t, test_broadcast);
	suite_add_tcase(s, t);

	t = tcase_create("profiles");
	tcase_add_test(t, test_profile_lookup);
	tcase_add_test(t, test_profile_copies);
	tcase_add_test(t, test_bank_lanes);
	tcase_add_test(t, test_busiest_broadcast_and_inactive);
	tcase_add_test(t, test_fix_never_swaps_a_transpose);
	tcase_add_test(t, test_fix_swaps_beside_a_broadcast);
	tcase_add_test(t, test_fix_in_one_dimension);
	tcase_add_test(t, test_fix_when_the_result_is_wrong_too);
	tcase_add_test(t, test_row_step);
	tcase_add_test(t, test_fix_rows);
	tcase_add_test(t, test_roles_and_padding);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(bank_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
