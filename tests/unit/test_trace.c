/* test_trace.c — Check tests of trace.c, the analysis behind the Oclgrind tracer plugin.
 *
 * No Oclgrind here: the tests play the plugin's part and feed trace.c synthetic accesses
 * in Oclgrind's order (work-items one at a time, each up to the next barrier), with the
 * addresses Oclgrind uses (buffer << 48 | offset), and real diagnostic texts captured from
 * Oclgrind 21.10 runs.  They read the results back from the JSON summary. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "irmlp.h"
#include "trace.h"

#define BUF(b) ((uint64_t)(b) << TRACE_ADDR_BITS)

/* Site identities: the plugin passes llvm::Instruction pointers; any distinct address does. */
static const char site_in, site_tile_st, site_tile_ld, site_out, site_a, site_b, site_as_st,
	site_bs_st, site_as_ld, site_bs_ld;

static void
record(trace *t, const void *site, int line, int col, trace_space sp, trace_kind kind,
       uint64_t addr, uint32_t size, uint32_t lane)
{
	trace_access a = { site, line, col, sp, kind, addr, size, lane, 0 };
	trace_record(t, &a);
}

/* --- reading the summary ------------------------------------------------------------- */

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	ck_assert_msg(cJSON_IsNumber(v), "no number '%s'", key);
	return v->valuedouble;
}

static const char *
str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *
site_at(const cJSON *root, const char *list, int line, const char *access)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(root, list))
		if (num(s, "line") == line && strcmp(str(s, "access"), access) == 0)
			return s;
	ck_abort_msg("no %s site at line %d (%s)", list, line, access);
	return NULL;
}

static double
prof(const cJSON *site, const char *profile, const char *key)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(site, "profiles"), profile);
	ck_assert_msg(p != NULL, "no profile %s", profile);
	return num(p, key);
}

static double
lane_value(const cJSON *site, const char *key, int lane)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(site, "worst_lanes");
	const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, key), lane);
	ck_assert(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* --- the transpose of lesson 3, 64x64, 32x32 groups ---------------------------------- */

enum { N = 64, T = 32 };

/* Column where element (row, col) of the tile lives: padding and swizzles change it. */
typedef enum { PLAIN, PADDED, SWIZZLED } layout;

static uint64_t
tile_at(layout how, int row, int col)
{
	int width = how == PADDED ? T + 1 : T;
	if (how == SWIZZLED)
		col ^= row;
	return BUF(1) + 4u * (uint64_t)(row * width + col);
}

static void
transpose_begin(trace *t, layout how)
{
	size_t local[3] = { T, T, 1 }, groups[3] = { N / T, N / T, 1 };
	trace_kernel_begin(t, "transpose", local, groups);
	trace_variable(t, TRACE_LOCAL, "transpose.tile", BUF(1), 4u * T * (how == PADDED ? T + 1 : T));
	trace_variable(t, TRACE_GLOBAL, "in", BUF(2), 4u * N * N);
	trace_variable(t, TRACE_GLOBAL, "out", BUF(3), 4u * N * N);
}

/* One lane of one group, from the start to the barrier (phase 0) or after it (phase 1):
 *   6  tile[ly][lx] = in[(gy + ly) * N + gx + lx];
 *   8  out[(gx + ly) * N + gy + lx] = tile[lx][ly];   (strided: out[(gx+lx)*N + gy+ly]) */
static void
transpose_lane(trace *t, layout how, int strided_out, int group, int phase, int lx, int ly)
{
	int gx = (group % (N / T)) * T, gy = (group / (N / T)) * T;
	uint32_t lane = (uint32_t)(lx + T * ly);

	if (phase == 0) {
		record(t, &site_in, 6, 18, TRACE_GLOBAL, TRACE_LOAD,
		       BUF(2) + 4u * (uint64_t)((gy + ly) * N + gx + lx), 4, lane);
		record(t, &site_tile_st, 6, 16, TRACE_LOCAL, TRACE_STORE, tile_at(how, ly, lx), 4, lane);
	} else {
		record(t, &site_tile_ld, 8, 34, TRACE_LOCAL, TRACE_LOAD, tile_at(how, lx, ly), 4, lane);
		uint64_t o = strided_out ? (uint64_t)((gx + lx) * N + gy + ly)
		                         : (uint64_t)((gx + ly) * N + gy + lx);
		record(t, &site_out, 8, 32, TRACE_GLOBAL, TRACE_STORE, BUF(3) + 4u * o, 4, lane);
	}
}

/* Groups [first, last) in Oclgrind's order: work-items by ascending (z, y, x). */
static void
transpose_groups(trace *t, layout how, int strided_out, int first, int last, int reverse)
{
	for (int g = first; g < last; g++) {
		trace_group_begin(t, (uint32_t)g);
		for (int phase = 0; phase < 2; phase++) {
			for (int i = 0; i < T * T; i++) {
				int lin = reverse ? T * T - 1 - i : i;
				transpose_lane(t, how, strided_out, g, phase, lin % T, lin / T);
			}
			if (phase == 0)
				trace_barrier(t);
		}
		trace_group_end(t);
	}
}

static cJSON *
transpose_run(layout how, int strided_out, int reverse)
{
	trace *t = trace_new();
	transpose_begin(t, how);
	transpose_groups(t, how, strided_out, 0, 4, reverse);
	cJSON *root = trace_summary(t);
	trace_free(t);
	return root;
}

START_TEST(transpose_unpadded_conflicts_32_way)
{
	cJSON *root = transpose_run(PLAIN, 0, 0);
	const cJSON *st = site_at(root, "local_sites", 6, "store");
	const cJSON *ld = site_at(root, "local_sites", 8, "load");

	ck_assert_str_eq(str(ld, "variable"), "tile");
	ck_assert_int_eq((int)num(ld, "column"), 34);
	ck_assert_int_eq((int)prof(st, "nvidia", "n_way"), 1);
	ck_assert_int_eq((int)prof(ld, "nvidia", "n_way"), 32);
	/* 4 groups x 32 warps; each load instruction costs 32 wavefronts instead of 1 */
	ck_assert_int_eq((int)num(ld, "instructions"), 128);
	ck_assert_int_eq((int)prof(ld, "nvidia", "wavefronts"), 128 * 32);
	ck_assert_int_eq((int)prof(ld, "nvidia", "ideal_wavefronts"), 128);
	ck_assert_int_eq((int)prof(st, "nvidia", "wavefronts"), 128);
	/* wave64: 64 instructions; Intel SIMD16 with 16 banks: 16-way */
	ck_assert_int_eq((int)prof(ld, "amd-cdna", "instructions"), 64);
	ck_assert_int_eq((int)prof(ld, "intel", "n_way"), 16);
	/* lane->bank picture: lane l reads tile[l][0], 128 bytes apart, all in bank 0 */
	ck_assert_int_eq((int)lane_value(ld, "offsets", 1), 128);
	ck_assert_int_eq((int)lane_value(ld, "offsets", 31), 31 * 128);
	ck_assert_int_eq((int)lane_value(ld, "banks", 31), 0);
	cJSON_Delete(root);
}
END_TEST

START_TEST(transpose_padded_is_conflict_free)
{
	cJSON *root = transpose_run(PADDED, 0, 0);
	const cJSON *ld = site_at(root, "local_sites", 8, "load");

	ck_assert_int_eq((int)prof(site_at(root, "local_sites", 6, "store"), "nvidia", "n_way"), 1);
	ck_assert_int_eq((int)prof(ld, "nvidia", "n_way"), 1);
	ck_assert_int_eq((int)prof(ld, "nvidia", "wavefronts"), 128);
	ck_assert_int_eq((int)lane_value(ld, "offsets", 1), 132);
	ck_assert_int_eq((int)lane_value(ld, "banks", 5), 5);
	ck_assert_int_eq((int)num(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "local_variables"), 0),
	                          "bytes"), 4224);
	cJSON_Delete(root);
}
END_TEST

