// lesson 5 - false PASS (worst): l5_chain_straight_private with the chain through __local memory behind an aliasing pointer: four loads a turn written out, each stored through `p = l >= 0 ? s : t` (always s) and the next address reading s[l]. IRMLP_STORE taints getUnderlyingObject(p), the select, and the read of s[l] names s, so irmlp.c sees four independent loads: loads_in_flight 4. On the H200 each address needs the last load's value (through __local, or through a register if the compiler folds p to s): one in flight, like l5_chain_straight_private (1.16x) and l5_chain_local (0.95x): expect ~0.1-0.12 ms, ~0.95-1.16x, below the 1.30x bar. Grader: every CPU criterion passes, predicted 0.0678 ms, 1.67x, speedup PASS. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_chain_straight_alias.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    __local float t[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);
    /* always s (a local id is never negative), but the compiler cannot know it */
    __local float* p = l >= 0 ? s : t;

    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += 4 * g) {
        p[l] = in[i];
        acc += s[l];
        if (i + g < n) { p[l] = in[i + g + (int)(s[l] * 0.0f)]; acc += s[l]; }
        if (i + 2 * g < n) { p[l] = in[i + 2 * g + (int)(s[l] * 0.0f)]; acc += s[l]; }
        if (i + 3 * g < n) { p[l] = in[i + 3 * g + (int)(s[l] * 0.0f)]; acc += s[l]; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
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
