// lesson 5 - false FAIL: eight loads a turn as four independent chains of two (a constant loop k < 4, each turn a constant loop j < 2 whose second load's address needs the first's value). chained() asks only whether some load of a loop needs another load of it, not whether that crosses from one turn to the next: the j loop is chained (rightly), and so is the k loop, whose turns start from x = 0 and need nothing from each other; neither is unrolled and each load is its own group: loads_in_flight 1, predicted 0.113 ms, 1.00x, speedup FAIL (all other criteria pass). On the H200 NVIDIA unrolls both constant loops; the four first loads are independent and issue together, then the four second ones: four in flight as in the solution, two rounds a turn of eight: expect ~0.07 ms, ~1.6x, above the 1.30x bar. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_four_short_chains.cl --seed 1 --json OUT.json
__kernel void reduce(__global const float* in, __global float* partial, const int n)
{
    __local float s[TILE];
    const int l = get_local_id(0);
    const int g = get_global_size(0);

    float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    for (int i = get_global_id(0); i < n; i += 8 * g)
        for (int k = 0; k < 4; k++) {          /* four chains, independent of each other */
            float x = 0.0f;
            for (int j = 0; j < 2; j++) {       /* two loads each, the second waits for the first */
                const int e = i + (2 * k + j) * g;
                if (e < n) {
                    x = in[e + (int)(x * 0.0f)];
                    acc[k] += x;
                }
            }
        }
    s[l] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int d = TILE / 2; d > 0; d >>= 1) {
        if (l < d)
            s[l] += s[l + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = s[0];
}
