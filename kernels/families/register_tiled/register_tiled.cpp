// SPDX-License-Identifier: GPL-3.0-or-later
// register-tiled: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include "families/register_tiled/register_tiled.hpp"
#include "cpu/direct_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::register_tiled {

namespace {

using namespace cpu;

// Each thread of a 16 x 16 block accumulates a T x T block of C (seed 004-2): per k it reads T
// values of A's column k and T of B's row k, then does T*T multiply-adds from those locals.
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  runFromMemory(g, maps::RegisterTiled{tile}, tile, tile, cancel);
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
