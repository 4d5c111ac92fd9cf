#include "block_tiling.hpp"

namespace tilescope::cpu {

// BM x BN block tiles staged in shared memory, TM outputs per thread down a column (siboehm's
// kernel 4).
void runBlockTile1D(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::BlockTile1D>(params), cancel);
}

}  // namespace tilescope::cpu
