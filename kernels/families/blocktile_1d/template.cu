// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// blocktile-1d (siboehm's kernel 4): BM x BN block tiles computed by BM*BN/TM threads;
// thread t computes TM outputs down column t % BN, from row (t / BN) * TM. Each k-step
// the block copies a BM x BK tile of A and a BK x BN tile of B into shared memory (copy i
// of thread t takes element t + i * threads of the tile, row by row); per inner index a
// thread reads one value of B and reuses it for TM multiply-adds.
TS_PARAM(BM, 64, 64, 128)
TS_PARAM(BN, 64, 64, 128)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(TM, 16, 4, 8, 16)
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
  const int col = t % BN, firstRow = t / BN * TM;
  float sum[TM] = {};
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
