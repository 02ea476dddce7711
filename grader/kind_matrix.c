/* kind_matrix.c — what the two matrix kinds (kind_matmul.c, kind_transpose.c) share: the 2-D
 * NDRange of TILE x TILE groups over a rows x cols output, and the words for where an element
 * of a matrix is.  Only they use it. */
#include <stdio.h>

#include "kind.h"
#include "ref.h"

int kind_geometry_2d(const ref_problem *p, int tile, size_t global[3], size_t local[3])
{
	local[0] = local[1] = (size_t)tile;
	global[0] = kind_round_up((size_t)p->cols, (size_t)tile);
	global[1] = kind_round_up((size_t)p->rows, (size_t)tile);
	return 2;
}

int kind_group_2d(int tile) { return tile * tile; }

void kind_where_2d(int r, int c, char *buf, size_t len)
{
	snprintf(buf, len, "row %d, column %d", r, c);
}
