/* test_occ.c — Check tests for the occupancy calculators (grader/occ.c, occ_cmd.c).
 *
 * The NVIDIA model must reproduce, exactly, the 72 values cudaOccupancyMaxActiveBlocksPer-
 * Multiprocessor gave on an H200 and the computed sm_75..sm_90 table (GUIDE.md, appendix A.4).
 * There are no measured AMD/Intel cases, so those below are worked by hand from the vendors'
 * formulas, with the arithmetic in the comments.  Plus the does-not-fit cases and the CLI. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "occ.h"

static occ_result run(const char *profile, int wg, long local, int regs, int opt_in)
{
	const occ_profile *p = occ_profile_find(profile);
	occ_input in = { .work_group = wg, .local_bytes = local, .registers = regs, .opt_in = opt_in };

	ck_assert_msg(p != NULL, "no profile %s", profile);
	return occ_compute(p, &in);
}

/* ---- profiles ---------------------------------------------------------------------------- */

START_TEST(test_profiles)
{
	static const char *names[] = { "nvidia-sm75", "nvidia-sm80", "nvidia-sm86", "nvidia-sm89",
		                       "nvidia-sm90", "amd-gfx90a", "amd-gfx942", "amd-rdna2",
		                       "amd-rdna3", "intel-xe-hpg", "intel-xe-hpc" };
	int n = (int)(sizeof names / sizeof names[0]);

	ck_assert_int_eq(occ_profile_count(), n);
	for (int i = 0; i < n; i++) {
		const occ_profile *p = occ_profile_at(i);
		ck_assert_str_eq(p->name, names[i]);
		ck_assert_ptr_eq(occ_profile_find(names[i]), p);
		ck_assert(p->label && *p->label && p->family && *p->family);
		ck_assert_int_gt(p->warp_size, 0);
		ck_assert_int_eq(p->max_wg_size, 1024);
		ck_assert_int_ge(p->local_per_cu, p->local_per_group);
	}
	ck_assert_ptr_null(occ_profile_at(-1));
	ck_assert_ptr_null(occ_profile_at(n));
	ck_assert_ptr_null(occ_profile_find("nvidia-sm70"));
	ck_assert_ptr_null(occ_profile_find(NULL));
	ck_assert_str_eq(occ_profile_default()->name, "nvidia-sm90");
	ck_assert_str_eq(occ_profile_default()->name, OCC_DEFAULT_PROFILE);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_WARPS), "warps");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_GROUPS), "groups");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_REGISTERS), "registers");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_LOCAL_MEMORY), "local_memory");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_WORK_GROUP_SIZE), "work_group_size");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_NONE), "none");
	ck_assert_str_eq(occ_limiter_name(-1), "?");
	ck_assert_str_eq(occ_limiter_name(OCC_LIMIT_COUNT), "?");
	ck_assert_str_eq(occ_status_name(OCC_OK), "ok");
	ck_assert_str_eq(occ_status_name(OCC_DOES_NOT_FIT), "does_not_fit");
	ck_assert_str_eq(occ_status_name(OCC_BAD_INPUT), "bad_input");
}
END_TEST

/* ---- NVIDIA: the 72 H200 values (12 registers, dynamic shared, opt-in enabled) ------------ */

static const int h200_threads[6] = { 32, 64, 128, 256, 512, 1024 };
static const long h200_smem[12] = { 0, 1, 1024, 4096, 8192, 16384, 24576, 32768, 49152, 65536,
	                            102400, 232448 };
static const int h200_blocks[6][12] = {
	{ 32, 32, 32, 32, 25, 13, 9, 6, 4, 3, 2, 1 },
	{ 32, 32, 32, 32, 25, 13, 9, 6, 4, 3, 2, 1 },
	{ 16, 16, 16, 16, 16, 13, 9, 6, 4, 3, 2, 1 },
	{ 8, 8, 8, 8, 8, 8, 8, 6, 4, 3, 2, 1 },
	{ 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 2, 1 },
	{ 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1 },
};

