// lesson 5 - false PASS (worst): l5_chain_local with the store going through a __local pointer `p = l >= 0 ? s : t` (always s): each of four loads in a constant loop reads its address from s[l], which the load before it stored through p. chained() and IRMLP_STORE taint getUnderlyingObject(p) (the select), and the read of s[l] names s, so no chain is seen: loop unrolled, loads_in_flight 4. On the H200 the dependency is real whether or not the compiler folds p to s (the address needs the last load's value): one load in flight, like l5_chain_local (0.95x): expect ~0.117 ms, ~0.95x. Grader: every CPU criterion passes, predicted 0.0678 ms, 1.67x, speedup PASS. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_chain_local_alias.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    __local float t[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);
    /* always s (a local id is never negative), but the compiler cannot know it */
    __local float* p = l >= 0 ? s : t;

    float acc = 0.0f;
    s[l] = 0.0f;
    t[l] = 0.0f;
    for (int i = get_global_id(0); i < n; i += 4 * g)
        for (int k = 0; k < 4; k++)
            if (i + k * g < n) {
                p[l] = in[i + k * g + (int)(s[l] * 0.0f)];
                acc += s[l];
            }
    s[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
