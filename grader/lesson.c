/* lesson.c — the lesson registry table (see lesson.h), and the small lookups around it.
 * Thresholds and sizes are measured: see GUIDE.md "Speedup thresholds" for the numbers and
 * tests/gpu-thresholds.sh for the command.  On a CPU device speedup is measured, not judged
 * (speedup_cpu 0): the reference solutions measure 0.56-1.19x there. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson.h"

#define CORE  (CRIT_BIT(CRIT_BUILDS) | CRIT_BIT(CRIT_RUNS) | CRIT_BIT(CRIT_CORRECT) | \
               CRIT_BIT(CRIT_MEMORY_SAFE) | CRIT_BIT(CRIT_RACE_FREE))
#define LOCAL (CRIT_BIT(CRIT_USES_LOCAL) | CRIT_BIT(CRIT_CONFLICT_FREE))

static const lesson lessons[] = {
	{ 1, "01-naive-matmul", "naive matmul (the baseline)", "matmul_naive", &kind_matmul, 16,
	  CORE | CRIT_BIT(CRIT_COALESCED), NULL, NULL, 0, 0, {0}, 2, kind_matmul_untiled, 0, NULL },
	{ 2, "02-tiled-matmul", "tiled matmul in __local memory", "matmul_tiled", &kind_matmul, 16,
	  CORE | LOCAL | CRIT_BIT(CRIT_COALESCED) | CRIT_BIT(CRIT_SPEEDUP), "matmul_naive.cl",
	  "matmul_naive", 0, 1.10, {0}, 2, NULL, 0, NULL },
	{ 3, "03-transpose-padding", "transpose with a padded tile", "transpose", &kind_transpose, 32,
	  CORE | LOCAL | CRIT_BIT(CRIT_COALESCED) | CRIT_BIT(CRIT_SPEEDUP),
	  "transpose_naive.cl", "transpose_naive", 0, 2.0, {0},
	  1 /* its text teaches a conflict-free column read: a 2-way one is not */, NULL, 0, NULL },
	{ 4, "04-tile-budget", "choosing TILE within the local-memory budget", "matmul_tiled", &kind_matmul, 16,
	  CORE | LOCAL | CRIT_BIT(CRIT_TILE_CHOICE), "matmul_naive.cl", "matmul_naive", /* the
	  baseline: lesson 4 times it at several local sizes (the local-size experiment) */
	  0, 0, {8, 16, 32, 0}, 2, NULL, 0, NULL },
	{ 5, "05-reduction", "parallel reduction in __local memory", "reduce", &kind_reduction, 256,
	  CORE | LOCAL | CRIT_BIT(CRIT_SPEEDUP), "reduce_naive.cl", "reduce_naive", 0, 1.30, {0}, 2, NULL, 0, NULL },
	/* stencil(__global const float* in, __global float* out, const int rows, const int cols),
	 * R = 3 defined in the kernel file, local size TILE x TILE, global size cols x rows rounded
	 * up to TILE (kind_stencil2d.c); the bar: GUIDE.md "Speedup thresholds", lesson 6 */
	{ 6, "06-stencil-halo", "2-D stencil with a halo in __local memory", "stencil",
	  &kind_stencil2d, 32, CORE | LOCAL | CRIT_BIT(CRIT_COALESCED) | CRIT_BIT(CRIT_SPEEDUP),
	  "stencil_naive.cl", "stencil_naive", 0, 1.05, {0},
	  1 /* a warp is one row of the group: a row-major staged block is conflict-free */, NULL,
	  0, NULL },
	{ 7, "07-register-blocking", "register blocking: a block of C per work-item", "matmul_blocked",
	  &kind_matmul_blocked, 16, CORE | LOCAL | CRIT_BIT(CRIT_COALESCED) | CRIT_BIT(CRIT_SPEEDUP),
	  "matmul_tiled_blocked.cl" /* lesson 2's tiled solution under lesson 7's launch */,
	  "matmul_tiled_blocked", 0, 6.0 /* 20 H200 runs: 7.04-7.08x (GUIDE.md) */, {0}, 2, NULL,
	  8 /* analysed at TILE=8: 64 x 64 blocks */, "baseline (lesson 2's kernel)" },
};

static const char *crit_ids[CRIT_COUNT] = {
	"builds", "runs", "correct", "memory_safe", "race_free",
	"uses_local_memory", "conflict_free", "coalesced", "speedup", "tile_choice",
};

const char *lesson_say(const lesson *l, kind_say_id id)
{
	if (l && l->say && id >= 0 && id < KS_COUNT && l->say[id])
		return l->say[id];
	return kind_say(l ? l->kind : NULL, id);
}

int lesson_count(void) { return (int)(sizeof lessons / sizeof lessons[0]); }

const lesson *lesson_at(int i)
{
	return i >= 0 && i < lesson_count() ? &lessons[i] : NULL;
}