START_TEST(transpose_xor_swizzle_is_conflict_free)
{
	cJSON *root = transpose_run(SWIZZLED, 0, 0);

	ck_assert_int_eq((int)prof(site_at(root, "local_sites", 6, "store"), "nvidia", "n_way"), 1);
	ck_assert_int_eq((int)prof(site_at(root, "local_sites", 8, "load"), "nvidia", "n_way"), 1);
	cJSON_Delete(root);
}
END_TEST

START_TEST(arrival_order_does_not_matter)
{
	cJSON *a = transpose_run(PLAIN, 0, 0), *b = transpose_run(PLAIN, 0, 1);
	char *sa = cJSON_PrintUnformatted(a), *sb = cJSON_PrintUnformatted(b);

	ck_assert_str_eq(sa, sb);
	free(sa);
	free(sb);
	cJSON_Delete(a);
	cJSON_Delete(b);
}
END_TEST

START_TEST(global_coalesced_vs_strided)
{
	cJSON *tiled = transpose_run(PLAIN, 0, 0), *naive = transpose_run(PLAIN, 1, 0);
	const cJSON *in = site_at(tiled, "global_sites", 6, "load");
	const cJSON *good = site_at(tiled, "global_sites", 8, "store");
	const cJSON *bad = site_at(naive, "global_sites", 8, "store");

	ck_assert_str_eq(str(good, "variable"), "out");
	ck_assert_str_eq(str(in, "variable"), "in");
	ck_assert_int_eq((int)num(good, "requests"), 128);
	ck_assert_int_eq((int)num(good, "sectors"), 4 * 128);
	ck_assert_int_eq((int)num(in, "sectors"), 4 * 128);
	ck_assert_int_eq((int)num(bad, "requests"), 128);
	ck_assert_int_eq((int)num(bad, "sectors"), 32 * 128);
	/* ideal: 128 bytes end to end from the lowest, out[gx*N + gy + ly]: 4 sectors when
	 * ly % 8 == 0, else 5 (it starts inside a sector): 4*4 + 28*5 per group */
	ck_assert_int_eq((int)num(bad, "ideal_sectors"), 4 * (4 * 4 + 28 * 5));
	/* the worst request the page draws: 32 lanes, one sector each, 32 apart; 4 ideal */
	const cJSON *wr = cJSON_GetObjectItem(bad, "worst_request");
	ck_assert_ptr_nonnull(wr);
	ck_assert_int_eq((int)num(wr, "sectors"), 32);
	ck_assert_int_eq((int)num(wr, "ideal"), 4);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(wr, "touched")), 32);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(wr, "lane_first")), 32);
	ck_assert_int_eq((int)num(wr, "group"), 0);
	int step = cJSON_GetArrayItem(cJSON_GetObjectItem(wr, "lane_first"), 1)->valueint;
	ck_assert_int_eq(step, N * 4 / 32);       /* a row of out apart: N floats */
	wr = cJSON_GetObjectItem(good, "worst_request");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(wr, "touched")), (int)num(wr, "sectors"));
	ck_assert_int_le((int)num(wr, "sectors"), 5);
	const cJSON *bytes = cJSON_GetObjectItem(tiled, "global_bytes");
	ck_assert_int_eq((int)num(bytes, "loaded"), 4 * N * N);
	ck_assert_int_eq((int)num(bytes, "stored"), 4 * N * N);
	cJSON_Delete(tiled);
	cJSON_Delete(naive);
}
END_TEST

