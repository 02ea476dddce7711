/* test_reduction.c — integration tests of lesson 5 (05-reduction): the reference solution
 * passes every criterion, speed judged from the predicted H200 times, with the copy kernel
 * timed beside it; the starter and each fixture of a wrong step fail their named criterion.  Real build/clgrade on real
 * PoCL and real Oclgrind, run as a subprocess; the JSON report and the terminal text are read. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "itest.h"

/* `build/clgrade check LESSON KERNEL --seed 1 --json tmp EXTRA`, wide terminal text. */
static const char *field(const itest_graded *g, const char *id, const char *k)
{
	cJSON *c = itest_crit(g, id);
	const char *m = c ? cJSON_GetStringValue(cJSON_GetObjectItem(c, k)) : NULL;
	return m ? m : "";
}

#define FX "tests/fixtures/"

static const char *status(const itest_graded *g, const char *id) { return field(g, id, "status"); }

START_TEST(solution_passes)
{
	itest_graded g = itest_grade("5", "kernels/solutions/05-reduction.cl", NULL);
	ck_assert_msg(g.exit == 0, "exit %d:\n%s", g.exit, g.text);
	const char *ids[] = { "builds", "runs", "correct", "memory_safe", "race_free",
	                      "uses_local_memory", "conflict_free", "speedup" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		ck_assert_msg(strcmp(status(&g, ids[i]), "pass") == 0, "%s: %s", ids[i], g.text);
	/* speed judged from the predicted H200 times on a CPU: four loads in flight per turn
	 * reach the DRAM's rate (1.56x measured on an H200, bar 1.30x) */
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(itest_crit(&g, "speedup"), "predicted")));
	cJSON *pr = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "timing"), "predicted");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pr, "limiter")), "dram");
	/* sizes 1, 255, 257, 4099, 1000003, 1400017, 1573125, 2621447 and the timing size */
	cJSON *sizes = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "correctness"), "sizes");
	ck_assert_int_eq(cJSON_GetArraySize(sizes), 9);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(sizes, 0), 1)->valueint, 1);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(sizes, 4), 1)->valueint, 1000003);
	/* bandwidth next to a copy of the same bytes, timed in the same run */
	cJSON *t = cJSON_GetObjectItem(g.json, "timing");
	ck_assert(cJSON_IsObject(t));
	double gbps = cJSON_GetObjectItem(t, "gbps")->valuedouble;
	double copy = cJSON_GetObjectItem(t, "copy_gbps")->valuedouble;
	double frac = cJSON_GetObjectItem(t, "fraction_of_copy")->valuedouble;
	ck_assert(gbps > 0 && copy > 0);
	ck_assert(fabs(frac - gbps / copy) < 1e-6 * frac);
	ck_assert_ptr_nonnull(strstr(g.text, "a copy of the same bytes in the same run"));
	/* a 1-D work-group of TILE = 256 work-items in the occupancy rows */
	cJSON *occ = cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "occupancy"), 0);
	ck_assert_int_eq(cJSON_GetObjectItem(occ, "work_group")->valueint, 256);
	itest_done(&g);
}
END_TEST

START_TEST(starter_fails_correct)
{
	itest_graded g = itest_grade("5", "kernels/starter/05-reduction.cl", "--no-analysis");
	ck_assert_int_eq(g.exit, 1);
	ck_assert_str_eq(status(&g, "correct"), "fail");
	itest_done(&g);
}
END_TEST

