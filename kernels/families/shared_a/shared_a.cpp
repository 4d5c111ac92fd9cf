// SPDX-License-Identifier: GPL-3.0-or-later
// shared-a: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include <algorithm>
#include <vector>

#include "families/registration.hpp"
#include "families/shared_a/shared_a.hpp"

namespace tilescope::families::shared_a {

namespace {

using namespace cpu;

// The naive mapping with A staged per k-step in a T x T tile; B still comes from memory
// (seed 001b).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  const maps::SharedA map{{tile}};
  const maps::SharedTile aLayout = map.aTile();
  const Dim2 threads = map.block();
  const std::int64_t depth = map.kDepth(), steps = ceilDiv(g.k, depth);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    std::vector<float> aTile(std::size_t(aLayout.words()));
    std::vector<float> accumulator(std::size_t(threads.x * threads.y), 0.0f);  // one per thread
    for (std::int64_t s = 0; s < steps; ++s) {
      forEachThread(threads, [&](Dim2 thread, int) {
        const Cell slot = map.aTileStore(thread);
        aTile[aLayout.word(int(slot.row), int(slot.col))] =
            elementOrZero(g.a, g.m, g.k, map.aLoad(block, thread, s));
      });
      // __syncthreads(): the tile is complete before any thread reads it.
      // B is read from memory, so the last step stops at K rather than running into the padding.
      const std::int64_t kBegin = s * depth, kCount = std::min(depth, g.k - kBegin);
      forEachThread(threads, [&](Dim2 thread, int linear) {
        const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
        if (i >= g.m || j >= g.n) return;
        const float* bColumn = g.b + kBegin * g.n + j;
        float sum = accumulator[std::size_t(linear)];
        for (int kk = 0; kk < int(kCount); ++kk) {
          const Cell at = map.aTileRead(thread, kk);
          sum += aTile[aLayout.word(int(at.row), int(at.col))] * bColumn[kk * g.n];
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
