// lesson 5 - false PASS (worst): the solution plus 64 dependent unsigned divisions by a run-time divisor per 4-element turn (`t = t / (g + (t & 15)) + n`, mixed in as `(float)t * 0.0f`). Integer arithmetic is not counted at all: predicted 0.0678 ms, 1.67x, speedup PASS (all criteria pass). On the H200 a 32-bit division by a variable is ~10-15 instructions around a MUFU.RCP (I2F, RCP, F2I, IMAD.HI, corrections): 2^24 x 64 = 1.07e9 RCP / (132 x 16 x 1.98e9/s) = 0.26 ms at least, ~0.4 ms with the integer pipe: expect >= 0.26 ms, <= 0.45x. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_idiv_chain.cl --seed 1 --json OUT.json
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
        unsigned t = (unsigned)i;
        for (int k = 0; k < 64; k++)
            t = t / ((unsigned)g + (t & 15u)) + (unsigned)n;
        z = z + (float)t * 0.0f;
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
