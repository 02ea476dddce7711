/* Lesson 7 exploration (GUIDE.md): the solution's first form, N % 128 == 0 only, with the next
 * step's global loads prefetched into registers (default, 36.2 TFLOP/s on the H200), or not (-DNODB,
 * 40.2 in the first probe), -DBK=16.  Timed with tests/gpu/l7-probe.c; never graded. */
#ifndef BK
#define BK 8
#endif
#define WPT 8
#define BT (TILE * WPT)
#define HALF (BT / 2)
#define LD4 (BT / 4 + 1)
#define NT (TILE * TILE)
#define LA (BT * BK / 4 / NT)

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul_blocked(__global const float* A, __global const float* B,
                    __global float* C, const int N)
{
    __local float4 As[2][BK][LD4];
    __local float4 Bs[2][BK][LD4];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * TILE + tx;
    const int row0 = get_group_id(1) * BT, col0 = get_group_id(0) * BT;
    float acc[WPT][WPT];
#pragma unroll
    for (int i = 0; i < WPT; i++)
#pragma unroll
        for (int j = 0; j < WPT; j++) acc[i][j] = 0.0f;
    const int nt = (N + BK - 1) / BK;
    float4 ra[LA], rb[LA];
#pragma unroll
    for (int s = 0; s < LA; s++) {
        int f = tid + s * NT;
        int am = f / (BK / 4), ak = (f % (BK / 4)) * 4;
        int bk = f / (BT / 4), bn = (f % (BT / 4)) * 4;
        ra[s] = *(__global const float4*)(A + (row0 + am) * N + ak);
        rb[s] = *(__global const float4*)(B + bk * N + col0 + bn);
        __local float* at = (__local float*)As[0];
        at[(ak + 0) * LD4 * 4 + am] = ra[s].x;
        at[(ak + 1) * LD4 * 4 + am] = ra[s].y;
        at[(ak + 2) * LD4 * 4 + am] = ra[s].z;
        at[(ak + 3) * LD4 * 4 + am] = ra[s].w;
        Bs[0][bk][bn / 4] = rb[s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < nt; t++) {
        const int cur = t & 1;
#ifndef NODB
        if (t + 1 < nt) {
#pragma unroll
            for (int s = 0; s < LA; s++) {
                int f = tid + s * NT;
                int am = f / (BK / 4), ak = (f % (BK / 4)) * 4;
                int bk = f / (BT / 4), bn = (f % (BT / 4)) * 4;
                ra[s] = *(__global const float4*)(A + (row0 + am) * N + (t + 1) * BK + ak);
                rb[s] = *(__global const float4*)(B + ((t + 1) * BK + bk) * N + col0 + bn);
            }
        }
#endif
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = As[cur][k][ty], a1 = As[cur][k][ty + HALF / 4];
            float4 b0 = Bs[cur][k][tx], b1 = Bs[cur][k][tx + HALF / 4];
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < WPT; i++)
#pragma unroll
                for (int j = 0; j < WPT; j++)
                    acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        if (t + 1 < nt) {
#pragma unroll
            for (int s = 0; s < LA; s++) {
                int f = tid + s * NT;
                int am = f / (BK / 4), ak = (f % (BK / 4)) * 4;
                int bk = f / (BT / 4), bn = (f % (BT / 4)) * 4;
#ifdef NODB
                barrier(CLK_LOCAL_MEM_FENCE);
                ra[s] = *(__global const float4*)(A + (row0 + am) * N + (t + 1) * BK + ak);
                rb[s] = *(__global const float4*)(B + ((t + 1) * BK + bk) * N + col0 + bn);
#endif
                __local float* at = (__local float*)As[cur ^ 1];
                at[(ak + 0) * LD4 * 4 + am] = ra[s].x;
                at[(ak + 1) * LD4 * 4 + am] = ra[s].y;
                at[(ak + 2) * LD4 * 4 + am] = ra[s].z;
                at[(ak + 3) * LD4 * 4 + am] = ra[s].w;
                Bs[cur ^ 1][bk][bn / 4] = rb[s];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (int i = 0; i < WPT; i++) {
        const int r = row0 + (i < 4 ? ty * 4 + i : HALF + ty * 4 + i - 4);
        float4 lo = (float4)(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        float4 hi = (float4)(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
        *(__global float4*)(C + r * N + col0 + tx * 4) = lo;
        *(__global float4*)(C + r * N + col0 + HALF + tx * 4) = hi;
    }
}
