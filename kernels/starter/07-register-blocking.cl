/* Lesson 7 - register blocking (reference solution): C = A * B.
 * Check:  make check LESSON=7 KERNEL=kernels/solutions/07-register-blocking.cl
 *
 * A work-group of TILE x TILE work-items computes a BT x BT block of C (BT = TILE * WPT,
 * 128 x 128 at TILE = 16); each work-item computes WPT x WPT = 64 elements of it, held in
 * registers (acc[][] with constant indices after unrolling).  Walking k in steps of BK, the
 * group stages a BT x BK tile of A (stored transposed, As[k][m]) and a BK x BT tile of B in
 * __local memory, one float4 of each per work-item, in two buffers: the next step's tiles are
 * stored into the other buffer, so one barrier per step suffices.
 *
 * Per step of k a work-item reads 2 float4 of A and 2 float4 of B from __local memory (64
 * bytes) and does 64 FMAs: 1 byte per FMA, where lesson 2 reads 8 (two floats per FMA).
 * Its rows are ty*4..ty*4+3 and BT/2 + ty*4..+3, its columns likewise with tx: a warp's
 * float4 reads of A touch two addresses (a broadcast), those of B 16 consecutive float4s
 * (conflict-free in 128-bit phases); rows of the tiles are padded by one float4 so that the
 * transposed scalar stores into As spread over the banks.
 * __local: 2 buffers x 2 tiles x BK x (BT + 4) x 4 bytes = 16.5 KiB at TILE = 16.
 */
#define WPT 8                  /* the grader launches N / WPT work-items per dimension */
#define BT (TILE * WPT)        /* the group's block of C, and its tiles' long side */
#define BK 8                   /* the tiles' short side: the step of k */
#define LD4 (BT / 4 + 1)       /* a tile row in float4s, padded by one float4 */

/* Element (r, c) of an N x N matrix, 0 outside it. */
static float at(__global const float* M, int r, int c, int N)
{
    return r < N && c < N ? M[r * N + c] : 0.0f;
}

/* Four consecutive elements of row r from column c: one float4 load where the whole tile
 * step is inside (fast: N % 4 == 0 and the group's block inside), else four guarded ones. */
static float4 load4(__global const float* M, int r, int c, int N, int fast)
{
    if (fast)
        return *(__global const float4*)(M + r * N + c);
    return (float4)(at(M, r, c, N), at(M, r, c + 1, N), at(M, r, c + 2, N), at(M, r, c + 3, N));
}

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_blocked(__global const float* A, __global const float* B,
                    __global float* C, const int N)
{
    __local float4 As[2][BK][LD4];     /* As[.][k][m/4]: A's tile, transposed */
    __local float4 Bs[2][BK][LD4];     /* Bs[.][k][n/4] */
    const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * TILE + tx;
    const int row0 = get_group_id(1) * BT, col0 = get_group_id(0) * BT;
    /* what this work-item stages: A[row0 + am][k + ak..+3] and B[k + bk][col0 + bn..+3] */
    const int am = tid / (BK / 4), ak = (tid % (BK / 4)) * 4;
    const int bk = tid / (BT / 4), bn = (tid % (BT / 4)) * 4;
    const int fast = N % 4 == 0 && N % BK == 0 && row0 + BT <= N && col0 + BT <= N;

    float acc[WPT][WPT];
#pragma unroll
    for (int i = 0; i < WPT; i++)
#pragma unroll
        for (int j = 0; j < WPT; j++)
            acc[i][j] = 0.0f;

    const int steps = (N + BK - 1) / BK;       /* the last one may be partial */
    for (int t = 0; t <= steps; t++) {
        const int cur = t & 1;
        if (t > 0) {                           /* compute step t - 1 from buffer cur ^ 1 */
#pragma unroll
            for (int k = 0; k < BK; k++) {
                const float4 a0 = As[cur ^ 1][k][ty], a1 = As[cur ^ 1][k][ty + BT / 8];
                const float4 b0 = Bs[cur ^ 1][k][tx], b1 = Bs[cur ^ 1][k][tx + BT / 8];
                const float a[WPT] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
                const float b[WPT] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
                for (int i = 0; i < WPT; i++)
#pragma unroll
                    for (int j = 0; j < WPT; j++)
                        acc[i][j] = fma(a[i], b[j], acc[i][j]);
            }
        }
        if (t < steps) {                       /* stage step t into buffer cur */
            const float4 ra = load4(A, row0 + am, t * BK + ak, N, fast);
            const float4 rb = load4(B, t * BK + bk, col0 + bn, N, fast);
            __local float* as = (__local float*)As[cur];
            as[(ak + 0) * LD4 * 4 + am] = ra.x;
            as[(ak + 1) * LD4 * 4 + am] = ra.y;
            as[(ak + 2) * LD4 * 4 + am] = ra.z;
            as[(ak + 3) * LD4 * 4 + am] = ra.w;
            Bs[cur][bk][bn / 4] = rb;
        }
        barrier(CLK_LOCAL_MEM_FENCE);          /* the step's tiles are complete */
    }

#pragma unroll
    for (int i = 0; i < WPT; i++) {
        const int r = row0 + (i < 4 ? ty * 4 + i : BT / 2 + ty * 4 + i - 4);
        const int c = col0 + tx * 4;
        if (fast) {
            *(__global float4*)(C + r * N + c) = (float4)(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            *(__global float4*)(C + r * N + c + BT / 2) =
                (float4)(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
            continue;
        }
#pragma unroll
        for (int j = 0; j < WPT; j++) {
            const int cj = c + (j < 4 ? j : BT / 2 - 4 + j);
            if (r < N && cj < N)
                C[r * N + cj] = acc[i][j];
        }
    }
}
