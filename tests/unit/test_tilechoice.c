/* test_tilechoice.c — Check unit tests for lesson 4's `tile_choice` (grader/tilechoice.c):
 * the #defines are read outside comments, a quoted value is named as such, and the choice is
 * judged on two profiles whose answers differ (sm_90: 32, sm_86: 16), at the registers the
 * device reported or the profile's documented assumption (32).  No OpenCL: tile_eval reads
 * only the source and the report's device fields. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "tilechoice.h"

static const char *RIGHT =
	"/* choices */\n"
	"#define CHOSEN_TILE_SM90 32\n"
	"#define CHOSEN_LIMITER_SM90 threads\n"
	"#define CHOSEN_TILE_SM86 16\n"
	"#define CHOSEN_LIMITER_SM86 warps\n"
	"__kernel void matmul_tiled(void) {}\n";

/* Judge src as lesson 4 on a device with this platform and register count. */
static check_crit judge(const char *src, const char *platform, int registers)
{
	static check_report rep;
	memset(&rep, 0, sizeof rep);
	rep.opts.l = lesson_find("4");
	snprintf(rep.child.dev.platform, sizeof rep.child.dev.platform, "%s", platform);
	rep.child.registers = registers;
	rep.ncrit = 1;
	rep.crit[0].id = CRIT_TILE_CHOICE;
	rep.crit[0].status = CRIT_NOT_CHECKED;
	tile_eval(&rep.opts, src, &rep);
	return rep.crit[0];
}

/* RIGHT with one line replaced: the line starting with `from` becomes `to`. */
static const char *edit(const char *from, const char *to)
{
	static char buf[2048];
	const char *p = strstr(RIGHT, from);
	ck_assert_ptr_nonnull(p);
	const char *eol = strchr(p, '\n');
	snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - RIGHT), RIGHT, to, eol);
	return buf;
}

static void assert_says(check_crit c, check_status st, const char *text)
{
	ck_assert_msg(c.status == st, "status %d, want %d: %s", c.status, st, c.msg);
	ck_assert_msg(strstr(c.msg, text) != NULL, "\"%s\" lacks \"%s\"", c.msg, text);
}

START_TEST(test_answers_differ_between_profiles)
{
	check_report rep;
	memset(&rep, 0, sizeof rep);
	rep.opts.l = lesson_find("4");
	ck_assert_int_eq(tile_best(&rep, occ_profile_find("nvidia-sm90")), 32);
	ck_assert_int_eq(tile_best(&rep, occ_profile_find("nvidia-sm86")), 16);
	occ_result r = tile_occupancy(&rep, occ_profile_find("nvidia-sm86"), 32);
	ck_assert_int_eq(r.groups_per_cu, 1);                 /* 1024 of 1536 threads */
	ck_assert_int_eq(r.active_warps, 32);
	ck_assert_int_eq(r.max_warps, 48);
	int assumed;
	ck_assert_int_eq(tile_registers(&rep, occ_profile_find("nvidia-sm90"), &assumed), 32);
	ck_assert_int_eq(assumed, 1);
}
END_TEST

START_TEST(test_right_choice_passes)
{
	check_crit c = judge(RIGHT, "Portable Computing Language", 0);
	assert_says(c, CRIT_PASS, "sm_90: TILE=32, 100% limited by warps; sm_86: TILE=16, 100% "
	            "limited by warps (at 32 registers per work-item, assumed");
}
END_TEST

START_TEST(test_largest_tile_on_sm86_fails_with_the_numbers)
{
	check_crit c = judge(edit("#define CHOSEN_TILE_SM86", "#define CHOSEN_TILE_SM86 32"),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "TILE=32 on sm_86: 1 group of 1024 work-items per SM = 32 of its "
	            "48 warp slots, 67% occupancy, limited by warps, 0.125 global bytes per FLOP; "
	            "another TILE of the sweep reaches a higher occupancy");
	ck_assert_ptr_null(strstr(c.msg, "TILE=16"));   /* the answer is the student's to find */
	ck_assert_ptr_nonnull(strstr(c.msg, "(right: sm_90: TILE=32"));
	ck_assert_ptr_nonnull(strstr(c.try_, "TILE sweep table below"));
}
END_TEST

START_TEST(test_smaller_tile_on_sm90_fails)
{
	check_crit c = judge(edit("#define CHOSEN_TILE_SM90", "#define CHOSEN_TILE_SM90 16"),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "TILE=16 on sm_90: 8 groups of 256 work-items per SM = 64 of its "
	            "64 warp slots, 100% occupancy, limited by warps, 0.250 global bytes per FLOP; "
	            "another TILE of the sweep reaches the same occupancy with fewer global bytes per "
	            "FLOP");
	ck_assert_ptr_null(strstr(c.msg, "TILE=32"));
}
END_TEST

START_TEST(test_tile_64_does_not_launch)
{
	check_crit c = judge(edit("#define CHOSEN_TILE_SM90", "#define CHOSEN_TILE_SM90 64"),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "TILE=64 does not launch on sm_90: work_group_size needs 4096 "
	            "work-items, the limit is 1024");
}
END_TEST