START_TEST(global_broadcast_and_vectors)
{
	trace *t = trace_new();
	size_t local[3] = { 64, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "k", local, groups);
	trace_variable(t, TRACE_GLOBAL, "in", BUF(1), 4096);
	trace_group_begin(t, 0);
	for (uint32_t l = 0; l < 64; l++) {
		record(t, &site_a, 3, 5, TRACE_GLOBAL, TRACE_LOAD, BUF(1), 4, l);              /* in[0]       */
		record(t, &site_b, 4, 5, TRACE_GLOBAL, TRACE_LOAD, BUF(1) + 16 * l, 16, l);    /* float4 in[l] */
	}
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *bc = site_at(root, "global_sites", 3, "load");
	const cJSON *v4 = site_at(root, "global_sites", 4, "load");
	ck_assert_int_eq((int)num(bc, "requests"), 2);
	ck_assert_int_eq((int)num(bc, "sectors"), 2);
	ck_assert_int_eq((int)num(bc, "ideal_sectors"), 2);
	ck_assert_int_eq((int)num(v4, "sectors"), 2 * 16);
	ck_assert_int_eq((int)num(v4, "ideal_sectors"), 2 * 16);
	ck_assert_int_eq((int)num(v4, "width"), 16);
	ck_assert_int_eq((int)num(cJSON_GetObjectItem(root, "global_bytes"), "loaded"), 64 * 4 + 64 * 16);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(partial_warps)
{
	trace *t = trace_new();
	size_t local[3] = { 10, 10, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "k", local, groups);
	trace_variable(t, TRACE_GLOBAL, "out", BUF(1), 400);
	trace_group_begin(t, 0);
	for (uint32_t l = 0; l < 100; l++)
		record(t, &site_out, 2, 9, TRACE_GLOBAL, TRACE_STORE, BUF(1) + 4 * l, 4, l);
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *s = site_at(root, "global_sites", 2, "store");
	ck_assert_int_eq((int)num(s, "requests"), 4);          /* lanes 0-31, 32-63, 64-95, 96-99 */
	ck_assert_int_eq((int)num(s, "sectors"), 4 + 4 + 4 + 1);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

/* Tiled matmul, 16x16 group, two tiles: every lane runs its whole k loop before the
 * next lane starts, so warps exist only as "the k-th execution by each lane". */
START_TEST(matmul_loop_rebuilds_warps)
{
	enum { TS = 16 };
	trace *t = trace_new();
	size_t local[3] = { TS, TS, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "matmul", local, groups);
	trace_variable(t, TRACE_LOCAL, "matmul.As", BUF(2), 4 * TS * TS);
	trace_variable(t, TRACE_LOCAL, "matmul.Bs", BUF(1), 4 * TS * TS);
	trace_variable(t, TRACE_LOCAL, "matmul_race.As", BUF(3), 4 * TS * TS); /* another kernel's */
	trace_group_begin(t, 0);
	for (int tile = 0; tile < 2; tile++) {
		for (uint32_t l = 0; l < TS * TS; l++) {
			record(t, &site_as_st, 12, 16, TRACE_LOCAL, TRACE_STORE, BUF(2) + 4 * l, 4, l);
			record(t, &site_bs_st, 13, 16, TRACE_LOCAL, TRACE_STORE, BUF(1) + 4 * l, 4, l);
		}
		trace_barrier(t);
		for (uint32_t l = 0; l < TS * TS; l++) {
			uint32_t tx = l % TS, ty = l / TS;
			for (uint32_t k = 0; k < TS; k++) {
				record(t, &site_as_ld, 16, 14, TRACE_LOCAL, TRACE_LOAD, BUF(2) + 4 * (ty * TS + k), 4, l);
				record(t, &site_bs_ld, 16, 26, TRACE_LOCAL, TRACE_LOAD, BUF(1) + 4 * (k * TS + tx), 4, l);
			}
		}
		trace_barrier(t);
	}
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *as = site_at(root, "local_sites", 16, "load");  /* column 14 comes first */
	ck_assert_str_eq(str(as, "variable"), "As");
	ck_assert_int_eq((int)num(as, "column"), 14);
	ck_assert_int_eq((int)num(as, "instructions"), 2 * 8 * TS);
	ck_assert_int_eq((int)prof(as, "nvidia", "n_way"), 1);
	ck_assert_int_eq((int)prof(as, "nvidia", "wavefronts"), 2 * 8 * TS);
	const cJSON *s;
	int sites = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(root, "local_sites")) {
		ck_assert_int_eq((int)prof(s, "nvidia", "n_way"), 1);
		sites++;
	}
	ck_assert_int_eq(sites, 4);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "local_variables")), 2);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

/* Divergence before a barrier: only lanes 0-15 run the first pass of a loop.  Counting
 * executions from the barrier on puts all 32 lanes of the second pass in one instruction
 * (32-way: stride 128 bytes); without that, lanes 16-31's first pass would pair with
 * lanes 0-15's second (17-way and 16-way). */
START_TEST(barrier_realigns_divergent_lanes)
{
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "k", local, groups);
	trace_variable(t, TRACE_LOCAL, "k.s", BUF(1), 4096);
	trace_group_begin(t, 0);
	for (uint32_t l = 0; l < 16; l++)
		record(t, &site_a, 9, 7, TRACE_LOCAL, TRACE_STORE, BUF(1) + 4 * l, 4, l);
	trace_barrier(t);
	for (uint32_t l = 0; l < 32; l++)
		record(t, &site_a, 9, 7, TRACE_LOCAL, TRACE_STORE, BUF(1) + 128 * l, 4, l);
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *s = site_at(root, "local_sites", 9, "store");
	ck_assert_int_eq((int)num(s, "instructions"), 2);
	ck_assert_int_eq((int)prof(s, "nvidia", "n_way"), 32);
	ck_assert_int_eq((int)prof(s, "nvidia", "wavefronts"), 1 + 32);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(wide_accesses_split_in_16_bytes)
{
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "k", local, groups);
	trace_variable(t, TRACE_LOCAL, "k.v8", BUF(1), 32 * 32);
	trace_group_begin(t, 0);
	for (uint32_t l = 0; l < 32; l++)
		record(t, &site_a, 5, 3, TRACE_LOCAL, TRACE_STORE, BUF(1) + 32 * l, 32, l);
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *s = site_at(root, "local_sites", 5, "store");
	ck_assert_int_eq((int)num(s, "width"), 32);
	ck_assert_int_eq((int)num(s, "instructions"), 2);
	ck_assert_int_eq((int)num(s, "accesses"), 32);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(atomics_price_once_count_both_ways)
{
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "k", local, groups);
	trace_variable(t, TRACE_GLOBAL, "count", BUF(4), 4);
	trace_group_begin(t, 0);
	for (uint32_t l = 0; l < 32; l++) {
		record(t, &site_a, 7, 3, TRACE_GLOBAL, TRACE_ATOMIC, BUF(4), 4, l);
		record(t, &site_a, 7, 3, TRACE_GLOBAL, TRACE_ATOMIC_STORE, BUF(4), 4, l);
	}
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	const cJSON *s = site_at(root, "global_sites", 7, "atomic");
	ck_assert_int_eq((int)num(s, "requests"), 1);
	ck_assert_int_eq((int)num(s, "accesses"), 32);
	const cJSON *bytes = cJSON_GetObjectItem(root, "global_bytes");
	ck_assert_int_eq((int)num(bytes, "loaded"), 128);
	ck_assert_int_eq((int)num(bytes, "stored"), 128);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(variable_names)
{
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "transpose", local, groups);
	trace_variable(t, TRACE_LOCAL, "transpose.tile", BUF(1), 4096);
	trace_variable(t, TRACE_LOCAL, "transpose_naive.tile", BUF(2), 4096);
	trace_variable(t, TRACE_LOCAL, "scratch", BUF(3), 256);
	trace_variable(t, TRACE_LOCAL, "transpose.tile", BUF(1), 4096);   /* named twice */
	cJSON *root = trace_summary(t);
	const cJSON *vars = cJSON_GetObjectItem(root, "local_variables");
	ck_assert_int_eq(cJSON_GetArraySize(vars), 2);
	ck_assert_str_eq(str(cJSON_GetArrayItem(vars, 0), "name"), "tile");
	ck_assert_str_eq(str(cJSON_GetArrayItem(vars, 1), "name"), "scratch");
	ck_assert_int_eq((int)num(root, "local_bytes"), 4096 + 256);
	ck_assert_str_eq(str(root, "kernel"), "transpose");
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

