// lesson 5 - held (contended __global atomics): every work-item adds into partial[group] by an atomic_cmpxchg loop (256 on one address; a GPU retries, Oclgrind never does); the model would miss it (speedup PASS, predicted 1.67x) but memory_safe FAILS: Oclgrind's uninitialised-value checker flags the atomics' values ('Uninitialized value written to global memory of partial'), 7/8; `nice -n 10 build/clgrade check 5 tests/attacks3/l5_global_cas.cl --seed 1 --json r.json` (2026-12-01)
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
    volatile __global uint *p = (volatile __global uint *)&partial[get_group_id(0)];
    if (l == 0)
        atomic_xchg(p, 0u);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    /* every work-item adds its value into the group's partial with a compare-and-swap loop:
     * 256 work-items on one address.  Oclgrind runs them one after another (no CAS fails);
     * a GPU runs them together, one success per round trip to the L2 per address. */
    float v = s[l];
    uint old = atomic_or(p, 0u), seen;
    do {
        seen = old;
        old = atomic_cmpxchg(p, seen, as_uint(as_float(seen) + v));
    } while (old != seen);
}
