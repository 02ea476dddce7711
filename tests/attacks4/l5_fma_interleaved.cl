// lesson 5 - false FAIL: the solution with each accumulation written `a0 = fma(in[i], 1.0f, a0)`. codeOp() makes every call a fence (IRMLP_FENCE), and fma is a call in Oclgrind's IR, so each load is its own group: loads_in_flight 1, predicted 0.113 ms, 1.00x, speedup FAIL (all other criteria pass). On the H200 fma is one FFMA (or an FADD), which NVIDIA's scheduler moves the four independent loads above, as in the solution: expect ~0.067 ms, ~1.66x, above the 1.30x bar. The same holds for llvm.fmuladd (any `acc += x * w` with contraction) and every other pure builtin (fabs, fmax, convert_*). Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_fma_interleaved.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g) {
        a0 = fma(in[i], 1.0f, a0);
        a1 = fma(in[i + g], 1.0f, a1);
        a2 = fma(in[i + 2 * g], 1.0f, a2);
        a3 = fma(in[i + 3 * g], 1.0f, a3);
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