/* --- threads: Oclgrind runs groups on several workers ------------------------------- */

typedef struct half { trace *t; int first, last; } half;

static void *
run_half(void *arg)
{
	half *h = arg;
	transpose_groups(h->t, PLAIN, 0, h->first, h->last, 0);
	return NULL;
}

START_TEST(groups_on_two_threads_merge)
{
	cJSON *one = transpose_run(PLAIN, 0, 0);
	trace *t = trace_new();
	pthread_t th[2];
	half h[2] = { { t, 0, 2 }, { t, 2, 4 } };

	transpose_begin(t, PLAIN);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, run_half, &h[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	cJSON *two = trace_summary(t);
	char *a = cJSON_PrintUnformatted(one), *b = cJSON_PrintUnformatted(two);
	ck_assert_str_eq(a, b);
	ck_assert_int_eq((int)num(two, "groups_run"), 4);
	free(a);
	free(b);
	cJSON_Delete(one);
	cJSON_Delete(two);
	trace_free(t);
}
END_TEST

/* --- floating-point work (trace_arith.c) -------------------------------------------- */

typedef struct fma_run { trace *t; int n; } fma_run;
static int fma_inst, add_inst;          /* two instructions' identities */

static void *
run_fmas(void *arg)
{
	fma_run *r = arg;
	for (int i = 0; i < r->n; i++)
		trace_flops(r->t, &fma_inst, 2, 0);
	trace_flops(r->t, &add_inst, 4, 0);                /* one float4 add */
	return NULL;
}

START_TEST(flops_added_up_by_instruction)
{
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 2, 1, 1 };
	trace_kernel_begin(t, "reduce", local, groups);
	trace_arith_site(t, &fma_inst, 16, 17, 0);
	/* two threads, each with its own table: 100 and 300 executions of one FMA */
	pthread_t th[2];
	fma_run r[2] = { { t, 100 }, { t, 300 } };
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, run_fmas, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	cJSON *root = trace_summary(t);
	cJSON *a = cJSON_GetObjectItem(root, "arith_sites");
	ck_assert_int_eq(cJSON_GetArraySize(a), 2);
	cJSON *top = cJSON_GetArrayItem(a, 0);            /* the largest first */
	ck_assert_int_eq((int)num(top, "accesses"), 400);
	ck_assert_int_eq((int)num(top, "flops"), 800);
	ck_assert_int_eq((int)num(top, "line"), 16);
	ck_assert_int_eq((int)num(top, "column"), 17);
	ck_assert_int_eq((int)num(cJSON_GetArrayItem(a, 1), "flops"), 8);
	ck_assert_int_eq((int)num(cJSON_GetArrayItem(a, 1), "line"), 0);   /* never named */
	cJSON_Delete(root);
	/* a new kernel starts empty */
	trace_kernel_begin(t, "reduce", local, groups);
	root = trace_summary(t);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "arith_sites")), 0);
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

/* --- loads in flight from what ran (trace_summary.c, group_flight) --------------------- */

static const char ld0, ld1, ld2, ld3;

/* One block of four independent loads (lines 10-13) in irmlp's code, one group of four; the
 * first `live` of them run for each of the 32 lanes of one group. */
static cJSON *
four_loads_run(int live)
{
	const void *ld[4] = { &ld0, &ld1, &ld2, &ld3 };
	trace *t = trace_new();
	size_t local[3] = { 32, 1, 1 }, groups[3] = { 1, 1, 1 };
	trace_kernel_begin(t, "reduce", local, groups);
	trace_variable(t, TRACE_GLOBAL, "in", BUF(2), 4u * 4 * 32);
	irmlp_step(trace_code(t), IRMLP_BLOCK, &ld0 + 100, NULL, 0);
	for (int k = 0; k < 4; k++)
		irmlp_step(trace_code(t), IRMLP_LOAD, ld[k], NULL, 0);
	irmlp_end(trace_code(t));
	trace_group_begin(t, 0);
	for (int k = 0; k < live; k++)
		for (uint32_t lane = 0; lane < 32; lane++)
			record(t, ld[k], 10 + k, 5, TRACE_GLOBAL, TRACE_LOAD,
			       BUF(2) + 4u * (uint64_t)(k * 32 + lane), 4, lane);
	trace_group_end(t);
	cJSON *root = trace_summary(t);
	trace_free(t);
	return root;
}

START_TEST(loads_in_flight_from_what_ran)
{
	/* all four run: four in flight; one runs, three never do (guards never true): one */
	cJSON *all = four_loads_run(4), *one = four_loads_run(1);
	ck_assert_int_eq((int)num(site_at(all, "global_sites", 10, "load"), "mlp"), 4);
	ck_assert_int_eq((int)num(site_at(all, "global_sites", 13, "load"), "mlp"), 4);
	const cJSON *s = site_at(one, "global_sites", 10, "load");
	ck_assert_int_eq((int)num(s, "mlp"), 1);
	ck_assert_int_eq((int)num(s, "mlp_code"), 4);
	cJSON_Delete(all);
	cJSON_Delete(one);
}
END_TEST

/* --- Oclgrind diagnostics, as Plugin::log() received them (Oclgrind 21.10) ------------ */

static const char msg_race_local[] =
	"Read-write data race at local memory address 0x2000000000000\n"
	"\tKernel: matmul_race\n"
	"\t\n"
	"\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
	"\t  %2 = load float, float addrspace(3)* %arrayidx32, align 4, !dbg !103, !tbaa !78\n"
	"\tAt line 35 (column 14) of input.cl:\n"
	"\t  acc += As[ty][k] * Bs[k][tx];\n"
	"\t\n"
	"\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  store float %0, float addrspace(3)* %arrayidx13, align 4, !dbg !86, !tbaa !78\n"
	"\tAt line 31 (column 16) of input.cl:\n"
	"\t  As[ty][tx] = A[row * n + t * TS + tx];\n"
	"\t";

