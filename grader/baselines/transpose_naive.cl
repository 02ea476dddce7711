// Baseline for the transpose lesson: the naive transpose the grader times the student against.
// Ships with the suite; never the student's file.  in is rows x cols, out is cols x rows.
__kernel void transpose_naive(__global const float* in, __global float* out,
                              const int rows, const int cols)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}
