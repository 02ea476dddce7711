/* devrun_int.h — what the files of the device run share (devrun.c, devrun_run.c,
 * devrun_judge.c): the children's device and builds, the seed's local shapes, a slot's
 * buffers in the page.  Private to those files: the API is devrun.h. */
#ifndef DEVRUN_INT_H
#define DEVRUN_INT_H

#include "devrun.h"
#include "guard.h"

/* devrun.c: open the context's device in a child (the memory limit set on CPU devices);
 * 0, or -1 with err. */
int devrun_open_device(const devrun_ctx *x, clrun *cl, char *err, size_t errlen);

/* devrun.c: the student's text built at TILE=tile (facts into b when b is not NULL); the
 * lesson's baseline built; NULL when the build fails. */
cl_kernel devrun_build_student(clrun *cl, const devrun_src *s, int tile, devrun_build *b);
cl_kernel devrun_build_baseline(clrun *cl, const lesson *l);

/* devrun.c: the seed's local-size experiment (lesson 4): the baseline at square and
 * non-square sizes. */
extern const int devrun_local_shapes[CHECK_MAX_LOCALS][2];

/* A buffer of len floats with its guard zones. */
static inline size_t devrun_whole(size_t len)
{
	return len + 2 * (size_t)GUARD_FLOATS;
}

/* Buffer i of slot sl in the page's arena (its leading guard zone first). */
static inline float *devrun_slot_buf(const devrun_page *pg, const devrun_slot *sl, int i)
{
	size_t off = sl->off;
	for (int k = 0; k < i; k++)
		off += sl->len[k] + 2 * (size_t)GUARD_FLOATS;
	return (float *)pg->arena + off;
}

#endif
