// lesson 5 - held (the right verdict, a wrong figure): a constant loop of four turns, each a load into __local, a barrier, a read of the neighbour's slot and a barrier. The constant loop's times makes the load's group 4 although a barrier separates every turn (loads_in_flight 4); the rounds (latency 0.264 ms) fail it anyway: predicted 0.289 ms, 0.39x, speedup FAIL, all other criteria pass. On the H200 a barrier a load keeps one load in flight and the group waits each round: expect a FAIL too. Not worth timing. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_barrier_const_loop.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float acc = 0.0f;
    const int i0 = get_global_id(0) - l;            /* the group's first element */
    for (int i = i0; i < n; i += 4 * g)              /* the same turns for the whole group */
        for (int k = 0; k < 4; k++) {
            s[l] = i + l + k * g < n ? in[i + l + k * g] : 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            acc += s[l ^ 1];                         /* the neighbour's element */
            barrier(CLK_LOCAL_MEM_FENCE);
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
