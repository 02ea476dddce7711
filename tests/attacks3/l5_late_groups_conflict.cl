// lesson 5 - attack (slow only in groups the analysis and the model never run; a size test in disguise): groups >= 3 keep each work-item's sum in a 32-way-conflicted __local word (volatile); GPU: 2045 of 2048 groups, 64 wavefronts per warp per turn x 32 turns x 16384 warps = 3.4e7 = 0.13 ms, <= 0.88x; grader: conflict_free PASS (the analysed n = 513..767 is 3 groups) and speedup PASS, predicted 1.67x (the model launch is 2 groups), 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_late_groups_conflict.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    __local float z[32 * TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);
    /* (l & 31) * 32 + (l >> 5): each work-item its own word, every lane of a warp in the
     * same bank (bank = the warp's number): 32-way */
    const int w = (l & 31) * 32 + (l >> 5);
    /* groups 0-2 keep the sum in a register; every later group (never in the analysed
     * launches: n = 513..767 is 3 groups; never in the model launch: 2 groups) keeps it in
     * z[w], a 32-way-conflicted read and write per element */
    const int late = get_group_id(0) >= 3;
    /* volatile: a GPU compiler may not keep z[w] in a register across the loop */
    volatile __local float *zw = &z[w];

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    if (late)
        *zw = 0.0f;
    int i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g) {
        float v = (in[i] + in[i + g]) + (in[i + 2 * g] + in[i + 3 * g]);
        if (late)
            *zw += v;
        else
            a0 += v;
    }
    for (; i < n; i += g)
        a1 += in[i];
    if (late)
        a0 = *zw;
    s[l] = a0 + a1;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
