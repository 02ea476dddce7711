// source: https://github.com/HandsOnOpenCL/Exercises-Solutions/blob/master/Solutions/Exercise12/gameoflife.cl (accelerate_life), CC BY 4.0, Tom Deakin and Simon McIntosh-Smith
// COMPUTES SOMETHING ELSE ON PURPOSE: the Game of Life's 1-cell halo, staged with periodic
// (wrap-around) boundaries, summed as a 3 x 3 box (the 8 neighbours + the cell); correct must fail
// (radius 1 instead of 3, and wrap-around instead of zeros). edits: char -> float; the __local
// pointer argument -> a __local array of (TILE+2)^2 in the body; the signature stencil(in, out, rows,
// cols) (tick = in, tock = out, nx = cols, ny = rows); the life rules replaced by the sum.
#define R 3
__kernel void stencil(__global const float* tick, __global float* tock, const int ny, const int nx)
{
    __local float block[(TILE + 2) * (TILE + 2)];

    const unsigned int idx = get_global_id(0);
    const unsigned int idy = get_global_id(1);
    const unsigned int id = idy * nx + idx;
    const unsigned int id_b = (get_local_id(1) + 1) * (get_local_size(0) + 2) + get_local_id(0) + 1;

    block[id_b] = tick[id];

    const unsigned int block_r = (get_group_id(0) + 1) % get_num_groups(0);
    const unsigned int block_l = (get_group_id(0) == 0) ? get_num_groups(0) - 1 : get_group_id(0) - 1;
    const unsigned int block_u = (get_group_id(1) + 1) % get_num_groups(1);
    const unsigned int block_d = (get_group_id(1) == 0) ? get_num_groups(1) - 1 : get_group_id(1) - 1;

    if (get_local_id(1) == 0)
        block[get_local_id(0) + 1] = tick[(get_local_size(1) * block_d + get_local_size(1) - 1) * nx + idx];
    if (get_local_id(1) == get_local_size(1) - 1)
        block[id_b + get_local_size(0) + 2] = tick[(get_local_size(1) * block_u) * nx + idx];
    if (get_local_id(0) == get_local_size(0) - 1)
        block[id_b + 1] = tick[nx * idy + (get_local_size(0) * block_r)];
    if (get_local_id(0) == 0)
        block[id_b - 1] = tick[nx * idy + (get_local_size(0) * block_l + get_local_size(0) - 1)];

    block[0] = tick[nx * (get_local_size(1) * block_d + get_local_size(1) - 1) + (get_local_size(0) * block_l) + get_local_size(0) - 1];
    block[get_local_size(0) + 1] = tick[nx * (get_local_size(1) * block_d + get_local_size(1) - 1) + (get_local_size(0) * block_r)];
    block[(get_local_size(0) + 2) * (get_local_size(1) + 1)] = tick[nx * (get_local_size(1) * block_u) + (get_local_size(0) * block_l) + get_local_size(0) - 1];
    block[(get_local_size(0) + 2) * (get_local_size(1) + 2) - 1] = tick[nx * (get_local_size(1) * block_u) + (get_local_size(0) * block_r)];

    barrier(CLK_LOCAL_MEM_FENCE);

    unsigned int x_l, x_r, y_u, y_d;
    x_r = get_local_id(0) + 2;
    x_l = get_local_id(0);
    y_u = get_local_id(1) + 2;
    y_d = get_local_id(1);

    float neighbours = 0;
    neighbours += block[(get_local_id(1) + 1) * (get_local_size(0) + 2) + x_l];
    neighbours += block[y_u * (get_local_size(0) + 2) + x_l];
    neighbours += block[y_d * (get_local_size(0) + 2) + x_l];
    neighbours += block[(get_local_id(1) + 1) * (get_local_size(0) + 2) + x_r];
    neighbours += block[y_u * (get_local_size(0) + 2) + x_r];
    neighbours += block[y_d * (get_local_size(0) + 2) + x_r];
    neighbours += block[y_u * (get_local_size(0) + 2) + get_local_id(0) + 1];
    neighbours += block[y_d * (get_local_size(0) + 2) + get_local_id(0) + 1];

    tock[id] = neighbours + block[id_b];
}
