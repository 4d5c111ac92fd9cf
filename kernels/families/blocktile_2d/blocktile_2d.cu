// SPDX-License-Identifier: GPL-3.0-or-later
// blocktile-2d (siboehm's kernel 5): shared A and B tiles, a TM x TN register tile per thread, the
// tiles in their global layout (bank conflicts included, on purpose).
#include "families/blocktile_2d/blocktile_2d.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::BlockTile2D>();

}  // namespace

static void launchBlockTile2D(const maps::BlockTile2D& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "blocktile-2d"), "blocktile-2d", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::blocktile_2d {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("blocktile-2d", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchBlockTile2D(ladderMap<maps::BlockTile2D>(params), args);
                }});
}

}  // namespace tilescope::families::blocktile_2d
