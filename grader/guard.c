/* guard.c — fill and check the guard zones of guard.h. */
#include <stdio.h>
#include <string.h>

#include "guard.h"

static void put(float *f, uint32_t bits) { memcpy(f, &bits, sizeof bits); }
static int intact(const float *f)
{
	uint32_t bits;
	memcpy(&bits, f, sizeof bits);
	return bits == GUARD_BITS;
}

void guard_fill(float *whole, size_t payload)
{
	for (size_t i = 0; i < GUARD_FLOATS; i++) {
		put(&whole[i], GUARD_BITS);
		put(&whole[GUARD_FLOATS + payload + i], GUARD_BITS);
	}
}

int guard_check(const float *whole, size_t payload, guard_violation *v)
{
	memset(v, 0, sizeof *v);
	for (size_t i = 0; i < GUARD_FLOATS; i++) {
		if (!intact(&whole[i])) {          /* index i is GUARD_FLOATS - i before the start */
			v->before++;
			if (GUARD_FLOATS - i > v->farthest_before)
				v->farthest_before = GUARD_FLOATS - i;
		}
		if (!intact(&whole[GUARD_FLOATS + payload + i])) {
			v->after++;
			v->farthest_after = i + 1;
		}
	}
	return v->before || v->after;
}

void guard_describe(const guard_violation *v, char *buf, size_t len)
{
	int n = 0;
	buf[0] = '\0';
	if (v->after)
		n = snprintf(buf, len, "%zu float%s written past the end (up to %zu bytes beyond)",
		             v->after, v->after == 1 ? "" : "s", v->farthest_after * sizeof(float));
	if (v->before && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "%s%zu float%s written before the start (up to %zu bytes before)",
		         n ? "; " : "", v->before, v->before == 1 ? "" : "s",
		         v->farthest_before * sizeof(float));
}
