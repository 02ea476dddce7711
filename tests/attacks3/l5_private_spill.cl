// lesson 5 - attack (private memory the tracer does not see): each work-item sums into a private float acc[256] indexed at run time (zeroed, 4 loads per turn, summed at the end); GPU: no 256 floats fit in registers, so acc lives in local memory (off-chip): 524288 work-items x (256 + 32 + 32 + 256) x 4 B = 1.2 GB through L1/L2, footprint 1 KB x 2048 threads = 2 MB an SM (L1 256 KB), 264 MB in all (L2 50 MB), so most of it to DRAM: well over 0.113 ms; grader: speedup PASS, predicted 1.67x (0.0678 ms, DRAM), 8/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_private_spill.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    /* a private array indexed by a run-time value: no GPU keeps 256 floats in registers,
     * so it lives in "local memory" (per-thread, off-chip, through L1/L2/DRAM) */
    float acc[256];
    for (int k = 0; k < 256; k++)
        acc[k] = 0.0f;
    int k = 0, i = get_global_id(0);
    for (; i + 3 * g < n; i += 4 * g, k++)
        acc[k & 255] += (in[i] + in[i + g]) + (in[i + 2 * g] + in[i + 3 * g]);
    for (; i < n; i += g)
        acc[0] += in[i];
    float t = 0.0f;
    for (int q = 0; q < 256; q++)
        t += acc[q];
    s[l] = t;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
