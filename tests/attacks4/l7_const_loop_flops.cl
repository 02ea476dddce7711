// lesson 7 - false FAIL: the solution plus, once per work-item after the k loop, a constant loop of 512 float16 FMAs on 16 independent lanes (0 times 16 accumulators): 16384 FLOPs a work-item whatever N is, 4.3e9 at N = 4096. gpumodel.c scale() multiplies any instruction a work-item runs more than 1.5 times by the trip ratio trips_t/trips_m (4096/128 = 32) as if its loop walked k: counted 2.75e11 FLOPs in all (1.37e11 more than the solution, 32 x the real 4.3e9), predicted 4.11 ms, 5.36x (bar 6.00x), limited by arithmetic, speedup FAIL (all other criteria pass). On the H200 the extra 8.6e9 FLOPs take 0.13 ms at 66.9 TFLOP/s (16-way ILP hides the FMA latency): expect ~2.9 ms, ~7.6x, above the bar. Command: nice -n 10 build/clgrade check 7 tests/attacks4/l7_const_loop_flops.cl --seed 1 --json OUT.json
/* Lesson 7 - register blocking (reference solution): C = A * B.
 * Check:  make check LESSON=7 KERNEL=kernels/solutions/07-register-blocking.cl
 *
 * A work-group of TILE x TILE work-items computes a BT x BT block of C (BT = TILE * WPT,
 * 128 x 128 at TILE = 16); each work-item computes WPT x WPT = 64 elements of it, held in
 * registers (acc[][] with constant indices after unrolling).  Walking k in steps of BK, the
 * group stages a BT x BK tile of A (stored transposed, As[k][m]) and a BK x BT tile of B in
 * __local memory, in two buffers: the next step's tiles go into the other buffer, so one
 * barrier per step suffices.
 *
 * Per step of k a work-item reads 2 float4 of A and 2 float4 of B from __local memory (64
 * bytes) for 64 FMAs: 1 byte per FMA, where lesson 2 reads 8 (two floats per FMA).  Its rows
 * are ty*4..ty*4+3 and BT/2 + ty*4..+3, its columns likewise with tx: a warp's float4 reads
 * of A touch two addresses (a broadcast), those of B 16 consecutive float4s (conflict-free in
 * 128-bit phases).  Tile rows are padded by one float4, so the transposed stores into As
 * spread over the banks.  C is written through __local memory too (Cs), a band of rows at a time,
 * so that neighbouring work-items store neighbouring elements.
 * __local: 2 buffers x 2 tiles x BK x (BT + 4) x 4 bytes + the band, TILE x (BT + TILE) x 4
 * bytes: 25.5 KiB at TILE = 16.
 */
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
        if (t < steps)                         /* stage step t into buffer cur */
            stage(A, B, (__local float*)As[cur], (__local float*)Bs[cur], row0, col0, t * BK,
                  N, fast, tid);
        barrier(CLK_LOCAL_MEM_FENCE);          /* the step's tiles are complete */
    }

    {
        /* 16 independent lanes, each 0 for finite accumulators (which no compiler may assume):
         * a constant loop of 512 float16 FMAs per work-item, 16384 FLOPs, whatever N is */
        float16 z = (float16)(acc[0][0], acc[0][1], acc[0][2], acc[0][3], acc[0][4], acc[0][5],
                              acc[0][6], acc[0][7], acc[1][0], acc[1][1], acc[1][2], acc[1][3],
                              acc[1][4], acc[1][5], acc[1][6], acc[1][7]) * 0.0f;
        for (int k = 0; k < 512; k++)
            z = fma(z, z, z);
        const float8 h = z.lo + z.hi;
        const float4 q = h.lo + h.hi;
        acc[0][0] += (q.x + q.y) + (q.z + q.w);
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
