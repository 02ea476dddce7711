/* Lesson 3 - matrix transpose through a padded __local tile.
 * `in` is rows x cols, `out` is cols x rows (both row-major): out[c][r] = in[r][c].
 *
 * This kernel is CORRECT but naive: a warp reads 32 neighbouring floats of a
 * row of `in` (one 128-byte request), then writes them down a COLUMN of `out`,
 * 32 floats `rows` apart - 32 separate 32-byte sectors instead of 4.
 *
 * TODO: stage a TILE x TILE block through __local memory so that BOTH the global
 * read and the global write walk along rows:
 *   1. load tile[ly][lx] from `in` (coalesced), 2. barrier,
 *   3. write a row of `out` from a COLUMN of the tile (coalesced).
 * Then make step 3 free of bank conflicts: TILE+1 padding (or an XOR swizzle).
 *
 * Check:  make check LESSON=3        Stuck?  make hint LESSON=3
 *
 * TILE comes from the grader (-DTILE=32); local size TILE x TILE. Dimension 0
 * walks the columns of `in`, dimension 1 its rows; the global size is rounded
 * UP to a multiple of TILE in each dimension, so guard the edges.
 */
__kernel void transpose(__global const float* in,
                        __global float* out,
                        const int rows,
                        const int cols)
{
    const int x = get_global_id(0);   /* column of in */
    const int y = get_global_id(1);   /* row of in */
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];   /* read along a row, write down a column */
}
