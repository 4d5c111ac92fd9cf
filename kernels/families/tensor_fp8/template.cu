// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// tensor-fp8 (Hopper, sm_90a): tensor-persistent for 8-bit floats, e4m3 or e5m2 with the sums in
// fp32. Each value takes one byte, so a 128-byte row of a stage holds BK = 128 values of k and one
// wgmma (m64n128k32) multiplies 32 of them.
// wgmma reads FP8 tiles from shared memory only along k, and the copy engine cannot transpose, so
// TileScope stores B K-major (TS_B_K_MAJOR): N rows of K values, B[k][j] at j K + k. A stage then
// holds B as A lies: BN rows of n, 128 bytes of k each, in boxes of 64 rows (TS_TENSOR_MAPS' second
// figure counts B's rows of n), and both wgmma operands are K-major.
// The rest is tensor-persistent's: a block per SM working through tiles in a grouped order, the
// producer running ahead into the next tile's k-steps, and with cluster = 2 two blocks on tiles
// stacked along M sharing B's boxes by multicast (each copies half of them).
TS_TYPES(e4m3, e5m2)
TS_PARAM(BM, 128, 128)
TS_PARAM(BN, 256, 128, 256)
TS_PARAM(BK, 128, 128)
TS_PARAM(stages, 4, 4, 6)
TS_PARAM(cluster, 2, 1, 2)
TS_PARAM(group, 16, 8, 16)
// A unit is `cluster` tiles stacked along M, one block of the cluster each: the most blocks that
// can work at once. TileScope launches no more than fit the GPU.
TS_LAUNCH(384, 1, ts::ceilDiv(ts::ceilDiv(M, BM), cluster) * ts::ceilDiv(N, BN) * cluster, 1,
          1024 + stages * (BM * BK + BN * BK + 16))
