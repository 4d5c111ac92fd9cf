// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU schedule of the kernels that stage a T x T tile of A per k-step (shared-a) and one of B
// too (shared-tiled, shared-tiled-padded), written once over their maps: every index, and where
// each value sits in a tile, comes from the map, read once per launch.
#include <algorithm>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "cpu/warp_simd.hpp"

namespace tilescope::families {

// A thread's place in a T x T block from its linear index.
inline Dim2 threadOf(Dim2 shape, int linear) {
  return {linear % shape.x, linear / shape.x};
}

// The copies the block's threads make into a staged tile: thread t stores the element `load(t)`
// (relative to the tile's origin at block 0, k-step 0) at word `store(t)`.
template <typename Load, typename Store>
cpu::TileStaging stagingOf(Dim2 shape, Load load, Store store) {
  std::vector<cpu::TileStaging::ElementCopy> copies;
  for (int t = 0; t < shape.x * shape.y; ++t) {
    const Cell from = load(threadOf(shape, t));
    copies.push_back({int(from.row), int(from.col), store(threadOf(shape, t))});
  }
  return cpu::TileStaging(std::move(copies));
}

// Where thread t reads element kk of its tile row (A) or column (B), as strides over its output
// coordinate `coordinate(t)`: checked for every thread and kk.
template <typename Coordinate, typename WordOf>
cpu::TileReads readsOf(Dim2 shape, int depth, Coordinate coordinate, WordOf wordOf) {
  int extent = 0;
  for (int t = 0; t < shape.x * shape.y; ++t)
    extent = std::max(extent, coordinate(threadOf(shape, t)) + 1);
  std::vector<Dim2> threadAt(static_cast<std::size_t>(extent));
  for (int t = 0; t < shape.x * shape.y; ++t)
    threadAt[std::size_t(coordinate(threadOf(shape, t)))] = threadOf(shape, t);
  const cpu::TileReads reads = cpu::tileReads(
      extent, depth, [&](int i, int kk) { return wordOf(threadAt[std::size_t(i)], kk); });
  for (int t = 0; t < shape.x * shape.y; ++t)
    for (int kk = 0; kk < depth; ++kk)
      if (const Dim2 thread = threadOf(shape, t);
          wordOf(thread, kk) !=
          reads.origin + coordinate(thread) * reads.rowStride + kk * reads.kStride)
        throw Error(ErrorKind::Unsupported,
                    "the CPU backend needs every thread of a tile row to read the same words");
  return reads;
}

// The T x T outputs of a block, one per thread at (row, col), as each warp's rectangles.
template <typename Map>
std::vector<cpu::OutputRect> warpsOf(const Map& map) {
  const Dim2 shape = map.block(), first{0, 0};
  return cpu::warpRects(shape.x * shape.y, [&](int t, const auto& add) {
    add(int(map.row(first, threadOf(shape, t), 0)), int(map.col(first, threadOf(shape, t), 0)));
  });
}

// A's T x T tile of a map that stages it (shared-a, shared-tiled, shared-tiled-padded): each
// thread's copy into the tile, and each thread's reads of its tile row.
template <typename Map>
cpu::TileStaging aTileStaging(const Map& map) {
  const maps::SharedTile layout = map.aTile();
  const Dim2 first{0, 0};
  return stagingOf(
      map.block(), [&](Dim2 t) { return map.aLoad(first, t, 0); },
      [&](Dim2 t) { return layout.word(int(map.aTileStore(t).row), int(map.aTileStore(t).col)); });
}
template <typename Map>
cpu::TileReads aTileReads(const Map& map) {
  const maps::SharedTile layout = map.aTile();
  const Dim2 first{0, 0};
  return readsOf(
      map.block(), map.kDepth(), [&](Dim2 t) { return int(map.row(first, t, 0)); },
      [&](Dim2 t, int kk) {
        const Cell at = map.aTileRead(t, kk);
        return layout.word(int(at.row), int(at.col));
      });
}

// Stores the block's accumulators (one per thread, at [row * T + col]) where the map puts them.
template <typename Map>
void storeOutputs(const cpu::Gemm& g, const Map& map, Dim2 block, const float* accumulators) {
  const Dim2 first{0, 0};
  cpu::forEachThread(map.block(), [&](Dim2 thread, int) {
    const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
    if (i < g.m && j < g.n)
      g.c[i * g.n + j] =
          accumulators[map.row(first, thread, 0) * map.tile + map.col(first, thread, 0)];
  });
}

// A and B both staged per k-step in T x T tiles, zero-padded at the edges (seeds 000b, 002,
// 003b, 004-3). The product reads only the two local tiles, which stay in L1.
template <typename Map>
void runSharedTiles(const cpu::Gemm& g, const Map& map, const std::atomic<bool>* cancel) {
  using namespace cpu;
  const maps::SharedTile aLayout = map.aTile(), bLayout = map.bTile();
  const Dim2 shape = map.block(), first{0, 0};
  const int tile = map.tile, depth = map.kDepth();
  const std::int64_t steps = ceilDiv(g.k, depth);
  const TileStaging aStaging = aTileStaging(map);
  const TileStaging bStaging = stagingOf(
      shape, [&](Dim2 t) { return map.bLoad(first, t, 0); },
      [&](Dim2 t) { return bLayout.word(int(map.bTileStore(t).row), int(map.bTileStore(t).col)); });
  const TileReads aReads = aTileReads(map);
  const TileReads bReads = readsOf(
      shape, depth, [&](Dim2 t) { return int(map.col(first, t, 0)); },
      [&](Dim2 t, int kk) {
        const Cell at = map.bTileRead(t, kk);
        return bLayout.word(int(at.row), int(at.col));
      });
  bReads.requireUnitRowStride();
  const std::vector<OutputRect> warps = warpsOf(map);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    float* const aTile =
        blockScratch(std::size_t(aLayout.words() + bLayout.words()) + std::size_t(tile) * tile);
    float* const bTile = aTile + aLayout.words();
    float* const accumulators = bTile + bLayout.words();  // one per thread
    std::fill_n(accumulators, std::size_t(tile) * tile, 0.0f);
    const std::int64_t row0 = map.row(block, first, 0), col0 = map.col(block, first, 0);
    for (std::int64_t s = 0; s < steps; ++s) {
      aStaging.stage(aTile, g.a, g.m, g.k, row0, s * depth);
      bStaging.stage(bTile, g.b, g.k, g.n, s * depth, col0);
      // __syncthreads(): both tiles are complete before any warp reads them. Outputs past C's
      // edges are never stored, so their multiply-adds are left out.
      for (const OutputRect& whole : warps) {
        const OutputRect rect = clipped(whole, g.m - row0, g.n - col0);
        if (rect.rows <= 0 || rect.cols <= 0) continue;
        multiplyAdd(accumulators + rect.row * tile + rect.col, tile, rect.rows, rect.cols,
                    aReads.panel(aTile, rect.row), bReads.panel(bTile, rect.col).data,
                    bReads.kStride, depth);
      }
    }
    storeOutputs(g, map, block, accumulators);
  });
}

}  // namespace tilescope::families
