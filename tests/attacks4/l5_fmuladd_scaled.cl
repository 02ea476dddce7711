// lesson 5 - false FAIL (natural code): the solution with each accumulation scaled by a run-time 1, `a0 += in[i] * w`: clang contracts it to a call of llvm.fmuladd, which codeOp() makes a fence (every CallBase is), so each load is its own group: loads_in_flight 1, predicted 0.113 ms, 1.00x, speedup FAIL (all other criteria pass). On the H200 it is one FFMA per element after four independent loads that NVIDIA's scheduler issues together, as in the solution: expect ~0.067 ms, ~1.66x, above the 1.30x bar. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_fmuladd_scaled.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int i = get_global_id(0);
    const float w = n > 0 ? 1.0f : 2.0f;   /* 1: the grader never launches n = 0 */
    for (; i + 3 * g < n; i += 4 * g) {
        a0 += in[i] * w;
        a1 += in[i + g] * w;
        a2 += in[i + 2 * g] * w;
        a3 += in[i + 3 * g] * w;
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