/* The same race seen from the other side. */
static const char msg_race_local_swapped[] =
	"Read-write data race at local memory address 0x2000000000004\n"
	"\tKernel: matmul_race\n"
	"\t\n"
	"\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
	"\t  store float %0, float addrspace(3)* %arrayidx13, align 4, !dbg !86, !tbaa !78\n"
	"\tAt line 31 (column 16) of input.cl:\n"
	"\t  As[ty][tx] = A[row * n + t * TS + tx];\n"
	"\t\n"
	"\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  %2 = load float, float addrspace(3)* %arrayidx32, align 4, !dbg !103, !tbaa !78\n"
	"\tAt line 35 (column 14) of input.cl:\n"
	"\t  acc += As[ty][k] * Bs[k][tx];\n"
	"\t";

static const char msg_race_bs[] =
	"Read-write data race at local memory address 0x100000000011c\n"
	"\tKernel: matmul_race\n"
	"\t\n"
	"\tFirst entity:  Global(7,5,0) Local(7,5,0) Group(0,0,0)\n"
	"\t  %3 = load float, float addrspace(3)* %arrayidx36, align 4, !dbg !104, !tbaa !78\n"
	"\tAt line 35 (column 26) of input.cl:\n"
	"\t  acc += As[ty][k] * Bs[k][tx];\n"
	"\t\n"
	"\tSecond entity: Global(7,4,0) Local(7,4,0) Group(0,0,0)\n"
	"\t  store float %1, float addrspace(3)* %arrayidx23, align 4, !dbg !91, !tbaa !78\n"
	"\tAt line 32 (column 16) of input.cl:\n"
	"\t  Bs[ty][tx] = B[(t * TS + ty) * n + col];\n"
	"\t";

static const char msg_race_global[] =
	"Write-write data race at global memory address 0x3000000000002\n"
	"\tKernel: grace\n"
	"\t\n"
	"\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
	"\t  store float %conv1, float addrspace(1)* %arrayidx, align 4, !dbg !57, !tbaa !58\n"
	"\tAt line 38 (column 14) of input.cl:\n"
	"\t  out[g / 2] = g;\n"
	"\t\n"
	"\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  store float %conv1, float addrspace(1)* %arrayidx, align 4, !dbg !57, !tbaa !58\n"
	"\tAt line 38 (column 14) of input.cl:\n"
	"\t  out[g / 2] = g;\n"
	"\t";

static const char msg_oob_global[] =
	"Invalid write of size 4 at global memory address 0x3000000004e20\n"
	"\tKernel: oob\n"
	"\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  store float 1.000000e+00, float addrspace(1)* %arrayidx, align 4, !dbg !56, !tbaa !57\n"
	"\tAt line 5 (column 17) of input.cl:\n"
	"\t  out[g + 5000] = 1.0f;\n"
	"\t";

static const char msg_oob_local[] =
	"Invalid read of size 4 at local memory address 0x2000000000100\n"
	"\tKernel: oob_local\n"
	"\tEntity: Global(63,0,0) Local(63,0,0) Group(0,0,0)\n"
	"\t  %0 = load float, float addrspace(3)* %arrayidx3, align 4, !dbg !57, !tbaa !51\n"
	"\tAt line 14 (column 27) of input.cl:\n"
	"\t  out[get_global_id(0)] = buf[l + 1];\n"
	"\t";

static const char msg_index[] =
	"Index (64) exceeds static array size (64)\n"
	"\tKernel: oob_local\n"
	"\tEntity: Global(63,0,0) Local(63,0,0) Group(0,0,0)\n"
	"\t  %0 = load float, float addrspace(3)* %arrayidx3, align 4, !dbg !57, !tbaa !51\n"
	"\tAt line 14 (column 27) of input.cl:\n"
	"\t  out[get_global_id(0)] = buf[l + 1];\n"
	"\t";

static const char msg_uninit[] =
	"Uninitialized value written to global memory address 0x3000000000000\n"
	"\tKernel: uninit\n"
	"\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  store float %0, float addrspace(1)* %arrayidx6, align 4, !dbg !63, !tbaa !54\n"
	"\tAt line 23 (column 25) of input.cl:\n"
	"\t  out[get_global_id(0)] = buf[63 - l];\n"
	"\t";

static const char msg_divergence[] =
	"Work-group divergence detected (barrier)\n"
	"\tKernel:     diverge\n"
	"\tWork-group: (0,0,0)\n"
	"\tOnly 16 out of 64 work-items executed barrier\n"
	"\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6, !dbg !58\n"
	"\tAt line 31 (column 15) of input.cl:\n"
	"\t  if (l < 16) barrier(CLK_LOCAL_MEM_FENCE);\n"
	"\t";

/* Built from Context::logError's format (MemCheck), not captured. */
static const char msg_read_only[] =
	"Invalid write to read-only buffer\n"
	"\tKernel: k\n"
	"\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
	"\t  store float 1.000000e+00, float addrspace(1)* %arrayidx, align 4\n"
	"\tAt line 3 (column 9) of input.cl:\n"
	"\t  in[0] = 1.0f;\n"
	"\t";

START_TEST(parse_race)
{
	trace_finding f;

	ck_assert_int_eq(trace_parse_message(msg_race_local, &f), 0);
	ck_assert_str_eq(f.kind, "data_race");
	ck_assert_int_eq(f.line, 35);
	ck_assert_int_eq(f.column, 14);
	ck_assert_int_eq(f.other_line, 31);
	ck_assert_int_eq(f.other_column, 16);
	ck_assert(f.has_address);
	ck_assert_str_eq(f.space, "local");
	ck_assert(f.address == UINT64_C(0x2000000000000));
	ck_assert_str_eq(f.first_line, "Read-write data race at local memory address 0x2000000000000");
	ck_assert_int_eq(trace_parse_message(msg_race_global, &f), 0);
	ck_assert_str_eq(f.space, "global");
	ck_assert_int_eq(f.other_line, 38);
}
END_TEST

