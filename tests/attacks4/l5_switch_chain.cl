// lesson 5 - false PASS (worst): l5_chain_guard_loop with the guard spelled as a switch: a constant loop of four loads, each reached through `switch ((int)(x * 0.0f))` on the value the load before it returned (case 0 always runs). chained() looks only at conditional branches (guarded() returns null for a switch), so the loop is unrolled, and walkCode continues the group into the case blocks (times > 1: IRMLP_BLOCK_JOIN): loads_in_flight 12 (the three cases' loads, dead or not, times 4). On the H200 each load waits for the switch on the last one's value: one in flight, like l5_chain_guard_loop (0.97x): expect ~0.115 ms, ~1.0x. Grader: every CPU criterion passes, predicted 0.0678 ms, 1.67x, speedup PASS. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_switch_chain.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float acc = 0.0f;
    for (int i = get_global_id(0); i < n; i += 4 * g) {
        float x = 0.0f;
        for (int k = 0; k < 4; k++) {
            /* (int)(x * 0) is 0 for every finite x: case 0 always, but the GPU must wait for x */
            switch ((int)(x * 0.0f)) {
            case 0:
                x = i + k * g < n ? in[i + k * g] : 0.0f;
                break;
            case 1:
                x = in[i] + 1.0f;
                break;
            case 2:
                x = in[i] * 3.0f;
                break;
            default:
                x = 5.0f;
                break;
            }
            acc += x;
        }
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
