// lesson 5 - reverse, candidate false FAIL (a loop the GPU compiler unrolls, Oclgrind's IR does not): the solution's load loop as one load per turn under #pragma unroll 4; GPU (to be measured): if NVIDIA's compiler unrolls the runtime-count loop and issues the 4 loads together, about the solution's 0.068 ms, 1.67x; grader: speedup FAIL, predicted 1.00x (irmlp counts 1 load in flight, loads_in_flight limits), 7/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_pragma_unroll.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f;
    /* one load per trip, unrolled 4 times by the GPU's compiler (a runtime trip count:
     * LLVM/NVVM's runtime unrolling), so 4 loads in flight per warp */
#pragma unroll 4
    for (int i = get_global_id(0); i < n; i += g)
        a0 += in[i];
    s[l] = a0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
