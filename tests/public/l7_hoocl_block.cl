// source: https://github.com/HandsOnOpenCL/Exercises-Solutions/blob/master/Solutions/Exercise08/C_block_form.cl (mmul), CC BY 4.0, Tim Mattson and Simon McIntosh-Smith
// DELIBERATELY WRONG adaptation (launch mismatch): HandsOnOpenCL's one-element-per-work-item blocked
// kernel submitted for lesson 7 as it is. edits: signature matmul_blocked(A, B, C, N) (N last, int);
//  the two __local pointer arguments -> __local arrays Awrk/Bwrk[blksz*blksz] in the body; blksz = TILE.
#define blksz TILE

__kernel void matmul_blocked(
                __global const float* restrict A,
                __global const float* restrict B,
                __global       float* restrict C,
                const int N)
{
    __local float Awrk[blksz*blksz];
    __local float Bwrk[blksz*blksz];
    int kloc, Kblk;
    float Ctmp=0.0f;

    //  This work-item will compute element C(i,j)
    const int i = get_global_id(0);
    const int j = get_global_id(1);

    // Element C(i,j) is in block C(Iblk,Jblk)
    const int Iblk = get_group_id(0);
    const int Jblk = get_group_id(1);

    // C(i,j) is element C(iloc, jloc) of block C(Iblk, Jblk)
    const int iloc = get_local_id(0);
    const int jloc = get_local_id(1);

    // The number of blocks are the same in each dimension
    const int Num_BLK = N/blksz;

    // Setup the upper-left-corner (base address) for the A and
    // B blocks plus the increments to advance base addresses as
    // we loop over blocks
          int Abase = Jblk*N*blksz;
    const int Ainc  = blksz;

          int Bbase = Iblk*blksz;
    const int Binc  = blksz*N;


    // C(Iblk,Jblk) = (sum over Kblk) A(Iblk,Kblk)*B(Kblk,Jblk)
    for (Kblk = 0;  Kblk<Num_BLK;  Kblk++)
    {
       // Load A(Iblk,Kblk) and B(Kblk,Jblk) into local memory.
       // Each work-item loads a single element of the two blocks
       // which are shared with the entire work-group.

       Awrk[jloc*blksz+iloc] = A[Abase+jloc*N+iloc];
       Bwrk[jloc*blksz+iloc] = B[Bbase+jloc*N+iloc];

       barrier(CLK_LOCAL_MEM_FENCE);

       // Compute dot products over local blocks to find
       // the contribution to C(i,j) from this block
       #pragma unroll
       for (kloc=0; kloc<blksz; kloc++)
          Ctmp += Awrk[jloc*blksz+kloc] * Bwrk[kloc*blksz+iloc];

       barrier(CLK_LOCAL_MEM_FENCE);
       Abase += Ainc;
       Bbase += Binc;
    }

    // update global C matrix
    C[j*N+i] = Ctmp;

}