/* Each wrong step of the lesson fails the criterion its fixture names. */
static const struct { const char *file, *crit, *says, *extra; } steps[] = {
	{ FX "l5_no_barrier.cl", "race_free", "data race", NULL },
	{ FX "l5_divergent_barrier.cl", "race_free", "divergence", NULL },
	{ FX "l5_lost_tail.cl", "correct", "either the load stops before n", "--no-analysis" },
	{ FX "l5_strided.cl", "conflict_free", "8-way bank-conflicted", NULL },
	{ FX "l5_warp_sync.cl", "race_free", "data race", NULL },
	/* found by the attack review: a 4-way unrolled loop's guards and accumulators, and a
	 * kernel with no loop, wrong only where a work-item adds 3, 4 or more elements */
	{ FX "l5_unroll_guard_2g_oob.cl", "memory_safe", "killed by signal", "--no-analysis" },
	{ FX "l5_unroll_le_oob.cl", "correct", "at n=1573125", "--no-analysis" },
	{ FX "l5_shift_a3.cl", "correct", "some elements are missing or counted twice", "--no-analysis" },
	{ FX "l5_drop_a3.cl", "correct", "some elements are missing or counted twice", "--no-analysis" },
	{ FX "l5_dup_a2.cl", "correct", "some elements are missing or counted twice", "--no-analysis" },
	{ FX "l5_harris4_two_loads.cl", "correct", "some elements are missing or counted twice",
	  "--no-analysis" },
	{ FX "l5_token_local_serial.cl", "uses_local_memory", "fewer than 128", NULL },
	{ FX "l5_fixed8_loads.cl", "correct", "some elements are missing or counted twice",
	  "--no-analysis" },
};

/* Issue 19: kernels right in every way the CPU can check, whose one load per turn keeps too
 * few bytes in flight on a GPU (0.94-0.95x the baseline measured on an H200, bar 1.30x): on
 * PoCL they fail speedup, judged from the prediction, and nothing else. */
static const char *one_load[] = { FX "l5_step1_interleaved.cl", FX "l5_one_load_sequential.cl",
                                  FX "l5_serial_item0.cl",
                                  /* four loads a turn, each waiting for the last one's
                                   * value: by its guard, through a private array, the loop's
                                   * variable or a __local slot, in a constant loop or written
                                   * out: 0.95-1.16x on the H200 (guarded-h200-2026-12-01.txt) */
                                  FX "l5_guard_needs_load.cl", FX "l5_chain_private.cl",
                                  FX "l5_chain_phi.cl", FX "l5_chain_local.cl",
                                  FX "l5_chain_guard_loop.cl", FX "l5_chain_straight_private.cl",
                                  /* the hostile review of those rules (tests/attacks4): a
                                   * switch, a __local pointer's alias */
                                  FX "l5_switch_chain.cl",
                                  FX "l5_chain_local_alias.cl", FX "l5_chain_straight_alias.cl",
                                  /* loads the code holds but never runs */
                                  FX "l5_dead_guarded_loads.cl",
                                  /* a counter that may wrap (uint, or size_t cut to int): no
                                   * trip count, no unrolling at run time, 1.00x on the H200
                                   * (stride-h200-2026-12-01.txt) */
                                  FX "l5_stride_uint_for.cl", FX "l5_stride_sizet_dowhile.cl",
                                  /* an int stride under `#pragma unroll 1`: 1.02x
                                   * (stride2-h200-2026-12-02.txt) */
                                  FX "l5_stride_int_nounroll.cl" };

START_TEST(one_load_per_turn_fails_only_predicted_speedup)
{
	itest_graded g = itest_grade("5", one_load[_i], NULL);
	ck_assert_msg(g.exit == 1, "%s: exit %d:\n%s", one_load[_i], g.exit, g.text);
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(g.json, "criteria")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
		ck_assert_msg(strcmp(status(&g, id), strcmp(id, "speedup") ? "pass" : "fail") == 0,
		              "%s: %s is %s:\n%s", one_load[_i], id, status(&g, id), g.text);
	}
	cJSON *sp = itest_crit(&g, "speedup");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(sp, "predicted")));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(sp, "scored")));
	ck_assert_msg(strstr(field(&g, "speedup", "message"), "too few loads in flight"), "%s",
	              field(&g, "speedup", "message"));
	cJSON *pr = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "timing"), "predicted");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pr, "limiter")), "loads_in_flight");
	ck_assert_double_lt(cJSON_GetObjectItem(pr, "speedup")->valuedouble, 1.30);
	itest_done(&g);
}
END_TEST