const lesson *lesson_find(const char *key)
{
	if (!key || !*key)
		return NULL;
	char *end;
	long n = strtol(key, &end, 10);
	for (int i = 0; i < lesson_count(); i++) {
		if (*end == '\0' && n == lessons[i].number)
			return &lessons[i];
		if (strcmp(key, lessons[i].slug) == 0)
			return &lessons[i];
	}
	return NULL;
}

/* splitmix64: a well-mixed value from the seed. */
static uint64_t mix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

static int tile_multiple(const lesson *l, int n)
{
	if (n % l->tile == 0 || n % lesson_analysis_tile(l) == 0)
		return 1;
	for (int i = 0; i < LESSON_MAX_TILES && l->tiles[i]; i++)
		if (n % l->tiles[i] == 0)
			return 1;
	return 0;
}

/* A value in [lo, hi] that is odd and no multiple of the lesson's TILEs; else one that is no
 * multiple; else lo.  Odd, so that a vector load (float2, float4, vload4) that rounds the size
 * up reads past the end at every seed, not at one seed in four. */
static int draw(const lesson *l, int lo, int hi, uint64_t r)
{
	int span = hi - lo + 1, start = span > 0 ? (int)(r % (uint64_t)span) : 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < span; i++) {
			int n = lo + (start + i) % span;
			if (!tile_multiple(l, n) && (pass == 1 || n % 2 == 1))
				return n;
		}
	return lo;
}

lesson_size lesson_analysis_size(const lesson *l, uint64_t seed)
{
	return lesson_analysis_size_at(l, seed, lesson_analysis_tile(l), NULL, NULL);
}

const char *lesson_baseline_name(const lesson *l)
{
	return l && l->baseline_name ? l->baseline_name : "naive baseline";
}

int lesson_analysis_tile(const lesson *l)
{
	return l->analysis_tile > 0 ? l->analysis_tile : l->tile;
}

/* A dimension of the range that does not exceed one tile moves up to (tile, 2 tile): a group
 * wholly inside the problem must exist at this TILE too. */
static void range_at(int tile, int *lo, int *hi)
{
	if (*lo > 1 && *lo <= tile) {
		*lo = tile + 1;
		if (*hi < 2 * tile - 1)
			*hi = 2 * tile - 1;
	}
}

lesson_size lesson_analysis_size_at(const lesson *l, uint64_t seed, int tile,
                                    lesson_size *range_lo, lesson_size *range_hi)
{
	lesson_size lo = l->kind->analysis_lo, hi = l->kind->analysis_hi, s;
	range_at(tile, &lo.rows, &hi.rows);
	range_at(tile, &lo.cols, &hi.cols);
	if (range_lo)
		*range_lo = lo;
	if (range_hi)
		*range_hi = hi;
	s.rows = draw(l, lo.rows, hi.rows, mix(seed));
	s.cols = lo.rows == lo.cols && hi.rows == hi.cols ? s.rows
	         : draw(l, lo.cols, hi.cols, mix(seed ^ UINT64_C(0x5DEECE66D)));
	return s;
}

int lesson_conflict_max(const lesson *l)
{
	return l->conflict_max > 0 ? l->conflict_max : 2;
}

const char *lesson_crit_id(lesson_crit c)
{
	return c < CRIT_COUNT ? crit_ids[c] : "?";
}

int lesson_crit_parse(const char *id)
{
	for (int c = 0; c < CRIT_COUNT; c++)
		if (strcmp(id, crit_ids[c]) == 0)
			return c;
	return -1;
}

void lesson_path(const lesson *l, const char *what, char *buf, int len)
{
	/* "kernels/starter/x.cl" rather than "./kernels/starter/x.cl" when run from the root */
	const char *root = lesson_root();
	const char *sep = "/";
	if (strcmp(root, ".") == 0)
		root = sep = "";
	if (strcmp(what, "starter") == 0)
		snprintf(buf, len, "%s%skernels/starter/%s.cl", root, sep, l->slug);
	else if (strcmp(what, "solution") == 0)
		snprintf(buf, len, "%s%skernels/solutions/%s.cl", root, sep, l->slug);
	else if (strcmp(what, "readme") == 0)
		snprintf(buf, len, "%s%slessons/%s/README.md", root, sep, l->slug);
	else if (strcmp(what, "baseline") == 0)
		snprintf(buf, len, "%s%sgrader/baselines/%s", root, sep, l->baseline ? l->baseline : "");
	else
		snprintf(buf, len, "%s%slessons/%s", root, sep, l->slug);
}

static int is_root(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/grader/baselines", dir);
	return access(p, R_OK) == 0;
}

const char *lesson_root(void)
{
	static char root[PATH_MAX];
	if (root[0])
		return root;
	const char *env = getenv("CLGRADE_ROOT");
	if (env && *env) {
		snprintf(root, sizeof root, "%s", env);
		return root;
	}
	if (is_root(".")) {
		strcpy(root, ".");
		return root;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 2; up++) {  /* build/clgrade -> build -> root */
			char *slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
			if (is_root(exe)) {
				snprintf(root, sizeof root, "%s", exe);
				return root;
			}
		}
	}
	strcpy(root, ".");
	return root;
}
