/* regest.h — registers per work-item, and the occupancy they allow, as the limiter lesson 7
 * teaches.
 *
 * NVIDIA's OpenCL compiler reports its count in the build log (-cl-nv-verbose: "Used N
 * registers", and ptxas' "N bytes spill stores"); devrun.c reads both.  A CPU device reports
 * none, so this module also *estimates* the count from the kernel's text: the 32-bit values of
 * the private arrays and vector variables the kernel body declares (acc[WPT][WPT], float4 a0,
 * ...), sized with TILE and the file's object-like #defines, plus REGEST_BASE for indices,
 * addresses and loop counters.  The report labels it as an estimate; GUIDE.md ("Registers
 * per work-item") compares it with NVIDIA's counts for lesson 7's kernels.  Scalars are not
 * counted one by one: compilers keep only the live ones. */
#ifndef REGEST_H
#define REGEST_H

#include <stdio.h>

struct cJSON;
struct check_report;

/* Registers the estimate adds for indices, addresses and counters. */
#define REGEST_BASE 24
/* NVIDIA's limit per work-item (sm_90): above it the compiler spills to local memory. */
#define REGEST_MAX 255

/* The estimate for kernel `kernel` of source at -DTILE=tile: REGEST_BASE plus every private
 * array's and vector variable's 32-bit words; -1 when the kernel is not found. */
int regest_kernel(const char *source, const char *kernel, int tile);

/* The value of a constant expression over integers, + - * / % and parentheses, object-like
 * #defines of source (recursively) and TILE; 0 and *ok = 0 when it cannot be read. */
long regest_eval(const char *source, const char *expr, int tile, int *ok);

/* The report's lines (lesson 7: the registers' own paragraph under occupancy): the count and
 * where it comes from, spilled bytes, and nvidia-sm90's occupancy at that count. */
void regest_print(FILE *f, const struct check_report *rep);

/* The same into the JSON root as "registers": { count, source ("compiler"|"estimate"),
 * spill_bytes, would_spill, sm90_groups, sm90_occupancy, sm90_limiter }. */
void regest_json(struct cJSON *root, const struct check_report *rep);

#endif
