// lesson 5 - reverse, candidate false FAIL (four guarded loads per turn, as students write them): if (i + k*g < n) a_k += in[i + k*g] for k = 0..3; GPU (to be measured): NVIDIA's compiler predicates short ifs (CUDA C Programming Guide, 'Branch predication'), so the 4 loads issue together, about the solution's 0.068 ms, 1.67x; grader: speedup FAIL, predicted 1.00x, loads_in_flight with 1 load in flight: irmlp continues a group into one short if's body, but the join block after it (two predecessors) closes the group; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_guarded_loads.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    const int turns = (n + 4 * g - 1) / (4 * g);
    for (int t = 0; t < turns; t++) {
        int i = get_global_id(0) + 4 * g * t;
        if (i < n) a0 += in[i];
        if (i + g < n) a1 += in[i + g];
        if (i + 2 * g < n) a2 += in[i + 2 * g];
        if (i + 3 * g < n) a3 += in[i + 3 * g];
    }
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