TS_PERSISTENT(ts::ceilDiv(N, BN), ts::ceilDiv(M, BM))
TS_CLUSTER(cluster)
TS_KSTEP(BK)
// B's boxes are 64 rows of n: a cluster of two splits BN = 128 between its blocks.
TS_TENSOR_MAPS(BM, 64)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  // Both operands are rows of 128 bytes of k: A's BM rows of m, then B's BN rows of n.
  constexpr int kAStage = BM * 128, kStage = kAStage + BN * 128;
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BN * BK / kVector / 128;
  constexpr int kBandUnitRows = group / cluster;
  static_assert(TS_ELEMENT_BYTES == 1 && TS_B_K_MAJOR, "wgmma here multiplies e4m3 or e5m2");
  static_assert(BM == 128, "two consumer warpgroups of 64 rows");
  static_assert(BK * TS_ELEMENT_BYTES == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(BN % 128 == 0, "wgmma instructions of 128 columns");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024,
                "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  // The swizzle works on address bits: every stage starts on a 1024-byte boundary (at the same
  // offset in every block, where multicast copies land).
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const auto stageOf = [&](int filled) { return base + filled % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  // Both maps need rows of K bytes on 16-byte boundaries (K a multiple of 16, as the catalogue's
  // tensor-fp8 and cuBLASLt require); elsewhere each block copies its own tiles byte by byte.
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  // Multicast needs TMA for both operands: else each block copies its own tiles.
  const bool multicast = cluster > 1 && allByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  // The tile order, as in tensor-persistent. Unit u of the grouped order is unit row
  // `first + inBand % rows`, tile column `inBand / rows` of its band; cluster c takes units c,
  // c + clusters, ... and its block of rank r the tile row r of each unit (past the last tile row
  // it copies B for its partner and stores nothing).
  // Computed afresh from p and the launch where needed: held across the main loop, these values
  // took registers the consumers' accumulators need.
  const auto unitRows = [&] { return ts::ceilDiv(ts::ceilDiv(p.M, BM), cluster); };
  const int rounds = (unitRows() * ts::ceilDiv(p.N, BN) - (int)blockIdx.x / cluster +
                      (int)gridDim.x / cluster - 1) /
                     ((int)gridDim.x / cluster);
  const auto tileOf = [&](int round) {
    const int u = blockIdx.x / cluster + round * (gridDim.x / cluster);
    const int perBand = kBandUnitRows * ts::ceilDiv(p.N, BN);
    const int first = u / perBand * kBandUnitRows, inBand = u % perBand;
    const int rows = min(unitRows() - first, kBandUnitRows);
    return make_int2(inBand / rows, (first + inBand % rows) * cluster + (int)blockIdx.x % cluster);
  };

  if (t == 0) {
    for (int s = 0; s < stages; ++s) {
      ts::initBarrier(full[s], allByTma ? 1 : 128);  // element copies: every producer arrives
      // Every consumer warp of every block of the cluster frees the stage in every block.
      ts::initBarrier(empty[s], kConsumerWarps * cluster);
    }
    ts::fenceBarrierInit();
  }
  // The barriers exist, in every block of the cluster, before a partner copies or arrives.
  if (cluster > 1)
    ts::syncCluster();
  else
    __syncthreads();

  if (t < 128) {  // the producer
    ts::shrinkRegisters<40>();
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    // Where TMA copies both operands, thread 0 alone works (the others wait at the end).
    const bool copies = !allByTma || t == 0;
    int filled = 0;  // k-steps through the ring since the launch, over every tile
    for (int round = 0; copies && round < rounds; ++round) {
      const int2 tile = tileOf(round);
      ts::workOn(p, tile.x, tile.y);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      for (int s = 0; s < steps; ++s, ++filled) {
        const int index = filled % stages, k0 = s * BK;
        // The stage's previous use must be freed by every consumer warp of the cluster (with
        // multicast this block writes into its partner's stage too).
        if (filled >= stages) ts::waitBarrier(empty[index], (filled / stages - 1) & 1);
        unsigned char* const aTile = stageOf(filled);
        unsigned char* const bTile = aTile + kAStage;
        if (t == 0) {
          if (allByTma)
            ts::arriveExpectingBytes(full[index], tmaBytes);
          else if (tmaBytes > 0)
            ts::expectBytes(full[index], tmaBytes);
          if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
          // B's BN columns from col0 on, as BN / 64 boxes of 64 rows of n.
          if (multicast)
            ts::copyTileBAcrossCluster(p, bTile, k0, col0, BN, full[index]);
          else if (bByTma)
            ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
        }
        if (allByTma) continue;
        // Copy e of thread t: the tile's 16-byte vector t + 128 e, row by row, into the bytes
        // the copy engine would have put it in. B's rows are its columns n, as in memory.
        if (!aByTma)
          for (int e = 0; e < kACopies; ++e) {
            const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
            for (int x = 0; x < kVector; ++x)
              ts::copyA(p, *reinterpret_cast<ts::Element*>(aTile + swizzle(r * 128 + c + x)),
                        row0 + r, k0 + c + x);
          }
        if (!bByTma)
          for (int e = 0; e < kBCopies; ++e) {
            const int at = t + e * 128, n = at / (BK / kVector), c = at % (BK / kVector) * kVector;
            for (int x = 0; x < kVector; ++x)
              ts::copyB(p, *reinterpret_cast<ts::Element*>(bTile + swizzle(n * 128 + c + x)),
                        k0 + c + x, col0 + n);
          }
        ts::fenceAsyncProxy();  // the stores above, then wgmma's reads through the async proxy
        ts::arrive(full[index]);
      }
    }
  } else {
    ts::growRegisters<232>();  // 128 x 40 + 256 x 232 registers fit the SM's 64 K
    const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
    // Each warp frees a stage in every block of the cluster once its batch on it is done.
    const auto release = [&](int filled) {
      if (lane != 0) return;
      if (cluster > 1)
        for (int r = 0; r < cluster; ++r) ts::arriveInCluster(empty[filled % stages], r);
      else
        ts::arrive(empty[filled % stages]);
    };
    // Not zeroed: each tile's first wgmma overwrites them (accumulate false).
    float sum[BN / 128][64];
    int filled = 0;
    for (int round = 0; round < rounds; ++round) {
      // The tile, named for the tracer (nothing in a timed launch); where it lies is worked out
      // again after the k-steps, so that no register holds it through them.
      ts::workOn(p, tileOf(round).x, tileOf(round).y);
      for (int s = 0; s < steps; ++s, ++filled) {
        ts::waitBarrier(full[filled % stages], (filled / stages) & 1);
        const unsigned char* aTile = stageOf(filled) + consumer * 64 * 128;
        const unsigned char* bTile = stageOf(filled) + kAStage;
        ts::wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < BK / ts::kMmaK; ++kk) {
          // Both operands K-major: 32 bytes along the rows per 32 values of k, 8-row atoms 1024
          // bytes apart; instruction i takes B's rows of n from 128 i on.
          const unsigned long long a = ts::sharedDescriptor(aTile + kk * 32, 16, kAtom);
#pragma unroll
          for (int i = 0; i < BN / 128; ++i)
            ts::wgmma(sum[i], a, ts::sharedDescriptor(bTile + i * 128 * 128 + kk * 32, 16, kAtom),
                      s > 0 || kk > 0);
        }
        ts::wgmmaCommit();
        ts::wgmmaWait<1>();  // the k-step before's batch is done: its stage goes back
        if (s > 0) release(filled - 1);
      }
      ts::wgmmaWait<0>();
      // The tile's last stage is free before the stores: the producer is filling the next tile.
      release(filled - 1);
      const int2 tile = tileOf(round);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
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
  }
  // No block leaves while a partner may still copy into it or arrive on its barriers.
  if (cluster > 1) ts::syncCluster();
}
