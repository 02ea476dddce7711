// Baseline for the stencil lesson: the naive box stencil the grader times the student against.
// Ships with the suite; never the student's file.  in and out are rows x cols; every work-item
// reads its (2R+1) x (2R+1) box straight from global memory, 0 outside the image.
#ifndef R
#define R 3
#endif
__kernel void stencil_naive(__global const float* in, __global float* out,
                            const int rows, const int cols)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    if (r >= rows || c >= cols)
        return;
    float sum = 0.0f;
    for (int y = r - R; y <= r + R; y++)
        for (int x = c - R; x <= c + R; x++)
            if (y >= 0 && y < rows && x >= 0 && x < cols)
                sum += in[y * cols + x];
    out[r * cols + c] = sum;
}
