// SPDX-License-Identifier: GPL-3.0-or-later
// register-tiled: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include <algorithm>
#include <vector>

#include "families/register_tiled/register_tiled.hpp"
#include "families/registration.hpp"

namespace tilescope::families::register_tiled {

namespace {

using namespace cpu;

// Each thread of a 16 x 16 block accumulates a T x T block of C (seed 004-2): per k it reads T
// values of A's column k and T of B's row k, then does T*T multiply-adds from those locals.
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  const maps::RegisterTiled map{tile};
  const auto slots = std::size_t(tile);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    // The thread's "registers": its accumulators and the A and B values of the current k.
    std::vector<float> accumulator(slots * slots), bValues(slots);
    std::vector<std::int64_t> rows, cols;  // the thread's slots inside C, in slot order
    rows.reserve(slots);
    cols.reserve(slots);
    forEachThread(map.block(), [&](Dim2 thread, int) {
      rows.clear();
      cols.clear();
      for (int r = 0; r < tile; ++r)
        if (const std::int64_t i = map.row(block, thread, r); i < g.m) rows.push_back(i);
      for (int c = 0; c < tile; ++c)
        if (const std::int64_t j = map.col(block, thread, c); j < g.n) cols.push_back(j);
      if (rows.empty() || cols.empty()) return;  // a thread of the padding

      const std::size_t rowCount = rows.size(), colCount = cols.size();
      std::fill(accumulator.begin(), accumulator.end(), 0.0f);
      for (std::int64_t k = 0; k < g.k; ++k) {
        const float* bRow = g.b + k * g.n;
        for (std::size_t c = 0; c < colCount; ++c) bValues[c] = bRow[cols[c]];
        for (std::size_t r = 0; r < rowCount; ++r) {
          const float aValue = g.a[rows[r] * g.k + k];
          float* out = accumulator.data() + r * slots;
          for (std::size_t c = 0; c < colCount; ++c) out[c] += aValue * bValues[c];
        }
      }
      for (std::size_t r = 0; r < rowCount; ++r)
        for (std::size_t c = 0; c < colCount; ++c)
          g.c[rows[r] * g.n + cols[c]] = accumulator[r * slots + c];
    });
  });
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "register-tiled",
                .displayName = "Register tile per thread",
                .seed = "seed 004-2",
                .teaching =
                    "Each thread of a 16 x 16 block accumulates a T x T block of C in registers, "
                    "reading T values of A and T of B per step: T^2 multiply-adds per 2T loads. It "
                    "gets faster up to T = 8; past 16 the accumulators no longer fit in registers, "
                    "spill to local memory and the time falls off a cliff.",
                .params = {{"tile",
                            "T: outputs per thread side (a T x T register tile)",
                            8,
                            {1, 2, 4, 8, 16, 32, 64},
                            "the register tile is instantiated per size: T must be a power of two "
                            "from 1 to 64"}},
                .backends = kCpuAndCuda,
                .hue = {"#03629c", "#16a3ff"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap {
         return maps::RegisterTiled{params.at("tile")};
       },
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::register_tiled
