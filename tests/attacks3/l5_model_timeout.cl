// lesson 5 - attack (the model launch outlasts the time limit, so speed is not judged): the solution plus 4 x share^3 dependent FMAs per work-item (share = n / global size: 1 at the analysed n, 9 at the CPU timing size, 32 in the model launch, 128 on the GPU); GPU: 524288 x 8.4M = 4.4e12 FMAs = 131 ms, 0.001x; grader: verdict PASS 7/7, speedup not_checked and unscored (analysis 20 s, model_seconds 0: the model launch was cut by the time limit, which 'costs only the prediction'); `nice -n 10 build/clgrade check 5 tests/attacks3/l5_model_timeout.cl --seed 1 --json r.json` (2026-12-01)
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
    /* arithmetic that grows with the cube of the work-item's share (n / g): about 4 steps at
     * the analysed n = 513..767, 4 x 9^3 at the largest checked n (2^22 + 261), 4 x 32^3 in the model
     * launch (2^14 over 2 groups), 4 x 128^3 = 8M per work-item at the GPU's 2^26 */
    int share = (n + g - 1) / g;
    float z = (a0 + a1) * 0.0f;
    for (int k = 0; k < 4 * share * share * share; k++)
        z = fma(z, z, z);
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
