/* test_gpumodel.c — Check tests for the GPU time model (grader/gpumodel.c) and the loads in
 * flight from the instruction stream (grader/irmlp.c).
 *
 * The summaries are written by hand in the tracer's schema (trace.h) with the figures the
 * tracer gives the lesson kernels at their model sizes; the expected times are worked out in
 * the comments from the nvidia-sm90 constants (GUIDE.md "Predicted GPU time"). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpumodel.h"
#include "irmlp.h"

/* ---- irmlp ------------------------------------------------------------------------------- */

static int ids[64];
#define V(i) ((const void *)&ids[i])

START_TEST(test_mlp_independent)
{
	/* for (...) { a0 += in[i]; a1 += in[i+g]; a2 += in[i+2g]; a3 += in[i+3g]; } */
	irmlp *m = irmlp_new();
	const void *addr[] = { V(1) };
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_step(m, IRMLP_OTHER, V(1), NULL, 0);            /* i + g */
	for (int k = 0; k < 4; k++)
		irmlp_step(m, IRMLP_LOAD, V(10 + k), addr, 1);
	for (int k = 0; k < 4; k++) {
		const void *use[] = { V(10 + k), V(20 + k) };
		irmlp_step(m, IRMLP_OTHER, V(30 + k), use, 2);  /* a_k += load_k */
	}
	irmlp_end(m);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(irmlp_of(m, V(10 + k)), 4);
	ck_assert_int_eq(irmlp_of(m, V(40)), 0);
	irmlp_free(m);
}
END_TEST

START_TEST(test_mlp_dependent_and_fences)
{
	/* j = idx[i]; x = in[j * 2];  then a barrier, then two loads in another block */
	irmlp *m = irmlp_new();
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(1), NULL, 0);
	const void *u1[] = { V(1) }, *u2[] = { V(2) };
	irmlp_step(m, IRMLP_OTHER, V(2), u1, 1);              /* j * 2: depends on the load */
	irmlp_step(m, IRMLP_LOAD, V(3), u2, 1);               /* needs it: a new group */
	irmlp_step(m, IRMLP_FENCE, V(4), NULL, 0);            /* barrier */
	irmlp_step(m, IRMLP_LOAD, V(5), NULL, 0);
	irmlp_step(m, IRMLP_BLOCK, V(6), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(7), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(8), NULL, 0);
	irmlp_end(m);
	ck_assert_int_eq(irmlp_of(m, V(1)), 1);
	ck_assert_int_eq(irmlp_of(m, V(3)), 1);
	ck_assert_int_eq(irmlp_of(m, V(5)), 1);
	ck_assert_int_eq(irmlp_of(m, V(7)), 2);
	ck_assert_int_eq(irmlp_of(m, V(8)), 2);
	irmlp_reset(m);
	ck_assert_int_eq(irmlp_of(m, V(7)), 0);
	irmlp_free(m);
}
END_TEST

START_TEST(test_mlp_predicated_if)
{
	/* for (...) { s += in[i]; if (i + h < n) s += in[i + h]; }: the body of the short if
	 * joins the load before it, unless its condition needs that load's value */
	irmlp *m = irmlp_new();
	const void *cond[] = { V(3) }, *use[] = { V(1) }, *tc[] = { V(12) };
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(1), NULL, 0);
	irmlp_step(m, IRMLP_OTHER, V(2), use, 1);             /* s += in[i] */
	irmlp_step(m, IRMLP_OTHER, V(3), NULL, 0);            /* i + h < n */
	irmlp_step(m, IRMLP_BLOCK_IF, V(4), cond, 1);
	irmlp_step(m, IRMLP_LOAD, V(5), NULL, 0);
	irmlp_step(m, IRMLP_BLOCK, V(6), NULL, 0);            /* the join */
	/* if (in[j] > 0) x += in[k]: the condition needs the load, a new group */
	irmlp_step(m, IRMLP_LOAD, V(11), NULL, 0);
	const void *u11[] = { V(11) };
	irmlp_step(m, IRMLP_OTHER, V(12), u11, 1);
	irmlp_step(m, IRMLP_BLOCK_IF, V(13), tc, 1);
	irmlp_step(m, IRMLP_LOAD, V(14), NULL, 0);
	irmlp_end(m);
	ck_assert_int_eq(irmlp_of(m, V(1)), 2);
	ck_assert_int_eq(irmlp_of(m, V(5)), 2);
	ck_assert_int_eq(irmlp_of(m, V(11)), 1);
	ck_assert_int_eq(irmlp_of(m, V(14)), 1);
	irmlp_free(m);
}
END_TEST

