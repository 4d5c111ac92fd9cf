// blocktile-2d (siboehm's kernel 5): shared A and B tiles, a TM x TN register tile per thread, the
// tiles in their global layout (bank conflicts included, on purpose).
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::BlockTile2D>();

}  // namespace

void launchBlockTile2D(const maps::BlockTile2D& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "blocktile-2d"), "blocktile-2d", map, args);
}

}  // namespace tilescope::cuda
