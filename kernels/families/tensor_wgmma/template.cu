// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// tensor-wgmma (Hopper's warpgroup MMA, sm_90a): each warpgroup of 128 threads owns 64
// rows of the block tile and multiplies them with ts::wgmma, which has the whole warpgroup
// multiply 64 x 16 of A by 16 x 128 of B, reading both straight from shared memory through
// descriptors: no lane loads a fragment. The stages are laid out as wgmma reads them, in
// 1024-byte atoms of 8 rows of 128 bytes, 128-byte swizzled: 16-byte chunk c of row r lies at
// chunk c ^ (r % 8), so the 8 rows of a chunk column fall in 8 different groups of banks. A is
// BM rows of BK = 64 values (128 bytes); B is 64-column slabs of 8-row atoms. One batch of
// wgmma runs on while the next k-step's copies are issued.
TS_TYPES(fp16, bf16)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 64, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(BM / 64 * 128, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          1024 + stages * (BM * 128 + BK * BN * 2))
TS_KSTEP(BK)

TS_KERNEL {
  constexpr int kThreads = BM / 64 * 128, kInstructionsN = BN / 128;
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 2;
  constexpr int kVector = ts::kCopyElements;  // 8 elements per 16-byte copy
  constexpr int kACopies = BM * BK / kVector / kThreads, kBCopies = BK * BN / kVector / kThreads;
  static_assert(TS_ELEMENT_BYTES == 2, "wgmma here multiplies fp16 or bf16");
  static_assert(BK * 2 == 128, "a row of the A tile is one 128-byte swizzle row");
  static_assert(BM % 64 == 0 && BN % 128 == 0,
                "warpgroups of 64 rows and instructions of 128 columns must divide the tile");
  static_assert(stages >= 3, "a stage is refilled two k-steps after its use");
  static_assert(
      kACopies * kThreads * kVector == BM * BK && kBCopies * kThreads * kVector == BK * BN,
      "every thread must copy as many 16-byte vectors of each tile");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every atom starts on a 1024-byte boundary.
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  const int t = threadIdx.x, warpgroup = t / 128, warp = t % 128 / 32, lane = t % 32;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const auto stageOf = [&](int s) { return base + s % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const auto aAt = [&](unsigned char* stage, int m, int k) -> ts::Element& {
    return *reinterpret_cast<ts::Element*>(stage + swizzle(m * 128 + k * 2));
  };
  // B: atom (k / 8, n / 64) holds 8 rows of k, 64 columns; an 8-row group's atoms side by side.
  const auto bAt = [&](unsigned char* stage, int k, int n) -> ts::Element& {
    const int atom = k / 8 * (BN / 64) + n / 64;
    return *reinterpret_cast<ts::Element*>(stage + kAStage +
                                           swizzle(atom * kAtom + k % 8 * 128 + n % 64 * 2));
  };
  const bool aVectors = p.K % kVector == 0, bVectors = p.N % kVector == 0;
  // Starts k-step s's copies: copy e of thread t takes the vector t + e * threads of each
  // tile, row by row. Past the matrix a copy reads nothing and fills zeros.
  const auto copy = [&](int s) {
    unsigned char* stage = stageOf(s);
    const int k0 = s * BK;
#pragma unroll
    for (int e = 0; e < kACopies; ++e) {
      const int at = t + e * kThreads, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
      if (aVectors) {
        ts::copyA16(p, aAt(stage, r, c), row0 + r, k0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyA(p, aAt(stage, r, c + x), row0 + r, k0 + c + x);
      }
    }
#pragma unroll
    for (int e = 0; e < kBCopies; ++e) {
      const int at = t + e * kThreads, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
      if (bVectors) {
        ts::copyB16(p, bAt(stage, r, c), k0 + r, col0 + c);
      } else {
        for (int x = 0; x < kVector; ++x) ts::copyB(p, bAt(stage, r, c + x), k0 + r, col0 + c + x);
      }
    }
  };
  // Not zeroed: the first wgmma overwrites them (accumulate false).
  float sum[kInstructionsN][64];
  const int steps = ts::ceilDiv(p.K, BK);
  constexpr int kAhead = stages - 2;  // k-steps in flight while one is multiplied
  for (int s = 0; s < kAhead; ++s) {
    if (s < steps) copy(s);
    ts::commitCopies();
  }
  for (int s = 0; s < steps; ++s) {
    ts::waitCopies<kAhead - 1>();  // this thread's copies of k-step s have landed
    ts::fenceAsyncProxy();         // and wgmma, which reads through the async proxy, sees them
    // Everyone's have, and every warpgroup's wgmma of k-step s - 2 is done: its stage is free.
    __syncthreads();
    if (s + kAhead < steps) copy(s + kAhead);
    ts::commitCopies();
    const unsigned char* aTile = stageOf(s) + warpgroup * 64 * 128;
    const unsigned char* bTile = stageOf(s) + kAStage;
    ts::wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: 16 more values of k are 32 bytes further along the rows; atoms follow one another
      // (stride 1024). B: 16 values of k are two 8-row groups of atoms; the next 64 columns are
      // the next atom (leading 1024), the next 8 rows BN / 64 atoms on (stride).
      const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
      for (int i = 0; i < kInstructionsN; ++i) {
        const unsigned char* b = bTile + (2 * kk * (BN / 64) + 2 * i) * kAtom;
        ts::wgmma(sum[i], a, ts::sharedDescriptor(b, kAtom, BN / 64 * kAtom), s > 0 || kk > 0);
      }
    }
    ts::wgmmaCommit();
    ts::wgmmaWait<1>();  // k-step s - 1's batch is done; this one runs on into the next k-step
  }
  ts::wgmmaWait<0>();
  // Register j of instruction i: row 8 (j % 4 / 2) of the warp's 16, columns 128 i + 8 (j / 4)
  // + 2 (lane % 4), + 1; the pair as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < kInstructionsN; ++i)
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      const int row = row0 + warpgroup * 64 + warp * 16 + j % 4 / 2 * 8 + lane / 4;
      const int col = col0 + i * 128 + j / 4 * 8 + lane % 4 * 2;
      // Every slot, those past C too: the accessors store only what lies inside.
      if (p.N % 2 == 0) {
        ts::storeC2(p, row, col, make_float2(sum[i][j], sum[i][j + 1]));
      } else {
        ts::storeC(p, row, col, sum[i][j]);
        ts::storeC(p, row, col + 1, sum[i][j + 1]);
      }
    }
}
