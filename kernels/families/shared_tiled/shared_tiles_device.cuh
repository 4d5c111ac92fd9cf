// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA kernel of the rungs that stage one T x T tile of A and one of B per k-step
// (shared-tiled, shared-tiled-padded), written once over their maps: the map, a compile-time
// value, says where each thread loads, stores and reads, so the inner loop unrolls. `Compiled`
// lists the maps a family compiles (Compiled::kMaps, a constexpr array): kernel kIndex runs
// kMaps[kIndex]. (A map itself cannot be the template argument: nvcc's launch stubs refuse a
// class-type value there.)
#include "device_common.cuh"
#include "families/shared_tiled/shared_tiled.hpp"

namespace tilescope::cuda {

// Read at namespace scope, where std::array's operator[] may run at compile time.
template <typename Compiled, int kIndex>
inline constexpr auto kCompiledMap = Compiled::kMaps[kIndex];

template <typename Compiled, int kIndex, bool kTraced>
__global__ void sharedTilesKernel(ProductArgs args) {
  constexpr auto kMap = kCompiledMap<Compiled, kIndex>;
  constexpr maps::SharedTile aLayout = kMap.aTile(), bLayout = kMap.bTile();
  __shared__ float aTile[aLayout.words()];
  __shared__ float bTile[bLayout.words()];

  const Dim2 block = blockCoord(), thread = threadCoord();
  const std::int64_t i = kMap.row(block, thread, 0), j = kMap.col(block, thread, 0);
  float sum = 0.0f;
  for (std::int64_t step = 0; step < ceilDiv(args.k, kMap.kDepth()); ++step) {
    const Cell a = kMap.aLoad(block, thread, step), b = kMap.bLoad(block, thread, step);
    const Cell aSlot = kMap.aTileStore(thread), bSlot = kMap.bTileStore(thread);
    aTile[aLayout.word(int(aSlot.row), int(aSlot.col))] =
        loadOrZero(args.aAs<float>(), args.m, args.k, a.row, a.col);
    bTile[bLayout.word(int(bSlot.row), int(bSlot.col))] =
        loadOrZero(args.bAs<float>(), args.k, args.n, b.row, b.col);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kMap.kDepth(); ++kk) {
      const Cell aRead = kMap.aTileRead(thread, kk), bRead = kMap.bTileRead(thread, kk);
      sum += aTile[aLayout.word(int(aRead.row), int(aRead.col))] *
             bTile[bLayout.word(int(bRead.row), int(bRead.col))];
    }
    __syncthreads();
  }
  if (i < args.m && j < args.n) storeOutput<kTraced>(args, i, j, sum);
}

}  // namespace tilescope::cuda
