/* fmaload.h — __local bytes loaded per FMA: the budget that register blocking spends.
 *
 * Tiling (lesson 2) cuts global traffic, but every FMA of its inner loop still reads two
 * floats from __local memory, 8 bytes; a work-item that computes a WPT x WPT block from float4
 * reads of the tiles reads 2 x WPT floats for WPT x WPT FMAs, 8 / WPT bytes (1 at WPT = 8).
 * This module turns the analysis' __local byte total into that figure, for kinds that say
 * how many FMAs their launch performs (kind.fma_count), and prints it beside lesson 2's. */
#ifndef FMALOAD_H
#define FMALOAD_H

#include <stdio.h>

#include "kind.h"

struct cJSON;

/* Lesson 2's figure: two 4-byte floats from __local memory per FMA. */
#define FMAL_LESSON2 8.0

/* __local bytes loaded per FMA of the launch the analysis ran (t: its size, TILE and __local
 * bytes loaded); -1 when the kind counts no FMAs or none ran. */
double fmal_per_fma(const kind *k, const kind_traffic *t);

/* The report's line under the global bytes per FLOP ("  __local bytes loaded per FMA: ..."),
 * nothing when fmal_per_fma is -1. */
void fmal_print(FILE *f, const kind *k, const kind_traffic *t);

/* The same into the JSON's global_memory object as "local_bytes_per_fma" (absent at -1). */
void fmal_json(struct cJSON *gm, const kind *k, const kind_traffic *t);

#endif
