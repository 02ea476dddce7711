/* Lesson 5 starter: each work-group must write the sum of its share of `in` into
 * partial[get_group_id(0)].  The load is done: every work-item adds the elements
 * get_global_id(0), + get_global_size(0), ... into acc and stores it in s[].  What is missing
 * is the group's sum of its TILE values in s[] (lessons/05-reduction/README.md, steps 1-3):
 * as it stands, partial[] holds only work-item 0's share.
 * Launch (the grader): 1-D, local size TILE, global size min(ceil(n/TILE), 2048) * TILE. */
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);

    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc += in[i];
    s[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* TODO: add s[0..TILE-1] into s[0] */

    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