START_TEST(test_mlp_guarded_chain)
{
	/* if (i < n) a0 += in[i]; if (i + g < n) a1 += in[i + g]; ...: each body and the block
	 * where it rejoins go on with the open group (four loads, one group), and a phi merging a
	 * body's load stays tainted: a guard that reads it closes the group */
	irmlp *m = irmlp_new();
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);            /* the loop's head */
	for (int k = 0; k < 4; k++) {
		const void *cond[] = { V(20 + k) };
		irmlp_step(m, IRMLP_OTHER, V(20 + k), NULL, 0);   /* i + k*g < n */
		irmlp_step(m, IRMLP_BLOCK_IF, V(30 + k), cond, 1);
		irmlp_step(m, IRMLP_LOAD, V(10 + k), NULL, 0);
		irmlp_step(m, IRMLP_BLOCK_JOIN, V(40 + k), NULL, 0);
		const void *phi[] = { V(10 + k) };
		irmlp_step(m, IRMLP_OTHER, V(50 + k), phi, 1);    /* a_k = phi(a_k + load, a_k) */
	}
	/* a guard on the merged value: if (a3 > 0) x += in[j] */
	const void *g[] = { V(53) };
	irmlp_step(m, IRMLP_BLOCK_IF, V(60), g, 1);
	irmlp_step(m, IRMLP_LOAD, V(61), NULL, 0);
	irmlp_end(m);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(irmlp_of(m, V(10 + k)), 4);
	ck_assert_int_eq(irmlp_of(m, V(61)), 1);
	irmlp_free(m);
}
END_TEST

START_TEST(test_mlp_unrolled_loop)
{
	/* for (k = 0; k < 4; k++) if (i + k*g < n) a[k] += in[i + k*g], a loop a GPU's compiler
	 * unrolls: its one load counts 4 times; after it, a runtime loop's load counts once */
	irmlp *m = irmlp_new();
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_times(m, 4);
	irmlp_step(m, IRMLP_BLOCK_JOIN, V(1), NULL, 0);       /* the unrolled loop's head */
	irmlp_step(m, IRMLP_LOAD, V(2), NULL, 0);
	irmlp_times(m, 1);
	irmlp_step(m, IRMLP_BLOCK, V(3), NULL, 0);            /* a runtime loop's head */
	irmlp_step(m, IRMLP_LOAD, V(4), NULL, 0);
	irmlp_end(m);
	ck_assert_int_eq(irmlp_of(m, V(2)), 4);
	ck_assert_int_eq(irmlp_of(m, V(4)), 1);
	irmlp_reset(m);                                       /* the next kernel starts at 1 */
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(5), NULL, 0);
	irmlp_end(m);
	ck_assert_int_eq(irmlp_of(m, V(5)), 1);
	irmlp_free(m);
}
END_TEST

