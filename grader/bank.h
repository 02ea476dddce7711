/* bank.h — the __local memory bank model: what one warp-wide __local access costs on a GPU.
 *
 * A CPU device has no banks, so the grader replays the accesses that Oclgrind saw through the
 * vendor models written up in GUIDE.md, appendix A.3 (NVIDIA verified on an H200 with
 * Nsight Compute).  One call prices one SIMD instruction: the lanes of one warp/wavefront
 * executing one access site once. */
#ifndef BANK_H
#define BANK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#ifdef __cplusplus
}
#endif

#endif

enum { BANK_MAX_LANES = 64 };

typedef struct bank_profile {
	const char *name;   /* "nvidia", "amd-cdna", "amd-rdna", "intel" */
	const char *label;  /* human name: "NVIDIA sm_75..sm_90" */
	int banks;          /* banks of 4 bytes */
	int warp;           /* lanes per warp / wavefront / sub-group */
} bank_profile;

/* Cost of one warp instruction. */
typedef struct bank_cost {
	int n_way;            /* worst phase: most distinct words in one bank (1 = conflict-free) */
	int wavefronts;       /* sum over phases of that phase's cycles (NVIDIA "wavefronts") */
	int ideal_wavefronts; /* number of non-empty phases (after the NVIDIA uniform-pair merge) */
} bank_cost;

/* The profiles, in a fixed order; the first is the default (nvidia). */
int bank_profile_count(void);
const bank_profile *bank_profile_at(int i);
/* Profile by name, or NULL when unknown. */
const bank_profile *bank_profile_find(const char *name);

/* Price one warp access.  addr[l] is lane l's byte offset into local memory, active[l] says
 * whether lane l takes part (NULL = all), nlanes <= p->warp lanes, width is 1, 2, 4, 8 or 16
 * bytes (wider accesses are split into 16-byte pieces by the caller), is_store selects the
 * store rules (no uniform-pair merge).  A warp with no active lane costs {0,0,0}. */
bank_cost bank_access(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
                      int nlanes, int width, int is_store);

/* Bank of each lane for a lane->bank picture: bank_out[l] = (addr[l]/4) % banks. */
void bank_lanes(const bank_profile *p, const uint64_t *addr, int nlanes, int *bank_out);

/* The busiest bank of one warp access, for the words under a lane->bank picture: the bank
 * with the most distinct 32-bit words among the active lanes (active NULL = all), how many
 * active lanes hit it (lanes > words: some share a word, served by one broadcast), and how
 * many lanes are inactive. */
typedef struct bank_busy { int bank, lanes, words, inactive; } bank_busy;
bank_busy bank_busiest(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
                       int nlanes);

/* The words of a fix, from the lesson's kind (kind.h KS_PAD, KS_SWIZZLE, tile_2d): how to
 * pad its arrays, how to swizzle them ("" none), and whether an access's two indices can be
 * swapped (2-D tiles). */
typedef struct bank_words {
	const char *pad, *swizzle;
	int swap;
	int result_wrong;   /* the kernel's results are wrong too: the access may be the bug */
	const char *access; /* the conflicted access itself, "load" or "store" (NULL: unknown) */
} bank_words;

/* What each lane of one warp access does, for the drawn lane -> bank grid: BANK_LANE_INACTIVE
 * (takes no part), BANK_LANE_CONFLICT (another active lane of its phase hits its bank at a
 * different word: they are served one after another), BANK_LANE_BROADCAST (it shares its word
 * with another lane of its phase and collides with none), BANK_LANE_ALONE (nothing else on its
 * bank).  Phases as bank_access groups them; a lane is judged by the first word it touches. */
typedef enum { BANK_LANE_INACTIVE, BANK_LANE_CONFLICT, BANK_LANE_BROADCAST, BANK_LANE_ALONE }
	bank_lane_role;
void bank_roles(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
                int nlanes, int width, int is_store, bank_lane_role *role_out);
/* "inactive", "conflict", "broadcast", "alone" (the JSON's words). */
const char *bank_role_name(bank_lane_role r);

/* The addresses after padding rows of stride words by one word (tile[TILE][TILE+1]): the word
 * w of each lane moves to (w / stride) * (stride + 1) + w % stride.  Computable, and 1, when
 * stride is even (bank_fix proposes padding); 0 and out untouched otherwise. */
int bank_padded(const uint64_t *addr, int nlanes, int stride, uint64_t *out);

/* The fix for a conflicted site whose neighbouring lanes are stride words apart (0 when
 * unknown), as advice text in w's words.  other_line > 0 names a conflict-free access to the
 * same variable (other_access "store"/"load"): when it walks along the words (the transpose's
 * other side), swapping this site's indices would only move the conflict there, so padding
 * and swizzling are offered instead; when it is a broadcast (other_broadcast: at most two
 * words for the warp), it stays conflict-free whichever way the indices go, so swapping the indices
 * of every access is offered too. */
void bank_fix(const bank_words *w, int stride, int banks, int other_line,
              const char *other_access, int other_broadcast, char *buf, size_t len);

/* A warp that holds several lines of a 2-D work-group (row_lanes work-items each, the group's
 * dimension 0; row_lanes < nlanes): the words between lane 0 and lane row_lanes when the lanes
 * of one line alone are conflict-free and the whole warp is not (the lines fall on the same
 * banks: a last dimension longer than the group's width); 0 otherwise. */
long bank_row_step(const bank_profile *p, const uint64_t *addr, const unsigned char *active,
                   int nlanes, int row_lanes);

/* The fix for such a site (bank_row_step gave step): the lines of the warp, why they meet, and
 * the last dimension of variable (NULL: "the array") sized with TILE. */
void bank_fix_rows(long step, int banks, int row_lanes, int nlanes, const char *variable,
                   char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
