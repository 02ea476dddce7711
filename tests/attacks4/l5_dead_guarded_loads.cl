// TODO
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