START_TEST(test_mlp_through_private_memory)
{
	/* a[k] = in[i + (int)(a[k-1] * 0)]: the loaded value goes into the private array a and
	 * the next address reads it back, so the next load waits (a new group); a value that
	 * needs no load leaves the array untainted */
	irmlp *m = irmlp_new();
	const void *st1[] = { V(1), V(50) }, *rd[] = { V(51), V(50) }, *addr[] = { V(2) };
	const void *st2[] = { V(9), V(60) }, *rd2[] = { V(61), V(60) }, *addr2[] = { V(11) };
	irmlp_step(m, IRMLP_BLOCK, V(0), NULL, 0);
	irmlp_step(m, IRMLP_LOAD, V(1), NULL, 0);
	irmlp_step(m, IRMLP_STORE, V(20), st1, 2);            /* a[k] = load */
	irmlp_step(m, IRMLP_OTHER, V(2), rd, 2);              /* a[k-1], read back */
	irmlp_step(m, IRMLP_LOAD, V(3), addr, 1);             /* in[i + (int)(a[k-1] * 0)] */
	irmlp_step(m, IRMLP_BLOCK, V(4), NULL, 0);
	irmlp_step(m, IRMLP_OTHER, V(9), NULL, 0);            /* i + g: no load */
	irmlp_step(m, IRMLP_STORE, V(21), st2, 2);
	irmlp_step(m, IRMLP_LOAD, V(10), NULL, 0);
	irmlp_step(m, IRMLP_OTHER, V(11), rd2, 2);
	irmlp_step(m, IRMLP_LOAD, V(12), addr2, 1);
	irmlp_end(m);
	ck_assert_int_eq(irmlp_of(m, V(1)), 1);
	ck_assert_int_eq(irmlp_of(m, V(3)), 1);
	ck_assert_int_eq(irmlp_of(m, V(10)), 2);
	ck_assert_int_eq(irmlp_of(m, V(12)), 2);
	irmlp_free(m);
}
END_TEST

/* ---- gpum_predict ------------------------------------------------------------------------ */

static cJSON *gsite(int line, const char *access, double accesses, double winstr, double lanes,
                    double lines, double sectors, double bytes, int mlp)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "line", line);
	cJSON_AddNumberToObject(s, "column", 1);
	cJSON_AddStringToObject(s, "access", access);
	cJSON_AddNumberToObject(s, "accesses", accesses);
	cJSON_AddNumberToObject(s, "warp_instructions", winstr);
	cJSON_AddNumberToObject(s, "lanes", lanes);
	cJSON_AddNumberToObject(s, "lines", lines);
	cJSON_AddNumberToObject(s, "sectors", sectors);
	cJSON_AddNumberToObject(s, "bytes", bytes);
	if (mlp)
		cJSON_AddNumberToObject(s, "mlp", mlp);
	return s;
}

static cJSON *lsite(int line, const char *access, double accesses, double winstr, double lanes,
                    double wavefronts, double ideal)
{
	cJSON *s = cJSON_CreateObject(), *p = cJSON_CreateObject(), *nv = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "line", line);
	cJSON_AddNumberToObject(s, "column", 1);
	cJSON_AddStringToObject(s, "access", access);
	cJSON_AddNumberToObject(s, "accesses", accesses);
	cJSON_AddNumberToObject(s, "warp_instructions", winstr);
	cJSON_AddNumberToObject(s, "lanes", lanes);
	cJSON_AddNumberToObject(nv, "wavefronts", wavefronts);
	cJSON_AddNumberToObject(nv, "ideal_wavefronts", ideal);
	cJSON_AddItemToObject(p, "nvidia", nv);
	cJSON_AddItemToObject(s, "profiles", p);
	return s;
}

static cJSON *summary(double groups, double rounds)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "groups_priced", groups);
	cJSON_AddNumberToObject(s, "load_rounds", rounds);
	cJSON_AddArrayToObject(s, "local_sites");
	cJSON_AddArrayToObject(s, "global_sites");
	return s;
}

static void add(cJSON *sum, const char *list, cJSON *site)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(sum, list), site);
}

/* Naive matmul, model launch 32 x 32 at TILE 16 (1024 work-items, 4 groups): per k each warp
 * (16 columns x 2 rows) loads A (2 words, 2 lines) and B (16 words, 1 line), both in flight
 * together.  At 2048^2: (2 + 1) lines x 131072 warps x 2048 k + 131072 warps x 2 lines of the
 * store = 805.6 M wavefronts / (132 x 1.98 GHz) = 3.082 ms, plus 16 waves x 1 round x 145.3 ns.
 * Measured on the H200: 3.178 ms. */
