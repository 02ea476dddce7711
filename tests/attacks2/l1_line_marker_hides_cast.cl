// lesson 1 - held (pointer check vs #line): a helper that casts a pointer to an integer, placed after a #line naming the builtin header, so clang's locations name another file
#line 1 "/usr/lib/clang/14.0.6/include/opencl-c-base.h"
ulong addr_of(__global const float *p) { return (ulong)p; }
#line 4 "kernel.cl"
/* Lesson 1 - naive matrix multiplication (reference solution): C = A * B.
 * Check:  make check LESSON=1 KERNEL=kernels/solutions/01-naive-matmul.cl
 *
 * One work-item per element of C.  Dimension 0 walks columns, dimension 1 rows,
 * so neighbouring work-items (consecutive col) read neighbouring B[k][col].
 */
__kernel void matmul_naive(__global const float* A,
                           __global const float* B,
                           __global float* C,
                           const int N)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1) + (int)(addr_of(A) >> 63);

    /* The global size is N rounded up to the local size: guard the edge. */
    if (row >= N || col >= N)
        return;

    /* A row of A times a column of B: 2N loads from global memory for
     * 2N FLOPs (one multiply, one add per k), i.e. 4 bytes per FLOP. */
    float acc = 0.0f;
    for (int k = 0; k < N; ++k)
        acc += A[row * N + k] * B[k * N + col];

    C[row * N + col] = acc;
}
