/* kind.c — the default words of the grader's messages (kind.h, kind_say): what a message says
 * when the lesson's kind has no sentence of its own.  Nothing here names a matrix, a row or a
 * column: a kind of any shape can fall back on it. */
#include <stdio.h>

#include "kind.h"

static const char *const defaults[KS_COUNT] = {
	[KS_GUARD] = "if (i < n) around each access, with the kernel's own size argument",
	[KS_EDGE] = "load or store past the end of a buffer, or skip work the last elements need",
	[KS_EDGE_TRY] = "guard every global load and store with the kernel's size argument, use 0 "
	                "for a value past the end, and let every work-item still reach each barrier",
	[KS_SIZE_TRY] = "use the size arguments everywhere, with no size of your own",
	[KS_DIVERGENCE_TRY] = "every work-item of a work-group must reach every barrier: do not "
	                      "return early or put a barrier under an if that some work-items skip; "
	                      "keep every work-item on one path and guard only the loads and stores",
	[KS_STORE_OWN] = "",
	[KS_SCALE] = "every element within its bound",
	[KS_PAD] = "let neighbouring lanes use neighbouring words",
	[KS_SWIZZLE] = "",
	[KS_EDGE_PART] = "elements",
	[KS_OOB_TRY] = "check the index of that access against the buffer's size (a loop bound "
	               "that runs one past it, a guard that lets the last work-items through), and "
	               "that __local memory is written (and a barrier passed) before it is read",
	[KS_LOCAL_TRY] = "declare a __local array for what the work-group shares, load it "
	                 "cooperatively, barrier, then compute from it",
	[KS_SPEED_TRY] = "check that the global loads are coalesced, that each value staged in "
	                 "__local memory is read there more than once, and that the loops keep "
	                 "several loads in flight",
	[KS_WORK_GROWS] = "a loop nest deeper than the lesson's, or a stride that revisits "
	                  "elements: the sizes checked grow large",
	[KS_INDEX_TRY] = "work out the largest index that access reaches for a work-item the "
	                 "condition lets through, and compare it with the buffer's length",
	[KS_ZERO_TRIP_TRY] = "let the loop run over every element the result needs, whatever the "
	                     "size: (n + TILE - 1) / TILE turns of TILE, not n / TILE",
	[KS_SPILL_TRY] = "keep fewer values per work-item in private arrays and vectors: what does "
	                 "not fit in the registers goes to local memory, off-chip",
	[KS_WIDE] = "a value is rounded somewhere -- half-precision or fixed-point storage "
	            "(vstore_half, an int scaled by a power of two) loses the low bits",
	[KS_WIDE_TRY] = "keep every value a float from the load to the store: no half, int or "
	                "fixed-point copy of it, in registers or in __local memory",
};

const char *kind_say(const kind *k, kind_say_id id)
{
	if (id < 0 || id >= KS_COUNT)
		return "";
	return k && k->say[id] ? k->say[id] : defaults[id] ? defaults[id] : "";
}

const char *kind_size_text(const kind *k, int rows, int cols, char *buf, size_t len)
{
	if (k && k->dims == 1)
		snprintf(buf, len, "n=%d", cols);
	else
		snprintf(buf, len, "%dx%d", rows, cols);
	return buf;
}

const char *kind_where(const kind *k, int r, int c, char *buf, size_t len)
{
	if (k && k->where)
		k->where(r, c, buf, len);
	else if (k && k->dims == 1)
		snprintf(buf, len, "element %d", c);
	else
		snprintf(buf, len, "element (%d, %d)", r, c);
	return buf;
}

size_t kind_round_up(size_t x, size_t m)
{
	return (x + m - 1) / m * m;
}

lesson_size kind_sweep_size(const kind *k, int gpu)
{
	return gpu ? k->time_size_gpu : k->sweep_size.rows ? k->sweep_size : k->time_size;
}
