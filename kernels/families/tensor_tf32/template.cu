// Kernel Editor template: TileScope puts the ts:: API (kernels/user/api) in front of it.
// tensor-tf32 (Hopper, sm_90a): tensor-persistent for tf32. wgmma reads a tf32 tile from
// shared memory only along k, and B's rows run along n, so each block computes its tile
// transposed, C^T = B^T A^T. A's tile (256 rows of 32 values of k: 128-byte rows, swizzled)
// becomes the instruction's second operand, read through descriptors as it lies; B's tile reaches
// the instruction through registers (ts::wgmmaTf32): before every 8-deep k-chunk each consumer
// thread reads its four words of it. The columns a lane holds are chosen so that a warp's 32
// reads meet 32 banks through the swizzle. Consumer c owns columns 64c .. 64c + 63 of the 256 x
// 128 tile and all its rows; its accumulator rows are columns of C. The launch, the tile order,
// the clusters and the producer are tensor-persistent's.
TS_TYPES(tf32)
TS_PARAM(BM, 256, 256)
TS_PARAM(BN, 128, 128)
TS_PARAM(BK, 32, 32)
TS_PARAM(stages, 4, 3, 4)
TS_PARAM(cluster, 2, 1, 2)
TS_PARAM(group, 8, 8, 16)
TS_LAUNCH(384, 1, ts::ceilDiv(ts::ceilDiv(M, BM), cluster) * ts::ceilDiv(N, BN) * cluster, 1,
          1024 + stages * (BM * 128 + BK * BN * 4 + 16))
TS_PERSISTENT(ts::ceilDiv(N, BN), ts::ceilDiv(M, BM))
TS_CLUSTER(cluster)
TS_KSTEP(BK)
TS_TENSOR_MAPS(BM, BK)

