/* guard.h — guard zones around every device buffer, so a write outside a buffer is caught and
 * measured ("C: 12 floats written past the end") instead of silently passing.
 *
 * Each buffer is allocated as [guard | payload | guard]; the kernel sees only the payload (a
 * sub-buffer); the guards hold GUARD_BITS and are checked after each run. */
#ifndef GUARD_H
#define GUARD_H

#include <stddef.h>
#include <stdint.h>

enum { GUARD_FLOATS = 262144 };          /* 1 MiB each side: a multiple of any base alignment */
#define GUARD_BITS 0x7fa5a5a5u           /* a NaN: an out-of-bounds read shows up as NaN too */

/* Fill both guard zones of whole[] (length payload + 2*GUARD_FLOATS). */
void guard_fill(float *whole, size_t payload);

typedef struct guard_violation {
	size_t before;       /* guard floats changed before the start */
	size_t after;        /* ... after the end */
	size_t farthest_before, farthest_after; /* distance in floats from the payload's edge (1 = adjacent) */
} guard_violation;

/* Check both zones; returns 1 and fills v when any guard float changed, else 0. */
int guard_check(const float *whole, size_t payload, guard_violation *v);

/* "12 floats written past the end (up to 48 bytes beyond)" into buf. */
void guard_describe(const guard_violation *v, char *buf, size_t len);

#endif
