/* Lesson 5 reference solution: every work-item first sums its share of `in` in registers,
 * striding by the whole NDRange (grid-stride) with four independent loads per turn so that
 * more bytes are in flight, then the group adds its TILE values in __local memory by
 * sequential addressing (whole warps idle together, no bank conflict), and work-item 0
 * writes the partial.  Launch (the grader): 1-D, local size TILE, global size
 * min(ceil(n/TILE), 2048) * TILE. */
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
