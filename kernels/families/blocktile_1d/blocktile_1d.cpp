// SPDX-License-Identifier: GPL-3.0-or-later
// blocktile-1d: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/blocktile_1d/blocktile_1d.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::blocktile_1d {

namespace {

using namespace cpu;

// BM x BN block tiles staged in shared memory, TM outputs per thread down a column (siboehm's
// kernel 4).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::BlockTile1D>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "blocktile-1d",
                .displayName = "Block tile, 1-D thread tile",
                .seed = "siboehm SGEMM worklog, kernel 4 (1D blocktiling)",
                .teaching =
                    "The block stages a BM x BK tile of A and a BK x BN tile of B in shared "
                    "memory, and each thread computes TM outputs down one column: per inner index "
                    "it reads one B value and reuses it for TM multiply-adds. Fewer shared-memory "
                    "reads per FMA than shared-tiled, so the FMA units finally get busy.",
                .params =
                    ladderParams(maps::BlockTile1D::fromValues({64, 64, 8, 16}),
                                 withBlock({{"TM", "outputs per thread down a column of C"}})),
                .backends = kCpuAndCuda,
                .constraints = "threads = BM*BN/TM in whole warps up to 1024; " + kEvenCopiesRule,
                .check = ladderCheck<maps::BlockTile1D>(),
                .hue = {"#9e8cbd", "#7c6b96"}},
       .threadMap = ladderThreadMap<maps::BlockTile1D>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::blocktile_1d
