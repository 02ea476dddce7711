/* Lesson 2 - tiled matrix multiplication with __local memory: C = A * B.
 *
 * This kernel is CORRECT, but it is still the naive algorithm: every work-item
 * streams a whole row of A and a whole column of B from global memory, although
 * its 255 neighbours in the work-group read almost the same data.
 *
 * TODO: make the work-group cooperate.  For each TILE x TILE tile along k:
 *   1. every work-item loads ONE element of A and ONE of B into __local tiles
 *      (zeros where the tile sticks out of the matrix),
 *   2. barrier  - nobody reads a tile before it is complete,
 *   3. every work-item does TILE multiply-adds from the tiles,
 *   4. barrier  - nobody overwrites a tile that others still read.
 *
 * Check:  make check LESSON=2        Stuck?  make hint LESSON=2
 *
 * TILE comes from the grader (-DTILE=16); the local size is TILE x TILE.
 * Dimension 0 walks columns, dimension 1 rows; the global size is N rounded UP
 * to a multiple of TILE, so guard the edges.
 */
__kernel void matmul_tiled(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= N || col >= N)
        return;   /* careful: once you add barriers, every work-item must reach them */

    float acc = 0.0f;
    for (int k = 0; k < N; ++k)
        acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
}