START_TEST(test_naive_matmul)
{
	cJSON *s = summary(4, 4);
	add(s, "global_sites", gsite(12, "load", 32768, 1024, 32768, 2048, 2048, 131072, 2));
	add(s, "global_sites", gsite(12, "load", 32768, 1024, 32768, 1024, 2048, 131072, 2));
	add(s, "global_sites", gsite(13, "store", 1024, 32, 1024, 64, 64, 4096, 0));
	gpum_launch l = { .items_m = 1024, .items_t = 2048.0 * 2048, .groups_t = 16384,
	                  .group_size = 256, .trips_m = 32, .trips_t = 2048,
	                  .flops_t = 2.0 * 2048 * 2048 * 2048, .bytes_in_t = 2.0 * 2048 * 2048 * 4,
	                  .bytes_out_t = 2048.0 * 2048 * 4, .groups_per_sm = 8 };
	gpum_result r;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	double wf = 3.0 * 131072 * 2048 + 131072 * 2;
	ck_assert_double_eq_tol(r.wavefronts, wf, 1);
	ck_assert_double_eq_tol(r.ms, 1e3 * wf / (132 * 1.98e9) + 1e3 * 16 * 145.3e-9, 1e-6);
	ck_assert_str_eq(r.limiter_key, "l1_pipe");
	ck_assert_int_eq(r.nlines, 0);              /* every warp full */
	ck_assert_double_eq_tol(r.efficiency, 1.0, 1e-9);
	cJSON_Delete(s);
}
END_TEST

/* Lesson 5 at 2^26 over 2048 groups of 256, model launch 2^14 over 2 groups: one load per turn
 * (32 turns per work-item) against four.  Bytes in flight: 132 SMs x 64 warps x 128 B x loads;
 * one load: 2^28 B x 0.457 us / 1.08 MB = 0.1135 ms (too few loads in flight); four: the DRAM
 * rate decides, 2^28 B / 3.96 TB/s = 0.0678 ms. */
static gpum_result reduction(int mlp, int loads_per_turn, double tree_lanes)
{
	cJSON *s = summary(2, 2);
	double turns = 32.0 / loads_per_turn;
	for (int k = 0; k < loads_per_turn; k++)
		add(s, "global_sites", gsite(10 + k, "load", 512 * turns, 16 * turns, 512 * turns,
		                             16 * turns, 64 * turns, 2048 * turns, mlp));
	add(s, "global_sites", gsite(20, "store", 2, 2, 2, 2, 2, 8, 0));
	/* the tree: 8 rounds, 16 warp instructions each with tree_lanes active lanes on average */
	add(s, "local_sites", lsite(16, "load", 510, 2 * 8 * 8, tree_lanes * 2 * 8 * 8, 128, 128));
	gpum_launch l = { .items_m = 512, .items_t = 524288, .groups_t = 2048, .group_size = 256,
	                  .trips_m = 32, .trips_t = 128, .bytes_in_t = 268435456.0,
	                  .bytes_out_t = 8192, .groups_per_sm = 8 };
	gpum_result r;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	cJSON_Delete(s);
	return r;
}

START_TEST(test_reduction_loads_in_flight)
{
	gpum_result one = reduction(1, 1, 32), four = reduction(4, 4, 32);
	ck_assert_str_eq(one.limiter_key, "loads_in_flight");
	ck_assert_double_eq_tol(one.ms, 1e3 * 268435456.0 * 0.457e-6 / (132 * 64 * 128.0), 1e-6);
	ck_assert_str_eq(four.limiter_key, "dram");
	ck_assert_double_eq_tol(four.ms, 1e3 * (268435456.0 + 8192) / 3.96e12, 1e-6);
	ck_assert_int_eq(four.mlp, 4);
	ck_assert(one.ms / four.ms > 1.30);           /* the lesson's bar */
}
END_TEST

/* The kernel's own arithmetic: the solution's loads plus 512 FMAs per turn of 4 elements in
 * its loop (an arith site run 8 times per work-item, 1024 flops each time): scaled like its
 * loads, 2^26 / 4 x 1024 flops = 1.7e10 at 66.9 TFLOP/s = 0.257 ms, above the DRAM's 0.068 */