START_TEST(parse_other_kinds)
{
	trace_finding f;

	trace_parse_message(msg_oob_global, &f);
	ck_assert_str_eq(f.kind, "out_of_bounds");
	ck_assert_int_eq(f.line, 5);
	ck_assert_int_eq(f.column, 17);
	ck_assert_int_eq(f.other_line, 0);
	ck_assert(f.address == UINT64_C(0x3000000004e20));
	trace_parse_message(msg_index, &f);
	ck_assert_str_eq(f.kind, "out_of_bounds");
	ck_assert(!f.has_address);
	ck_assert_int_eq(f.line, 14);
	trace_parse_message(msg_uninit, &f);
	ck_assert_str_eq(f.kind, "uninitialized");
	ck_assert_int_eq(f.column, 25);
	trace_parse_message(msg_divergence, &f);
	ck_assert_str_eq(f.kind, "barrier_divergence");
	ck_assert_int_eq(f.line, 31);
	ck_assert_int_eq(f.column, 15);
	ck_assert_str_eq(f.first_line, "Work-group divergence detected (barrier)");
	trace_parse_message(msg_read_only, &f);
	ck_assert_str_eq(f.kind, "other");
	ck_assert_int_eq(f.line, 3);
	ck_assert_int_eq(trace_parse_message("", &f), -1);
	ck_assert_int_eq(trace_parse_message("no location at all", &f), 0);
	ck_assert_int_eq(f.line, 0);
}
END_TEST

static trace *
findings_trace(void)
{
	trace *t = trace_new();
	size_t local[3] = { 16, 16, 1 }, groups[3] = { 3, 3, 1 };

	trace_kernel_begin(t, "matmul_race", local, groups);
	trace_variable(t, TRACE_LOCAL, "matmul_race.Bs", BUF(1), 1024);
	trace_variable(t, TRACE_LOCAL, "matmul_race.As", BUF(2), 1024);
	trace_variable(t, TRACE_GLOBAL, "out", BUF(3), 256);
	return t;
}

static const cJSON *
finding_at(const cJSON *root, int line, int column)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(root, "findings"))
		if (num(f, "line") == line && num(f, "column") == column)
			return f;
	ck_abort_msg("no finding at %d:%d", line, column);
	return NULL;
}

START_TEST(findings_named_and_deduplicated)
{
	trace *t = findings_trace();

	trace_message(t, TRACE_MSG_ERROR, msg_race_local);
	trace_message(t, TRACE_MSG_ERROR, msg_race_local);
	trace_message(t, TRACE_MSG_ERROR, msg_race_local_swapped);
	trace_message(t, TRACE_MSG_ERROR, msg_race_bs);
	trace_message(t, TRACE_MSG_ERROR, msg_oob_global);
	cJSON *root = trace_summary(t);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 3);
	ck_assert_int_eq((int)num(root, "messages"), 5);

	const cJSON *as = finding_at(root, 35, 14);
	ck_assert_str_eq(str(as, "kind"), "data_race");
	ck_assert_str_eq(str(as, "variable"), "As");
	ck_assert_str_eq(str(as, "severity"), "error");
	ck_assert_int_eq((int)num(as, "other_line"), 31);
	ck_assert_int_eq((int)num(as, "count"), 3);
	ck_assert_str_eq(str(as, "message"), "Read-write data race at local memory of 'As', byte 0");

	const cJSON *bs = finding_at(root, 35, 26);
	ck_assert_str_eq(str(bs, "variable"), "Bs");
	ck_assert_int_eq((int)num(bs, "other_line"), 32);

	const cJSON *oob = finding_at(root, 5, 17);
	ck_assert_str_eq(str(oob, "kind"), "out_of_bounds");
	ck_assert_str_eq(str(oob, "variable"), "out");
	ck_assert_ptr_nonnull(strstr(str(oob, "message"), "'out', byte 20000 (it has 256 bytes)"));
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(findings_unnamed_merge_with_named)
{
	trace *t = trace_new();
	size_t local[3] = { 64, 1, 1 }, groups[3] = { 1, 1, 1 };

	trace_kernel_begin(t, "oob_local", local, groups);
	trace_variable(t, TRACE_LOCAL, "oob_local.buf", BUF(2), 256);
	trace_message(t, TRACE_MSG_ERROR, msg_index);       /* names no address */
	trace_message(t, TRACE_MSG_ERROR, msg_oob_local);
	trace_message(t, TRACE_MSG_ERROR, msg_divergence);
	cJSON *root = trace_summary(t);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 2);
	const cJSON *f = finding_at(root, 14, 27);
	ck_assert_str_eq(str(f, "variable"), "buf");
	ck_assert_int_eq((int)num(f, "count"), 2);
	ck_assert_ptr_nonnull(strstr(str(f, "message"), "'buf', byte 256 (it has 256 bytes)"));
	const cJSON *d = finding_at(root, 31, 15);
	ck_assert_str_eq(str(d, "kind"), "barrier_divergence");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(d, "variable")));
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

START_TEST(findings_are_capped)
{
	trace *t = findings_trace();
	char msg[256];

	for (int i = 1; i <= TRACE_MAX_FINDINGS + 6; i++) {
		snprintf(msg, sizeof msg, "Uninitialized value written to global memory address 0x3000000000000\n"
		         "\tAt line %d (column 5) of input.cl:\n", i);
		trace_message(t, TRACE_MSG_WARNING, msg);
	}
	cJSON *root = trace_summary(t);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), TRACE_MAX_FINDINGS);
	ck_assert_int_eq((int)num(root, "findings_dropped"), 6);
	ck_assert_str_eq(str(finding_at(root, 1, 5), "severity"), "warning");
	cJSON_Delete(root);
	trace_free(t);
}
END_TEST

/* --- the file the grader reads ------------------------------------------------------- */

static cJSON *
read_json(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *root = cJSON_Parse(buf);
	ck_assert_ptr_nonnull(root);
	return root;
}

START_TEST(kernel_end_writes_cltrace_out)
{
	char path[] = "/tmp/test_trace_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	setenv("CLTRACE_OUT", path, 1);

	trace *t = trace_new();
	transpose_begin(t, PLAIN);
	transpose_groups(t, PLAIN, 0, 0, 4, 0);
	trace_message(t, TRACE_MSG_ERROR, msg_divergence);
	ck_assert_int_eq(trace_kernel_end(t), 0);
	trace_free(t);

	cJSON *root = read_json(path);
	static const char *keys[] = { "kernel", "local_size", "num_groups", "groups_run", "complete",
		"local_variables", "local_sites", "global_sites", "global_bytes", "findings" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		ck_assert_msg(cJSON_HasObjectItem(root, keys[i]), "missing %s", keys[i]);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(root, "complete")));
	ck_assert_int_eq((int)num(root, "groups_run"), 4);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "local_size"), 1)->valueint, 32);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 1);
	const cJSON *ld = site_at(root, "local_sites", 8, "load");
	ck_assert_str_eq(str(cJSON_GetObjectItem(ld, "worst_lanes"), "profile"), "nvidia");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(ld, "worst_lanes"),
	                                                        "banks")), 32);
	cJSON_Delete(root);
	unlink(path);
	unsetenv("CLTRACE_OUT");
}
END_TEST