START_TEST(test_quoted_value_says_remove_the_quotes)
{
	check_crit c = judge(edit("#define CHOSEN_TILE_SM90", "#define CHOSEN_TILE_SM90 \"32\""),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "CHOSEN_TILE_SM90 is written in quotes (\"32\"): remove the quotes");
	c = judge(edit("#define CHOSEN_LIMITER_SM86", "#define CHOSEN_LIMITER_SM86 'warps'"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "CHOSEN_LIMITER_SM86 is written in quotes ('warps'): remove the quotes");
}
END_TEST

START_TEST(test_defines_inside_comments_are_ignored)
{
	/* only in comments: no choice */
	check_crit c = judge(edit("#define CHOSEN_TILE_SM86", "// #define CHOSEN_TILE_SM86 16"),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "no choice recorded for sm_86");
	c = judge(edit("#define CHOSEN_TILE_SM86", "/* #define CHOSEN_TILE_SM86 16\n*/"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "no choice recorded for sm_86");
	/* a wrong value in a comment before the real one does not count */
	char src[2048];
	snprintf(src, sizeof src, "/* tried:\n#define CHOSEN_TILE_SM90 8\n */\n// #define "
	         "CHOSEN_TILE_SM86 32\n%s", RIGHT);
	assert_says(judge(src, "Portable Computing Language", 0), CRIT_PASS, "sm_90: TILE=32");
	/* a comment after the value is not part of it */
	c = judge(edit("#define CHOSEN_TILE_SM86", "#define CHOSEN_TILE_SM86 16 // six groups"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_PASS, "sm_86: TILE=16");
	/* a longer name is another macro */
	c = judge(edit("#define CHOSEN_TILE_SM86", "#define CHOSEN_TILE_SM860 16"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "no choice recorded for sm_86");
}
END_TEST

START_TEST(test_limiters)
{
	check_crit c = judge(edit("#define CHOSEN_LIMITER_SM86", "#define CHOSEN_LIMITER_SM86 groups"),
	                     "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "TILE=16 is the right choice for sm_86, but its occupancy limiter "
	            "is warps, not \"groups\": check `build/clgrade occupancy --profile nvidia-sm86 "
	            "--work-group 256 --local-bytes 2048 --registers 32`");
	/* at 32 registers, TILE=32 on sm_90 is bound by warps and registers alike: both count */
	c = judge(edit("#define CHOSEN_LIMITER_SM90", "#define CHOSEN_LIMITER_SM90 registers"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_PASS, "sm_90: TILE=32");
	c = judge(edit("#define CHOSEN_LIMITER_SM90", "#define CHOSEN_LIMITER_SM90 warps"),
	          "Portable Computing Language", 0);
	assert_says(c, CRIT_PASS, "sm_90: TILE=32");
	c = judge(edit("#define CHOSEN_LIMITER_SM90", ""), "Portable Computing Language", 0);
	assert_says(c, CRIT_FAIL, "not \"(missing)\"");
}
END_TEST

/* On NVIDIA the compiler's count replaces the assumption: at 64 registers per work-item an
 * sm_90 SM holds only 1 group of 1024 (its 65536 registers), so registers limit, not warps. */
START_TEST(test_measured_registers_show_their_cost)
{
	check_crit c = judge(RIGHT, "NVIDIA CUDA", 64);
	assert_says(c, CRIT_FAIL, "TILE=32 is the right choice for sm_90, but its occupancy limiter "
	            "is registers, not \"threads\"");
	/* on a CPU the same count is not the device's: the assumption stays */
	assert_says(judge(RIGHT, "Portable Computing Language", 64), CRIT_PASS, "assumed");
	/* at 64 registers every TILE of sm_86 gets 67 %: the largest wins there too */
	check_report rep;
	memset(&rep, 0, sizeof rep);
	rep.opts.l = lesson_find("4");
	snprintf(rep.child.dev.platform, sizeof rep.child.dev.platform, "NVIDIA CUDA");
	rep.child.registers = 64;
	ck_assert_int_eq(tile_best(&rep, occ_profile_find("nvidia-sm86")), 32);
	ck_assert_int_eq(tile_best(&rep, occ_profile_find("nvidia-sm90")), 32);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tilechoice");
	TCase *t = tcase_create("tile_choice");
	tcase_add_test(t, test_answers_differ_between_profiles);
	tcase_add_test(t, test_right_choice_passes);
	tcase_add_test(t, test_largest_tile_on_sm86_fails_with_the_numbers);
	tcase_add_test(t, test_smaller_tile_on_sm90_fails);
	tcase_add_test(t, test_tile_64_does_not_launch);
	tcase_add_test(t, test_quoted_value_says_remove_the_quotes);
	tcase_add_test(t, test_defines_inside_comments_are_ignored);
	tcase_add_test(t, test_limiters);
	tcase_add_test(t, test_measured_registers_show_their_cost);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
