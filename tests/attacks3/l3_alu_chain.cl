// lesson 3 - attack (arithmetic the model does not count): the solution plus 256 dependent FMAs per element that add 0; GPU: 8192^2 x 256 = 1.7e10 FMAs >= 0.51 ms at 3.35e13 FMA/s, so <= 1.89x the baseline's 0.966 ms (bar 2.00x); grader: speedup PASS, predicted 3.33x (0.289 ms, latency), 9/9; `nice -n 10 build/clgrade check 3 tests/attacks3/l3_alu_chain.cl --seed 1 --json r.json` (2026-12-01; at 512 FMAs the analysis hit its 20 s limit before the model launch and speedup went unscored: see l5_model_timeout)
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
    if (bx + lx < cols && by + ly < rows) {
        float v = in[(by + ly) * cols + (bx + lx)];
        /* z is 0 for every finite input, which no compiler may assume (v * 0 is NaN for an
         * infinite v): 256 dependent FMAs per element that add nothing */
        float z = v * 0.0f;
        for (int k = 0; k < 256; k++)
            z = fma(z, z, z);
        tile[ly][lx] = v + z;
    }

    barrier(CLK_LOCAL_MEM_FENCE);   /* the whole tile is loaded before anyone reads it */

    /* Coalesced write: lane lx writes out[bx+ly][by+lx] = in[by+lx][bx+ly],
     * which the work-item (ly, lx) stored in tile[lx][ly].  The guard is the
     * same condition that work-item used, so we never read an unset element. */
    if (by + lx < rows && bx + ly < cols)
        out[(bx + ly) * rows + (by + lx)] = tile[lx][ly];
}
