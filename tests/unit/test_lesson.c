/* test_lesson.c — Check unit tests for the lesson registry (grader/lesson.c).
 *
 * Run from the repository root: the file tests look for each lesson's README, starter,
 * solution and baseline where lesson_path() says they are. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lesson.h"

static const char *ALL_IDS[CRIT_COUNT] = {
	"builds", "runs", "correct", "memory_safe", "race_free",
	"uses_local_memory", "conflict_free", "coalesced", "speedup", "tile_choice",
};

static int has(const lesson *l, lesson_crit c)
{
	return (l->criteria & CRIT_BIT(c)) != 0;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* A file's text with C comments blanked (so "__local" in a comment does not count). */
static char *read_code(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *o = malloc(n + 1), *p = o;
	for (const char *s = buf; *s;) {
		if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");
			s = e ? e + 2 : s + strlen(s);
			*p++ = ' ';
		} else if (s[0] == '/' && s[1] == '/') {
			s += strcspn(s, "\n");
		} else {
			*p++ = *s++;
		}
	}
	*p = '\0';
	return o;
}

/* ---- the table and lookups ---- */

START_TEST(test_table)
{
	ck_assert_int_eq(lesson_count(), 7);
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		ck_assert_ptr_nonnull(l);
		ck_assert_int_eq(l->number, i + 1);
		ck_assert_ptr_nonnull(l->slug);
		ck_assert_ptr_nonnull(l->title);
		ck_assert_ptr_nonnull(l->kernel);
		ck_assert(l->tile > 0);
		ck_assert_uint_eq(l->criteria & ~((1u << CRIT_COUNT) - 1), 0);
	}
	ck_assert_ptr_null(lesson_at(-1));
	ck_assert_ptr_null(lesson_at(lesson_count()));
}
END_TEST

START_TEST(test_find)
{
	const lesson *l3 = lesson_at(2);
	ck_assert_ptr_eq(lesson_find("3"), l3);
	ck_assert_ptr_eq(lesson_find("03"), l3);
	ck_assert_ptr_eq(lesson_find("03-transpose-padding"), l3);
	ck_assert_int_eq(l3->number, 3);
	ck_assert_str_eq(l3->slug, "03-transpose-padding");
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char num[8], padded[8];
		snprintf(num, sizeof num, "%d", l->number);
		snprintf(padded, sizeof padded, "%02d", l->number);
		ck_assert_ptr_eq(lesson_find(num), l);
		ck_assert_ptr_eq(lesson_find(padded), l);
		ck_assert_ptr_eq(lesson_find(l->slug), l);
	}
}
END_TEST

START_TEST(test_find_unknown)
{
	const char *bad[] = { "0", "8", "99", "-3", "", "3x", "transpose", "03-transpose",
	                      "03-transpose-padding ", "3-transpose-padding", "lesson3" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(lesson_find(bad[i]) == NULL, "lesson_find(\"%s\") found a lesson", bad[i]);
	ck_assert_ptr_null(lesson_find(NULL));
}
END_TEST

START_TEST(test_slugs)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char prefix[8];
		snprintf(prefix, sizeof prefix, "%02d-", l->number);
		ck_assert_msg(strncmp(l->slug, prefix, 3) == 0, "slug %s", l->slug);
		ck_assert_uint_gt(strlen(l->slug), 3);
		ck_assert_msg(strspn(l->slug + 3, "abcdefghijklmnopqrstuvwxyz0123456789-") ==
		              strlen(l->slug + 3), "slug %s: lower case, digits, '-' only", l->slug);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(lesson_at(j)->slug, l->slug);
	}
}
END_TEST

/* ---- criteria ids ---- */