START_TEST(test_counted_arithmetic)
{
	cJSON *s = summary(2, 2);
	for (int k = 0; k < 4; k++)
		add(s, "global_sites", gsite(10 + k, "load", 512 * 8, 16 * 8, 512 * 8, 16 * 8,
		                             64 * 8, 2048 * 8, 4));
	add(s, "global_sites", gsite(20, "store", 2, 2, 2, 2, 2, 8, 0));
	cJSON *a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "line", 16);
	cJSON_AddNumberToObject(a, "column", 17);
	cJSON_AddNumberToObject(a, "accesses", 512 * 8 * 512);
	cJSON_AddNumberToObject(a, "flops", 512 * 8 * 1024);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "arith_sites"), a);
	gpum_launch l = { .items_m = 512, .items_t = 524288, .groups_t = 2048, .group_size = 256,
	                  .trips_m = 32, .trips_t = 128, .bytes_in_t = 268435456.0,
	                  .bytes_out_t = 8192, .groups_per_sm = 8 };
	gpum_result r;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	ck_assert_str_eq(r.limiter_key, "flops");
	double flops = 524288.0 * 8 * 1024 * (128.0 / 32);
	ck_assert_double_eq_tol(r.counted_flops, flops, 1);
	ck_assert_double_eq_tol(r.ms, 1e3 * flops / 66.9e12, 1e-9);
	ck_assert_int_eq(r.flops_line, 16);
	ck_assert_double_eq_tol(r.flops_share, 1.0, 1e-12);
	/* the same operations on the special-function units (sqrt, exp, division): 16 a clock
	 * per SM, one per operation */
	cJSON_AddStringToObject(a, "pipe", "sfu");
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	ck_assert_int_eq(r.arith_pipe, 1);
	ck_assert_double_eq_tol(r.ms, 1e3 * flops / (132 * 16 * 1.98e9), 1e-9);
	ck_assert_ptr_nonnull(strstr(r.limiter_text, "special-function"));
	cJSON_ReplaceItemInObject(a, "pipe", cJSON_CreateString("fp32"));
	/* the problem's own FLOPs still count when the kernel's are fewer (matmul) */
	l.flops_t = 2 * flops;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	ck_assert_double_eq_tol(r.ms, 1e3 * 2 * flops / 66.9e12, 1e-9);
	cJSON_Delete(s);
}
END_TEST

/* A private array in local memory: one site in the loop (8 accesses per work-item, 4 B each)
 * of an array of acc floats per work-item; 8 groups of 256 resident an SM.  acc[256]: 1 KB x
 * 2048 > 256 KB, the traffic goes at the DRAM's rate; acc[8]: 64 KB fits the L1, only L1
 * lines. */
static gpum_result private_array(double floats)
{
	cJSON *s = summary(2, 2);
	for (int k = 0; k < 4; k++)
		add(s, "global_sites", gsite(10 + k, "load", 512 * 8, 16 * 8, 512 * 8, 16 * 8,
		                             64 * 8, 2048 * 8, 4));
	cJSON *a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "line", 15);
	cJSON_AddNumberToObject(a, "accesses", 512 * 8);
	cJSON_AddNumberToObject(a, "bytes", 512 * 8 * 4);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "private_sites"), a);
	cJSON_AddNumberToObject(s, "private_bytes", 4 * floats);
	cJSON_AddNumberToObject(s, "private_line", 15);
	gpum_launch l = { .items_m = 512, .items_t = 524288, .groups_t = 2048, .group_size = 256,
	                  .trips_m = 32, .trips_t = 128, .bytes_in_t = 268435456.0,
	                  .bytes_out_t = 8192, .groups_per_sm = 8 };
	gpum_result r;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	cJSON_Delete(s);
	return r;
}

