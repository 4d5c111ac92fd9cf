// Exercise 6: each thread computes TM outputs down a column of C: TM + 1 shared reads for TM
// multiply-adds. Give it a TM x TN tile instead: TM + TN reads for TM * TN multiply-adds.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 64, 64, 128)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(TM, 8, 4, 8, 16)
TS_LAUNCH((BM * BN) / TM, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kThreads = BM * BN / TM;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "BM * BN / TM threads must be whole warps, at most 1024");
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0,
                "every thread must copy as many elements of each tile");
  __shared__ float a[BM][BK];
  __shared__ float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  // Thread t owns rows firstRow .. firstRow + TM - 1 of column col: consecutive threads take
  // consecutive columns, so a warp reads a row of b without conflicts.
  const int col = t % BN, firstRow = t / BN * TM;
  float sum[TM] = {};  // the register tile: TM accumulators
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Copy n of thread t takes element t + n * threads of the tile, row by row, so a warp
    // loads consecutive floats; the copies' count is known at compile time, so they unroll.
    // Outside the matrix the tiles hold zeros, so every thread reaches both barriers.
#pragma unroll
    for (int n = 0; n < BM * BK / kThreads; ++n) {
      const int e = t + n * kThreads, r = e / BK, c = e % BK;
      ts::writeShared(p, ts::TileA, a[r][c],
                      row0 + r < p.M && k0 + c < p.K ? ts::loadA(p, row0 + r, k0 + c) : 0.0f);
    }
#pragma unroll
    for (int n = 0; n < BK * BN / kThreads; ++n) {
      const int e = t + n * kThreads, r = e / BN, c = e % BN;
      ts::writeShared(p, ts::TileB, b[r][c],
                      k0 + r < p.K && col0 + c < p.N ? ts::loadB(p, k0 + r, col0 + c) : 0.0f);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      // One read of B, reused for TM multiply-adds; but each value of A serves one.
      const float bValue = ts::readShared(p, ts::TileB, b[kk][col]);
#pragma unroll
      for (int r = 0; r < TM; ++r)
        sum[r] += ts::readShared(p, ts::TileA, a[firstRow + r][kk]) * bValue;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) {
    const int i = row0 + firstRow + r, j = col0 + col;
    if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r]);
  }
}