START_TEST(test_crit_ids_round_trip)
{
	for (int c = 0; c < CRIT_COUNT; c++) {
		ck_assert_str_eq(lesson_crit_id((lesson_crit)c), ALL_IDS[c]);
		ck_assert_int_eq(lesson_crit_parse(ALL_IDS[c]), c);
	}
	ck_assert_str_eq(lesson_crit_id(CRIT_COUNT), "?");
	ck_assert_int_eq(lesson_crit_parse("?"), -1);
	ck_assert_int_eq(lesson_crit_parse(""), -1);
	ck_assert_int_eq(lesson_crit_parse("Correct"), -1);
	ck_assert_int_eq(lesson_crit_parse("correct "), -1);
	ck_assert_int_eq(lesson_crit_parse("uses_local"), -1);
}
END_TEST

START_TEST(test_every_lesson_has_core)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		ck_assert_msg(has(l, CRIT_BUILDS), "%s: builds", l->slug);
		ck_assert_msg(has(l, CRIT_RUNS), "%s: runs", l->slug);
		ck_assert_msg(has(l, CRIT_CORRECT), "%s: correct", l->slug);
		ck_assert_msg(has(l, CRIT_MEMORY_SAFE), "%s: memory_safe", l->slug);
		ck_assert_msg(has(l, CRIT_RACE_FREE), "%s: race_free", l->slug);
	}
}
END_TEST

/* ---- sizes ---- */

START_TEST(test_sizes)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		int n = 0, one = 0, odd = 0;
		for (; n < LESSON_MAX_SIZES && l->kind->sizes[n].rows; n++) {
			const lesson_size *s = &l->kind->sizes[n];
			ck_assert(s->rows > 0 && s->cols > 0);
			if (l->kind == &kind_matmul)
				ck_assert_msg(s->rows == s->cols, "%s: matmul sizes are square", l->slug);
			one |= s->rows == 1 && s->cols == 1;
			/* not a multiple of the tile (of every tile of a sweep) in some dimension */
			int all = 1;
			if (l->tiles[0] == 0)
				all = s->rows % l->tile != 0 || s->cols % l->tile != 0;
			for (int t = 0; t < LESSON_MAX_TILES && l->tiles[t]; t++)
				all &= s->rows % l->tiles[t] != 0 || s->cols % l->tiles[t] != 0;
			odd |= (s->rows > 1 || s->cols > 1) && all;   /* 1 x n: lesson 5 */
		}
		ck_assert_msg(n > 0 && n < LESSON_MAX_SIZES, "%s: sizes must be {0,0}-terminated", l->slug);
		ck_assert_msg(one, "%s: no 1x1 size", l->slug);
		ck_assert_msg(odd, "%s: no size that is not a multiple of TILE", l->slug);
		ck_assert(l->kind->time_size.rows > 0 && l->kind->time_size.cols > 0);
		/* analysis sizes: within the range, never a TILE multiple, and they vary */
		int seen[128] = {0}, distinct = 0;
		for (uint64_t seed = 0; seed < 200; seed++) {
			lesson_size a = lesson_analysis_size(l, seed);
			ck_assert(a.rows >= l->kind->analysis_lo.rows && a.rows <= l->kind->analysis_hi.rows);
			ck_assert(a.cols >= l->kind->analysis_lo.cols && a.cols <= l->kind->analysis_hi.cols);
			ck_assert_msg(a.rows % l->tile && a.cols % l->tile, "%s: %dx%d", l->slug, a.rows, a.cols);
			/* odd, so a float4 load that rounds the size up reads past the end at every seed */
			ck_assert_msg(a.cols % 2 == 1 && (a.rows == 1 || a.rows % 2 == 1), "%s: %dx%d is not "
			              "odd", l->slug, a.rows, a.cols);
			for (int t = 0; t < LESSON_MAX_TILES && l->tiles[t]; t++)
				ck_assert(a.rows % l->tiles[t] && a.cols % l->tiles[t]);
			distinct += !seen[(a.rows > 1 ? a.rows : a.cols) & 127]++;   /* 1 x n: lesson 5 */
		}
		ck_assert_msg(distinct >= 5, "%s: the seed hardly changes the analysis size", l->slug);
	}
}
END_TEST