TS_KERNEL_BOUNDED(384, 1) {
  constexpr int kAtom = 1024;  // 8 rows of 128 bytes: what the swizzle permutes
  constexpr int kAStage = BM * 128, kStage = kAStage + BK * BN * 4;
  constexpr int kSlab = BK * 128;  // B: 32 columns of every row of k
  constexpr int kConsumerWarps = 8, kVector = ts::kCopyElements;
  constexpr int kACopies = BM * BK / kVector / 128, kBCopies = BK * BN / kVector / 128;
  constexpr int kBandUnitRows = group / cluster, kChunks = BK / 8;
  static_assert(TS_ELEMENT_BYTES == 4, "tf32");
  static_assert(BM == 256 && BN == 128, "two consumer warpgroups of 64 columns, 256 rows each");
  static_assert(BK * 4 == 128, "a row of a box is one 128-byte swizzle row");
  static_assert(stages * (kStage + 16) + kAtom <= 227 * 1024,
                "a block has 227 KiB of shared memory");
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned char* const base =
      shared + (kAtom - (int)(__cvta_generic_to_shared(shared) % kAtom)) % kAtom;
  ts::Barrier* const full = reinterpret_cast<ts::Barrier*>(base + stages * kStage);
  ts::Barrier* const empty = full + stages;
  const int t = threadIdx.x;
  const auto stageOf = [&](int filled) { return base + filled % stages * kStage; };
  const auto swizzle = [](int offset) { return offset ^ (offset >> 7 & 7) << 4; };
  const bool aByTma = ts::hasTensorMap(p, ts::TileA), bByTma = ts::hasTensorMap(p, ts::TileB);
  const bool allByTma = aByTma && bByTma;
  const bool multicast = cluster > 1 && allByTma;
  // Where the producer's threads copy a stage, every consumer lane frees it after its own reads:
  // compute-sanitizer's racecheck does not follow the __syncwarp that orders them before lane 0's
  // arrival. Where the copy engine fills it, lane 0 frees it for its warp (faster).
  const bool everyLaneReleases = !allByTma;
  const int steps = ts::ceilDiv(p.K, BK);

  // tensor-persistent's tile order: grouped units of `cluster` tiles stacked along M.
  // Computed afresh from p and the launch where needed: held across the main loop, these values
  // took registers the consumers' accumulators need (ptxas spilled).
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
      ts::initBarrier(full[s], allByTma ? 1 : 128);
      ts::initBarrier(empty[s], kConsumerWarps * (everyLaneReleases ? 32 : 1) * cluster);
    }
    ts::fenceBarrierInit();
  }
  if (cluster > 1)
    ts::syncCluster();
  else
    __syncthreads();

  if (t < 128) {  // the producer, as tensor-persistent's
    ts::shrinkRegisters<40>();
    const unsigned tmaBytes = (aByTma ? kAStage : 0) + (bByTma ? kStage - kAStage : 0);
    const bool copies = !allByTma || t == 0;
    int filled = 0;
    for (int round = 0; copies && round < rounds; ++round) {
      const int2 tile = tileOf(round);
      ts::workOn(p, tile.x, tile.y);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      for (int s = 0; s < steps; ++s, ++filled) {
        const int index = filled % stages, k0 = s * BK;
        if (filled >= stages) ts::waitBarrier(empty[index], (filled / stages - 1) & 1);
        unsigned char* const aTile = stageOf(filled);
        unsigned char* const bTile = aTile + kAStage;
        if (t == 0) {
          if (allByTma)
            ts::arriveExpectingBytes(full[index], tmaBytes);
          else if (tmaBytes > 0)
            ts::expectBytes(full[index], tmaBytes);
          if (aByTma) ts::copyTileA(p, aTile, row0, k0, full[index]);
          if (multicast)
            ts::copyTileBAcrossCluster(p, bTile, k0, col0, BN, full[index]);
          else if (bByTma)
            ts::copyTileB(p, bTile, k0, col0, BN, full[index]);
        }
        if (allByTma) continue;
        // Where a row is not 16-byte aligned (K or N no multiple of 4): vector t + 128 e, row by
        // row, element by element (cp.async), into the bytes the copy engine would have used.
        if (!aByTma)
          for (int e = 0; e < kACopies; ++e) {
            const int at = t + e * 128, r = at / (BK / kVector), c = at % (BK / kVector) * kVector;
            for (int x = 0; x < kVector; ++x)
              ts::copyA(p, *reinterpret_cast<float*>(aTile + swizzle(r * 128 + (c + x) * 4)),
                        row0 + r, k0 + c + x);
          }
        if (!bByTma)
          for (int e = 0; e < kBCopies; ++e) {
            const int at = t + e * 128, r = at / (BN / kVector), c = at % (BN / kVector) * kVector;
            for (int x = 0; x < kVector; ++x) {
              const int n = c + x, byte = swizzle(n / 32 * kSlab + r * 128 + n % 32 * 4);
              ts::copyB(p, *reinterpret_cast<float*>(bTile + byte), k0 + r, col0 + n);
            }
          }
        ts::commitCopies();
        ts::waitCopies<0>();
        ts::fenceAsyncProxy();  // the copies above, then wgmma's reads through the async proxy
        ts::arrive(full[index]);
      }
    }
  } else {
    ts::growRegisters<232>();
    const int consumer = t / 128 - 1, warp = t % 128 / 32, lane = t % 32;
    const int g = lane / 4, q = lane % 4;
    const auto release = [&](int filled) {
      __syncwarp();  // the warp's reads of the stage, then its lane 0's arrival
      if (!everyLaneReleases && lane != 0) return;
      if (cluster > 1)
        for (int r = 0; r < cluster; ++r) ts::arriveInCluster(empty[filled % stages], r);
      else
        ts::arrive(empty[filled % stages]);
    };
    // Accumulator row r of the consumer stands for column columnOf(r) of its 64: warp w's rows g
    // and g + 8 take columns that put a warp's reads of a k row in 32 banks (two runs of four
    // columns 16 apart, then the runs 4 further; warp w % 2 the next eight, w / 2 the next slab).
    const auto columnOf = [](int r) {
      const int w = r / 16, half = r % 16 / 8, lane8 = r % 8;
      return w / 2 * 32 + w % 2 * 8 + half * 4 + lane8 / 4 * 16 + lane8 % 4;
    };
    const int column[2] = {consumer * 64 + columnOf(warp * 16 + g),
                           consumer * 64 + columnOf(warp * 16 + 8 + g)};
    // Instruction i's accumulators: rows 128 i .. 128 i + 127 of the tile.
    float sum[2][64];
    int filled = 0;
    for (int round = 0; round < rounds; ++round) {
      // The tile, named for the tracer before its fragment reads (nothing in a timed launch);
      // where it lies is worked out again after the k-steps, as in tensor-persistent.
      ts::workOn(p, tileOf(round).x, tileOf(round).y);
      for (int s = 0; s < steps; ++s, ++filled) {
        ts::waitBarrier(full[filled % stages], (filled / stages) & 1);
        // The k-step before's batch reads its words from the registers this step's go to: it
        // ends first, and frees its stage.
        ts::wgmmaWait<0>();
        if (s > 0) release(filled - 1);
        const unsigned char* aTile = stageOf(filled);
        const unsigned char* bTile = aTile + kAStage;
        // Word `slot` of chunk ch: k row 8 ch + q + 4 (slot / 2), column column[slot % 2].
        unsigned words[kChunks][4];
#pragma unroll
        for (int ch = 0; ch < kChunks; ++ch)
#pragma unroll
          for (int slot = 0; slot < 4; ++slot) {
            const int k = ch * 8 + q + slot / 2 * 4, n = column[slot % 2];
            const int byte = swizzle(n / 32 * kSlab + k * 128 + n % 32 * 4);
            words[ch][slot] =
                ts::readFragment(p, ts::TileB, *reinterpret_cast<const float*>(bTile + byte));
          }
        ts::wgmmaFence();
#pragma unroll
        for (int ch = 0; ch < kChunks; ++ch)
#pragma unroll
          for (int i = 0; i < 2; ++i)
            // 8 more values of k are 32 bytes along A's rows; rows 128 i on, 8-row atoms apart.
            ts::wgmmaTf32(sum[i], words[ch],
                          ts::sharedDescriptor(aTile + i * 128 * 128 + ch * 32, 16, kAtom),
                          s > 0 || ch > 0);
        ts::wgmmaCommit();
      }
      ts::wgmmaWait<0>();
      release(filled - 1);
      const int2 tile = tileOf(round);
      const int row0 = tile.y * BM, col0 = tile.x * BN;
      // Row slot r, column slot c is register j = 4 (r / 2) + 2 c + r % 2 of the 128: row
      // 8 (r / 2) + 2q + r % 2 of the tile, column column[c]. A thread's values run down two
      // columns of C: one float at a time, every slot (the accessor stores only inside C).
#pragma unroll
      for (int r = 0; r < 64; ++r)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int j = 4 * (r / 2) + 2 * c + r % 2;
          const int row = row0 + 8 * (r / 2) + 2 * q + r % 2, col = col0 + column[c];
          ts::storeC(p, row, col, sum[j / 64][j % 64]);  // nothing past C
        }
    }
  }
  if (cluster > 1) ts::syncCluster();
}
