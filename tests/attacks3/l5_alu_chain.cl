// lesson 5 - attack (arithmetic the model does not count): the solution plus 512 dependent FMAs per 4-element turn that add 0; GPU: 2^26/4 x 512 = 8.6e9 FMAs >= 0.256 ms at 132 SMs x 128 FP32 lanes x 1.98 GHz, so <= 0.44x the baseline's 0.113 ms; grader: speedup PASS, predicted 1.67x (0.0678 ms, DRAM; flops_ms 0: FLOPs are the kind's, not the kernel's), 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_alu_chain.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g) {
        float v0 = in[i], v1 = in[i + g], v2 = in[i + 2 * g], v3 = in[i + 3 * g];
        /* z is 0 for every finite input, which no compiler may assume (v * 0 is NaN for an
         * infinite v): 512 dependent FMAs per turn of 4 elements (128 an element) that add nothing */
        float z = (v0 + v1 + v2 + v3) * 0.0f;
        for (int k = 0; k < 512; k++)
            z = fma(z, z, z);
        a0 += v0 + z;
        a1 += v1;
        a2 += v2;
        a3 += v3;
    }
    for (; i < n; i += g)
        a0 += in[i];
    s[l] = (a0 + a1) + (a2 + a3);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
