// Exercise 7, a solution: blocktile-2d's threads, but each copy from global memory is one
// float4, and A's tile is stored transposed and padded so a thread reads its TM values of A
// as float4s too. Where K (or N) is no multiple of 4 the copies take one element at a time.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 128, 64, 128)
TS_PARAM(BK, 16, 8, 16)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_PARAM(PAD, 4, 0, 4)
TS_LAUNCH(BM / TM * (BN / TN), 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kAlongN = BN / TN, kThreads = BM / TM * kAlongN;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(BM / TM) * (BN / TN) threads must be whole warps, at most 1024");
  static_assert(BM * BK / 4 % kThreads == 0 && BK * BN / 4 % kThreads == 0 &&
                    BM * BK / 4 >= kThreads && BK * BN / 4 >= kThreads,
                "every thread must copy as many float4s of each tile");
  // A float4 access needs a 16-byte aligned address: __align__(16), and rows of a multiple of
  // 4 words. The PAD words move the transposing stores of A across the banks.
  __shared__ __align__(16) float a[BK][BM + PAD];  // transposed: a[k][m]
  __shared__ __align__(16) float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int firstRow = t / kAlongN * TM, firstCol = t % kAlongN * TN;
  // A[i][k..k+3] is 16-byte aligned for every i only when K is a multiple of 4; B's rows when
  // N is. Each operand takes the float4 path on its own.
  const bool aVectors = p.K % 4 == 0, bVectors = p.N % 4 == 0;
  float sum[TM][TN] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Copy e of thread t takes float4 t + e * threads of the tile, row by row. Past the
    // matrix the accessors return zeros, so every thread reaches both barriers. Not unrolled:
    // unrolled, the kernel took 69 registers instead of 64, fit 3 blocks per SM instead of 4
    // and ran 15 % slower on an H100.
    for (int e = t; e < BM * BK / 4; e += kThreads) {
      const int r = e / (BK / 4), c = e % (BK / 4) * 4;
      float v[4];
      if (aVectors) {
        const float4 four = ts::loadA4(p, row0 + r, k0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadA(p, row0 + r, k0 + c + x);
      }
      for (int x = 0; x < 4; ++x) ts::writeShared(p, ts::TileA, a[c + x][r], v[x]);
    }
    for (int e = t; e < BK * BN / 4; e += kThreads) {
      const int r = e / (BN / 4), c = e % (BN / 4) * 4;
      float4 four;
      if (bVectors) {
        four = ts::loadB4(p, k0 + r, col0 + c);
      } else {
        float v[4];
        for (int x = 0; x < 4; ++x) v[x] = ts::loadB(p, k0 + r, col0 + c + x);
        four = make_float4(v[0], v[1], v[2], v[3]);
      }
      ts::writeShared4(p, ts::TileB, b[r][c], four);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      // A thread's TM values of A now lie side by side in a row of a: TM / 4 float4 reads.
      float aValues[TM], bValues[TN];
#pragma unroll
      for (int r = 0; r < TM; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, a[kk][firstRow + r]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < TN; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, b[kk][firstCol + c]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
  // float4 stores where C's rows are 16-byte aligned, else one element at a time.
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int i = row0 + firstRow + r;
#pragma unroll
    for (int c = 0; c < TN; c += 4) {
      const int j = col0 + firstCol + c;
      if (i >= p.M || j >= p.N) continue;
      if (bVectors) {
        ts::storeC4(p, i, j, make_float4(sum[r][c], sum[r][c + 1], sum[r][c + 2], sum[r][c + 3]));
      } else {
        for (int x = 0; x < 4 && j + x < p.N; ++x) ts::storeC(p, i, j + x, sum[r][c + x]);
      }
    }
  }
}
