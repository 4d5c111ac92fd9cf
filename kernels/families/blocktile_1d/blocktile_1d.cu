// SPDX-License-Identifier: GPL-3.0-or-later
// blocktile-1d (siboehm's kernel 4): shared A and B tiles, TM outputs per thread down a column of
// C. One instantiation per valid configuration (maps::validConfigs).
#include "families/blocktile_1d/blocktile_1d.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::BlockTile1D>();

}  // namespace

static void launchBlockTile1D(const maps::BlockTile1D& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "blocktile-1d"), "blocktile-1d", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::blocktile_1d {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("blocktile-1d", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchBlockTile1D(ladderMap<maps::BlockTile1D>(params), args);
                }});
}

}  // namespace tilescope::families::blocktile_1d
