// lesson 3 - false PASS (worst): the solution plus 64 dependent `z = sqrt(z)` per element loaded (z = v * 0, added to v). flopsOf does not count sqrt (a call): predicted 0.289 ms, 3.33x (bar 2.00x), limited by latency, speedup PASS (all criteria pass; measured here 0.02x). On the H200 8192^2 x 64 = 4.3e9 sqrts need at least one MUFU op each, 16 a clock per SM: 4.3e9 / (132 x 16 x 1.98e9/s) = 1.03 ms at least against the baseline's 0.96 ms: expect >= 1.0 ms, <= 0.95x. Command: nice -n 10 build/clgrade check 3 tests/attacks4/l3_sqrt_chain.cl --seed 1 --json OUT.json
/* Lesson 3 - transpose through a padded __local tile (reference solution).
 * Check:  make check LESSON=3 KERNEL=kernels/solutions/03-transpose-padding.cl
 *
 * `in` is rows x cols, `out` is cols x rows.  Work-group (gx, gy) reads the
 * TILE x TILE block of `in` at rows gy*TILE.., cols gx*TILE.. and writes it to
 * `out` at rows gx*TILE.., cols gy*TILE..  Both global accesses walk along rows
 * (consecutive lx -> consecutive addresses); the transposition happens in __local.
 */
__kernel void transpose(__global const float* in,
                        __global float* out,
                        const int rows,
                        const int cols)
{
    /* One extra column: element [r][c] lives in word r*(TILE+1) + c, so walking
     * down a column moves 33 words = 1 bank per lane: no two lanes share a bank. */
    __local float tile[TILE][TILE + 1];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE;   /* first column of in in this block */
    const int by = get_group_id(1) * TILE;   /* first row of in in this block */

    /* Coalesced read: lane lx reads in[by+ly][bx+lx]. */
    if (bx + lx < cols && by + ly < rows)
    {
        const float v = in[(by + ly) * cols + (bx + lx)];
        /* z is 0 for every finite v (sqrt(0) = 0), which no compiler may assume */
        float z = v * 0.0f;
        for (int k = 0; k < 64; k++)
            z = sqrt(z);
        tile[ly][lx] = v + z;
    }

    barrier(CLK_LOCAL_MEM_FENCE);   /* the whole tile is loaded before anyone reads it */

    /* Coalesced write: lane lx writes out[bx+ly][by+lx] = in[by+lx][bx+ly],
     * which the work-item (ly, lx) stored in tile[lx][ly].  The guard is the
     * same condition that work-item used, so we never read an unset element. */
    if (by + lx < rows && bx + ly < cols)
        out[(bx + ly) * rows + (by + lx)] = tile[lx][ly];
}