START_TEST(no_cltrace_out_writes_nothing)
{
	unsetenv("CLTRACE_OUT");
	trace *t = trace_new();
	transpose_begin(t, PLAIN);
	ck_assert_int_eq(trace_kernel_end(t), 0);
	ck_assert_int_eq(trace_finish(t), 0);
	trace_free(t);
}
END_TEST

START_TEST(unfinished_run_is_written_incomplete)
{
	char path[] = "/tmp/test_trace_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	setenv("CLTRACE_OUT", path, 1);

	trace *t = trace_new();
	transpose_begin(t, PLAIN);
	transpose_groups(t, PLAIN, 0, 0, 1, 0);
	trace_message(t, TRACE_MSG_ERROR, msg_divergence);
	ck_assert_int_eq(trace_finish(t), 0);
	trace_free(t);

	cJSON *root = read_json(path);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(root, "complete")));
	ck_assert_int_eq((int)num(root, "groups_run"), 1);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")), 1);
	cJSON_Delete(root);
	unlink(path);
	unsetenv("CLTRACE_OUT");
}
END_TEST

/* --- edge sizes: interior groups priced whole, edge groups by their full warps ---------- */

/* Groups first..last-1 of the transpose with only the lanes lx < width taking part (the
 * columns past the problem's edge skip every access): each warp (one row) is partial. */
static void
transpose_groups_narrow(trace *t, int first, int last, int width)
{
	for (int g = first; g < last; g++) {
		trace_group_begin(t, (uint32_t)g);
		for (int phase = 0; phase < 2; phase++) {
			for (int i = 0; i < T * T; i++)
				if (i % T < width)
					transpose_lane(t, PLAIN, 0, g, phase, i % T, i / T);
			if (phase == 0)
				trace_barrier(t);
		}
		trace_group_end(t);
	}
}

START_TEST(edge_groups_priced_by_full_warps)
{
	/* a 40x40 problem: only group (0, 0) is inside.  Edge groups whose warps are all full
	 * (here every lane takes part) are priced too: a kernel cannot hide a conflict there */
	trace *t = trace_new();
	transpose_begin(t, PLAIN);
	trace_interior(t, 40, 40);
	transpose_groups(t, PLAIN, 0, 0, 4, 0);
	cJSON *root = trace_summary(t);
	trace_free(t);
	ck_assert_int_eq((int)num(root, "groups_run"), 4);
	ck_assert_int_eq((int)num(root, "groups_priced"), 1);
	const cJSON *ld = site_at(root, "local_sites", 8, "load");
	ck_assert_int_eq((int)prof(ld, "nvidia", "instructions"), 4 * 32);
	ck_assert_int_eq((int)prof(ld, "nvidia", "n_way"), 32);
	ck_assert_int_eq((int)num(ld, "accesses"), 4 * T * T);          /* counted everywhere */
	const cJSON *in = site_at(root, "global_sites", 6, "load");
	ck_assert_int_eq((int)num(in, "requests"), 4 * 32);
	ck_assert_int_eq((int)num(cJSON_GetObjectItem(root, "global_bytes"), "loaded"), 4 * N * N);
	cJSON_Delete(root);

	/* edge groups whose warps are partial (lanes past the edge skip): not priced */
	t = trace_new();
	transpose_begin(t, PLAIN);
	trace_interior(t, 40, 40);
	transpose_groups(t, PLAIN, 0, 0, 1, 0);
	transpose_groups_narrow(t, 1, 4, 8);
	root = trace_summary(t);
	trace_free(t);
	ld = site_at(root, "local_sites", 8, "load");
	ck_assert_int_eq((int)prof(ld, "nvidia", "instructions"), 32);   /* group (0, 0)'s warps */
	ck_assert_int_eq((int)num(ld, "accesses"), T * T + 3 * 8 * T);
	in = site_at(root, "global_sites", 6, "load");
	ck_assert_int_eq((int)num(in, "requests"), 32);
	cJSON_Delete(root);
}
END_TEST

START_TEST(runs_merge)
{
	cJSON *plain = transpose_run(PLAIN, 0, 0), *padded = transpose_run(PADDED, 0, 0);
	trace *t = findings_trace();
	trace_message(t, TRACE_MSG_ERROR, msg_race_bs);
	cJSON *racy = trace_summary(t);
	trace_free(t);
	cJSON_AddItemToArray(cJSON_GetObjectItem(padded, "findings"),
	                     cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItem(racy, "findings"), 0), 1));

	/* trace_summary before trace_kernel_end says incomplete: these runs ended */
	cJSON_ReplaceItemInObject(plain, "complete", cJSON_CreateTrue());
	cJSON_ReplaceItemInObject(padded, "complete", cJSON_CreateTrue());
	cJSON *m = trace_merge_first(padded);
	trace_merge(m, plain);
	trace_merge(m, padded);             /* the same finding again: counted, not repeated */
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(m, "runs")), 3);
	ck_assert_int_eq((int)num(m, "groups_run"), 12);
	const cJSON *ld = site_at(m, "local_sites", 8, "load");
	ck_assert_int_eq((int)num(ld, "tile"), T);
	ck_assert_int_eq((int)prof(ld, "nvidia", "n_way"), 32);          /* the worse run wins */
	ck_assert_int_eq((int)prof(ld, "nvidia", "instructions"), 3 * 128);
	ck_assert_int_eq((int)num(cJSON_GetObjectItem(ld, "worst_lanes"), "n_way"), 32);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(m, "local_sites")), 2);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(m, "findings")), 1);
	ck_assert_int_eq((int)num(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "findings"), 0), "count"), 2);
	ck_assert_int_eq((int)num(cJSON_GetObjectItem(m, "global_bytes"), "loaded"), 3 * 4 * N * N);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(m, "complete")));
	cJSON_ReplaceItemInObject(plain, "complete", cJSON_CreateFalse());
	trace_merge(m, plain);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(m, "complete")));
	cJSON_Delete(m);
	cJSON_Delete(plain);
	cJSON_Delete(padded);
	cJSON_Delete(racy);
}
END_TEST

