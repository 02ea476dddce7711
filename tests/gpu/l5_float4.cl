/* Measurement variant of lesson 5 (GUIDE.md "Speedup thresholds"): the reference solution with
 * float4 loads.  As fast on an H200 as four scalar loads; Oclgrind 21.10 stops with a
 * segmentation fault on its 16-byte loads, so it is not the reference solution. */
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int n4 = n / 4;
    __global const float4* in4 = (__global const float4*)in;

    float4 acc4 = (float4)(0.0f);
    for (int i = get_global_id(0); i < n4; i += get_global_size(0))
        acc4 += in4[i];
    float acc = (acc4.x + acc4.y) + (acc4.z + acc4.w);
    const int t = n4 * 4 + get_global_id(0);   /* the last n % 4 elements */
    if (t < n)
        acc += in[t];
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
