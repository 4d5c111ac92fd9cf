// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU schedule of the optimisation ladder: one template over every ladder family's map. Per
// block and k-step, every thread copies its vectors of A and B into the block's shared tiles
// (zero past the edges, at the words the family's layout names), then every thread reads its
// register values from the tiles and accumulates: the CUDA kernels' order, with the barrier
// between the two. Pipelined keeps `stages` tiles in flight and copies tile s + stages - 1 before
// computing tile s, as its cp.async pipeline does.
#include <algorithm>
#include <vector>

#include "cpu_kernels.hpp"

namespace tilescope::cpu {

template <typename Map>
void runLadder(const Gemm& g, const Map& map, const std::atomic<bool>* cancel) {
  const int threads = map.threads(), depth = map.kDepth(), buffers = map.buffers();
  const auto rows = std::size_t(map.rowsPerThread()), cols = std::size_t(map.colsPerThread());
  const maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  const int stageWords = map.stageWords(), aWords = map.aLayout().words();
  const std::int64_t steps = ceilDiv(g.k, depth);

  // Where each thread's register values lie in the block tile: the same for every block.
  std::vector<int> rowOf(std::size_t(threads) * rows), colOf(std::size_t(threads) * cols);
  for (int t = 0; t < threads; ++t) {
    for (std::size_t r = 0; r < rows; ++r) rowOf[t * rows + r] = map.rowInBlock(t, int(r));
    for (std::size_t c = 0; c < cols; ++c) colOf[t * cols + c] = map.colInBlock(t, int(c));
  }

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    std::vector<float> shared(std::size_t(buffers) * std::size_t(stageWords));
    std::vector<float> accumulators(std::size_t(threads) * rows * cols, 0.0f);
    std::vector<float> aValues(rows), bValues(cols);  // a thread's registers for one k

    const auto aTileOf = [&](std::int64_t s) { return shared.data() + s % buffers * stageWords; };
    const auto stage = [&](std::int64_t s) {
      float* aTile = aTileOf(s);
      float* bTile = aTile + aWords;
      forEachThread(map.block(), [&](Dim2 thread, int t) {
        for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
          const Cell at = aCopy.at(t, i), from = map.aLoad(block, thread, s, i);
          for (int e = 0; e < aCopy.width; ++e)
            aTile[map.aWord(int(at.row), int(at.col) + e)] =
                elementOrZero(g.a, g.m, g.k, {from.row, from.col + e});
        }
        for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
          const Cell at = bCopy.at(t, i), from = map.bLoad(block, thread, s, i);
          for (int e = 0; e < bCopy.width; ++e)
            bTile[map.bWord(int(at.row), int(at.col) + e)] =
                elementOrZero(g.b, g.k, g.n, {from.row, from.col + e});
        }
      });
    };

    // The pipeline's prologue: the first stages - 1 tiles (none with a single buffer).
    for (std::int64_t s = 0; s < std::min<std::int64_t>(buffers - 1, steps); ++s) stage(s);
    for (std::int64_t s = 0; s < steps; ++s) {
      if (s + buffers - 1 < steps) stage(s + buffers - 1);
      // __syncthreads(): tile s is complete before any thread reads it.
      const float* aTile = aTileOf(s);
      const float* bTile = aTile + aWords;
      for (int t = 0; t < threads; ++t) {
        float* sum = accumulators.data() + std::size_t(t) * rows * cols;
        for (int kk = 0; kk < depth; ++kk) {
          for (std::size_t r = 0; r < rows; ++r)
            aValues[r] = aTile[map.aWord(rowOf[t * rows + r], kk)];
          for (std::size_t c = 0; c < cols; ++c)
            bValues[c] = bTile[map.bWord(kk, colOf[t * cols + c])];
          for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) sum[r * cols + c] += aValues[r] * bValues[c];
        }
      }
    }

    forEachThread(map.block(), [&](Dim2 thread, int t) {
      const float* sum = accumulators.data() + std::size_t(t) * rows * cols;
      for (std::size_t r = 0; r < rows; ++r) {
        const std::int64_t i = map.row(block, thread, std::int64_t(r));
        if (i >= g.m) continue;
        for (std::size_t c = 0; c < cols; ++c) {
          const std::int64_t j = map.col(block, thread, std::int64_t(c));
          if (j < g.n) g.c[i * g.n + j] = sum[r * cols + c];
        }
      }
    });
  });
}

}  // namespace tilescope::cpu
