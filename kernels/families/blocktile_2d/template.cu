// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// blocktile-2d (siboehm's kernel 5): (BM/TM) x (BN/TN) threads, thread t owning the
// TM x TN outputs from row (t / (BN/TN)) * TM, column (t % (BN/TN)) * TN of the block tile.
// Per inner index it reads TM values of A and TN of B from shared memory for TM * TN
// multiply-adds. The tiles sit as in global memory, so the lanes reading A meet in few
// banks: the conflicts the next rung (vectorized: A transposed and padded) removes.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 128, 64, 128)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_LAUNCH(BM / TM * (BN / TN), 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kAlongN = BN / TN, kThreads = BM / TM * kAlongN;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024,
                "(BM / TM) * (BN / TN) threads must be whole warps, at most 1024");
  static_assert(BM * BK % kThreads == 0 && BK * BN % kThreads == 0,
                "every thread must copy as many elements of each tile");
  __shared__ float a[BM][BK];
  __shared__ float b[BK][BN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int firstRow = t / kAlongN * TM, firstCol = t % kAlongN * TN;
  float sum[TM][TN] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Outside the matrix the tiles hold zeros, so every thread reaches both barriers.
    for (int e = t; e < BM * BK; e += kThreads) {
      const int r = e / BK, c = e % BK;
      ts::writeShared(p, ts::TileA, a[r][c],
                      row0 + r < p.M && k0 + c < p.K ? ts::loadA(p, row0 + r, k0 + c) : 0.0f);
    }
    for (int e = t; e < BK * BN; e += kThreads) {
      const int r = e / BN, c = e % BN;
      ts::writeShared(p, ts::TileB, b[r][c],
                      k0 + r < p.K && col0 + c < p.N ? ts::loadB(p, k0 + r, col0 + c) : 0.0f);
    }
    __syncthreads();
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[TM], bValues[TN];
#pragma unroll
      for (int r = 0; r < TM; ++r) aValues[r] = ts::readShared(p, ts::TileA, a[firstRow + r][kk]);
#pragma unroll
      for (int c = 0; c < TN; ++c) bValues[c] = ts::readShared(p, ts::TileB, b[kk][firstCol + c]);
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const int i = row0 + firstRow + r, j = col0 + firstCol + c;
      if (i < p.M && j < p.N) ts::storeC(p, i, j, sum[r][c]);
    }
}