START_TEST(test_tile_sweep)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		ck_assert_msg(has(l, CRIT_TILE_CHOICE) == (l->tiles[0] != 0),
		              "%s: tile_choice goes with a TILE sweep", l->slug);
		int found = l->tiles[0] == 0;
		for (int t = 0; t < LESSON_MAX_TILES && l->tiles[t]; t++)
			found |= l->tiles[t] == l->tile;
		ck_assert_msg(found, "%s: the default TILE is one of the sweep", l->slug);
	}
	ck_assert_int_eq(lesson_find("4")->tiles[0], 8);
	ck_assert_int_eq(lesson_find("4")->tiles[1], 16);
	ck_assert_int_eq(lesson_find("4")->tiles[2], 32);
	ck_assert_int_eq(lesson_find("4")->tiles[3], 0);
}
END_TEST

START_TEST(test_speedup_has_baseline)
{
	/* on a CPU the timing comes from the process that ran the kernel natively: never a bar */
	for (int i = 0; i < lesson_count(); i++)
		ck_assert_msg(lesson_at(i)->speedup_cpu == 0, "%s judges forgeable CPU timings",
		              lesson_at(i)->slug);
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		ck_assert_msg((l->baseline != NULL) == (l->baseline_kernel != NULL), "%s", l->slug);
		if (has(l, CRIT_SPEEDUP)) {
			ck_assert_msg(l->baseline != NULL, "%s: speedup needs a baseline", l->slug);
			ck_assert(l->speedup_cpu >= 0.0);   /* 0: measured, not judged, on a CPU */
			ck_assert(l->speedup_gpu > 1.0);
		}
	}
}
END_TEST

/* ---- files ---- */

START_TEST(test_paths)
{
	unsetenv("CLGRADE_ROOT");          /* this test runs in its own process */
	ck_assert_str_eq(lesson_root(), ".");
	const lesson *l = lesson_find("2");
	char buf[512];
	lesson_path(l, "starter", buf, sizeof buf);
	ck_assert_str_eq(buf, "kernels/starter/02-tiled-matmul.cl");
	lesson_path(l, "solution", buf, sizeof buf);
	ck_assert_str_eq(buf, "kernels/solutions/02-tiled-matmul.cl");
	lesson_path(l, "readme", buf, sizeof buf);
	ck_assert_str_eq(buf, "lessons/02-tiled-matmul/README.md");
	lesson_path(l, "dir", buf, sizeof buf);
	ck_assert_str_eq(buf, "lessons/02-tiled-matmul");
	lesson_path(l, "baseline", buf, sizeof buf);
	ck_assert_str_eq(buf, "grader/baselines/matmul_naive.cl");
}
END_TEST

START_TEST(test_paths_under_root)
{
	setenv("CLGRADE_ROOT", "/opt/lab", 1);
	ck_assert_str_eq(lesson_root(), "/opt/lab");
	char buf[512];
	lesson_path(lesson_find("1"), "starter", buf, sizeof buf);
	ck_assert_str_eq(buf, "/opt/lab/kernels/starter/01-naive-matmul.cl");
	lesson_path(lesson_find("3"), "readme", buf, sizeof buf);
	ck_assert_str_eq(buf, "/opt/lab/lessons/03-transpose-padding/README.md");
	char small[12];
	lesson_path(lesson_find("1"), "starter", small, sizeof small);
	ck_assert_str_eq(small, "/opt/lab/ke");
}
END_TEST

static void assert_lesson_file(const lesson *l, const char *what)
{
	char path[512];
	lesson_path(l, what, path, sizeof path);
	ck_assert_msg(is_file(path), "%s: %s file %s is missing or empty", l->slug, what, path);
}

START_TEST(test_files_readme)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char dir[512];
		struct stat st;
		lesson_path(l, "dir", dir, sizeof dir);
		ck_assert_msg(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "%s is not a folder", dir);
		assert_lesson_file(l, "readme");
	}
}
END_TEST

