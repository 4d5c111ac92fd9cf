// Exercise 8, a solution: two shared stages. While the block multiplies k-step s from one,
// each thread loads its share of k-step s + 1 from global memory into registers, then stores
// it into the other stage: the loads' latency hides behind the multiply-adds, and one barrier
// per k-step suffices.
TS_PARAM(BM, 128, 64, 128, 256)
TS_PARAM(BN, 128, 64, 128, 256)
TS_PARAM(BK, 8, 8, 16)
TS_PARAM(WM, 32, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM), 0)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kRows = WM / 16 * 4, kCols = WN / 32 * 4;  // a thread's outputs
  constexpr int kACopies = BM * BK / 4 / kThreads, kBCopies = BK * BN / 4 / kThreads;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % 16 == 0 && WN % 32 == 0, "a warp tile must be whole 4 x 8 grids of 4 x 4");
  static_assert(kACopies >= 1 && kACopies * kThreads * 4 == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * 4 == BK * BN,
                "every thread must copy as many float4s of each tile");
  // Two stages of A's tile transposed (a[stage][k][m]), each row padded by 4 words, and of
  // B's as it is: 16.25 KiB at the default tile.
  __shared__ __align__(16) float a[2][BK][BM + 4];
  __shared__ __align__(16) float b[2][BK][BN];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  // Warp tiles of WM x WN; in one, the lanes form a 4 x 8 grid of 4 x 4 pieces that repeats.
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * 4;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * 4;
  const auto rowOf = [&](int r) { return warpRow + r / 4 * 16 + r % 4; };
  const auto colOf = [&](int c) { return warpCol + c / 4 * 32 + c % 4; };
  const bool vectors = p.K % 4 == 0 && p.N % 4 == 0;  // rows of A and B 16-byte aligned
  float4 aNext[kACopies], bNext[kBCopies];
  // Loads this thread's share of the k-step from k0 into registers: copy e takes float4
  // t + e * threads of the tiles, row by row. Past the matrix the accessors return zeros.
  const auto load = [&](int k0) {
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      float v[4];
      if (vectors) {
        const float4 four = ts::loadA4(p, row0 + r, k0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadA(p, row0 + r, k0 + c + x);
      }
      aNext[e] = make_float4(v[0], v[1], v[2], v[3]);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      float v[4];
      if (vectors) {
        const float4 four = ts::loadB4(p, k0 + r, col0 + c);
        v[0] = four.x, v[1] = four.y, v[2] = four.z, v[3] = four.w;
      } else {
        for (int x = 0; x < 4; ++x) v[x] = ts::loadB(p, k0 + r, col0 + c + x);
      }
      bNext[e] = make_float4(v[0], v[1], v[2], v[3]);
    }
  };
  // Stores those registers into stage `stage`.
  const auto store = [&](int stage) {
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      const float v[4] = {aNext[e].x, aNext[e].y, aNext[e].z, aNext[e].w};
      for (int x = 0; x < 4; ++x) ts::writeShared(p, ts::TileA, a[stage][c + x][r], v[x]);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      ts::writeShared4(p, ts::TileB, b[stage][r][c], bNext[e]);
    }
  };
  float sum[kRows][kCols] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  load(0);
  store(0);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int stage = s % 2;
    const bool more = s + 1 < steps;
    if (more) load((s + 1) * BK);  // on its way while k-step s is multiplied
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, a[stage][kk][rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, b[stage][kk][colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
    // The other stage was last read in k-step s - 1, before the previous barrier: free to
    // fill. The barrier then makes it visible to k-step s + 1, and frees this stage.
    if (more) store(1 - stage);
    __syncthreads();
  }
  // One float at a time: a float4 store takes four consecutive registers, and with this many
  // accumulators that costs more registers than it saves.
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = row0 + rowOf(r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const int j = col0 + colOf(c);
      ts::storeC(p, i, j, sum[r][c]);  // past C: stores nothing
    }
  }
}
