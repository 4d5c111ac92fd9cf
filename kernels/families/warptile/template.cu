// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// warptile (siboehm's kernel 10; the lane layout of CUTLASS's SIMT GEMM): vectorized's
// float4 copies and padded transposed A tile, but the block tile is cut into WM x WN warp
// tiles, warp w taking row w / (BN / WN) and column w % (BN / WN) of them. Inside one the
// 32 lanes form a 4 x 8 grid of TM x TN pieces that repeats (WM / 4TM) x (WN / 8TN) times,
// so a warp reads only its own strip of the tiles, and with TN = 4 eight lanes read one
// 128-byte row of B: no bank conflicts.
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 128, 64, 128, 256)
TS_PARAM(BK, 16, 8, 16)
TS_PARAM(WM, 32, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_PARAM(TM, 8, 4, 8)
TS_PARAM(TN, 4, 4, 8)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kSubM = 4 * TM, kSubN = 8 * TN;  // what the 4 x 8 lanes cover at once
  constexpr int kRows = WM / kSubM * TM, kCols = WN / kSubN * TN;  // a thread's outputs
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % kSubM == 0 && WN % kSubN == 0,
                "a warp tile must be whole 4 x 8 grids of TM x TN pieces");
  static_assert(BM * BK / 4 % kThreads == 0 && BK * BN / 4 % kThreads == 0 &&
                    BM * BK / 4 >= kThreads && BK * BN / 4 >= kThreads,
                "every thread must copy as many float4s of each tile");
  __shared__ __align__(16) float a[BK][BM + 4];  // transposed: a[k][m]
  __shared__ __align__(16) float b[BK][BN];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  // The thread's r-th row and c-th column of the block tile.
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * TM;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * TN;
  const auto rowOf = [&](int r) { return warpRow + r / TM * kSubM + r % TM; };
  const auto colOf = [&](int c) { return warpCol + c / TN * kSubN + c % TN; };
  const bool aVectors = p.K % 4 == 0, bVectors = p.N % 4 == 0;  // rows 16-byte aligned
  float sum[kRows][kCols] = {};
  for (int k0 = 0; k0 < p.K; k0 += BK) {
    // Copy e of thread t takes float4 t + e * threads of the tile, row by row. Past the
    // matrix the accessors return zeros, so every thread reaches both barriers.
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
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, a[kk][rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, b[kk][colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    __syncthreads();
  }
  // One float at a time: a float4 store takes four consecutive registers, and with this many
  // accumulators ptxas then needs more registers (the catalogue's warptile: 163 instead of 127,
  // one block per SM instead of two, 1.8x slower).
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = row0 + rowOf(r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int j = col0 + colOf(c);
      ts::storeC(p, i, j, sum[r][c]);  // past C: an idle lane, as the Mapping draws it
    }
  }
}
