// lesson 5 - attack (a __constant input: 256 MB where NVIDIA's constant bank holds 64 KB): the solution with in declared __constant float*; GPU: CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE is 64 KB on NVIDIA, so the launch at 2^26 floats exceeds it (an error, or reads through the constant cache, which serves one address per warp per clock: the 32 lanes' different addresses are 32 turns); grader: builds PASS (the signature check takes __constant), speedup PASS, predicted 1.67x (__constant priced as __global), 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_constant_input.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__constant float* in, __global float* partial, const int n)
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
