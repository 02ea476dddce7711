/* Measurement variant of lesson 5 (GUIDE.md "Speedup thresholds"): the grid-stride load with one
 * float per turn, then the sequential tree.  Right, but at 0.95x of the naive baseline on an
 * H200: the load, not the tree, decides the speed at n = 2^26. */
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += in[i];
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
