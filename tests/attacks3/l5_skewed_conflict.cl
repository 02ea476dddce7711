// lesson 5 - attack (a bank conflict the warp rebuild misses under divergent control flow): lane j reads its row of a zeroed __local block at steps j..j+31 of a 63-step loop, column k & 31; GPU: at step k every active lane reads bank k & 31, its own word: 1024 wavefronts per warp per pass, 4 passes, 16384 warps = 6.7e7 wavefronts = 0.257 ms, <= 0.44x; grader: conflict_free PASS (1-way: the rebuild pairs lane j's m-th read, at k = j + m, banks all different) and speedup PASS, predicted 1.67x, 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_skewed_conflict.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    __local float z[TILE * 32];
    const int l = get_local_id(0);
    const int g = get_global_size(0);
    const int j = l & 31, base = (l >> 5) * 1024;   /* lane, its warp's 32x32 block */

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g) {
        a0 += in[i];
        a1 += in[i + g];
        a2 += in[i + 2 * g];
        a3 += in[i + 3 * g];
    }
    for (; i < n; i += g)
        a0 += in[i];
    for (int m = 0; m < 32; m++)
        z[base + m * 32 + j] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* at step k the warp's active lanes (j <= k < j + 32) all read bank k & 31, each its own
     * word: up to 32-way on a GPU.  Lane j's m-th read is at k = j + m, so read by occurrence
     * (the warp rebuild) the lanes' banks are (j + m) & 31: all different, conflict-free. */
    /* the steps lane j takes (j <= k < j + 32) as the bits of a mask, so that no compiler
     * turns the test into per-lane loop bounds (which would make the GPU conflict-free too) */
    const ulong mine = 0xFFFFFFFFul << j;
    float t = 0.0f;
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 63; k++)
            if ((mine >> k) & 1)
                t += z[base + j * 32 + (k & 31)];
    s[l] = (a0 + a1) + (a2 + a3) + t;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
