// lesson 5 - false PASS (worst): one load a turn in a do-while loop (the baseline's access pattern), then three loads after the loop that add 0 (in[0], in[n/2], in[n-1] times 0). The loop's exit block has one predecessor, the loop's latch, laid out just before it and ending in a conditional branch, so ircode.cpp guarded() takes it for the body of a short if and irmlp.c puts its three loads in the loop load's group: loads_in_flight 4. On the H200 the loop has one load in flight per turn (the loads after it run once per work-item), like l5_one_load_sequential (1.00x there): expect ~0.11 ms, ~1.0x, below the 1.30x bar. Grader: every CPU criterion passes, predicted 0.0678 ms, 1.67x, limited by DRAM, speedup PASS. (A plain `for` loop does not trigger it: its exit block has two predecessors.) Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_exit_block_loads.cl --seed 1 --json OUT.json
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
