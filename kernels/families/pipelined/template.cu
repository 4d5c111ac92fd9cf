// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// pipelined (siboehm's kernel 11; CUTLASS's multistage GEMM): warptile's warp grid with
// `stages` shared buffers filled by cp.async, which copies global memory straight into shared
// memory without holding registers. While the block multiplies k-step s, the copies of
// k-steps s + 1 .. s + stages - 1 are on their way, so memory latency hides behind the
// multiply-adds and one barrier per k-step suffices. A lands transposed, so it is copied
// one 4-byte element at a time; B in 16-byte copies where N is a multiple of 4.
TS_PARAM(BM, 128, 64, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 32, 16, 32)
TS_PARAM(WM, 64, 32, 64)
TS_PARAM(WN, 64, 32, 64)
TS_PARAM(stages, 2, 2, 3, 4)
TS_LAUNCH(BM / WM * (BN / WN) * 32, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          4 * (BK * (BM + 4) + BK * BN) * stages)
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int TM = 8, TN = 4;  // a lane's piece of the 4 x 8 lane grid
  constexpr int kWarpsAlongN = BN / WN, kThreads = BM / WM * kWarpsAlongN * 32;
  constexpr int kSubM = 4 * TM, kSubN = 8 * TN;
  constexpr int kRows = WM / kSubM * TM, kCols = WN / kSubN * TN;  // a thread's outputs
  constexpr int kACopies = BM * BK / 4 / kThreads, kBCopies = BK * BN / 4 / kThreads;
  constexpr int kAWords = BK * (BM + 4), kStageWords = kAWords + BK * BN;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
  static_assert(kThreads >= 128 && kThreads <= 256, "a block must have 4 to 8 warps");
  static_assert(WM % kSubM == 0 && WN % kSubN == 0,
                "a warp tile must be whole 4 x 8 grids of 8 x 4 pieces");
  static_assert(kACopies >= 1 && kACopies * kThreads * 4 == BM * BK && kBCopies >= 1 &&
                    kBCopies * kThreads * 4 == BK * BN,
                "every thread must copy as many float4s of each tile");
  extern __shared__ __align__(16) float shared[];  // stages stages: A transposed, then B
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int warpRow = warp / kWarpsAlongN * WM + lane / 8 * TM;
  const int warpCol = warp % kWarpsAlongN * WN + lane % 8 * TN;
  const auto rowOf = [&](int r) { return warpRow + r / TM * kSubM + r % TM; };
  const auto colOf = [&](int c) { return warpCol + c / TN * kSubN + c % TN; };
  const bool bVectors = p.N % 4 == 0;  // B's rows 16-byte aligned
  const auto stageOf = [&](int s) { return shared + s % stages * kStageWords; };
  // Starts k-step s's copies: copy e of thread t takes the four elements t + e * threads of
  // each tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    float* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / 4), c = at % (BK / 4) * 4;
      for (int x = 0; x < 4; ++x) ts::copyA(p, stage[(c + x) * (BM + 4) + r], row0 + r, k0 + c + x);
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / 4), c = at % (BN / 4) * 4;
      float& to = stage[kAWords + r * BN + c];
      if (bVectors) {
        ts::copyB16(p, to, k0 + r, col0 + c);
      } else {
        for (int x = 0; x < 4; ++x) ts::copyB(p, (&to)[x], k0 + r, col0 + c + x);
      }
    }
  };
  float sum[kRows][kCols] = {};
  const int steps = ts::ceilDiv(p.K, BK);
  for (int s = 0; s < stages - 1; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();  // a group each, empty or not, so the count of groups stays exact
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<stages - 2>();  // this thread's copies of k-step s have landed
    __syncthreads();               // everyone's have, and the stage k-step s - 1 used is free
    if (s + stages - 1 < steps) copy(s + stages - 1);
    ts::commitCopies();
    const float* stage = stageOf(s);
    for (int kk = 0; kk < BK; ++kk) {
      float aValues[kRows], bValues[kCols];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 four = ts::readShared4(p, ts::TileA, stage[kk * (BM + 4) + rowOf(r)]);
        aValues[r] = four.x, aValues[r + 1] = four.y, aValues[r + 2] = four.z;
        aValues[r + 3] = four.w;
      }
#pragma unroll
      for (int c = 0; c < kCols; c += 4) {
        const float4 four = ts::readShared4(p, ts::TileB, stage[kAWords + kk * BN + colOf(c)]);
        bValues[c] = four.x, bValues[c + 1] = four.y, bValues[c + 2] = four.z;
        bValues[c + 3] = four.w;
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c) sum[r][c] += aValues[r] * bValues[c];
    }
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
