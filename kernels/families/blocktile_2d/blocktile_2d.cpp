// SPDX-License-Identifier: GPL-3.0-or-later
// blocktile-2d: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/blocktile_2d/blocktile_2d.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::blocktile_2d {

namespace {

using namespace cpu;

// BM x BN block tiles staged in shared memory, a TM x TN register tile per thread (siboehm's kernel
// 5).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::BlockTile2D>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "blocktile-2d",
                .displayName = "Block tile, 2-D register tile",
                .seed = "siboehm SGEMM worklog, kernel 5 (2D blocktiling)",
                .teaching = "Each thread accumulates a TM x TN tile of C in registers: per inner "
                            "index it reads TM values of A and TN of B from shared memory for "
                            "TM*TN multiply-adds. The tiles keep their global layout, so a warp's "
                            "reads of A hit words TM*BK apart (one bank) and its reads of B words "
                            "TN apart: bank conflicts, visible in the access view.",
                .params = ladderParams(maps::BlockTile2D::fromValues({64, 128, 8, 8, 4}),
                                       withBlock({{"TM", "rows of a thread's register tile"},
                                                  {"TN", "columns of a thread's register tile"}})),
                .backends = kCpuAndCuda,
                .constraints =
                    "threads = BM*BN/(TM*TN) in whole warps up to 1024; " + kEvenCopiesRule,
                .check = ladderCheck<maps::BlockTile2D>(),
                .hue = {"#1c9095", "#2d9da6"}},
       .threadMap = ladderThreadMap<maps::BlockTile2D>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::blocktile_2d
