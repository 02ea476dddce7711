// lesson 5 - false PASS (worst): the solution's four-loads-a-turn loop for a work-item's first 8 turns only (`t < 8 &&` in its test: a loop variable against a constant, which the size test allows), then the one-load tail loop for the rest. A work-item of the model launch (2^14 elements over 512 work-items) has exactly 8 turns, so the model never runs the one-load loop: predicted 0.0678 ms, 1.67x, loads_in_flight 4, speedup PASS (all criteria pass). On the H200 (2^26 over 2^19 work-items: 32 turns each) a quarter of the elements go four at a time and three quarters one at a time, at l5_one_load_sequential's 1.00x: ~0.25 x 0.067 + 0.75 x 0.113 = 0.10 ms: expect ~1.05-1.2x, below the 1.30x bar. Command: nice -n 10 build/clgrade check 5 tests/attacks4/l5_first_turns_fast.cl --seed 1 --json OUT.json
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
    /* four loads a turn for the first 8 turns only, the rest one load a turn: a work-item of the
     * model launch (2^14 over 512 work-items) has 8 such turns, one of the GPU's (2^26 over 2^19) 32 */
    for (int t = 0; t < 8 && i + 3 * g < n; t++, i += 4 * g) {
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
