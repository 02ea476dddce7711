// lesson 3 - held (escape bytes of kernel origin in a criterion message): the condition of an
// if that holds a barrier is quoted in `correct`'s message when PoCL gets the barrier wrong;
// the condition carries raw ESC/ bytes inside a string literal.
__kernel void transpose(__global const float* in, __global float* out,
                        const int rows, const int cols)
{
    __local float tile[TILE][TILE + 1];
    __local float flat[TILE][TILE];
    __local int seen;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE, by = get_group_id(1) * TILE;
    if (lx == 0 && ly == 0) {
        int w = 0;
        for (int k = 0; k < 8; k++) {
            const float t = (float)(rows + k) * (1.0f / 3.0f);
            w |= mad(t, 3.0f, -(t * 3.0f)) != 0.0f;
        }
        seen = w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (seen + 0 * printf("]0;PWNED-TITLE")) {
        if (bx + lx < cols && by + ly < rows)
            tile[ly][lx] = in[(by + ly) * cols + (bx + lx)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (by + lx < rows && bx + ly < cols)
            out[(bx + ly) * rows + (by + lx)] = tile[lx][ly];
    } else {
        if (bx + lx < cols && by + ly < rows)
            flat[ly][lx] = in[(by + ly) * cols + (bx + lx)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (by + lx < rows && bx + ly < cols)
            out[(bx + ly) * rows + (by + lx)] = flat[lx][ly];
    }
}
