// SPDX-License-Identifier: GPL-3.0-or-later
// shared-a: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include <algorithm>
#include <vector>

#include "families/registration.hpp"
#include "families/shared_a/shared_a.hpp"
#include "families/shared_tiled/shared_tiles_cpu.hpp"

namespace tilescope::families::shared_a {

namespace {

using namespace cpu;

// The naive mapping with A staged per k-step in a T x T tile; B still comes from memory
// (seed 001b).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const maps::SharedA map{{tileParam(params)}};
  const maps::SharedTile aLayout = map.aTile();
  const Dim2 first{0, 0};
  const int tile = map.tile, depth = map.kDepth();
  const std::int64_t steps = ceilDiv(g.k, depth);
  const TileStaging aStaging = aTileStaging(map);
  const TileReads aReads = aTileReads(map);
  const std::vector<OutputRect> warps = warpsOf(map);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    float* const aTile = blockScratch(std::size_t(aLayout.words()) + std::size_t(tile) * tile);
    float* const accumulators = aTile + aLayout.words();  // one per thread
    std::fill_n(accumulators, std::size_t(tile) * tile, 0.0f);
    const std::int64_t row0 = map.row(block, first, 0), col0 = map.col(block, first, 0);
    for (std::int64_t s = 0; s < steps; ++s) {
      aStaging.stage(aTile, g.a, g.m, g.k, row0, s * depth);
      // __syncthreads(): the tile is complete before any warp reads it. B is read from memory,
      // so the last step stops at K rather than running into the padding, and threads past C's
      // edges read nothing.
      const std::int64_t kBegin = s * depth, kCount = std::min<std::int64_t>(depth, g.k - kBegin);
      for (const OutputRect& whole : warps) {
        const OutputRect rect = clipped(whole, g.m - row0, g.n - col0);
        if (rect.rows <= 0 || rect.cols <= 0) continue;
        multiplyAdd(accumulators + rect.row * tile + rect.col, tile, rect.rows, rect.cols,
                    aReads.panel(aTile, rect.row), g.b + kBegin * g.n + col0 + rect.col, g.n,
                    kCount);
      }
    }
    storeOutputs(g, map, block, accumulators);
  });
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "shared-a",
                .displayName = "Shared A tile",
                .seed = "seed 001b",
                .teaching = "Like the naive kernel, but each step the block first copies a T x T "
                            "tile of A into shared memory, so each element of A is read once per "
                            "block instead of once per thread. B is still read from global memory.",
                .params = {blockTile(16, "T: the thread block and the staged A tile are T x T")},
                .backends = kCpuAndCuda,
                .hue = {"#835c03", "#70e809"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap {
         return maps::SharedA{{params.at("tile")}};
       },
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::shared_a
