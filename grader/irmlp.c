/* irmlp.c — loads in flight per warp, from the kernel's instruction stream (see irmlp.h). */
#include <stdlib.h>

#include "irmlp.h"

typedef struct { const void *inst; int group, times, id; } irmlp_load;

struct irmlp {
	const void **taint;       /* values that depend on a load of the open group */
	int ntaint, captaint;
	int open_from;            /* loads[open_from..nloads) form the open group */
	irmlp_load *loads;
	int nloads, caploads;
	int times;                /* what the next load counts (irmlp_times); 0 means 1 */
	int groups;               /* groups closed so far: the last one's id */
};

static void *grow(void *p, size_t elem, int *cap, int need)
{
	if (need <= *cap)
		return p;
	int c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(p, elem * (size_t)c);
	if (!q)
		abort();
	*cap = c;
	return q;
}

irmlp *irmlp_new(void)
{
	irmlp *m = calloc(1, sizeof *m);
	if (!m)
		abort();
	return m;
}

void irmlp_free(irmlp *m)
{
	if (!m)
		return;
	free(m->taint);
	free(m->loads);
	free(m);
}

void irmlp_reset(irmlp *m)
{
	m->ntaint = m->nloads = m->open_from = m->times = m->groups = 0;
}

void irmlp_times(irmlp *m, int times)
{
	m->times = times > 1 ? times : 0;
}

static void close_group(irmlp *m)
{
	int n = 0;
	for (int i = m->open_from; i < m->nloads; i++)
		n += m->loads[i].times;
	if (m->open_from < m->nloads)
		m->groups++;
	for (int i = m->open_from; i < m->nloads; i++) {
		m->loads[i].group = n;
		m->loads[i].id = m->groups;
	}
	m->open_from = m->nloads;
	m->ntaint = 0;
}

static int tainted(const irmlp *m, const void *const *ops, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m->ntaint; j++)
			if (ops[i] && ops[i] == m->taint[j])
				return 1;
	return 0;
}

static void taint(irmlp *m, const void *v)
{
	m->taint = grow(m->taint, sizeof *m->taint, &m->captaint, m->ntaint + 1);
	m->taint[m->ntaint++] = v;
}

void irmlp_step(irmlp *m, irmlp_op op, const void *inst, const void *const *ops, int n)
{
	switch (op) {
	case IRMLP_BLOCK_IF:
		if (n != 1 || tainted(m, ops, n))
			close_group(m);
		break;
	case IRMLP_BLOCK_JOIN:
		break;
	case IRMLP_BLOCK:
	case IRMLP_FENCE:
		close_group(m);
		break;
	case IRMLP_LOAD:
		if (tainted(m, ops, n))
			close_group(m);
		m->loads = grow(m->loads, sizeof *m->loads, &m->caploads, m->nloads + 1);
		m->loads[m->nloads++] = (irmlp_load){ inst, 0, m->times ? m->times : 1, 0 };
		taint(m, inst);
		break;
	case IRMLP_STORE:
		if (n >= 2 && tainted(m, ops, 1))
			for (int i = 1; i < n; i++)
				taint(m, ops[i]);
		break;
	case IRMLP_OTHER:
		if (tainted(m, ops, n))
			taint(m, inst);
		break;
	}
}

void irmlp_end(irmlp *m)
{
	close_group(m);
}

static const irmlp_load *load_of(const irmlp *m, const void *inst)
{
	for (int i = 0; i < m->nloads; i++)
		if (m->loads[i].inst == inst)
			return &m->loads[i];
	return NULL;
}

int irmlp_of(const irmlp *m, const void *inst)
{
	const irmlp_load *l = load_of(m, inst);
	return l ? l->group : 0;
}

int irmlp_group_of(const irmlp *m, const void *inst)
{
	const irmlp_load *l = load_of(m, inst);
	return l ? l->id : 0;
}

int irmlp_times_of(const irmlp *m, const void *inst)
{
	const irmlp_load *l = load_of(m, inst);
	return l ? l->times : 0;
}

int irmlp_groups(const irmlp *m)
{
	return m->groups;
}
