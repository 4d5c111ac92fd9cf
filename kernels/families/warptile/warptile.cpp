// SPDX-License-Identifier: GPL-3.0-or-later
// warptile: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/warptile/warptile.hpp"
#include "cpu/block_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::warptile {

namespace {

using namespace cpu;

// Warp tiles of 4 x 8 lane grids inside the block tile (siboehm's kernel 10).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Warptile>(params), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "warptile",
            .displayName = "Warp tiles",
            .seed =
                "siboehm SGEMM worklog, kernel 10 (warptiling); lane layout of CUTLASS's SIMT GEMM",
            .teaching =
                "The block tile is cut into WM x WN warp tiles, and inside one the 32 lanes form a "
                "4 x 8 grid of TM x TN pieces that repeats (WM/4TM) x (WN/8TN) times. Each warp "
                "reads only its own strip of the shared tiles, and with TN = 4 eight lanes read "
                "one 128-byte row of B: no bank conflicts, few shared reads per FMA, and registers "
                "reused across the sub-iterations.",
            .params = ladderParams(maps::Warptile::fromValues({128, 128, 16, 32, 64, 8, 4}),
                                   kWarpDescriptions),
            .backends = kCpuAndCuda,
            .constraints =
                "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + kEvenCopiesRule,
            .check = ladderCheck<maps::Warptile>(),
            .hue = {"#004b4a", "#afeac4"}},
       .threadMap = ladderThreadMap<maps::Warptile>,
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::warptile
