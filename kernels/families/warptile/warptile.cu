// SPDX-License-Identifier: GPL-3.0-or-later
// warptile (siboehm's kernel 10, CUTLASS's SIMT lane layout): warp tiles of 4 x 8 lane grids,
// conflict-free float4 shared reads.
#include "families/warptile/warptile.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::Warptile>();

}  // namespace

static void launchWarptile(const maps::Warptile& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "warptile"), "warptile", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::warptile {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("warptile", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchWarptile(ladderMap<maps::Warptile>(params), args);
                }});
}

}  // namespace tilescope::families::warptile
