// lesson 5 - false PASS (worst): one load a turn in a grid-stride loop plus three loads under guards that are never true (`if (i & 0x40000000)`: i < n <= 2^26), so only one load ever runs per turn. irmlp.c counts the short if bodies' loads in the group whether or not they run: loads_in_flight 4. On the H200 a predicated-off load issues no request, so each turn has one load in flight, as in l5_one_load_sequential (1.00x): expect ~0.11 ms, ~1.0x, below the 1.30x bar. Grader: every CPU criterion passes, predicted 0.0678 ms, 1.67x, speedup PASS. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_dead_guarded_loads.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a = 0.0f;
    for (int i = get_global_id(0); i < n; i += g) {
        a += in[i];
        /* never true (i < n <= 2^26 here), so these loads never run */
        if (i & 0x40000000)
            a += in[i + g];
        if (i & 0x20000000)
            a += in[i + 2 * g];
        if (i & 0x10000000)
            a += in[i + 3 * g];
    }
    s[l] = a;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
