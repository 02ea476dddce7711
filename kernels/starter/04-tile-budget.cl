/* Lesson 4 - the tile budget: one kernel for every TILE, and a choice per GPU.
 *
 * TODO 1: the grader builds this file with -DTILE=8, -DTILE=16 and -DTILE=32
 *   (local size TILE x TILE) and checks each.  This kernel was written for
 *   16 x 16 tiles: the tiles are sized with TILE, but the index arithmetic
 *   still says T (= 16).  It is right at TILE=16 and wrong at 8 and 32.
 *   Make it correct for every TILE.
 *
 * TODO 2: `make check LESSON=4` prints, per TILE, the __local bytes, the
 *   occupancy on two GPUs with its limiter, the time, and the global loads per
 *   FLOP.  Choose the TILE for an NVIDIA H200 (sm_90) and for an RTX 30xx-class
 *   GPU (sm_86), and record each below with the limiter of occupancy at that
 *   TILE.  All are plain tokens (no quotes); the grader checks them against its
 *   occupancy calculator.
 *
 * Check:  make check LESSON=4        Stuck?  make hint LESSON=4
 */
/* TODO 2: CHOSEN_TILE_* is 8, 16 or 32; CHOSEN_LIMITER_* is one of threads,
 * groups, registers, local_memory (what limits occupancy at that TILE; where the
 * report says "warps", write warps or threads). */
#define CHOSEN_TILE_SM90 0
#define CHOSEN_LIMITER_SM90 TODO
#define CHOSEN_TILE_SM86 0
#define CHOSEN_LIMITER_SM86 TODO

#define T 16   /* the tile width this kernel was first written for */

__kernel void matmul_tiled(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];

    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * T + tx;
    const int row = get_group_id(1) * T + ty;

    float acc = 0.0f;
    for (int t = 0; t < (N + T - 1) / T; ++t) {
        const int a_col = t * T + tx;
        const int b_row = t * T + ty;
        As[ty][tx] = (row < N && a_col < N) ? A[row * N + a_col] : 0.0f;
        Bs[ty][tx] = (b_row < N && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < N && col < N)
        C[row * N + col] = acc;
}
