/* Lesson 4 - the tile budget (reference solution).
 * Check:  make check LESSON=4 KERNEL=kernels/solutions/04-tile-budget.cl
 *
 * The choices, from the TILE sweep table (registers: the grader assumes 32 per
 * work-item on PoCL; NVIDIA's compiler gives the real count on an NVIDIA GPU):
 *
 *   sm_90 (H200), 2048 threads and 32 groups per SM:
 *   TILE  threads/group  __local bytes  groups/SM  threads/SM  occupancy  limiter
 *      8        64             512          32        2048        100 %   warps (and groups, registers)
 *     16       256            2048           8        2048        100 %   warps (and registers)
 *     32      1024            8192           2        2048        100 %   warps (and registers)
 *   All reach 100 %: take the fewest global loads per FLOP (4/TILE), TILE = 32.
 *
 *   sm_86 (RTX 30xx, A40), 1536 threads and 16 groups per SM:
 *      8        64             512          16        1024         67 %   groups
 *     16       256            2048           6        1536        100 %   warps
 *     32      1024            8192           1        1024         67 %   warps
 *   Only TILE = 16 fills the SM: a second 1024-thread group does not fit in 1536.
 *
 *   TILE = 64 (4096 threads) launches on neither: a group holds at most 1024.
 */
#define CHOSEN_TILE_SM90 32
#define CHOSEN_LIMITER_SM90 threads
#define CHOSEN_TILE_SM86 16
#define CHOSEN_LIMITER_SM86 warps

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
