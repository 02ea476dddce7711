// lesson 5 - attack (a data race at the sizes the analysis never runs): at n > 100000 (never
// the analysed n = 513..767) the tree is replaced by a barrier-free sum into s[0] that is right
// only when work-items run one after another, in order. PoCL's pthread device runs them in
// order here, so the native sums are right; the interpreter saw only the clean path. PASS on a
// CPU, race_free included (tried as a way into the miscompile exception; it did not even need
// it). On a GPU the lost updates make `correct` fail.
__kernel void reduce(__global const float* in, __global float* partial, const int n)
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
    const float v = (a0 + a1) + (a2 + a3);
    if (n > 100000) {                 /* never at the analysed sizes */
        if (l == 0)
            s[0] = 0.0f;
        s[0] += v;                    /* every work-item, no barrier: a race */
        if (l == TILE - 1)
            partial[get_group_id(0)] = s[0];
        return;
    }
    s[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