/* "__kernel void NAME(" in a file's code */
/* "__kernel void NAME(", or "__kernel __attribute__((...))" and "void NAME(" on the next
 * line (lesson 7's reqd_work_group_size(TILE, TILE, 1)) */
static int defines_kernel(const char *code, const char *name)
{
	char want[128], tail[128];
	snprintf(want, sizeof want, "__kernel void %s(", name);
	snprintf(tail, sizeof tail, ")))\nvoid %s(", name);
	const char *t = strstr(code, tail), *a = strstr(code, "__kernel __attribute__((");
	return strstr(code, want) != NULL || (t && a && a < t && !memchr(a, ';', (size_t)(t - a)));
}

START_TEST(test_files_kernels)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		const char *kinds[] = { "starter", "solution" };
		for (int k = 0; k < 2; k++) {
			assert_lesson_file(l, kinds[k]);
			char path[512];
			lesson_path(l, kinds[k], path, sizeof path);
			char *code = read_code(path);
			ck_assert_msg(defines_kernel(code, l->kernel), "%s does not define %s", path, l->kernel);
			free(code);
		}
	}
}
END_TEST

START_TEST(test_files_baselines)
{
	int n = 0;
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		if (!l->baseline)
			continue;
		n++;
		assert_lesson_file(l, "baseline");
		char path[512];
		lesson_path(l, "baseline", path, sizeof path);
		char *code = read_code(path);
		ck_assert_msg(defines_kernel(code, l->baseline_kernel), "%s does not define %s", path,
		              l->baseline_kernel);
		free(code);
	}
	ck_assert_int_ge(n, 6);    /* lessons 2-7 (4 times it at several local sizes) */
}
END_TEST

/* A lesson whose solution declares __local memory is judged on it (and on its banks). */
START_TEST(test_local_memory_criteria)
{
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char path[512];
		lesson_path(l, "solution", path, sizeof path);
		char *code = read_code(path);
		int uses = strstr(code, "__local") != NULL;
		free(code);
		ck_assert_msg(has(l, CRIT_USES_LOCAL) == uses, "%s: uses_local_memory %d, solution %s "
		              "__local", l->slug, has(l, CRIT_USES_LOCAL), uses ? "uses" : "does not use");
		ck_assert_msg(has(l, CRIT_CONFLICT_FREE) == uses, "%s: conflict_free", l->slug);
	}
	ck_assert(!has(lesson_find("1"), CRIT_USES_LOCAL));
	ck_assert(has(lesson_find("2"), CRIT_USES_LOCAL));
	ck_assert(has(lesson_find("3"), CRIT_CONFLICT_FREE));
	ck_assert(has(lesson_find("4"), CRIT_CONFLICT_FREE));
}
END_TEST

/* README.md's lesson table repeats the registry: one row per lesson, in order, with its
 * number and slug ("| 3 `03-transpose-padding` | ..."), and no row of a lesson that is not. */
START_TEST(test_readme_table_is_the_registry)
{
	char path[512];
	snprintf(path, sizeof path, "%s/README.md", lesson_root());
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	static char text[1 << 17];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	const char *at = text;
	int rows = 0;
	for (int i = 0; i < lesson_count(); i++) {
		const lesson *l = lesson_at(i);
		char row[160];
		snprintf(row, sizeof row, "\n| %d `%s` |", l->number, l->slug);
		const char *r = strstr(at, row);
		ck_assert_msg(r != NULL, "README.md's lesson table lacks (or misorders) \"%s\"", row + 1);
		at = r + 1;
		rows++;
	}
	char next[64];   /* no row beyond the registry */
	int last = lesson_at(lesson_count() - 1)->number;
	snprintf(next, sizeof next, "\n| %d `", last + 1);
	ck_assert_msg(strstr(text, next) == NULL, "README.md lists a lesson %d the registry lacks",
	              last + 1);
	ck_assert_int_eq(rows, lesson_count());
}
END_TEST