START_TEST(test_private_array_in_local_memory)
{
	gpum_result big = private_array(256), small = private_array(8);
	double traffic = 524288.0 * 8 * 4 * (128.0 / 32);
	ck_assert_double_eq_tol(big.private_bytes, traffic, 1);
	ck_assert_int_eq(big.private_dram, 1);
	ck_assert_int_eq(big.private_line, 15);
	ck_assert_double_eq_tol(big.term_ms[GPUM_DRAM],
	                        1e3 * (268435456.0 + 8192 + traffic) / 3.96e12, 1e-9);
	ck_assert_int_eq(small.private_dram, 0);
	ck_assert_double_eq_tol(small.term_ms[GPUM_DRAM], 1e3 * (268435456.0 + 8192) / 3.96e12, 1e-9);
	ck_assert(small.wavefronts > 0 && big.wavefronts == small.wavefronts);
}
END_TEST

START_TEST(test_warp_efficiency_lines)
{
	gpum_result r = reduction(1, 1, 8);           /* a quarter of the lanes in the tree */
	ck_assert_int_eq(r.nlines, 1);
	ck_assert_int_eq(r.lines[0].line, 16);
	ck_assert_int_eq(r.lines[0].local, 1);
	ck_assert_double_eq_tol(r.lines[0].efficiency, 0.25, 1e-9);
	/* the store of partial[] by one lane per group is not listed: a group runs it once */
	for (int i = 0; i < r.nlines; i++)
		ck_assert_int_ne(r.lines[i].line, 20);
}
END_TEST

START_TEST(test_bank_conflicts_named)
{
	cJSON *s = summary(4, 8);
	add(s, "global_sites", gsite(10, "load", 2048, 64, 2048, 64, 128, 8192, 1));
	add(s, "local_sites", lsite(15, "load", 32768, 1024, 32768, 8192, 1024));
	gpum_launch l = { .items_m = 1024, .items_t = 4194304, .groups_t = 16384, .group_size = 256,
	                  .trips_m = 32, .trips_t = 2048, .bytes_in_t = 33554432,
	                  .bytes_out_t = 16777216, .groups_per_sm = 8 };
	gpum_result r;
	ck_assert_int_eq(gpum_predict(gpum_profile_find("nvidia-sm90"), s, &l, &r), 0);
	ck_assert_str_eq(r.limiter_key, "bank_conflicts");
	cJSON *j = gpum_json(gpum_profile_find("nvidia-sm90"), &r);
	ck_assert(cJSON_IsObject(cJSON_GetObjectItem(j, "breakdown")));
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(j, "limiter")), "bank_conflicts");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "validated")));
	cJSON_Delete(j);
	cJSON_Delete(s);
}
END_TEST

START_TEST(test_refusals)
{
	gpum_result r;
	gpum_launch l = { .items_m = 1, .groups_per_sm = 0 };
	cJSON *s = summary(1, 1);
	ck_assert_int_eq(gpum_predict(gpum_profile_at(0), s, &l, &r), -1);   /* does not fit */
	l.groups_per_sm = 1;
	ck_assert_int_eq(gpum_predict(gpum_profile_at(0), s, &l, &r), -1);   /* no access */
	ck_assert_int_eq(r.ok, 0);
	ck_assert_ptr_null(gpum_profile_find("nvidia-sm80"));
	ck_assert_ptr_nonnull(gpum_profile_find("nvidia-sm90"));
	cJSON_Delete(s);
}
END_TEST

static Suite *gpumodel_suite(void)
{
	Suite *s = suite_create("gpumodel");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_mlp_independent);
	tcase_add_test(tc, test_mlp_dependent_and_fences);
	tcase_add_test(tc, test_mlp_predicated_if);
	tcase_add_test(tc, test_mlp_guarded_chain);
	tcase_add_test(tc, test_mlp_unrolled_loop);
	tcase_add_test(tc, test_mlp_through_private_memory);
	tcase_add_test(tc, test_naive_matmul);
	tcase_add_test(tc, test_reduction_loads_in_flight);
	tcase_add_test(tc, test_counted_arithmetic);
	tcase_add_test(tc, test_private_array_in_local_memory);
	tcase_add_test(tc, test_warp_efficiency_lines);
	tcase_add_test(tc, test_bank_conflicts_named);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gpumodel_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