START_TEST(test_h200_vector)
{
	int row = _i / 12, col = _i % 12, t = h200_threads[row];
	occ_result r = run("nvidia-sm90", t, h200_smem[col], 12, 1);

	ck_assert_msg(r.status == OCC_OK, "T=%d S=%ld: status %s", t, h200_smem[col],
	              occ_status_name(r.status));
	ck_assert_msg(r.groups_per_cu == h200_blocks[row][col], "T=%d S=%ld: %d blocks, want %d", t,
	              h200_smem[col], r.groups_per_cu, h200_blocks[row][col]);
	ck_assert_int_eq(r.active_warps, r.groups_per_cu * ((t + 31) / 32));
	ck_assert_int_eq(r.active_threads, r.groups_per_cu * t);
	ck_assert_int_eq(r.registers_assumed, 0);
	ck_assert_double_eq_tol(r.occupancy, r.active_warps / 64.0, 1e-12);
}
END_TEST

/* Which limit binds in a few H200 cells. */
START_TEST(test_h200_limiters)
{
	occ_result r;

	r = run("nvidia-sm90", 32, 0, 12, 1); /* warps 64, groups 32 */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_GROUPS);
	ck_assert_double_eq_tol(r.occupancy, 0.5, 1e-12);
	r = run("nvidia-sm90", 1024, 0, 12, 1); /* warps 2, regs 4*32/32 = 4 */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WARPS);
	ck_assert_int_eq(r.limits[OCC_LIMIT_REGISTERS], 4);
	ck_assert_int_eq(r.limits[OCC_LIMIT_LOCAL_MEMORY], 233472 / 1024);
	r = run("nvidia-sm90", 32, 8192, 12, 1); /* 233472 / 9216 = 25 */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_LOCAL_MEMORY);
	ck_assert_int_eq(r.limits[OCC_LIMIT_LOCAL_MEMORY], 25);
	r = run("nvidia-sm90", 64, 0, 12, 1); /* warps 32 = groups 32: a tie, both in the mask */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WARPS);
	ck_assert_uint_eq(r.limit_mask, (1u << OCC_LIMIT_WARPS) | (1u << OCC_LIMIT_GROUPS));
	ck_assert_double_eq_tol(r.occupancy, 1.0, 1e-12);
}
END_TEST

/* ---- NVIDIA: the computed sm_75..sm_90 table ------------------------------------------- */

static const char *const nv_names[5] = { "nvidia-sm75", "nvidia-sm80", "nvidia-sm86",
	                                 "nvidia-sm89", "nvidia-sm90" };
static const struct {
	int threads, regs;
	long smem;
	int blocks[5];
	int pct[5]; /* occupancy, rounded percent */
} nv_cases[] = {
	{ 256, 32, 4096, { 4, 8, 6, 6, 8 }, { 100, 100, 100, 100, 100 } },
	{ 256, 64, 4096, { 4, 4, 4, 4, 4 }, { 100, 50, 67, 67, 50 } },
	{ 128, 128, 16384, { 4, 4, 4, 4, 4 }, { 50, 25, 33, 33, 25 } },
	{ 256, 40, 8448, { 4, 6, 6, 6, 6 }, { 100, 75, 100, 100, 75 } },
};

START_TEST(test_nv_table)
{
	int c = _i / 5, a = _i % 5;
	occ_result r = run(nv_names[a], nv_cases[c].threads, nv_cases[c].smem, nv_cases[c].regs, 0);

	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_msg(r.groups_per_cu == nv_cases[c].blocks[a], "%s case %d: %d blocks, want %d",
	              nv_names[a], c, r.groups_per_cu, nv_cases[c].blocks[a]);
	ck_assert_int_eq((int)(100.0 * r.occupancy + 0.5), nv_cases[c].pct[a]);
}
END_TEST

START_TEST(test_nv_limiters)
{
	occ_result r;

	r = run("nvidia-sm80", 256, 4096, 64, 0); /* warps 8, regs 4*8/8 = 4 */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
	ck_assert_int_eq(r.limits[OCC_LIMIT_WARPS], 8);
	ck_assert_int_eq(r.limits[OCC_LIMIT_REGISTERS], 4);
	r = run("nvidia-sm75", 256, 8448, 40, 0); /* warps 32/8 = 4; smem 65536/8448 = 7 */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WARPS);
	ck_assert_int_eq(r.limits[OCC_LIMIT_LOCAL_MEMORY], 7);
	r = run("nvidia-sm75", 32, 0, 0, 0); /* no reservation on sm_75: no smem limit at S = 0 */
	ck_assert_int_eq(r.limits[OCC_LIMIT_LOCAL_MEMORY], -1);
	ck_assert_int_eq(r.groups_per_cu, 16);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_GROUPS);
	r = run("nvidia-sm86", 256, 8448, 40, 0); /* warps 6 = regs 6 (4*12/8): tie */
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WARPS);
	ck_assert_uint_eq(r.limit_mask, (1u << OCC_LIMIT_WARPS) | (1u << OCC_LIMIT_REGISTERS));
}
END_TEST

