// lesson 5 - false FAIL: the solution plus 16 dependent float16 multiply-adds per 4-element turn on a splat `(float16)(z)` (z = 0 times the loads' sum), whose 16 lanes are equal. flopsOf counts 16 lanes x 2 per operation: counted 1.28e10 FLOPs, predicted 0.191 ms, 0.59x, limited by arithmetic, speedup FAIL (all other criteria pass). NVIDIA's compiler scalarises vectors and merges equal lanes (l5_alu_chain_float4 ran at the time of one lane, alu-h200-2026-12-01.txt): 16 FMAs a turn, 4 an element, nothing next to the loads: expect ~0.067 ms, ~1.66x, above the bar. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_float16_splat.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g) {
        float v0 = in[i], v1 = in[i + g], v2 = in[i + 2 * g], v3 = in[i + 3 * g];
        float z = (v0 + v1 + v2 + v3) * 0.0f;
        float16 z16 = (float16)(z);
        for (int k = 0; k < 16; k++)
            z16 = z16 * z16 + z16;
        z = z16.s0 + z16.s1 + z16.s2 + z16.s3 + z16.s4 + z16.s5 + z16.s6 + z16.s7 + z16.s8 + z16.s9 + z16.sa + z16.sb + z16.sc + z16.sd + z16.se + z16.sf;
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
