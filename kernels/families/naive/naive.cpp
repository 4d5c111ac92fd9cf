// SPDX-License-Identifier: GPL-3.0-or-later
// naive: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/naive/naive.hpp"
#include "cpu/direct_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::naive {

namespace {

using namespace cpu;

// One thread per element of C, reading A and B straight from memory (seeds 001a, 003a, 004-1).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runFromMemory(g, maps::Naive{tileParam(params)}, 1, 1, cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "naive",
                .displayName = "Naive (one thread per element)",
                .seed = "seeds 001a, 003a, 004-1",
                .teaching =
                    "One thread per element of C, the x index running along a row of C. A warp "
                    "reads 32 consecutive floats of B (coalesced) and one broadcast float of A per "
                    "step, but every element is read K times from global memory.",
                .params = {blockTile(
                    16, "T: the thread block is T x T threads, each computing one element")},
                .backends = kCpuAndCuda,
                .hue = {"#d97f08", "#e88b1c"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap {
         return maps::Naive{params.at("tile")};
       },
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::naive
