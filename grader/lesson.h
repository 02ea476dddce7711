/* lesson.h — the lesson registry: one table row per lesson, the only place a lesson is named.
 *
 * Adding a lesson means one row here, one folder lessons/NN-slug/, one starter
 * kernels/starter/NN-slug.cl and one solution kernels/solutions/NN-slug.cl (and, for a new
 * kind of computation, one grader/kind_<name>.c: kind.h).  Everything the grader does for a
 * lesson (criteria, baseline, thresholds; through its kind: sizes, reference, launch) comes
 * from here. */
#ifndef LESSON_H
#define LESSON_H

#include "kind.h"
#include <stdint.h>

/* The criteria, in report order.  Ids are stable (GUIDE.md, JSON report); a lesson lists those that apply. */
typedef enum {
	CRIT_BUILDS, CRIT_RUNS, CRIT_CORRECT, CRIT_MEMORY_SAFE, CRIT_RACE_FREE,
	CRIT_USES_LOCAL, CRIT_CONFLICT_FREE, CRIT_COALESCED, CRIT_SPEEDUP, CRIT_TILE_CHOICE, CRIT_COUNT
} lesson_crit;

#define CRIT_BIT(c) (1u << (c))

enum { LESSON_MAX_TILES = 4 };

typedef struct lesson {
	int number;                 /* 1, 2, ...                                          */
	const char *slug;           /* "03-transpose-padding": folder and file names        */
	const char *title;          /* one line for tables                                  */
	const char *kernel;         /* kernel function name the student writes              */
	const kind *kind;           /* what it computes: reference, launch, units, sizes (kind.h) */
	int tile;                   /* default TILE (-DTILE=t, local size TILE x TILE)       */
	unsigned criteria;          /* CRIT_BIT()s that apply                                */
	const char *baseline;       /* baseline kernel file under grader/baselines/, or NULL */
	const char *baseline_kernel;
	double speedup_cpu;         /* pass bar on a CPU device; 0 = measured, not judged.  Keep
	                               it 0: there the samples come from the process that ran the
	                               kernel natively, which can forge them (devrun.h) */
	double speedup_gpu;         /* pass bar on a GPU device (measured on an H200)        */
	int tiles[LESSON_MAX_TILES];/* TILE sweep (lesson 4), 0-terminated; empty: tile only */
	int conflict_max;           /* the worst n-way a __local access may be for conflict_free
	                               (NVIDIA model); 0 counts as 2                          */
	const char *const *say;     /* KS_COUNT words of the lesson's own where its kind's do not
	                               fit it (lesson 1 has no tiles and no barriers: they live
	                               in its kind's file); NULL, or a NULL entry: the kind's */
	int analysis_tile;          /* the TILE the Oclgrind analysis builds and runs the kernel
	                               at; 0: tile.  Lesson 7: 8, where its blocks are 64 x 64
	                               (at 16, 128 x 128 blocks cost Oclgrind 10-20 s a run)    */
	const char *baseline_name;  /* how messages name the baseline; NULL: "naive baseline"    */
} lesson;

/* Number of lessons, and lesson i (0-based) of the table. */
int lesson_count(void);
const lesson *lesson_at(int i);
/* Lesson by number ("3"), zero-padded number ("03") or slug; NULL when none. */
const lesson *lesson_find(const char *key);

/* The size the Oclgrind analysis runs at for this seed (at lesson_analysis_tile): each dimension drawn within
 * [analysis_lo, analysis_hi] and never a multiple of any TILE the lesson uses (its tile and
 * its sweep), so edge work-items outside the problem exist in both dimensions; a square range
 * (lo and hi both square) gives a square size. */
lesson_size lesson_analysis_size(const lesson *l, uint64_t seed);

/* The same for a run at another TILE (lesson 4's chosen TILE): where the kind's range does not
 * exceed that TILE in a dimension, the range there is (tile, 2 tile) instead, so that a
 * work-group wholly inside the problem exists.  *range_lo, *range_hi (may be NULL): the
 * range drawn from. */
lesson_size lesson_analysis_size_at(const lesson *l, uint64_t seed, int tile,
                                    lesson_size *range_lo, lesson_size *range_hi);

/* The words of situation id for lesson l: its own, else its kind's, else the default
 * (kind.h, kind_say). */
const char *lesson_say(const lesson *l, kind_say_id id);

/* The baseline in the report's words: baseline_name, else "naive baseline". */
const char *lesson_baseline_name(const lesson *l);

/* The TILE of the Oclgrind analysis' first run: analysis_tile, else tile. */
int lesson_analysis_tile(const lesson *l);

/* The worst n-way conflict_free passes in lesson l: its conflict_max, 2 when that is 0. */
int lesson_conflict_max(const lesson *l);

/* Criterion id string ("memory_safe") and back (-1 when unknown). */
const char *lesson_crit_id(lesson_crit c);
int lesson_crit_parse(const char *id);

/* Paths of a lesson's files, relative to the suite root, written into buf. */
void lesson_path(const lesson *l, const char *what, char *buf, int len); /* what: "starter", "solution", "readme", "dir" */

/* Root of the suite (folder holding lessons/ and grader/); from CLGRADE_ROOT, else derived
 * from the executable's location (build/clgrade -> ..), else ".". */
const char *lesson_root(void);

#endif
