// source: https://github.com/siboehm/SGEMM_CUDA/blob/master/src/kernels/6_kernel_vectorize.cuh (sgemmVectorize), MIT licence, (c) 2023 Simon Boehm
// edits (CUDA -> OpenCL): BM = BN = TILE * WPT, BK = 8, TM = TN = WPT as #defines; threadIdx.x =
//  get_local_id(1) * TILE + get_local_id(0); blockIdx.y/x = get_group_id(1)/(0); reinterpret_cast<float4*>
//  -> (__global/__local float4*) casts; __shared__ -> __local; __syncthreads -> barrier; alpha = 1,
//  beta = 0 folded (C is stored, not read); signature matmul_blocked(A, B, C, N). No edge handling.
#define WPT 8
#define BM (TILE * WPT)
#define BN (TILE * WPT)
#define BK 8
#define TM WPT
#define TN WPT

__kernel void matmul_blocked(__global const float* A, __global const float* B,
                             __global float* C, const int N) {
  const int M = N, K = N;
  const uint tIdx = get_local_id(1) * TILE + get_local_id(0);
  const uint cRow = get_group_id(1);
  const uint cCol = get_group_id(0);

  // BN/TN are the number of threads to span a column
  const int threadCol = tIdx % (BN / TN);
  const int threadRow = tIdx / (BN / TN);

  // allocate space for the current blocktile in smem
  __local float As[BM * BK];
  __local float Bs[BK * BN];

  // Move blocktile to beginning of A's row and B's column
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;

  // calculating the indices that this thread will load into SMEM
  // we'll load 128bit / 32bit = 4 elements per thread at each step
  const uint innerRowA = tIdx / (BK / 4);
  const uint innerColA = tIdx % (BK / 4);
  const uint innerRowB = tIdx / (BN / 4);
  const uint innerColB = tIdx % (BN / 4);

  // allocate thread-local cache for results in registerfile
  float threadResults[TM * TN] = {0.0f};
  float regM[TM] = {0.0f};
  float regN[TN] = {0.0f};

  // outer-most loop over block tiles
  for (uint bkIdx = 0; bkIdx < K; bkIdx += BK) {
    // populate the SMEM caches
    // transpose A while loading it
    float4 tmp = ((__global const float4 *)(&A[innerRowA * K + innerColA * 4]))[0];
    As[(innerColA * 4 + 0) * BM + innerRowA] = tmp.x;
    As[(innerColA * 4 + 1) * BM + innerRowA] = tmp.y;
    As[(innerColA * 4 + 2) * BM + innerRowA] = tmp.z;
    As[(innerColA * 4 + 3) * BM + innerRowA] = tmp.w;

    ((__local float4 *)(&Bs[innerRowB * BN + innerColB * 4]))[0] =
        ((__global const float4 *)(&B[innerRowB * N + innerColB * 4]))[0];
    barrier(CLK_LOCAL_MEM_FENCE);

    // advance blocktile
    A += BK;     // move BK columns to right
    B += BK * N; // move BK rows down

    // calculate per-thread results
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      // block into registers
      for (uint i = 0; i < TM; ++i) {
        regM[i] = As[dotIdx * BM + threadRow * TM + i];
      }
      for (uint i = 0; i < TN; ++i) {
        regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      }
      for (uint resIdxM = 0; resIdxM < TM; ++resIdxM) {
        for (uint resIdxN = 0; resIdxN < TN; ++resIdxN) {
          threadResults[resIdxM * TN + resIdxN] +=
              regM[resIdxM] * regN[resIdxN];
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // write out the results
  for (uint resIdxM = 0; resIdxM < TM; resIdxM += 1) {
    for (uint resIdxN = 0; resIdxN < TN; resIdxN += 4) {
      float4 tmp;
      tmp.x = threadResults[resIdxM * TN + resIdxN];
      tmp.y = threadResults[resIdxM * TN + resIdxN + 1];
      tmp.z = threadResults[resIdxM * TN + resIdxN + 2];
      tmp.w = threadResults[resIdxM * TN + resIdxN + 3];
      // write back
      ((__global float4 *)(&C[(threadRow * TM + resIdxM) * N + threadCol * TN + resIdxN]))[0] = tmp;
    }
  }
}
