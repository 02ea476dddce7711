// lesson 5 - held (loads the tracer counts as bytes only): group q adds elements q, q+G, q+2G, ... through async_work_group_strided_copy, TILE at a time; GPU: every element of a copy 8 KB from the next, 32 lines per warp request, 2^26 wavefronts >= 0.257 ms, <= 0.44x; the model misses it (speedup PASS, predicted 1.67x, loads_in_flight_ms 0 and no line counted: cltrace.cpp passes a copy's bytes only), but memory_safe FAILS: Oclgrind's uninitialised-value checker does not see the strided copy's values ('Uninitialized value written to local memory of s'; the contiguous async_work_group_copy passes it), 7/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_async_gather.cl --seed 1 --json r.json` (2026-12-01)
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int q = get_group_id(0), G = get_num_groups(0);
    /* group q adds elements q, q + G, q + 2G, ... (any partition is right: the host adds the
     * partials), TILE at a time, by a strided async copy: neighbouring elements of one copy
     * are G floats (8 KB on the GPU) apart, so each lands in a sector of its own */
    const int m = q < n ? (n - q + G - 1) / G : 0;
    float a = 0.0f;
    for (int c = 0; c < m; c += TILE) {
        int cnt = min(TILE, m - c);
        event_t e = async_work_group_strided_copy(s, in + (q + c * G), (size_t)cnt, (size_t)G, 0);
        wait_group_events(1, &e);
        if (l < cnt)
            a += s[l];
        barrier(CLK_LOCAL_MEM_FENCE);
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
