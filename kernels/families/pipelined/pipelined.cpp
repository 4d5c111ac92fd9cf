// SPDX-License-Identifier: GPL-3.0-or-later
// pipelined: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/pipelined/pipelined.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::pipelined {

namespace {

using namespace cpu;

// Warptile with `stages` tiles in flight (siboehm's kernel 11, CUTLASS's multistage cp.async).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Pipelined>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "pipelined",
                .displayName = "Warp tiles, cp.async pipeline",
                .seed = "siboehm SGEMM worklog, kernel 11 (double buffering); CUTLASS's multistage "
                        "cp.async GEMM",
                .teaching =
                    "Warptile with `stages` shared buffers filled by cp.async, which copies global "
                    "memory straight into shared memory without holding registers. While the block "
                    "multiplies tile s, tiles s+1 .. s+stages-1 are already on their way, so "
                    "memory latency hides behind arithmetic and one barrier per k-step suffices.",
                .params =
                    ladderParams(maps::Pipelined::fromValues({128, 256, 32, 64, 64, 8, 4, 2}),
                                 [] {
                                   auto descriptions = kWarpDescriptions;
                                   descriptions["stages"] =
                                       "shared buffers in flight: the cp.async pipeline depth";
                                   return descriptions;
                                 }()),
                .backends = kCpuAndCuda,
                .constraints =
                    "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + kEvenCopiesRule,
                .check = ladderCheck<maps::Pipelined>(),
                .hue = {"#0321cc", "#2d64ff"},
                .cudaArchitecture = {.minimum = 80, .needs = "cp.async"}},
       .threadMap = ladderThreadMap<maps::Pipelined>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::pipelined
