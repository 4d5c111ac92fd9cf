// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU schedule of the kernels whose threads read A and B straight from global memory (naive,
// row-per-thread, register-tiled): a block's warps one after another, each warp's outputs with
// their whole k loop, the warp's lanes as SIMD lanes. A warp reads A and B where its lanes do:
// the naive kernel's warp one row of B per k (coalesced), row-per-thread's 32 rows of A per k.
#include <algorithm>
#include <vector>

#include "cpu_kernels.hpp"
#include "warp_simd.hpp"

namespace tilescope::cpu {

// `rowsPerThread` x `colsPerThread` outputs per thread, at map.row() and map.col().
template <typename Map>
void runFromMemory(const Gemm& g, const Map& map, int rowsPerThread, int colsPerThread,
                   const std::atomic<bool>* cancel) {
  const Dim2 shape = map.block(), first{0, 0};
  const std::int64_t firstRow = map.row(first, first, 0), firstCol = map.col(first, first, 0);
  // Each warp's outputs relative to its block's first, the same in every block.
  const std::vector<OutputRect> warps = warpRects(shape.x * shape.y, [&](int t, const auto& add) {
    const Dim2 thread{t % shape.x, t / shape.x};
    for (int r = 0; r < rowsPerThread; ++r)
      for (int c = 0; c < colsPerThread; ++c)
        add(int(map.row(first, thread, r) - firstRow), int(map.col(first, thread, c) - firstCol));
  });

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    const std::int64_t row0 = map.row(block, first, 0), col0 = map.col(block, first, 0);
    for (const OutputRect& whole : warps) {
      // Threads past C's edges skip their product, as the kernels' bounds checks do.
      const OutputRect rect = clipped(whole, g.m - row0, g.n - col0);
      if (rect.rows <= 0 || rect.cols <= 0) continue;
      // The lanes' accumulators start at zero; C holds them, each output owned by one lane.
      float* out = g.c + (row0 + rect.row) * g.n + col0 + rect.col;
      for (int i = 0; i < rect.rows; ++i) std::fill_n(out + i * g.n, rect.cols, 0.0f);
      multiplyAdd(out, g.n, rect.rows, rect.cols, Panel{g.a + (row0 + rect.row) * g.k, g.k, 1},
                  g.b + col0 + rect.col, g.n, g.k);
    }
  });
}

}  // namespace tilescope::cpu
