/* Lesson 7, timed on the H200 only (GUIDE.md, lesson 7 in "Speedup thresholds" and the model
 * table): the first form of tests/fixtures/l7_block_from_global.cl, all 8 values of A read from
 * global memory.  Not a fixture: its As is never read, so compilers drop it, and the __local
 * declaration reader (localmem.h) still counts it (test_localmem_pocl compares the two). */
/* Lesson 7 fixture: the reference solution with the register block's A values read from global memory. */
#define WPT 8                  /* the grader launches N / WPT work-items per dimension */
#define BT (TILE * WPT)        /* the group's block of C, and its tiles' long side */
#define BK 8                   /* the tiles' short side: the step of k */
#define LD (BT + 4)            /* a tile row in floats, padded by one float4 */
#define NT (TILE * TILE)       /* work-items per group */

/* Element (r, c) of an N x N matrix, 0 outside it. */
static float at(__global const float* M, int r, int c, int N)
{
    return r < N && c < N ? M[r * N + c] : 0.0f;
}

/* Stage step t's tiles into as/bs.  fast: the group's block and the step are inside the
 * matrix and N % 4 == 0, so each work-item loads float4s (one of each at TILE = 16); else it loads
 * BT * BK / NT single elements of each, guarded, neighbouring work-items on neighbours. */
static void stage(__global const float* A, __global const float* B, __local float* as,
                  __local float* bs, int row0, int col0, int k0, int N, int fast, int tid)
{
    if (fast) {
        for (int f = tid; f < BT * BK / 4; f += NT) {   /* float4 number f of each tile */
            const int am = f / (BK / 4), ak = (f - am * (BK / 4)) * 4;
            const int bk = f / (BT / 4), bn = (f - bk * (BT / 4)) * 4;
            const float4 a = *(__global const float4*)(A + (row0 + am) * N + k0 + ak);
            as[(ak + 0) * LD + am] = a.x;
            as[(ak + 1) * LD + am] = a.y;
            as[(ak + 2) * LD + am] = a.z;
            as[(ak + 3) * LD + am] = a.w;
            *(__local float4*)(bs + bk * LD + bn) =
                *(__global const float4*)(B + (k0 + bk) * N + col0 + bn);
        }
        return;
    }
    for (int e = tid; e < BT * BK; e += NT) {
        const int am = e / BK, ak = e - am * BK;
        const int bk = e / BT, bn = e - bk * BT;
        as[ak * LD + am] = at(A, row0 + am, k0 + ak, N);
        bs[bk * LD + bn] = at(B, k0 + bk, col0 + bn, N);
    }
}

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_blocked(__global const float* A, __global const float* B,
                    __global float* C, const int N)
{
    __local float4 As[2][BK][LD / 4];     /* As[.][k][m/4]: A's tile, transposed */
    __local float4 Bs[2][BK][LD / 4];     /* Bs[.][k][n/4] */
    __local float Cs[TILE][BT + TILE];    /* a band of C on its way out, rows padded */
    const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * TILE + tx;
    const int row0 = get_group_id(1) * BT, col0 = get_group_id(0) * BT;
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
                const float4 b0 = Bs[cur ^ 1][k][tx], b1 = Bs[cur ^ 1][k][tx + BT / 8];
                const int kk = (t - 1) * BK + k, r0 = row0 + ty * 4, r1 = row0 + BT / 2 + ty * 4;
                const float a[WPT] = { at(A, r0, kk, N), at(A, r0 + 1, kk, N), at(A, r0 + 2, kk, N),
                                       at(A, r0 + 3, kk, N), at(A, r1, kk, N), at(A, r1 + 1, kk, N),
                                       at(A, r1 + 2, kk, N), at(A, r1 + 3, kk, N) };
                const float b[WPT] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
                for (int i = 0; i < WPT; i++)
#pragma unroll
                    for (int j = 0; j < WPT; j++)
                        acc[i][j] = fma(a[i], b[j], acc[i][j]);
            }
        }
        if (t < steps)                         /* stage step t into buffer cur */
            stage(A, B, (__local float*)As[cur], (__local float*)Bs[cur], row0, col0, t * BK,
                  N, fast, tid);
        barrier(CLK_LOCAL_MEM_FENCE);          /* the step's tiles are complete */
    }

    /* Row i of every work-item's block, a band of TILE rows of C, goes out through __local
     * memory: each work-item puts its 8 values of the band's row ty there, ordered [j][tx]
     * (one bank per work-item of a warp), then the group stores the band row by row, with
     * neighbouring work-items on neighbouring columns of C. */
#pragma unroll
    for (int i = 0; i < WPT; i++) {
#pragma unroll
        for (int j = 0; j < WPT; j++)
            Cs[ty][j * TILE + tx] = acc[i][j];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = tid; e < TILE * BT; e += NT) {
            const int r = e / BT, c = e - r * BT;            /* band row r, column c */
            const int h = c / (BT / 2), q = c - h * (BT / 2), x = q / 4;
            const int j = q - x * 4 + 4 * h;                 /* c is column j of work-item x */
            const int row = row0 + (i < 4 ? r * 4 + i : BT / 2 + r * 4 + i - 4);
            if (row < N && col0 + c < N)
                C[row * N + col0 + c] = Cs[r][j * TILE + x];
        }
        barrier(CLK_LOCAL_MEM_FENCE);          /* the band is read before the next one */
    }
}