/* registers = 0: only the register-free limits, flagged. */
START_TEST(test_nv_registers_unknown)
{
	occ_result r = run("nvidia-sm90", 256, 4096, 0, 0);

	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.registers_assumed, 1);
	ck_assert_int_eq(r.limits[OCC_LIMIT_REGISTERS], -1);
	ck_assert_int_eq(r.groups_per_cu, 8);
	/* with 128 registers the same kernel is register-bound: 4*(16384/4096)/8 = 2 */
	r = run("nvidia-sm90", 256, 4096, 128, 0);
	ck_assert_int_eq(r.registers_assumed, 0);
	ck_assert_int_eq(r.groups_per_cu, 2);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
}
END_TEST

/* ---- NVIDIA: does not fit ---------------------------------------------------------------- */

START_TEST(test_nv_wg_too_big)
{
	occ_result r = run("nvidia-sm90", 2048, 0, 0, 0);

	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WORK_GROUP_SIZE);
	ck_assert_int_eq(r.needed, 2048);
	ck_assert_int_eq(r.available, 1024);
	ck_assert_str_eq(r.unit, "work-items");
	ck_assert_int_eq(r.groups_per_cu, 0);
	ck_assert_double_eq(r.occupancy, 0.0);
}
END_TEST

/* Without opt-in (every OpenCL kernel) a block may use 48 KiB: 64 KiB does not fit. */
START_TEST(test_nv_default_48k)
{
	occ_result r = run("nvidia-sm90", 256, 65536, 0, 0);

	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_LOCAL_MEMORY);
	ck_assert_int_eq(r.needed, 65536);
	ck_assert_int_eq(r.available, 49152);
	ck_assert_str_eq(r.unit, "bytes");
	/* exactly 48 KiB fits: (49152 + 1024) -> 233472 / 50176 = 4 blocks */
	r = run("nvidia-sm90", 256, 49152, 0, 0);
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 4);
	r = run("nvidia-sm90", 256, 49153, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	/* with opt-in 64 KiB fits (the H200 table: 3 blocks) and 227 KiB + 1 does not */
	r = run("nvidia-sm90", 256, 65536, 0, 1);
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 3);
	r = run("nvidia-sm90", 32, 232449, 0, 1);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.available, 232448);
	/* sm_75: 48 KiB default, 64 KiB opt-in, no reservation: one 64 KiB block */
	r = run("nvidia-sm75", 256, 65536, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.available, 49152);
	r = run("nvidia-sm75", 256, 65536, 0, 1);
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 1);
}
END_TEST

START_TEST(test_nv_registers_dont_fit)
{
	/* per-thread check (header: 256 for cc >= 7) */
	occ_result r = run("nvidia-sm90", 32, 0, 257, 0);

	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
	ck_assert_int_eq(r.needed, 257);
	ck_assert_int_eq(r.available, 256);
	/* hardware check: 1024 threads * 65 regs -> 2304 per warp * 32 warps > 65536 */
	r = run("nvidia-sm90", 1024, 0, 65, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.needed, 2304 * 32);
	ck_assert_int_eq(r.available, 65536);
	ck_assert_str_eq(r.unit, "registers/group");
	/* 64 registers just fit: 2048 * 32 = 65536, one block */
	r = run("nvidia-sm90", 1024, 0, 64, 0);
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 1);
	/* the hardware check rounds warps up to 4 sub-partitions: 1 warp of 255 regs
	 * -> 8192 * 4 = 32768 fits; 4*(16384/8192)/1 = 8 blocks */
	r = run("nvidia-sm90", 32, 0, 255, 0);
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 8);
	/* 9 warps of 255 regs: 8192 * 12 > 65536 although 8192 * 9 is not */
	r = run("nvidia-sm90", 288, 0, 255, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.needed, 8192 * 12);
}
END_TEST

