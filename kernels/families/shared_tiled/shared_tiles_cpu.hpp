// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU schedule of the kernels that stage one T x T tile of A and one of B per k-step
// (shared-tiled, shared-tiled-padded), written once over their maps: every index, and where each
// value sits in a tile, comes from the map.
#include <vector>

#include "cpu/cpu_kernels.hpp"

namespace tilescope::families {

// A and B both staged per k-step in T x T tiles, zero-padded at the edges (seeds 000b, 002,
// 003b, 004-3). The product reads only the two local tiles, which stay in L1.
template <typename Map>
void runSharedTiles(const cpu::Gemm& g, const Map& map, const std::atomic<bool>* cancel) {
  using namespace cpu;
  const maps::SharedTile aLayout = map.aTile(), bLayout = map.bTile();
  const Dim2 threads = map.block();
  const int depth = map.kDepth();
  const std::int64_t steps = ceilDiv(g.k, depth);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    std::vector<float> aTile(std::size_t(aLayout.words())), bTile(std::size_t(bLayout.words()));
    std::vector<float> accumulator(std::size_t(threads.x * threads.y), 0.0f);  // one per thread
    for (std::int64_t s = 0; s < steps; ++s) {
      forEachThread(threads, [&](Dim2 thread, int) {
        const Cell aSlot = map.aTileStore(thread), bSlot = map.bTileStore(thread);
        aTile[aLayout.word(int(aSlot.row), int(aSlot.col))] =
            elementOrZero(g.a, g.m, g.k, map.aLoad(block, thread, s));
        bTile[bLayout.word(int(bSlot.row), int(bSlot.col))] =
            elementOrZero(g.b, g.k, g.n, map.bLoad(block, thread, s));
      });
      // __syncthreads(): both tiles are complete before any thread reads them. Every thread
      // multiplies, padding included (its zeros change nothing); only the store is guarded.
      forEachThread(threads, [&](Dim2 thread, int linear) {
        float sum = accumulator[std::size_t(linear)];
        for (int kk = 0; kk < depth; ++kk) {
          const Cell a = map.aTileRead(thread, kk), b = map.bTileRead(thread, kk);
          sum += aTile[aLayout.word(int(a.row), int(a.col))] *
                 bTile[bLayout.word(int(b.row), int(b.col))];
        }
        accumulator[std::size_t(linear)] = sum;
      });
    }
    forEachThread(threads, [&](Dim2 thread, int linear) {
      const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
      if (i < g.m && j < g.n) g.c[i * g.n + j] = accumulator[std::size_t(linear)];
    });
  });
}

}  // namespace tilescope::families
