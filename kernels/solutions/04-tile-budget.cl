/* Lesson 4 - the tile budget (reference solution).
 * Check:  make check LESSON=4 KERNEL=kernels/solutions/04-tile-budget.cl
 *
 * The choice for an NVIDIA H200 (sm_90), registers unknown:
 *   TILE  threads/group  __local bytes  groups/SM  threads/SM  occupancy  limiter
 *      8        64             512          32        2048        100 %   threads and the 32-group cap
 *     16       256            2048           8        2048        100 %   threads
 *     32      1024            8192           2        2048        100 %   threads
 *     64      4096 > 1024: does not launch
 * All launchable tiles reach 100 %, so take the one with the fewest global
 * loads per FLOP (1/TILE): TILE = 32, limited by threads (2 x 1024 = 2048).
 */
#define CHOSEN_TILE_SM90 32
#define CHOSEN_LIMITER_SM90 threads

/* Every size below is TILE, so one source serves -DTILE=8, 16 and 32. */
__kernel void matmul_tiled(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    __local float As[TILE][TILE];   /* 2 * TILE * TILE * 4 bytes in all */
    __local float Bs[TILE][TILE];

    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * TILE + tx;
    const int row = get_group_id(1) * TILE + ty;

    float acc = 0.0f;
    for (int t = 0; t < (N + TILE - 1) / TILE; ++t) {
        const int a_col = t * TILE + tx;
        const int b_row = t * TILE + ty;
        As[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);   /* tiles complete before anyone reads */
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);   /* everyone done before the next load */
    }
    if (row < N && col < N)
        C[row * N + col] = acc;
}