START_TEST(test_bad_input)
{
	occ_input in = { .work_group = 0 };

	ck_assert_int_eq(occ_compute(occ_profile_default(), &in).status, OCC_BAD_INPUT);
	in.work_group = 64;
	ck_assert_int_eq(occ_compute(NULL, &in).status, OCC_BAD_INPUT);
	ck_assert_int_eq(occ_compute(occ_profile_default(), NULL).status, OCC_BAD_INPUT);
	in.local_bytes = -1;
	ck_assert_int_eq(occ_compute(occ_profile_default(), &in).status, OCC_BAD_INPUT);
}
END_TEST

/* ---- AMD (CLR), worked by hand ----------------------------------------------------------- */

static const struct {
	const char *profile;
	int wg, regs;
	long lds;
	int groups;
	double occ;
	occ_limiter limiter;
} amd_cases[] = {
	/* gfx90a: 4 SIMDs x 8 waves = 32 wave64 slots, VGPRs (512, 8), 64 KiB */
	{ "amd-gfx90a", 256, 0, 0, 8, 1.0, OCC_LIMIT_WARPS },           /* 32/4 */
	{ "amd-gfx90a", 256, 128, 0, 4, 0.5, OCC_LIMIT_REGISTERS },     /* 512/128=4 -> 16/4 */
	{ "amd-gfx90a", 256, 0, 16384, 4, 0.5, OCC_LIMIT_LOCAL_MEMORY }, /* 65536/16384 */
	{ "amd-gfx90a", 64, 40, 0, 32, 1.0, OCC_LIMIT_WARPS },          /* 512/40=12 > 8 */
	{ "amd-gfx90a", 64, 40, 8448, 7, 7.0 / 32, OCC_LIMIT_LOCAL_MEMORY }, /* 65536/8448 */
	{ "amd-gfx90a", 100, 0, 0, 16, 1.0, OCC_LIMIT_WARPS },          /* 2 waves: 32/2 */
	{ "amd-gfx90a", 256, 96, 0, 5, 20.0 / 32, OCC_LIMIT_REGISTERS }, /* 512/96=5 -> 20/4 */
	{ "amd-gfx90a", 256, 100, 0, 4, 0.5, OCC_LIMIT_REGISTERS },     /* 100->104: 512/104=4 */
	/* gfx942 has the same constants */
	{ "amd-gfx942", 256, 128, 0, 4, 0.5, OCC_LIMIT_REGISTERS },
	{ "amd-gfx942", 1024, 0, 32768, 2, 1.0, OCC_LIMIT_WARPS },      /* 32/16 = 2 = 65536/32768 */
	/* RDNA2 gfx1030, WGP mode: 4 SIMDs x 16 = 64 wave32 slots, VGPRs (1024, 16) */
	{ "amd-rdna2", 256, 0, 0, 8, 1.0, OCC_LIMIT_WARPS },            /* 64/8 */
	{ "amd-rdna2", 256, 100, 0, 4, 0.5, OCC_LIMIT_REGISTERS },      /* 1024/112=9 -> 36/8 */
	{ "amd-rdna2", 256, 0, 8448, 7, 56.0 / 64, OCC_LIMIT_LOCAL_MEMORY },
	/* RDNA3 gfx1100: VGPRs (1536, 24) */
	{ "amd-rdna3", 256, 100, 0, 6, 0.75, OCC_LIMIT_REGISTERS },     /* 1536/120=12 -> 48/8 */
	{ "amd-rdna3", 128, 64, 0, 16, 1.0, OCC_LIMIT_WARPS },          /* 1536/72=21 > 16 */
};

START_TEST(test_amd_case)
{
	occ_result r = run(amd_cases[_i].profile, amd_cases[_i].wg, amd_cases[_i].lds,
	                   amd_cases[_i].regs, 0);

	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_msg(r.groups_per_cu == amd_cases[_i].groups, "case %d: %d groups, want %d", _i,
	              r.groups_per_cu, amd_cases[_i].groups);
	ck_assert_double_eq_tol(r.occupancy, amd_cases[_i].occ, 1e-12);
	ck_assert_str_eq(occ_limiter_name(r.limiter), occ_limiter_name(amd_cases[_i].limiter));
	ck_assert_int_eq(r.registers_assumed, amd_cases[_i].regs == 0);
	ck_assert_int_eq(r.limits[OCC_LIMIT_GROUPS], -1); /* CLR has no groups-per-CU limit */
}
END_TEST

