/* tilechoice.h — lesson 4's `tile_choice`: the student records, as #defines in the kernel
 * file, a TILE and its occupancy limiter for each judged GPU profile; the grader checks them
 * against the occupancy calculator (occ.h) at the kernel's registers.
 *
 * Two profiles whose answers differ make it a trade-off, not "the biggest tile":
 *   nvidia-sm90 (2048 threads per SM): TILE = 32 keeps 100 %, and loads the least;
 *   nvidia-sm86 (1536 threads per SM): TILE = 32 fits one 1024-thread group (67 %), TILE = 16
 *   fits six (100 %). */
#ifndef TILECHOICE_H
#define TILECHOICE_H

#include "check.h"
#include "occ.h"

enum { TILE_NPROFILES = 2 };

/* The judged profiles, in report order, and the suffix of their #defines ("SM90"). */
typedef struct tile_profile {
	const char *profile;   /* occ profile name: "nvidia-sm90" */
	const char *suffix;    /* CHOSEN_TILE_<suffix>, CHOSEN_LIMITER_<suffix> */
	const char *short_name;/* "sm_90" */
} tile_profile;
extern const tile_profile tile_profiles[TILE_NPROFILES];

/* Registers per work-item the calculator uses for profile p: the device compiler's count when
 * the check ran on NVIDIA and p is an NVIDIA profile, else p->assumed_registers (*assumed = 1). */
int tile_registers(const check_report *rep, const occ_profile *p, int *assumed);

/* The kernel's __local bytes per group at TILE = tile: what the sweep measured when it built
 * the kernel at that TILE (check_tile.local_bytes: the runtime's figure or the declarations',
 * the larger), else two TILE x TILE float tiles. */
long tile_local_bytes(const check_report *rep, int tile);

/* Occupancy of the lesson's kernel at TILE = tile on p: a TILE x TILE group holding
 * tile_local_bytes(), at tile_registers(). */
occ_result tile_occupancy(const check_report *rep, const occ_profile *p, int tile);

/* The right TILE for p among the lesson's sweep: the highest occupancy among the TILEs that
 * launch, then the largest (fewest global loads per FLOP); 0 when none launches. */
int tile_best(const check_report *rep, const occ_profile *p);

/* Value of "#define NAME value" outside comments into out.  0 found, -1 not found,
 * -2 ambiguous: NAME is defined more than once or #undef'd (out holds the first value). */
int tile_define(const char *src, const char *name, char *out, size_t len);

/* The CHOSEN_* names, NULL-terminated, in the order of rep->choice_val: for the
 * preprocessor's probe (preproc.h). */
const char *const *tile_probe_names(void);

/* The student's value for NAME: tile_define's answer, then checked against what the compiler
 * sees at the end of the file (rep->choice_val) when it is known: a #define the compiler never
 * reaches (inside #if 0, an #if that is off) is -3, a value that differs between the TILEs of
 * the sweep -4 (rep->choice_vary_tile); otherwise out is the compiler's value, with one pair of
 * parentheses around it removed. */
int tile_value(const check_report *rep, const char *src, const char *name, char *out, size_t len);

/* Judge the criterion (called by criteria.c). */
void tile_eval(const check_opts *o, const char *source, check_report *rep);

#endif
