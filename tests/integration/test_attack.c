/* test_attack.c — false verdicts found by attacking the grader with kernels the team did not
 * write (single-edit mutants of the solutions, tutorial-style kernels).  Each fixture here once
 * got a wrong verdict; the test runs the real build/clgrade on real PoCL and asserts the right
 * one.  tile_choice reads the #defines from the text, so the analysis (Oclgrind) is skipped to
 * keep the runtime low: it does not take part in this criterion. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itest.h"
#include <cjson/cJSON.h>

#define FX "tests/fixtures/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n)
		n = 0;
	s[n] = '\0';
	fclose(f);
	return s;
}

/* Grade lesson 4's kernel; the exit code, the JSON report (caller frees) in *json. */
static int grade4(const char *kernel, cJSON **json)
{
	char path[] = "/tmp/clgrade-attack-XXXXXX", cmd[1024];
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "NO_COLOR=1 build/clgrade check 4 %s --seed 1 --timeout 60 "
	         "--no-analysis --json %s > /dev/null 2>&1", kernel, path);
	int st = system(cmd);
	char *j = slurp(path);
	unlink(path);
	*json = j ? cJSON_Parse(j) : NULL;
	free(j);
	ck_assert_msg(*json != NULL, "no JSON report for %s", kernel);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static cJSON *crit(cJSON *json, const char *id)
{
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(json, "criteria"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "id")), id) == 0)
			return c;
	return NULL;
}

static const char *const twice[][3] = {
	/* right answers in #if 0, TILE=8 live: it passed, reading the dead block */
	{ FX "l4_choice_in_if0.cl", "fail", "CHOSEN_TILE_SM90 is defined more than once" },
	/* right answers, then #undef + #define CHOSEN_TILE_SM86 32: it passed on the first one */
	{ FX "l4_choice_redefined.cl", "fail", "CHOSEN_TILE_SM86 is defined more than once" },
	/* right answers only inside #if 0: it passed, reading the text, not what the compiler sees */
	{ FX "l4_choice_only_in_if0.cl", "fail", "only where the compiler never reaches it" },
	/* right answers inside #ifdef TILE, one as (32): the compiler sees them; it failed with
	 * "no choice recorded (now: (32))" */
	{ FX "l4_choice_in_ifdef_parens.cl", "pass", "sm_90: TILE=32" },
	/* a choice that depends on TILE: read at TILE=16 only, both passed */
	{ FX "l4_choice_is_tile.cl", "fail", "CHOSEN_TILE_SM86 depends on TILE" },
	{ FX "l4_choice_if_tile16.cl", "fail", "but no definition at TILE=8" },
	/* a 40 KiB scratch array beside the tiles: sm_86's answer moves to 32; it passed, the
	 * occupancy judged with two tiles only */
	{ FX "l4_big_local_choice.cl", "fail", "TILE=16 on sm_86: 2 groups of 256 work-items per "
	  "SM = 16 of its 48 warp slots, 33% occupancy, limited by local_memory" },
};

START_TEST(choice_defined_twice_fails_tile_choice)
{
	cJSON *json;
	int rc = grade4(twice[_i][0], &json);
	cJSON *c = crit(json, "tile_choice");
	ck_assert_ptr_nonnull(c);
	const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
	ck_assert_msg(status && strcmp(status, twice[_i][1]) == 0, "%s: tile_choice %s, expected %s",
	              twice[_i][0], status ? status : "(none)", twice[_i][1]);
	const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(c, "message"));
	ck_assert_msg(msg && strstr(msg, twice[_i][2]), "%s: message \"%s\" lacks \"%s\"",
	              twice[_i][0], msg ? msg : "", twice[_i][2]);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(json, "verdict")), twice[_i][1]);
	ck_assert_int_eq(rc, strcmp(twice[_i][1], "pass") == 0 ? 0 : 1);
	cJSON_Delete(json);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("attack");
	TCase *t = tcase_create("tile_choice");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, choice_defined_twice_fails_tile_choice, 0,
	                    (int)(sizeof twice / sizeof twice[0]));
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return itest_run(suite());
}
