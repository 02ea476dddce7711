/* occ.c — the occupancy calculators of GUIDE.md appendix A.4, one short function per vendor.
 *
 * Why a copy of vendor calculators: the grader has no GPU, and students should see the same
 * number cudaOccupancyMaxActiveBlocksPerMultiprocessor, hipOccupancyMaxActiveBlocksPer-
 * Multiprocessor or Intel's calculator would give.  Each vendor function fills limits[] (groups
 * per CU allowed by each resource) after the "cannot launch at all" checks; finish() takes the
 * minimum and derives warps, threads and occupancy. */
#include <stddef.h>
#include <string.h>

#include "occ.h"

#define KIB 1024L

/* The profiles.  Numbers from the vendor sources listed in GUIDE.md, appendix A.4. */
static const occ_profile profiles[] = {
	/* NVIDIA: cuda_occupancy.h logic; max threads/SM = max_warps_per_cu * 32 =
	 * 1024 / 2048 / 1536 / 1536 / 2048.  max_regs_per_thread is the header's check (256 for
	 * cc >= 7); the compiler caps a kernel at 255, the doc's "max registers / thread".
	 * .nv = { regs/SM, regs/block, reg unit/warp, sub-partitions, max regs/thread,
	 *         reserved smem/block, smem unit, carveouts (KiB), number of carveouts } */
	{ .name = "nvidia-sm75", .label = "NVIDIA Turing sm_75 (RTX 20xx, T4)",
	  .vendor = OCC_NVIDIA, .family = "nvidia", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 64 * KIB, .local_per_group = 48 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 32, .max_groups_per_cu = 16, .assumed_registers = 32,
	  .nv = { 65536, 65536, 256, 4, 256, 0, 256, { 32, 64 }, 2 } },
	{ .name = "nvidia-sm80", .label = "NVIDIA Ampere sm_80 (A100)",
	  .vendor = OCC_NVIDIA, .family = "nvidia", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 164 * KIB, .local_per_group = 48 * KIB, .local_per_group_optin = 163 * KIB,
	  .max_warps_per_cu = 64, .max_groups_per_cu = 32, .assumed_registers = 32,
	  .nv = { 65536, 65536, 256, 4, 256, 1024, 128, { 0, 8, 16, 32, 64, 100, 132, 164 }, 8 } },
	{ .name = "nvidia-sm86", .label = "NVIDIA Ampere sm_86 (RTX 30xx, A40)",
	  .vendor = OCC_NVIDIA, .family = "nvidia", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 100 * KIB, .local_per_group = 48 * KIB, .local_per_group_optin = 99 * KIB,
	  .max_warps_per_cu = 48, .max_groups_per_cu = 16, .assumed_registers = 32,
	  .nv = { 65536, 65536, 256, 4, 256, 1024, 128, { 0, 8, 16, 32, 64, 100 }, 6 } },
	{ .name = "nvidia-sm89", .label = "NVIDIA Ada sm_89 (RTX 40xx, L4, L40)",
	  .vendor = OCC_NVIDIA, .family = "nvidia", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 100 * KIB, .local_per_group = 48 * KIB, .local_per_group_optin = 99 * KIB,
	  .max_warps_per_cu = 48, .max_groups_per_cu = 24, .assumed_registers = 32,
	  .nv = { 65536, 65536, 256, 4, 256, 1024, 128, { 0, 8, 16, 32, 64, 100 }, 6 } },
	{ .name = "nvidia-sm90", .label = "NVIDIA Hopper sm_90 (H100, H200)",
	  .vendor = OCC_NVIDIA, .family = "nvidia", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 228 * KIB, .local_per_group = 48 * KIB, .local_per_group_optin = 227 * KIB,
	  .max_warps_per_cu = 64, .max_groups_per_cu = 32, .assumed_registers = 32,
	  .nv = { 65536, 65536, 256, 4, 256, 1024, 128,
	          { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 }, 10 } },

	/* AMD: CLR's calculator, which has no groups-per-CU limit and divides a flat 64 KiB of LDS
	 * (also on RDNA, whose WGP really has 128 KiB).  RDNA: wave32 and WGP mode (4 SIMDs), the
	 * CLR defaults (GPU_ENABLE_WAVE32_MODE, GPU_ENABLE_WGP_MODE = true); a "CU" is then a WGP.
	 * SGPRs are not known to the grader; the gfx9 SGPR limit (800 per SIMD) is left out. */
	{ .name = "amd-gfx90a", .label = "AMD CDNA2 gfx90a (MI210, MI250X)",
	  .vendor = OCC_AMD, .family = "amd-cdna", .warp_size = 64, .max_wg_size = 1024,
	  .local_per_cu = 64 * KIB, .local_per_group = 64 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 4 * 8, .max_groups_per_cu = 0,
	  .amd = { 4, 8, 512, 8 } },
	{ .name = "amd-gfx942", .label = "AMD CDNA3 gfx942 (MI300X, MI300A, MI325X)",
	  .vendor = OCC_AMD, .family = "amd-cdna", .warp_size = 64, .max_wg_size = 1024,
	  .local_per_cu = 64 * KIB, .local_per_group = 64 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 4 * 8, .max_groups_per_cu = 0,
	  .amd = { 4, 8, 512, 8 } },
	{ .name = "amd-rdna2", .label = "AMD RDNA2 gfx1030 (RX 6900 XT, PRO W6800), WGP mode",
	  .vendor = OCC_AMD, .family = "amd-rdna", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 64 * KIB, .local_per_group = 64 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 4 * 16, .max_groups_per_cu = 0,
	  .amd = { 4, 16, 1024, 16 } },
	/* gfx1100/1101/1151 have (1536, 24); gfx1102/1103 (RX 7600) would be (1024, 16). */
	{ .name = "amd-rdna3", .label = "AMD RDNA3 gfx1100 (RX 7900 XTX, PRO W7900), WGP mode",
	  .vendor = OCC_AMD, .family = "amd-rdna", .warp_size = 32, .max_wg_size = 1024,
	  .local_per_cu = 64 * KIB, .local_per_group = 64 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 4 * 16, .max_groups_per_cu = 0,
	  .amd = { 4, 16, 1536, 24 } },

	/* .amd = { SIMDs/CU, max waves/SIMD, VGPRs/SIMD, VGPR granule } */
	/* Intel: max_warps_per_cu is hardware threads per Xe-core (small-GRF mode).  The default
	 * sub-group is 16 (the compiler picks it; the calculator's UI preselects 32, see
	 * occ_input.sub_group).  Barrier registers as in the doc's pinned revision (HPG 128,
	 * HPC 64; older revisions say 32).
	 * .intel = { barrier regs, TG_SLM_Sizes (KiB), n, sub-group sizes, n } */
	{ .name = "intel-xe-hpg", .label = "Intel Xe-HPG (Arc A-series, Flex, DG2)",
	  .vendor = OCC_INTEL, .family = "intel", .warp_size = 16, .max_wg_size = 1024,
	  .local_per_cu = 128 * KIB, .local_per_group = 64 * KIB, .local_per_group_optin = 64 * KIB,
	  .max_warps_per_cu = 128, .max_groups_per_cu = 128,
	  .intel = { 128, { 0, 1, 2, 4, 8, 16, 32, 64 }, 8, { 32, 16, 8 }, 3 } },
	{ .name = "intel-xe-hpc", .label = "Intel Xe-HPC (Data Center GPU Max 1550, PVC)",
	  .vendor = OCC_INTEL, .family = "intel", .warp_size = 16, .max_wg_size = 1024,
	  .local_per_cu = 128 * KIB, .local_per_group = 128 * KIB, .local_per_group_optin = 128 * KIB,
	  .max_warps_per_cu = 64, .max_groups_per_cu = 64,
	  .intel = { 64, { 0, 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128 }, 12, { 32, 16 }, 2 } },
};

