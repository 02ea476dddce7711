// Baseline for lesson 7: lesson 2's tiled solution (TILE x TILE tiles in __local memory, one
// element of C per work-item per tile pass) under lesson 7's launch, where a work-group owns a
// (TILE * 8) x (TILE * 8) block of C: the group runs lesson 2's kernel once for each of the
// block's 8 x 8 sub-tiles, one after another.  The bar of lesson 7 is a speedup over this.
// Ships with the suite; never the student's file.
#define WPT 8
__kernel void matmul_tiled_blocked(__global const float* A, __global const float* B,
                                   __global float* C, const int N)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    const int tx = get_local_id(0), ty = get_local_id(1);
    for (int sub = 0; sub < WPT * WPT; sub++) {
        const int col = (get_group_id(0) * WPT + sub % WPT) * TILE + tx;
        const int row = (get_group_id(1) * WPT + sub / WPT) * TILE + ty;
        float acc = 0.0f;
        const int ntiles = (N + TILE - 1) / TILE;
        for (int t = 0; t < ntiles; ++t) {
            const int a_col = t * TILE + tx, b_row = t * TILE + ty;
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
}