/* --- why a barrier is skipped ------------------------------------------------------- */

static const char kern_return[] =
	"__kernel void k(int N) {\n"                           /* 1 */
	"    int row = get_global_id(1), col = get_global_id(0);\n"
	"    if (row >= N || col >= N)   // edge\n"             /* 3 */
	"        return;\n"                                     /* 4 */
	"    /* if (x) { barrier(CLK_LOCAL_MEM_FENCE); } */\n"  /* 5: a comment */
	"    barrier(CLK_LOCAL_MEM_FENCE);\n"                   /* 6 */
	"}\n";

static const char kern_inside[] =
	"__kernel void k(int N) {\n"                           /* 1 */
	"    if (get_local_id(0) == 0) { x = 1; }\n"            /* 2 */
	"    if (row < N &&\n"                                  /* 3 */
	"        col < N) {\n"
	"        for (int t = 0; t < 4; ++t) {\n"
	"            if (t > 2) acc = 0;\n"                     /* 6 */
	"            barrier(CLK_LOCAL_MEM_FENCE);\n"           /* 7 */
	"        }\n"
	"    } else {\n"                                        /* 9 */
	"        barrier(CLK_LOCAL_MEM_FENCE);\n"               /* 10 */
	"    }\n"
	"    if (flag) barrier(CLK_GLOBAL_MEM_FENCE);\n"        /* 12 */
	"}\n";

START_TEST(skip_condition)
{
	char cond[160];
	int line;

	ck_assert_int_eq(trace_skip_condition(kern_return, 6, cond, sizeof cond, &line), 2);
	ck_assert_str_eq(cond, "row >= N || col >= N");
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(trace_skip_condition(kern_inside, 7, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "row < N && col < N");
	ck_assert_int_eq(line, 3);
	ck_assert_int_eq(trace_skip_condition(kern_inside, 10, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "!(row < N && col < N)");
	ck_assert_int_eq(line, 9);
	ck_assert_int_eq(trace_skip_condition(kern_inside, 12, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "flag");
	ck_assert_int_eq(trace_skip_condition(kern_inside, 2, cond, sizeof cond, &line), 0);
}
END_TEST

/* A condition longer than the buffer is cut visibly: it ends in " ...", never inside an
 * expression as if that were the code (pub67: clBenchmark's "IMAGE_H -)"). */
START_TEST(skip_condition_cut)
{
	char src[600], cond[160];
	int line, n = snprintf(src, sizeof src, "__kernel void k(int N) {\n    if (");
	for (int i = 0; i < 12; i++)
		n += snprintf(src + n, sizeof src - n, "%sget_global_id(0) > N + %d", i ? " || " : "", i);
	snprintf(src + n, sizeof src - n, ")\n        return;\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n");
	ck_assert_int_eq(trace_skip_condition(src, 4, cond, sizeof cond, &line), 2);
	size_t len = strlen(cond);
	ck_assert_msg(len >= 4 && strcmp(cond + len - 4, " ...") == 0, "%s", cond);
	ck_assert_int_eq(strncmp(cond, "get_global_id(0) > N + 0 || ", 28), 0);
}
END_TEST

/* The innermost if around any code of a line: an access's guard (trace_guard_condition). */
START_TEST(guard_condition)
{
	char cond[160];
	int line;

	ck_assert_int_eq(trace_guard_condition(kern_inside, 2, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "get_local_id(0) == 0");
	ck_assert_int_eq(line, 2);
	ck_assert_int_eq(trace_guard_condition(kern_inside, 6, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "t > 2");           /* the innermost */
	ck_assert_int_eq(trace_guard_condition(kern_inside, 7, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "row < N && col < N");
	ck_assert_int_eq(line, 3);
	/* the line of an if's own condition and brace is not inside it; an else is no guard */
	ck_assert_int_eq(trace_guard_condition(kern_inside, 4, cond, sizeof cond, &line), 0);
	ck_assert_int_eq(trace_guard_condition(kern_inside, 10, cond, sizeof cond, &line), 0);
	ck_assert_int_eq(trace_guard_condition(kern_inside, 12, cond, sizeof cond, &line), 1);
	ck_assert_str_eq(cond, "flag");
	ck_assert_int_eq(trace_guard_condition(kern_return, 6, cond, sizeof cond, &line), 0);
}
END_TEST

static Suite *
trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *banks = tcase_create("local");
	tcase_add_test(banks, transpose_unpadded_conflicts_32_way);
	tcase_add_test(banks, transpose_padded_is_conflict_free);
	tcase_add_test(banks, transpose_xor_swizzle_is_conflict_free);
	tcase_add_test(banks, arrival_order_does_not_matter);
	tcase_add_test(banks, matmul_loop_rebuilds_warps);
	tcase_add_test(banks, barrier_realigns_divergent_lanes);
	tcase_add_test(banks, wide_accesses_split_in_16_bytes);
	tcase_add_test(banks, variable_names);
	tcase_add_test(banks, groups_on_two_threads_merge);
	tcase_add_test(banks, flops_added_up_by_instruction);
	tcase_add_test(banks, loads_in_flight_from_what_ran);
	suite_add_tcase(s, banks);

	TCase *global = tcase_create("global");
	tcase_add_test(global, global_coalesced_vs_strided);
	tcase_add_test(global, global_broadcast_and_vectors);
	tcase_add_test(global, partial_warps);
	tcase_add_test(global, atomics_price_once_count_both_ways);
	suite_add_tcase(s, global);

	TCase *msgs = tcase_create("messages");
	tcase_add_test(msgs, parse_race);
	tcase_add_test(msgs, parse_other_kinds);
	tcase_add_test(msgs, findings_named_and_deduplicated);
	tcase_add_test(msgs, findings_unnamed_merge_with_named);
	tcase_add_test(msgs, findings_are_capped);
	tcase_add_test(msgs, skip_condition);
	tcase_add_test(msgs, skip_condition_cut);
	tcase_add_test(msgs, guard_condition);
	suite_add_tcase(s, msgs);

	TCase *out = tcase_create("output");
	tcase_add_test(out, kernel_end_writes_cltrace_out);
	tcase_add_test(out, no_cltrace_out_writes_nothing);
	tcase_add_test(out, unfinished_run_is_written_incomplete);
	tcase_add_test(out, edge_groups_priced_by_full_warps);
	tcase_add_test(out, runs_merge);
	suite_add_tcase(s, out);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