/* Costs of the kernel's own that the problem does not need, each timed on the H200: the
 * solution plus 512 dependent FMAs per turn (as fma, `z * z + z`, mad, float4 and double;
 * 0.11-0.32 ms, 0.35-1.06x: alu-h200-2026-12-01.txt), and a private array indexed at run time
 * that a GPU keeps in local memory (acc[256], acc[32]: 0.39 and 0.116 ms, 0.29 and 0.96x;
 * private-h200-2026-12-01.txt).  On PoCL the predicted speedup fails, limited by what they
 * cost, its try naming the line; nothing else fails. */
static const struct { const char *file, *line, *limiter, *words; } own_cost[] = {
	{ FX "l5_alu_chain.cl", "line 16:", "flops", "more than the result needs" },
	{ FX "l5_alu_chain_muladd.cl", "line 16:", "flops", "more than the result needs" },
	{ FX "l5_alu_chain_mad.cl", "line 16:", "flops", "more than the result needs" },
	{ FX "l5_alu_chain_float4.cl", "line 17:", "flops", "more than the result needs" },
	{ FX "l5_alu_chain_double.cl", "line 16:", "flops", "more than the result needs" },
	{ FX "l5_private_spill.cl", "line 15:", "dram", "indexes a private array" },
	{ FX "l5_private_spill32.cl", "line 14:", "dram", "indexes a private array" },
	/* special functions and integer division (tests/attacks4's review; not timed on a GPU:
	 * one MUFU operation a call at 16 a clock per SM is a lower bound of their cost) */
	{ FX "l5_sqrt_chain.cl", "line 14:", "flops", "special-function work" },
	{ FX "l5_exp_chain.cl", "line 14:", "flops", "special-function work" },
	{ FX "l5_fdiv_chain.cl", "line 15:", "flops", "special-function work" },
	{ FX "l5_idiv_chain.cl", "line 15:", "flops", "integer arithmetic" },
};

START_TEST(own_cost_fails_only_predicted_speedup)
{
	const char *f = own_cost[_i].file;
	itest_graded g = itest_grade("5", f, NULL);
	ck_assert_msg(g.exit == 1, "%s: exit %d:\n%s", f, g.exit, g.text);
	cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(g.json, "criteria")) {
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "id"));
		ck_assert_msg(strcmp(status(&g, id), strcmp(id, "speedup") ? "pass" : "fail") == 0,
		              "%s: %s is %s:\n%s", f, id, status(&g, id), g.text);
	}
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(itest_crit(&g, "speedup"), "predicted")));
	cJSON *pr = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "timing"), "predicted");
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(pr, "limiter")),
	                 own_cost[_i].limiter);
	const char *t = field(&g, "speedup", "try");
	ck_assert_msg(strncmp(t, own_cost[_i].line, strlen(own_cost[_i].line)) == 0 &&
	              strstr(t, own_cost[_i].words), "%s: %s", f, t);
	itest_done(&g);
}
END_TEST

/* Correct designs other than the lesson's own pass (kernels from the attack reviews): a
 * half-group first add, and four loads in flight written behind guards, ternaries, a constant
 * loop of guarded loads or #pragma unroll, each 1.63-1.68x the baseline on the H200
 * (tests/gpu/results/guarded-h200-2026-12-01.txt), so predicted at the bar or above. */
