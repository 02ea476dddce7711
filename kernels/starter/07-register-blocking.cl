/* Lesson 7 - register blocking (starter): C = A * B.
 * Check:  make check LESSON=7 KERNEL=kernels/starter/07-register-blocking.cl
 *
 * The grader launches TILE x TILE work-items per group and N / WPT work-items per dimension
 * (rounded up to whole groups): each work-item owns a WPT x WPT block of C, held in
 * registers (acc[][]).  This starter already computes the right block, but every value of A
 * and B comes straight from global memory, once per FMA.
 *
 * TODO: stage a tile of A (the group's TILE * WPT rows) and a tile of B (its TILE * WPT
 *       columns) for a short step of k in __local memory, barrier, and compute the block from
 *       the tiles, reading each value once per step and using it WPT times.
 */
#define WPT 8                  /* the grader launches N / WPT work-items per dimension */
#define BT (TILE * WPT)        /* the group's block of C */

__kernel void matmul_blocked(__global const float* A, __global const float* B,
                             __global float* C, const int N)
{
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int row0 = get_group_id(1) * BT + ty * WPT;    /* this work-item's block */
    const int col0 = get_group_id(0) * BT + tx * WPT;

    float acc[WPT][WPT];
    for (int i = 0; i < WPT; i++)
        for (int j = 0; j < WPT; j++)
            acc[i][j] = 0.0f;

    for (int k = 0; k < N; k++)
        for (int i = 0; i < WPT; i++)
            for (int j = 0; j < WPT; j++)
                if (row0 + i < N && col0 + j < N)
                    acc[i][j] += A[(row0 + i) * N + k] * B[k * N + col0 + j];

    for (int i = 0; i < WPT; i++)
        for (int j = 0; j < WPT; j++)
            if (row0 + i < N && col0 + j < N)
                C[(row0 + i) * N + col0 + j] = acc[i][j];
}
