#include "block_tiling.hpp"

namespace tilescope::cpu {

// BM x BN block tiles staged in shared memory, a TM x TN register tile per thread (siboehm's kernel
// 5).
void runBlockTile2D(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::BlockTile2D>(params), cancel);
}

}  // namespace tilescope::cpu
