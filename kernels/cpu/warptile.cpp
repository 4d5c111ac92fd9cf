#include "block_tiling.hpp"

namespace tilescope::cpu {

// Warp tiles of 4 x 8 lane grids inside the block tile (siboehm's kernel 10).
void runWarptile(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Warptile>(params), cancel);
}

}  // namespace tilescope::cpu
