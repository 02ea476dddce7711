// TODO
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float a = 0.0f;
    int i = get_global_id(0);
    if (i < n) {
        do {
            a += in[i];
            i += g;
        } while (i < n);
        /* three loads after the loop (0, n/2, n-1: in bounds for every n): each adds 0 for a finite value */
        float w = in[0] * 0.0f, x = in[n / 2] * 0.0f, y = in[n - 1] * 0.0f;
        a += (w + x) + y;
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
