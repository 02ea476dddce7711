// lesson 6 - false PASS (worst): the solution plus 128 dependent `z = exp(z) - 1.0f` per output (z = sum * 0, added to the sum). Only the FSub is counted (9.0e9 FLOPs in all, 0.135 ms): predicted 0.525 ms, 1.49x (bar 1.05x), limited by the L1 pipe, speedup PASS (all criteria pass; measured here 0.01x). On the H200 each exp is a MUFU.EX2 (16 a clock per SM) plus ~6 FP32 instructions: 6143 x 8191 outputs x 128 = 6.4e9 EX2 / (132 x 16 x 1.98e9/s) = 1.54 ms at least against the baseline's 0.78 ms: expect >= 1.5 ms, <= 0.5x. Command: nice -n 10 build/clgrade check 6 tests/attacks4/l6_exp_chain.cl --seed 1 --json OUT.json
/* Lesson 6 - 2-D box stencil with its halo staged in __local memory (reference solution).
 * Check:  make check LESSON=6 KERNEL=kernels/solutions/06-stencil-halo.cl
 *
 * out[r][c] = the sum of in[r+dy][c+dx] over |dy| <= R, |dx| <= R, 0 outside the image.
 * Work-group (gx, gy) computes the TILE x TILE outputs at rows gy*TILE.., cols gx*TILE..;
 * it needs the (TILE + 2R) x (TILE + 2R) inputs around them: its tile and the halo, corners
 * included.  The group stages that block in steps of TILE x TILE cells, lane lx at
 * column lx of each step, so consecutive lx read consecutive floats of one row of in
 * (coalesced) and store consecutive words of the tile (conflict-free); then each
 * work-item adds its box from the tile.
 */
#define R 3                      /* the stencil's radius: the grader's reference uses 3 */
#define W (TILE + 2 * R)         /* a staged row: the tile and R on each side */

__kernel void stencil(__global const float* in,
                      __global float* out,
                      const int rows,
                      const int cols)
{
    __local float tile[W][W];

    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE - R;   /* image column of tile[.][0] */
    const int by = get_group_id(1) * TILE - R;   /* image row of tile[0][.] */

    for (int r = ly; r < W; r += TILE)          /* rows of the block, TILE at a time */
        for (int c = lx; c < W; c += TILE) {    /* along the row: consecutive lx */
            const int y = by + r, x = bx + c;
            tile[r][c] = (y >= 0 && y < rows && x >= 0 && x < cols) ? in[y * cols + x] : 0.0f;
        }

    barrier(CLK_LOCAL_MEM_FENCE);   /* every cell staged before anyone reads one */

    const int row = by + R + ly, col = bx + R + lx;
    if (row < rows && col < cols) {
        float sum = 0.0f;
        for (int dy = 0; dy <= 2 * R; dy++)
            for (int dx = 0; dx <= 2 * R; dx++)
                sum += tile[ly + dy][lx + dx];
        /* z is 0 for every finite sum (exp(0) - 1 = 0), which no compiler may assume */
        float z = sum * 0.0f;
        for (int k = 0; k < 128; k++)
            z = exp(z) - 1.0f;
        out[row * cols + col] = sum + z;
    }
}
