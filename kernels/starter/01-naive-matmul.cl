/* Lesson 1 - naive matrix multiplication: C = A * B, N x N, row-major floats.
 *
 * TODO: finish the dot product below; each work-item computes ONE element of C.
 * Check:  make check LESSON=1        Stuck?  make hint LESSON=1
 *
 * The grader's launch: dimension 0 walks columns, dimension 1 walks rows,
 * local size 16 x 16, global size = N rounded UP to a multiple of 16.
 */
__kernel void matmul_naive(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    const int col = get_global_id(0);   /* the column of C this work-item owns */
    const int row = get_global_id(1);   /* ... and its row */

    /* The global size was rounded up: work-items past the edge own nothing. */
    if (row >= N || col >= N)
        return;

    float acc = 0.0f;
    /* TODO: acc = sum over k = 0 .. N-1 of A[row][k] * B[k][col].
     *       Row-major storage: element [r][c] of an N x N matrix X is X[r * N + c]. */

    C[row * N + col] = acc;
}
