/* occ.h — theoretical occupancy: how many work-groups of a kernel fit on one compute unit.
 *
 * The grader runs students' kernels on a CPU, yet the course wants them to see what their
 * work-group size, __local bytes and registers would cost on real GPUs.  Occupancy is pure
 * arithmetic over published vendor calculators, so this module re-implements them exactly as
 * GUIDE.md, appendix A.4 writes them down:
 *   NVIDIA  cuda_occupancy.h (CUDA 12.6)                        checked against 72 H200 values
 *   AMD     HIP's CLR calculator (ihipOccupancyMaxActive...)    CLR's own constants
 *   Intel   Intel GPU Occupancy Calculator (oneAPI-samples)
 * Nothing here allocates; the profiles are one static table in occ.c. */
#ifndef OCC_H
#define OCC_H

/* The profile the report uses when it shows a single NVIDIA number. */
#define OCC_DEFAULT_PROFILE "nvidia-sm90"

typedef enum occ_vendor { OCC_NVIDIA, OCC_AMD, OCC_INTEL } occ_vendor;

/* What bounds the number of resident work-groups (or, for OCC_DOES_NOT_FIT, the limit the group
 * exceeds).  When several limits give the same count, the first in this order is reported. */
typedef enum occ_limiter {
	OCC_LIMIT_NONE,            /* "none": bad input */
	OCC_LIMIT_WARPS,           /* "warps": warp / wave / hardware-thread slots of a CU */
	OCC_LIMIT_GROUPS,          /* "groups": resident work-group slots of a CU */
	OCC_LIMIT_REGISTERS,       /* "registers" */
	OCC_LIMIT_LOCAL_MEMORY,    /* "local_memory" */
	OCC_LIMIT_WORK_GROUP_SIZE, /* "work_group_size": only ever a does-not-fit reason */
	OCC_LIMIT_COUNT
} occ_limiter;

typedef enum occ_status {
	OCC_OK,           /* at least one group fits; the numbers below are valid */
	OCC_DOES_NOT_FIT, /* the kernel cannot launch: see limiter, needed, available, unit */
	OCC_BAD_INPUT     /* NULL profile, work_group < 1, negative sizes, unsupported sub-group */
} occ_status;

/* One device model.  Sizes in bytes; "CU" = NVIDIA SM, AMD CU (a WGP in RDNA WGP mode),
 * Intel Xe-core. */
typedef struct occ_profile {
	const char *name;           /* "nvidia-sm90": what --profile takes */
	const char *label;          /* human name: "NVIDIA Hopper sm_90 (H100, H200)" */
	occ_vendor vendor;
	const char *family;         /* "nvidia", "amd-cdna", "amd-rdna", "intel" */
	int warp_size;              /* warp / wavefront; Intel: default sub-group size */
	int max_wg_size;            /* work-items per work-group */
	long local_per_cu;          /* local memory the calculator shares among a CU's groups */
	long local_per_group;       /* per-group maximum without opt-in (NVIDIA: 48 KiB) */
	long local_per_group_optin; /* NVIDIA opt-in maximum; elsewhere = local_per_group */
	int max_warps_per_cu;       /* warp/wave/HW-thread slots: the occupancy denominator */
	int max_groups_per_cu;      /* resident groups per CU; 0 = the calculator has no such limit */
	int assumed_registers;      /* registers per work-item to assume when the device's compiler
	                               does not say (lesson 4, GUIDE.md appendix A.4); 0 = none:
	                               occ_compute itself never uses it */
	struct {                    /* NVIDIA, cuda_occupancy.h */
		int regs_per_cu;         /* 65536 */
		int regs_per_group;      /* 65536 */
		int reg_unit;            /* register allocation unit per warp: 256 */
		int reg_partitions;      /* SM sub-partitions (warp allocation granularity): 4 */
		int max_regs_per_thread; /* the header's per-thread check (256 for cc >= 7) */
		int smem_reserved;       /* driver-reserved shared bytes per block */
		int smem_unit;           /* shared-memory allocation granularity */
		int carveout_kib[10];    /* supported shared-memory carveouts, ascending */
		int ncarveout;
	} nv;
	struct {                    /* AMD, CLR */
		int simds_per_cu;        /* 4 (gfx9; RDNA in WGP mode) */
		int max_waves_per_simd;  /* 8 gfx9, 16 gfx10+ */
		int vgprs_per_simd;      /* per lane, in units of the wave size */
		int vgpr_granule;
	} amd;
	struct {                    /* Intel GPU Occupancy Calculator */
		int barrier_regs;        /* Max_Num_Of_Barrier_Registers */
		int slm_kib[12];         /* TG_SLM_Sizes, ascending */
		int nslm;
		int sub_groups[3];       /* supported sub-group sizes */
		int nsub_groups;
	} intel;
} occ_profile;