static const char *right[] = { FX "l5_half_group_first_add.cl", FX "l5_guarded_loads.cl",
                               FX "l5_guarded_ternary.cl", FX "l5_guarded_loop4.cl",
                               FX "l5_pragma_unroll.cl",
                               /* a private acc[8] indexed at run time fits the L1: 1.66x */
                               FX "l5_private_spill8.cl",
                               /* builtins that touch no memory: `a += x * w`, fma() */
                               FX "l5_fmuladd_scaled.cl", FX "l5_fma_interleaved.cl",
                               /* four chains of two loads in a constant loop overlap */
                               FX "l5_four_short_chains.cl",
                               /* one load a turn with an int stride: unrolled at run time,
                                * 1.65-1.67x on the H200 (stride-h200-2026-12-01.txt,
                                * attacks4-h200-2026-12-01.txt) */
                               FX "l5_stride_int_for.cl", FX "l5_stride_int_dowhile.cl",
                               /* two and three loads a turn: 1.43x and 1.63x
                                * (stride2-h200-2026-12-02.txt) */
                               FX "l5_stride_int_two.cl", FX "l5_stride_int_three.cl",
                               /* one load and more arithmetic, 13 and 19 instructions:
                                * 1.70x (stride3-h200-2026-12-02.txt) */
                               FX "l5_stride_int_body13.cl", FX "l5_stride_int_body19.cl",
                               FX "l5_exit_block_loads.cl", FX "l5_first_turns_fast.cl" };

START_TEST(other_right_design_passes)
{
	itest_graded g = itest_grade("5", right[_i], NULL);
	ck_assert_msg(g.exit == 0, "%s: exit %d:\n%s", right[_i], g.exit, g.text);
	cJSON *pr = cJSON_GetObjectItem(cJSON_GetObjectItem(g.json, "timing"), "predicted");
	ck_assert_msg(cJSON_GetObjectItem(pr, "speedup")->valuedouble >= 1.30, "%s:\n%s", right[_i],
	              g.text);
	itest_done(&g);
}
END_TEST

START_TEST(wrong_step_fails)
{
	itest_graded g = itest_grade("5", steps[_i].file, steps[_i].extra);
	ck_assert_msg(g.exit == 1, "%s: exit %d:\n%s", steps[_i].file, g.exit, g.text);
	ck_assert_msg(strcmp(status(&g, steps[_i].crit), "fail") == 0, "%s: %s is %s:\n%s",
	              steps[_i].file, steps[_i].crit, status(&g, steps[_i].crit), g.text);
	ck_assert_msg(strstr(field(&g, steps[_i].crit, "message"), steps[_i].says) != NULL,
	              "%s: %s", steps[_i].file, field(&g, steps[_i].crit, "message"));
	itest_done(&g);
}
END_TEST

/* A correct kernel with float4 loads: Oclgrind's uninitialised-value checker dies with SIGSEGV
 * on them; the analysis runs again without that checker and the kernel passes, with a note. */
static const char *vector_loads[] = { FX "l5_float4_loads.cl", FX "l5_vload4_loads.cl" };

START_TEST(vector_loads_pass)
{
	itest_graded g = itest_grade("5", vector_loads[_i], NULL);
	ck_assert_msg(g.exit == 0, "exit %d:\n%s", g.exit, g.text);
	const char *ids[] = { "memory_safe", "race_free", "conflict_free" };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		ck_assert_msg(strcmp(status(&g, ids[i]), "pass") == 0, "%s: %s", ids[i], g.text);
	ck_assert_msg(strstr(g.text, "uninitialised-value checker failed") != NULL, "%s", g.text);
	itest_done(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reduction");
	TCase *tc = tcase_create("lesson5");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, solution_passes);
	tcase_add_test(tc, starter_fails_correct);
	tcase_add_loop_test(tc, vector_loads_pass, 0, 2);
	tcase_add_loop_test(tc, wrong_step_fails, 0, (int)(sizeof steps / sizeof steps[0]));
	tcase_add_loop_test(tc, own_cost_fails_only_predicted_speedup, 0,
	                    (int)(sizeof own_cost / sizeof own_cost[0]));
	tcase_add_loop_test(tc, other_right_design_passes, 0, (int)(sizeof right / sizeof right[0]));
	tcase_add_loop_test(tc, one_load_per_turn_fails_only_predicted_speedup, 0,
	                    (int)(sizeof one_load / sizeof one_load[0]));
	suite_add_tcase(s, tc);
	return itest_run(s);
}