/* A file's whole text (comments kept), for the lesson text's checks. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Lesson 6's row names its launch as the lesson text does: kernel stencil(in, out, rows, cols)
 * at TILE 32, local size 32 x 32 (the 2-D kinds' geometry), global size rounded up to 32 in
 * each dimension; 1-way conflict_free; the H200 bar, which the text states, with R = 3 in the
 * kernel files as in the grader's reference. */
START_TEST(test_lesson6_launch)
{
	const lesson *l = lesson_find("6");
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->slug, "06-stencil-halo");
	ck_assert_str_eq(l->kernel, "stencil");
	ck_assert_ptr_eq(l->kind, &kind_stencil2d);
	ck_assert_int_eq(l->tile, 32);
	ck_assert_int_eq(lesson_conflict_max(l), 1);
	ck_assert(has(l, CRIT_COALESCED) && has(l, CRIT_SPEEDUP) && has(l, CRIT_CONFLICT_FREE));
	ck_assert_str_eq(l->kind->args[0], "in");
	ck_assert_str_eq(l->kind->args[1], "out");
	ck_assert_str_eq(l->kind->args[2], "rows");
	ck_assert_str_eq(l->kind->args[3], "cols");
	ck_assert_ptr_null(l->kind->args[4]);
	ck_assert_int_eq(l->kind->group_size(l->tile), 1024);
	ck_assert_int_eq(l->kind->time_size_gpu.rows % l->tile != 0, 1);
	ck_assert_int_eq(l->kind->time_size_gpu.cols % l->tile != 0, 1);
	ck_assert_int_ne(l->kind->time_size_gpu.rows, l->kind->time_size_gpu.cols);
	ck_assert_int_eq(KIND_STENCIL_R, 3);
	ck_assert(l->speedup_gpu == 1.05);
	char path[512];
	lesson_path(l, "readme", path, sizeof path);
	const char *t = read_text(path);
	const char *want[] = { "__kernel void stencil(__global const float* in, __global float* out,",
	                       "const int rows, const int cols)", "local size is TILE×TILE = 32×32",
	                       "**1.05×** at R = 3", "6143×8191", "`#define R 3`", NULL };
	for (int i = 0; want[i]; i++)
		ck_assert_msg(strstr(t, want[i]) != NULL, "%s does not say \"%s\"", path, want[i]);
	const char *files[] = { "solution", "starter", "baseline" };
	for (int i = 0; i < 3; i++) {
		lesson_path(l, files[i], path, sizeof path);
		ck_assert_msg(strstr(read_text(path), "#define R 3") != NULL, "%s: R is not 3", path);
	}
}
END_TEST

static Suite *lesson_suite(void)
{
	Suite *s = suite_create("lesson");
	TCase *t = tcase_create("registry");
	tcase_add_test(t, test_table);
	tcase_add_test(t, test_find);
	tcase_add_test(t, test_find_unknown);
	tcase_add_test(t, test_slugs);
	tcase_add_test(t, test_crit_ids_round_trip);
	tcase_add_test(t, test_every_lesson_has_core);
	tcase_add_test(t, test_sizes);
	tcase_add_test(t, test_tile_sweep);
	tcase_add_test(t, test_speedup_has_baseline);
	suite_add_tcase(s, t);

	t = tcase_create("files");
	tcase_add_test(t, test_paths);
	tcase_add_test(t, test_paths_under_root);
	tcase_add_test(t, test_files_readme);
	tcase_add_test(t, test_files_kernels);
	tcase_add_test(t, test_files_baselines);
	tcase_add_test(t, test_local_memory_criteria);
	tcase_add_test(t, test_readme_table_is_the_registry);
	tcase_add_test(t, test_lesson6_launch);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lesson_suite());
	/* lesson_root() caches its answer: each test in its own process sees its own root */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