START_TEST(test_amd_dont_fit)
{
	occ_result r = run("amd-gfx90a", 1024, 0, 256, 0); /* 2 waves/SIMD -> 8 < 16 waves */

	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_REGISTERS);
	ck_assert_int_eq(r.needed, 16);
	ck_assert_int_eq(r.available, 8);
	ck_assert_str_eq(r.unit, "waves");
	r = run("amd-gfx942", 64, 65537, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_LOCAL_MEMORY);
	ck_assert_int_eq(r.available, 65536);
	r = run("amd-rdna3", 64, 65536, 0, 0); /* exactly 64 KiB: one group of 2 waves */
	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_int_eq(r.groups_per_cu, 1);
	ck_assert_double_eq_tol(r.occupancy, 2.0 / 64, 1e-12);
	r = run("amd-rdna2", 1025, 0, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WORK_GROUP_SIZE);
}
END_TEST

/* ---- Intel calculator, worked by hand (default sub-group 16) ----------------------------- */

static const struct {
	const char *profile;
	int wg, sg;
	long slm;
	int groups;
	double occ;
	occ_limiter limiter;
} intel_cases[] = {
	/* Xe-HPG: 128 threads/Xe-core, 128 KiB SLM, 64 KiB per WG, 128 WGs / barriers */
	{ "intel-xe-hpg", 256, 0, 0, 8, 1.0, OCC_LIMIT_WARPS },              /* 16 thr: 128/16 */
	{ "intel-xe-hpg", 256, 0, 4096, 8, 1.0, OCC_LIMIT_WARPS },           /* SLM 128/4 = 32 */
	{ "intel-xe-hpg", 256, 0, 24576, 4, 0.5, OCC_LIMIT_LOCAL_MEMORY },   /* 24->32 KiB: 4 */
	{ "intel-xe-hpg", 16, 0, 0, 128, 1.0, OCC_LIMIT_WARPS },             /* 1 thr; = 128 WGs */
	{ "intel-xe-hpg", 256, 0, 1, 8, 1.0, OCC_LIMIT_WARPS },              /* 1 B -> 1 KiB: 128 */
	{ "intel-xe-hpg", 64, 0, 4000, 32, 1.0, OCC_LIMIT_WARPS },           /* 4 thr: 32; 4 KiB: 32 */
	{ "intel-xe-hpg", 64, 0, 4097, 16, 0.5, OCC_LIMIT_LOCAL_MEMORY },    /* -> 8 KiB: 16 */
	{ "intel-xe-hpg", 256, 32, 0, 16, 1.0, OCC_LIMIT_WARPS },            /* SG 32: 8 thr: 16 */
	{ "intel-xe-hpg", 8, 8, 0, 128, 1.0, OCC_LIMIT_WARPS },              /* SG 8: 1 thr */
	{ "intel-xe-hpg", 24, 16, 0, 64, 1.0, OCC_LIMIT_WARPS },             /* ceil(24/16) = 2 */
	/* Xe-HPC: 64 threads/Xe-core, 128 KiB SLM and per WG, sizes with 24/48/96, 64 WGs */
	{ "intel-xe-hpc", 256, 0, 24576, 4, 1.0, OCC_LIMIT_WARPS },          /* 16 thr: 4; SLM 5 */
	{ "intel-xe-hpc", 64, 0, 24576, 5, 20.0 / 64, OCC_LIMIT_LOCAL_MEMORY }, /* 128/24 = 5 */
	{ "intel-xe-hpc", 64, 0, 40000, 2, 8.0 / 64, OCC_LIMIT_LOCAL_MEMORY }, /* ->48: 2 */
	{ "intel-xe-hpc", 1024, 0, 131072, 1, 1.0, OCC_LIMIT_WARPS },        /* 64 thr; 1 = 1 */
	{ "intel-xe-hpc", 32, 0, 0, 32, 1.0, OCC_LIMIT_WARPS },              /* 2 thr: 32 */
	{ "intel-xe-hpc", 32, 32, 0, 64, 1.0, OCC_LIMIT_WARPS },             /* 1 thr: 64 = 64 WGs */
	{ "intel-xe-hpc", 16, 32, 0, 64, 1.0, OCC_LIMIT_WARPS },             /* 1 thr: 64 */
};

