// lesson 5 - attack (a loop over get_num_groups: 2 trips in the model launch, 2048 on the GPU): the solution plus, per work-item, one coalesced load of every group's first block times 0; GPU: 16384 warps x 2048 requests = 3.4e7 L1 wavefronts = 0.13 ms in the L1 pipe alone (4.3 GB from L2), so <= 0.87x; grader: speedup PASS, predicted 1.67x (the site is scaled by the kind's trips, x4, not x1024), 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_groups_loop.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

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
    /* every work-item reads one float of every group's first block: coalesced, in bounds
     * (q * TILE + l < g <= n rounded up, guarded), times 0 (not foldable: NaN for inf) */
    float z = 0.0f;
    for (int q = 0; q < get_num_groups(0); q++) {
        int j = q * TILE + l;
        if (j < n)
            z += in[j] * 0.0f;
    }
    s[l] = (a0 + a1) + (a2 + a3) + z;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