/* What the kernel asks for.  Zero-initialise, then fill in; zero means "default/unknown". */
typedef struct occ_input {
	int work_group;    /* work-items per work-group (product of the local size) */
	long local_bytes;  /* __local bytes per work-group, static + dynamic */
	int registers;     /* registers (NVIDIA) / VGPRs (AMD) per work-item; 0 = unknown, the
	                      register limit is then left out and result.registers_assumed set */
	int opt_in;        /* NVIDIA: kernel opted in above 48 KiB per block (CUDA only; an
	                      OpenCL kernel cannot, so leave 0) */
	int sub_group;     /* Intel: sub-group size; 0 = profile default; ignored elsewhere */
} occ_input;

/* What one profile can hold of that kernel, per CU. */
typedef struct occ_result {
	occ_status status;
	int groups_per_cu;      /* resident work-groups per CU (0 unless OCC_OK) */
	int active_warps;       /* resident warps / waves / HW threads */
	int max_warps;          /* the profile's slots (denominator of occupancy) */
	int active_threads;     /* resident work-items = groups_per_cu * work_group */
	double occupancy;       /* active_warps / max_warps, 0..1 */
	occ_limiter limiter;    /* binding limit; OCC_DOES_NOT_FIT: the limit exceeded */
	unsigned limit_mask;    /* OCC_OK: bit (1u << l) for every limit l that binds (ties) */
	int limits[OCC_LIMIT_COUNT]; /* groups per CU each limit allows; -1 = not applied */
	int registers_assumed;  /* 1 when registers did not enter the result: unknown (0), or
	                           the vendor model has none (Intel: small-GRF mode assumed) */
	long needed;            /* OCC_DOES_NOT_FIT: what one group needs ... */
	long available;         /* ... and what the device allows, both in ... */
	const char *unit;       /* ... this unit: "work-items", "bytes", "registers/work-item",
	                           "registers/group", "waves"; NULL otherwise */
} occ_result;

/* The profiles in a fixed order: NVIDIA sm_75..sm_90, AMD, Intel.  occ_profile_at returns
 * NULL outside 0..count-1; occ_profile_find returns NULL for an unknown (or NULL) name. */
int occ_profile_count(void);
const occ_profile *occ_profile_at(int i);
const occ_profile *occ_profile_find(const char *name);
/* The OCC_DEFAULT_PROFILE entry (nvidia-sm90). */
const occ_profile *occ_profile_default(void);

/* Occupancy of one kernel on one profile.  Never fails: problems come back in .status. */
occ_result occ_compute(const occ_profile *p, const occ_input *in);

/* "warps", "groups", "registers", "local_memory", "work_group_size", "none"; "?" when out of
 * range.  occ_status_name: "ok", "does_not_fit", "bad_input". */
const char *occ_limiter_name(int limiter);
const char *occ_status_name(int status);

/* `clgrade occupancy ...` (argv[0] is "occupancy"); see occ_cmd.c.  Returns the exit status:
 * 0 ok (a kernel that does not fit is still a result), 2 usage error. */
int occ_main(int argc, char **argv);

#endif