enum { NPROFILES = (int)(sizeof profiles / sizeof profiles[0]) };

static const char *const limiter_names[OCC_LIMIT_COUNT] = {
	"none", "warps", "groups", "registers", "local_memory", "work_group_size",
};

int occ_profile_count(void)
{
	return NPROFILES;
}

const occ_profile *occ_profile_at(int i)
{
	return i >= 0 && i < NPROFILES ? &profiles[i] : NULL;
}

const occ_profile *occ_profile_find(const char *name)
{
	for (int i = 0; name && i < NPROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const occ_profile *occ_profile_default(void)
{
	return occ_profile_find(OCC_DEFAULT_PROFILE);
}

const char *occ_limiter_name(int limiter)
{
	return limiter >= 0 && limiter < OCC_LIMIT_COUNT ? limiter_names[limiter] : "?";
}

const char *occ_status_name(int status)
{
	switch (status) {
	case OCC_OK: return "ok";
	case OCC_DOES_NOT_FIT: return "does_not_fit";
	case OCC_BAD_INPUT: return "bad_input";
	}
	return "?";
}

static long div_up(long a, long b)
{
	return (a + b - 1) / b;
}

static long round_up(long a, long b)
{
	return div_up(a, b) * b;
}

/* The group cannot launch: record which limit it breaks and by how much. */
static void no_fit(occ_result *r, occ_limiter l, long needed, long available, const char *unit)
{
	r->status = OCC_DOES_NOT_FIT;
	r->limiter = l;
	r->needed = needed;
	r->available = available;
	r->unit = unit;
}

/* groups = min over the applied limits; ties go to the lowest limiter (enum order). */
static void finish(occ_result *r, const occ_profile *p, long warps_per_group, long work_group)
{
	int best = OCC_LIMIT_WARPS;

	for (int l = OCC_LIMIT_WARPS + 1; l <= OCC_LIMIT_LOCAL_MEMORY; l++)
		if (r->limits[l] >= 0 && r->limits[l] < r->limits[best])
			best = l;
	for (int l = OCC_LIMIT_WARPS; l <= OCC_LIMIT_LOCAL_MEMORY; l++)
		if (r->limits[l] == r->limits[best])
			r->limit_mask |= 1u << l;
	r->limiter = best;
	r->groups_per_cu = r->limits[best];
	r->active_warps = (int)(r->groups_per_cu * warps_per_group);
	r->max_warps = p->max_warps_per_cu;
	r->active_threads = (int)(r->groups_per_cu * work_group);
	r->occupancy = (double)r->active_warps / r->max_warps;
}

/* NVIDIA registers: the header's two "0 blocks" checks.  Returns 1 when the block fits. */
static int nv_regs_fit(const occ_profile *p, long regs, long warps, occ_result *r)
{
	long per_warp = round_up(regs * p->warp_size, p->nv.reg_unit);
	long assumed = per_warp * round_up(warps, p->nv.reg_partitions); /* hardware check */

	if (regs > p->nv.max_regs_per_thread) {
		no_fit(r, OCC_LIMIT_REGISTERS, regs, p->nv.max_regs_per_thread, "registers/work-item");
		return 0;
	}
	if (assumed > p->nv.regs_per_group) {
		no_fit(r, OCC_LIMIT_REGISTERS, assumed, p->nv.regs_per_group, "registers/group");
		return 0;
	}
	return 1;
}

/* Blocks per SM allowed by registers: allocated per warp, per sub-partition. */
static int nv_regs_limit(const occ_profile *p, long regs, long warps)
{
	long per_warp = round_up(regs * p->warp_size, p->nv.reg_unit);
	long per_partition = p->nv.regs_per_cu / p->nv.reg_partitions;

	if (regs == 0)
		return -1;
	return (int)(p->nv.reg_partitions * (per_partition / per_warp) / warps);
}

/* Blocks per SM allowed by shared memory.  The reservation is added even when S = 0.  The
 * carveout preference is the default (the maximum, local_per_cu); the header raises a smaller
 * preference to the smallest carveout >= one block, which therefore never happens here. */
static int nv_smem_limit(const occ_profile *p, long bytes)
{
	long per_block = round_up(bytes + p->nv.smem_reserved, p->nv.smem_unit);

	if (per_block == 0)
		return -1;
	return (int)(p->local_per_cu / per_block);
}

static void nv_compute(const occ_profile *p, const occ_input *in, occ_result *r)
{
	long warps = div_up(in->work_group, p->warp_size);
	long smem_max = in->opt_in ? p->local_per_group_optin : p->local_per_group;

	/* The header's test is roundUp(S + reserved, unit) > max + reserved; every max + reserved
	 * is a multiple of the unit, so it is the same as S > max. */
	if (in->local_bytes > smem_max) {
		no_fit(r, OCC_LIMIT_LOCAL_MEMORY, in->local_bytes, smem_max, "bytes");
		return;
	}
	if (in->registers > 0 && !nv_regs_fit(p, in->registers, warps, r))
		return;
	/* sm_90 also caps blocks at 2 * max_groups / barriers = 64 for one barrier: never binds. */
	r->limits[OCC_LIMIT_WARPS] = (int)(p->max_warps_per_cu / warps);
	r->limits[OCC_LIMIT_GROUPS] = p->max_groups_per_cu;
	r->limits[OCC_LIMIT_REGISTERS] = nv_regs_limit(p, in->registers, warps);
	r->limits[OCC_LIMIT_LOCAL_MEMORY] = nv_smem_limit(p, in->local_bytes);
	finish(r, p, warps, in->work_group);
}

/* AMD (CLR): waves per CU = SIMDs * min(max waves per SIMD, VGPR waves); LDS unrounded. */
static void amd_compute(const occ_profile *p, const occ_input *in, occ_result *r)
{
	long waves = div_up(in->work_group, p->warp_size);
	int simds = p->amd.simds_per_cu;

	if (in->local_bytes > p->local_per_group) {
		no_fit(r, OCC_LIMIT_LOCAL_MEMORY, in->local_bytes, p->local_per_group, "bytes");
		return;
	}
	r->limits[OCC_LIMIT_WARPS] = (int)(simds * p->amd.max_waves_per_simd / waves);
	if (in->registers > 0) {
		long vgpr_waves = p->amd.vgprs_per_simd / round_up(in->registers, p->amd.vgpr_granule);
		r->limits[OCC_LIMIT_REGISTERS] = (int)(simds * vgpr_waves / waves);
		if (r->limits[OCC_LIMIT_REGISTERS] == 0) {
			no_fit(r, OCC_LIMIT_REGISTERS, waves, simds * vgpr_waves, "waves");
			return;
		}
	}
	if (in->local_bytes > 0)
		r->limits[OCC_LIMIT_LOCAL_MEMORY] = (int)(p->local_per_cu / in->local_bytes);
	finish(r, p, waves, in->work_group);
}

/* Intel: SLM is allocated in TG_SLM_Sizes steps; bytes of the smallest step >= bytes. */
static long intel_slm_round(const occ_profile *p, long bytes)
{
	for (int i = 0; i < p->intel.nslm; i++)
		if (p->intel.slm_kib[i] * KIB >= bytes)
			return p->intel.slm_kib[i] * KIB;
	return -1; /* unreachable: bytes <= local_per_group, the last step */
}

static int intel_sub_group(const occ_profile *p, int asked)
{
	if (asked == 0)
		return p->warp_size;
	for (int i = 0; i < p->intel.nsub_groups; i++)
		if (p->intel.sub_groups[i] == asked)
			return asked;
	return 0;
}

/* Intel calculator, compute_ss_occupancy.  The kernel is assumed to use barriers (every
 * __local kernel does), so the group limit is the barrier-register count; for both profiles
 * it equals Max_Num_Of_Workgroups anyway.  The launch is assumed large (no totalWGs cap). */
static void intel_compute(const occ_profile *p, const occ_input *in, occ_result *r)
{
	int sg = intel_sub_group(p, in->sub_group);
	long threads;

	if (sg == 0) {
		r->status = OCC_BAD_INPUT;
		return;
	}
	if (in->local_bytes > p->local_per_group) {
		no_fit(r, OCC_LIMIT_LOCAL_MEMORY, in->local_bytes, p->local_per_group, "bytes");
		return;
	}
	threads = div_up(in->work_group, sg);
	r->limits[OCC_LIMIT_WARPS] = (int)(p->max_warps_per_cu / threads);
	r->limits[OCC_LIMIT_GROUPS] = p->intel.barrier_regs;
	if (in->local_bytes > 0)
		r->limits[OCC_LIMIT_LOCAL_MEMORY] =
			(int)(p->local_per_cu / intel_slm_round(p, in->local_bytes));
	finish(r, p, threads, in->work_group);
}

occ_result occ_compute(const occ_profile *p, const occ_input *in)
{
	occ_result r;

	memset(&r, 0, sizeof r);
	for (int l = 0; l < OCC_LIMIT_COUNT; l++)
		r.limits[l] = -1;
	if (!p || !in || in->work_group < 1 || in->local_bytes < 0 || in->registers < 0) {
		r.status = OCC_BAD_INPUT;
		return r;
	}
	r.registers_assumed = in->registers == 0 || p->vendor == OCC_INTEL;
	if (in->work_group > p->max_wg_size) {
		no_fit(&r, OCC_LIMIT_WORK_GROUP_SIZE, in->work_group, p->max_wg_size, "work-items");
		return r;
	}
	switch (p->vendor) {
	case OCC_NVIDIA: nv_compute(p, in, &r); break;
	case OCC_AMD: amd_compute(p, in, &r); break;
	case OCC_INTEL: intel_compute(p, in, &r); break;
	}
	return r;
}