START_TEST(test_intel_case)
{
	const occ_profile *p = occ_profile_find(intel_cases[_i].profile);
	occ_input in = { .work_group = intel_cases[_i].wg, .local_bytes = intel_cases[_i].slm,
		         .sub_group = intel_cases[_i].sg, .registers = 32 };
	occ_result r = occ_compute(p, &in);

	ck_assert_int_eq(r.status, OCC_OK);
	ck_assert_msg(r.groups_per_cu == intel_cases[_i].groups, "case %d: %d groups, want %d", _i,
	              r.groups_per_cu, intel_cases[_i].groups);
	ck_assert_double_eq_tol(r.occupancy, intel_cases[_i].occ, 1e-12);
	ck_assert_str_eq(occ_limiter_name(r.limiter), occ_limiter_name(intel_cases[_i].limiter));
	ck_assert_int_eq(r.registers_assumed, 1); /* no register term in Intel's calculator */
	ck_assert_int_eq(r.limits[OCC_LIMIT_REGISTERS], -1);
}
END_TEST

START_TEST(test_intel_dont_fit)
{
	const occ_profile *hpc = occ_profile_find("intel-xe-hpc");
	occ_input in = { .work_group = 64, .sub_group = 8 };
	occ_result r;

	r = run("intel-xe-hpg", 256, 65537, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_LOCAL_MEMORY);
	ck_assert_int_eq(r.available, 65536);
	r = run("intel-xe-hpc", 256, 131073, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.available, 131072);
	r = run("intel-xe-hpg", 2048, 0, 0, 0);
	ck_assert_int_eq(r.status, OCC_DOES_NOT_FIT);
	ck_assert_int_eq(r.limiter, OCC_LIMIT_WORK_GROUP_SIZE);
	/* PVC has no SIMD8 */
	ck_assert_int_eq(occ_compute(hpc, &in).status, OCC_BAD_INPUT);
}
END_TEST

/* ---- the command ------------------------------------------------------------------------- */

/* Run occ_main on "occupancy" plus the NULL-terminated arguments, stdout and stderr captured
 * into out (NUL-terminated). */
