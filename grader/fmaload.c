/* fmaload.c — __local bytes loaded per FMA (fmaload.h): lesson 7's finding next to lesson 2's. */
#include <cjson/cJSON.h>

#include "fmaload.h"

double fmal_per_fma(const kind *k, const kind_traffic *t)
{
	if (!k || !k->fma_count || !t)
		return -1;
	double fmas = k->fma_count(t->rows, t->cols, t->tile);
	return fmas > 0 ? t->local_loaded / fmas : -1;
}

void fmal_print(FILE *f, const kind *k, const kind_traffic *t)
{
	double b = fmal_per_fma(k, t);
	if (b < 0)
		return;
	fprintf(f, "  __local bytes loaded per FMA: %.2f (lesson 2's tiles: %.2f, two floats per "
	        "FMA; a block of %d x %d per work-item from float4s: %.2f)\n", b, FMAL_LESSON2,
	        KIND_MATMUL_WPT, KIND_MATMUL_WPT, FMAL_LESSON2 / KIND_MATMUL_WPT);
}

void fmal_json(cJSON *gm, const kind *k, const kind_traffic *t)
{
	double b = fmal_per_fma(k, t);
	if (b >= 0)
		cJSON_AddNumberToObject(gm, "local_bytes_per_fma", b);
}
