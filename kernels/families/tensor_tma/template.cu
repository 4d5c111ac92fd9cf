// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// tensor-tma (Hopper, sm_90a): warp specialisation. The block's three warpgroups have roles.
// Warpgroup 0 produces: its thread 0 has the copy engine (TMA) fill each stage with whole tiles,
// A as one box of BM rows x 64 values of k and B as BN / 64 boxes of 64 rows of k x 64 columns,
// laid out 128-byte swizzled as wgmma reads them; the copies count their bytes on the stage's
// `full` mbarrier. Warpgroups 1 and 2 consume: each waits on `full`, multiplies its 64 rows of
// the tile with wgmma, keeps one batch in flight, and once a stage's batch is done each of its
// warps arrives on the stage's `empty` mbarrier, which the producer waits on before refilling
// the stage. No block-wide barrier in the main loop. The producer gives registers back and the
// consumers take them for their BN / 2 accumulators. TMA needs rows of 16 bytes: where K (or N)
// is no multiple of 8, the producer's 128 threads copy A (or B) element by element instead.
TS_TYPES(fp16, bf16)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 64, 64)
TS_PARAM(stages, 4, 3, 4)
TS_LAUNCH(384, 1, ts::ceilDiv(N, BN), ts::ceilDiv(M, BM),
          1024 + stages * (BM * 128 + BK * BN * 2 + 16))
TS_KSTEP(BK)
TS_TENSOR_MAPS(BM, BK)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 2;
  constexpr int kSlab = BK * 128;  // B: 64 columns of every row of k
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BK * BN / kVector / 128;
  static_assert(TS_ELEMENT_BYTES == 2, "wgmma here multiplies fp16 or bf16");
  static_assert(BM == 128, "two consumer warpgroups of 64 rows");
  static_assert(BK * 2 == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(BN % 128 == 0, "wgmma instructions of 128 columns");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024,
                "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every stage starts on a 1024-byte boundary.
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const auto stageOf = [&](int s) { return base + s % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  if (t == 0) {
    for (int s = 0; s < stages; ++s) {
      ts::initBarrier(full[s], allByTma ? 1 : 128);  // element copies: every producer arrives
      ts::initBarrier(empty[s], kConsumerWarps);
    }
    ts::fenceBarrierInit();
  }
  __syncthreads();  // the only block-wide barrier: the mbarriers exist from here on

  if (t < 128) {  // the producer
    ts::shrinkRegisters<40>();
    if (allByTma && t != 0) return;
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    for (int s = 0; s < steps; ++s) {
      const int index = s % stages, k0 = s * BK;
      // The stage's previous use (k-step s - stages) must be released by every consumer warp.
      if (s >= stages) ts::waitBarrier(empty[index], (s / stages - 1) & 1);
      unsigned char* const aTile = stageOf(s);
      unsigned char* const bTile = aTile + kAStage;
      if (t == 0) {
        if (allByTma)
          ts::arriveExpectingBytes(full[index], tmaBytes);
        else if (tmaBytes > 0)
          ts::expectBytes(full[index], tmaBytes);
        if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
        if (bByTma) ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
      }
      if (allByTma) continue;
      // Copy e of thread t: the tile's 16-byte vector t + 128 e, row by row, into the bytes the
      // copy engine would have put it in.
      if (!aByTma)
        for (int e = 0; e < kACopies; ++e) {
          const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
          for (int x = 0; x < kVector; ++x)
            ts::copyA(p, *reinterpret_cast<ts::Element*>(aTile + swizzle(r * 128 + (c + x) * 2)),
                      row0 + r, k0 + c + x);
        }
      if (!bByTma)
        for (int e = 0; e < kBCopies; ++e) {
          const int at = t + e * 128, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
          for (int x = 0; x < kVector; ++x) {
            const int n = c + x;
            ts::copyB(p,
                      *reinterpret_cast<ts::Element*>(
                          bTile + swizzle(n / 64 * kSlab + r * 128 + n % 64 * 2)),
                      k0 + r, col0 + n);
          }
        }
      ts::fenceAsyncProxy();  // the stores above, then wgmma's reads through the async proxy
      ts::arrive(full[index]);
    }
    return;
  }

  ts::growRegisters<232>();  // 128 x 40 + 256 x 232 registers fit the SM's 64 K
  const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
  // Not zeroed: the first wgmma overwrites them (accumulate false).
  float sum[BN / 128][64];
  for (int s = 0; s < steps; ++s) {
    ts::waitBarrier(full[s % stages], (s / stages) & 1);
    const unsigned char* aTile = stageOf(s) + consumer * 64 * 128;
    const unsigned char* bTile = stageOf(s) + kAStage;
    ts::wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      // A: 16 more values of k are 32 bytes along the rows, 8-row atoms 1024 bytes apart. B: 16
      // values of k are two atoms down every slab; the next 64 columns are the next slab
      // (leading), the next 8 rows the next atom (stride).
      const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
      for (int i = 0; i < BN / 128; ++i)
        ts::wgmma(sum[i], a,
                  ts::sharedDescriptor(bTile + i * 2 * kSlab + kk * 2 * kAtom, kSlab, kAtom),
                  s > 0 || kk > 0);
    }
    ts::wgmmaCommit();
    ts::wgmmaWait<1>();  // k-step s - 1's batch is done: its stage goes back to the producer
    if (s > 0 && lane == 0) ts::arrive(empty[(s - 1) % stages]);
  }
  ts::wgmmaWait<0>();
  // Register j of instruction i: row 8 (j % 4 / 2) of the warp's 16, columns 128 i + 8 (j / 4)
  // + 2 (lane % 4), + 1; the pair as one float2 where N is even.
#pragma unroll
  for (int i = 0; i < BN / 128; ++i)
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      const int row = row0 + consumer * 64 + warp * 16 + j % 4 / 2 * 8 + lane / 4;
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
