#include "block_tiling.hpp"

namespace tilescope::cpu {

// Blocktile-2d with float4 copies and a transposed, padded A tile (siboehm's kernels 6 and 8).
void runVectorized(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Vectorized>(params), cancel);
}

}  // namespace tilescope::cpu
