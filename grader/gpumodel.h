/* gpumodel.h — a predicted GPU time from the Oclgrind analysis' own figures.
 *
 * The tracer (trace.h) counts, per access site of one launch: __global requests with their
 * 32-byte sectors and 128-byte lines, __local wavefronts through the bank model, active lanes
 * per warp instruction (warp execution efficiency), the loads a warp has in flight before it
 * needs one (irmlp.h), and the barrier-separated rounds in which a group loads from __global.
 * gpum_predict scales those figures from the analysed launch (the *model launch*: a size that
 * is a multiple of every TILE, so every group is interior) to the lesson's GPU timing size and
 * prices them on one GPU profile:
 *
 *   t_l1    = (sum of 128-B lines of every __global request + __local wavefronts)
 *             / (SMs x clock x 1 wavefront per SM per clock)
 *   t_lat   = waves x rounds x latency        waves = ceil(groups / (SMs x groups per SM)),
 *             latency = the L2's when the kernel re-reads its inputs, else one round trip of a
 *             one-shot group (load, barrier, store, next group)
 *   t_st    = 32 B x store sectors / the L2's store-sector rate
 *   t_flop  = FLOPs / the FP32 peak
 *   t_dram  = compulsory bytes / the streaming DRAM rate
 *   t_fly   = bytes read x DRAM latency under load / bytes in flight     (Little's law)
 *             bytes in flight = SMs x resident warps x (loads in flight x bytes per request)
 *   t       = max(t_l1 + t_lat, t_st, t_flop, t_dram, t_fly)
 *
 * Every constant and its source (datasheet, or an H200 micro-benchmark and its command) is in
 * GUIDE.md "Predicted GPU time".  Only profile nvidia-sm90 (H200) is validated against
 * measured times; gpum_profile.validated says so.  Plain C, no OpenCL: tests feed it summaries. */
#ifndef GPUMODEL_H
#define GPUMODEL_H

struct cJSON;

typedef struct gpum_profile {
	const char *name;         /* "nvidia-sm90": the occupancy profile it pairs with (occ.h) */
	const char *label;        /* "NVIDIA H200" */
	int validated;            /* predictions held against measured times on this GPU */
	int sms, warp, max_warps_per_sm;
	double clock_hz;
	double flops;             /* FP32 FLOP/s */
	double dram_bps;          /* streaming read rate, bytes/s */
	double store_bps;         /* __global store sectors through the L2, bytes (32 per sector)/s */
	double l2_lat_s;          /* an L2 hit */
	double mem_lat_s;         /* a DRAM load under a full streaming load (Little's law) */
	double round_s;           /* one round of a one-shot group: load, barrier, store, next */
	double l1_bytes;          /* L1 (with shared memory) per SM                             */
} gpum_profile;

int gpum_profile_count(void);
const gpum_profile *gpum_profile_at(int i);
const gpum_profile *gpum_profile_find(const char *name);   /* NULL when unknown */

/* The analysed (model) launch and the timed one. */
typedef struct gpum_launch {
	double items_m;           /* work-items of the model launch                              */
	double items_t, groups_t; /* work-items and work-groups of the timed launch              */
	int group_size;           /* work-items per group                                        */
	double trips_m, trips_t;  /* inner iterations per work-item (kind: work / work-items)    */
	double flops_t;           /* the problem's FLOPs at the timed launch (the kind's; 0: none) */
	double bytes_in_t, bytes_out_t; /* compulsory bytes read and written by the timed launch */
	int groups_per_sm;        /* occupancy of the profile (occ.c); 0: does not fit           */
} gpum_launch;

typedef enum { GPUM_L1, GPUM_LATENCY, GPUM_STORES, GPUM_FLOPS, GPUM_DRAM, GPUM_INFLIGHT,
               GPUM_TERMS } gpum_term;

enum { GPUM_MAX_LINES = 12 };

/* A site whose warps run with lanes idle (warp execution efficiency below 100 %). */
typedef struct gpum_line {
	int line, column, local;  /* local: a __local access (else __global)                     */
	char access[8];           /* "load", "store", "atomic"                                   */
	double efficiency;        /* active lanes / (warp size x warp instructions)              */
} gpum_line;

enum { GPUM_PIPES = 3 };         /* arithmetic: FP32, special functions, integer division */

typedef struct gpum_result {
	int ok;                   /* a prediction was made                                       */
	double ms;
	double term_ms[GPUM_TERMS];
	gpum_term limiter;        /* the term that decides (GPUM_L1 or GPUM_LATENCY for the sum) */
	const char *limiter_key;  /* "l1_pipe", "bank_conflicts", "divergence", "latency",
	                             "scattered_stores", "flops", "dram", "loads_in_flight"       */
	const char *limiter_text; /* the same in a student's words (static)                      */
	double wavefronts;        /* L1/shared wavefronts at the timing size                     */
	double local_excess;      /* of which bank-conflict excess                               */
	double rounds;            /* barrier-separated load rounds per group                     */
	double waves;             /* waves of resident groups                                    */
	double in_flight;         /* bytes a warp has in flight (the dominant load site)         */
	int mlp;                  /* its loads in flight                                         */
	double efficiency;        /* warp execution efficiency over every memory instruction    */
	double flops_nominal;     /* the problem's FLOPs (gpum_launch.flops_t)                   */
	double counted_flops;     /* the kernel's own FP32 operations at the timed launch, scaled
	                             from the model launch's arith_sites; the arithmetic term
	                             takes the larger of these and flops_t                       */
	double pipe_ops[GPUM_PIPES];    /* the kernel's operations per pipe (0 is counted_flops) */
	int arith_pipe;           /* the pipe the arithmetic term is the time of               */
	double arith_s;           /* that time                                                   */
	int flops_line, flops_column;   /* that pipe's instruction with the largest share (0: none) */
	double flops_share;       /* that share, 0..1                                            */
	double private_bytes;     /* traffic to private arrays in local memory at the timed launch */
	int private_dram;         /* they do not fit the L1: that traffic is priced as DRAM's    */
	double private_per_item;  /* those arrays' bytes per work-item                           */
	int private_line, private_column;   /* the access with the most of that traffic          */
	int nlines;
	gpum_line lines[GPUM_MAX_LINES];
} gpum_result;

/* Predict the timed launch l from the model launch's trace summary (trace_summary schema) on
 * profile p.  Returns 0 with r->ok set, or -1 (no summary, no sites, does not fit). */
int gpum_predict(const gpum_profile *p, const struct cJSON *summary, const gpum_launch *l,
                 gpum_result *r);

/* The result as JSON: {profile, validated, kernel_ms, limiter, limiter_text, breakdown{...}}. */
struct cJSON *gpum_json(const gpum_profile *p, const gpum_result *r);

#endif
