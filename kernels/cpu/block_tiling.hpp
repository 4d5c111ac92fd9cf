// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU schedule of the optimisation ladder: one template over every ladder family's map. Per
// block and k-step, the threads copy their vectors of A and B into the block's shared tiles (zero
// past the edges, at the words the family's layout names), then each warp multiplies its outputs
// from the tiles and accumulates: the CUDA kernels' order, with the barrier between the two.
// Pipelined keeps `stages` tiles in flight and copies tile s + stages - 1 before computing tile s,
// as its cp.async pipeline does.
//
// The map is read once per launch: the copies become a TileStaging per tile, each warp's
// outputs its rectangles, and the layouts' word formulas (linear in row and k) their strides.
#include <algorithm>
#include <vector>

#include "cpu_kernels.hpp"
#include "warp_simd.hpp"

namespace tilescope::cpu {

template <typename Map>
void runLadder(const Gemm& g, const Map& map, const std::atomic<bool>* cancel) {
  const int threads = map.threads(), depth = map.kDepth(), buffers = map.buffers();
  const int bm = map.bm, bn = map.bn;
  const maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  const int stageWords = map.stageWords(), aWords = map.aLayout().words();
  const std::int64_t steps = ceilDiv(g.k, depth);

  // Every thread's copies, relative to the tile's origin (block 0, k-step 0).
  std::vector<TileStaging::ElementCopy> aCopies, bCopies;
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i), from = map.aLoad({0, 0}, {t, 0}, 0, i);
      for (int e = 0; e < aCopy.width; ++e)
        aCopies.push_back(
            {int(from.row), int(from.col) + e, map.aWord(int(at.row), int(at.col) + e)});
    }
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i), from = map.bLoad({0, 0}, {t, 0}, 0, i);
      for (int e = 0; e < bCopy.width; ++e)
        bCopies.push_back(
            {int(from.row), int(from.col) + e, map.bWord(int(at.row), int(at.col) + e)});
    }
  }
  const TileStaging aStaging(std::move(aCopies)), bStaging(std::move(bCopies));

  const auto outputsRows = int(map.rowsPerThread()), outputsCols = int(map.colsPerThread());
  const std::vector<OutputRect> warps = warpRects(threads, [&](int t, const auto& add) {
    for (int r = 0; r < outputsRows; ++r)
      for (int c = 0; c < outputsCols; ++c) add(map.rowInBlock(t, r), map.colInBlock(t, c));
  });
  // The words a warp reads: A element (i, kk) and B element (kk, j) of the stage's tiles.
  const TileReads aReads = tileReads(bm, depth, [&](int i, int kk) { return map.aWord(i, kk); });
  const TileReads bReads = tileReads(bn, depth, [&](int j, int kk) { return map.bWord(kk, j); });
  bReads.requireUnitRowStride();

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    float* const shared = blockScratch(std::size_t(buffers) * stageWords + std::size_t(bm) * bn);
    float* const accumulators = shared + std::size_t(buffers) * stageWords;  // [i * bn + j]
    std::fill_n(accumulators, std::size_t(bm) * bn, 0.0f);
    // The part of the block's tile inside C: outputs past it are never stored, so never computed.
    const std::int64_t row0 = std::int64_t(block.y) * bm, col0 = std::int64_t(block.x) * bn;
    const std::int64_t rowsInC = g.m - row0, colsInC = g.n - col0;

    const auto aTileOf = [&](std::int64_t s) { return shared + s % buffers * stageWords; };
    const auto stage = [&](std::int64_t s) {
      float* aTile = aTileOf(s);
      aStaging.stage(aTile, g.a, g.m, g.k, row0, s * depth);
      bStaging.stage(aTile + aWords, g.b, g.k, g.n, s * depth, col0);
    };

    // The pipeline's prologue: the first stages - 1 tiles (none with a single buffer).
    for (std::int64_t s = 0; s < std::min<std::int64_t>(buffers - 1, steps); ++s) stage(s);
    for (std::int64_t s = 0; s < steps; ++s) {
      if (s + buffers - 1 < steps) stage(s + buffers - 1);
      // __syncthreads(): tile s is complete before any warp reads it.
      const float* aTile = aTileOf(s);
      const float* bTile = aTile + aWords;
      for (const OutputRect& whole : warps) {
        const OutputRect rect = clipped(whole, rowsInC, colsInC);
        if (rect.rows <= 0 || rect.cols <= 0) continue;
        multiplyAdd(accumulators + rect.row * bn + rect.col, bn, rect.rows, rect.cols,
                    aReads.panel(aTile, rect.row), bReads.panel(bTile, rect.col).data,
                    bReads.kStride, depth);
      }
    }

    forEachThread(map.block(), [&](Dim2 thread, int t) {
      for (int r = 0; r < outputsRows; ++r) {
        const std::int64_t i = map.row(block, thread, r);
        if (i >= g.m) continue;
        for (int c = 0; c < outputsCols; ++c) {
          const std::int64_t j = map.col(block, thread, c);
          if (j < g.n)
            g.c[i * g.n + j] = accumulators[map.rowInBlock(t, r) * bn + map.colInBlock(t, c)];
        }
      }
    });
  });
}

}  // namespace tilescope::cpu
