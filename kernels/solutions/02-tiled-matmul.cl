/* Lesson 2 - tiled matrix multiplication (reference solution): C = A * B.
 * Check:  make check LESSON=2 KERNEL=kernels/solutions/02-tiled-matmul.cl
 *
 * A work-group computes a TILE x TILE block of C.  Walking k one tile at a
 * time, it copies a TILE x TILE tile of A and one of B into __local memory
 * (each work-item copies one element of each), then every work-item reads
 * TILE values of each tile from __local memory instead of global memory:
 * global loads per work-item drop from 2N to 2N/TILE.
 * __local cost: 2 * TILE * TILE * 4 bytes per group (2048 B at TILE = 16).
 */
__kernel void matmul_tiled(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];

    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TILE + tx;
    const int row = get_group_id(1) * TILE + ty;

    /* No early return here: work-items outside C still help load tiles and
     * must reach every barrier (a barrier skipped by some is undefined). */
    float acc = 0.0f;
    const int ntiles = (N + TILE - 1) / TILE;        /* the last one may be partial */
    for (int t = 0; t < ntiles; ++t) {
        const int a_col = t * TILE + tx;             /* A[row][a_col] */
        const int b_row = t * TILE + ty;             /* B[b_row][col] */
        /* Outside the matrix load 0: it adds nothing to the sum. */
        As[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;

        barrier(CLK_LOCAL_MEM_FENCE);   /* 1: both tiles complete before anyone reads */

        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];   /* row of As: broadcast; row of Bs: one bank per lane */

        barrier(CLK_LOCAL_MEM_FENCE);   /* 2: everyone done reading before the next load */
    }

    if (row < N && col < N)
        C[row * N + col] = acc;
}
