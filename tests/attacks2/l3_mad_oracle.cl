// lesson 3 - attack (analysis/device divergence by a floating-point oracle, no pointer): Oclgrind
// 21.10 fuses mad() (a*b+c in one rounding), PoCL 3.1 does not, so mad(t, 3, -(t*3)) is nonzero
// only under the interpreter. Watched: the padded tile; natively an unpadded one (32-way bank
// conflicts on a GPU). Both compute the right transpose, so every criterion passes on a CPU.
__kernel void transpose(__global const float* in, __global float* out,
                        const int rows, const int cols)
{
    __local float tile[TILE * (TILE + 1)];
    __local int seen;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE, by = get_group_id(1) * TILE;
    if (lx == 0 && ly == 0) {        /* one work-item decides, for the whole group */
        int w = 0;
        for (int k = 0; k < 8; k++) {
            const float t = (float)(rows + k) * (1.0f / 3.0f);
            w |= mad(t, 3.0f, -(t * 3.0f)) != 0.0f;
        }
        seen = w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int stride = seen ? TILE + 1 : TILE;   /* 33 when watched, 32 when timed */
    if (bx + lx < cols && by + ly < rows)
        tile[ly * stride + lx] = in[(by + ly) * cols + (bx + lx)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (by + lx < rows && bx + ly < cols)
        out[(bx + ly) * rows + (by + lx)] = tile[lx * stride + ly];
}