static int cmd(char *out, size_t outsz, ...)
{
	char *argv[32] = { "occupancy" };
	int argc = 1, so, se, rc;
	FILE *tmp = tmpfile();
	va_list ap;
	size_t n;

	va_start(ap, outsz);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	so = dup(1);
	se = dup(2);
	ck_assert(tmp && so >= 0 && se >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	rc = occ_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	rewind(tmp);
	n = fread(out, 1, outsz - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

#define CMD(buf, ...) cmd(buf, sizeof buf, __VA_ARGS__, (char *)NULL)

START_TEST(test_cmd_table)
{
	static char out[8192];

	ck_assert_int_eq(CMD(out, "--profile", "nvidia-sm90", "--work-group", "256",
	                     "--local-bytes", "4096"), 0);
	ck_assert_ptr_nonnull(strstr(out, "nvidia-sm90"));
	ck_assert_ptr_nonnull(strstr(out, "100.0%"));
	ck_assert_ptr_null(strstr(out, "amd-gfx90a"));
	ck_assert_int_eq(CMD(out, "--work-group", "2048"), 0); /* all profiles, none fits */
	for (int i = 0; i < occ_profile_count(); i++)
		ck_assert_ptr_nonnull(strstr(out, occ_profile_at(i)->name));
	ck_assert_ptr_nonnull(strstr(out, "does not fit"));
	ck_assert_int_eq(CMD(out, "--list"), 0);
	ck_assert_ptr_nonnull(strstr(out, "intel-xe-hpc"));
}
END_TEST

START_TEST(test_cmd_usage)
{
	static char out[8192];

	ck_assert_int_eq(CMD(out, "--profile", "nvidia-sm70", "--work-group", "64"), 2);
	ck_assert_ptr_nonnull(strstr(out, "nvidia-sm90")); /* lists the valid names */
	ck_assert_ptr_nonnull(strstr(out, "intel-xe-hpg"));
	ck_assert_int_eq(CMD(out, "--local-bytes", "10"), 2);           /* no --work-group */
	ck_assert_int_eq(CMD(out, "--work-group", "12x"), 2);
	ck_assert_int_eq(CMD(out, "--work-group", "-5"), 2);
	ck_assert_int_eq(CMD(out, "--work-group", "0"), 2);
	ck_assert_int_eq(CMD(out, "--bogus"), 2);
	ck_assert_int_eq(CMD(out, "--work-group", "64", "stray"), 2);
	ck_assert_int_eq(CMD(out, "--profile", "intel-xe-hpc", "--work-group", "64",
	                     "--sub-group", "8"), 2);
	ck_assert_int_eq(CMD(out, "--help"), 0);
}
END_TEST

START_TEST(test_cmd_json)
{
	static char out[65536];
	cJSON *arr, *o;

	ck_assert_int_eq(CMD(out, "--profile", "all", "--work-group", "256", "--local-bytes",
	                     "65536", "--json"), 0);
	arr = cJSON_Parse(out);
	ck_assert_ptr_nonnull(arr);
	ck_assert(cJSON_IsArray(arr));
	ck_assert_int_eq(cJSON_GetArraySize(arr), occ_profile_count());
	o = cJSON_GetArrayItem(arr, 4); /* nvidia-sm90: 64 KiB > 48 KiB without opt-in */
	ck_assert_str_eq(cJSON_GetObjectItem(o, "profile")->valuestring, "nvidia-sm90");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "status")->valuestring, "does_not_fit");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "limiter")->valuestring, "local_memory");
	ck_assert_int_eq(cJSON_GetObjectItem(o, "needed")->valueint, 65536);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "available")->valueint, 49152);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "registers_assumed")));
	o = cJSON_GetArrayItem(arr, 5); /* amd-gfx90a: 64 KiB fits once, 4 waves of 32 */
	ck_assert_str_eq(cJSON_GetObjectItem(o, "profile")->valuestring, "amd-gfx90a");
	ck_assert_int_eq(cJSON_GetObjectItem(o, "groups_per_cu")->valueint, 1);
	ck_assert_double_eq_tol(cJSON_GetObjectItem(o, "occupancy")->valuedouble, 0.125, 1e-12);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "active_threads")->valueint, 256);
	cJSON_Delete(arr);

	ck_assert_int_eq(CMD(out, "--profile", "nvidia-sm90", "--work-group", "128",
	                     "--local-bytes", "16384", "--registers", "12", "--opt-in", "--json"), 0);
	arr = cJSON_Parse(out);
	ck_assert_int_eq(cJSON_GetArraySize(arr), 1);
	o = cJSON_GetArrayItem(arr, 0);
	ck_assert_int_eq(cJSON_GetObjectItem(o, "groups_per_cu")->valueint, 13);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "registers_assumed")));
	ck_assert_str_eq(cJSON_GetObjectItem(o, "limiter")->valuestring, "local_memory");
	cJSON_Delete(arr);
}
END_TEST

static Suite *occ_suite(void)
{
	Suite *s = suite_create("occ");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_profiles);
	tcase_add_test(tc, test_names);
	tcase_add_loop_test(tc, test_h200_vector, 0, 6 * 12);
	tcase_add_test(tc, test_h200_limiters);
	tcase_add_loop_test(tc, test_nv_table, 0, (int)(sizeof nv_cases / sizeof nv_cases[0]) * 5);
	tcase_add_test(tc, test_nv_limiters);
	tcase_add_test(tc, test_nv_registers_unknown);
	tcase_add_test(tc, test_nv_wg_too_big);
	tcase_add_test(tc, test_nv_default_48k);
	tcase_add_test(tc, test_nv_registers_dont_fit);
	tcase_add_test(tc, test_bad_input);
	tcase_add_loop_test(tc, test_amd_case, 0, (int)(sizeof amd_cases / sizeof amd_cases[0]));
	tcase_add_test(tc, test_amd_dont_fit);
	tcase_add_loop_test(tc, test_intel_case, 0,
	                    (int)(sizeof intel_cases / sizeof intel_cases[0]));
	tcase_add_test(tc, test_intel_dont_fit);
	tcase_add_test(tc, test_cmd_table);
	tcase_add_test(tc, test_cmd_usage);
	tcase_add_test(tc, test_cmd_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(occ_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
