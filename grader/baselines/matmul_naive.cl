// Baseline for the matmul lessons: the naive kernel the grader times the student against.
// Ships with the suite; never the student's file.  Same contract as lesson 1.
__kernel void matmul_naive(__global const float* A, __global const float* B,
                           __global float* C, const int N)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= N || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < N; k++)
        acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
}
