#include "block_tiling.hpp"

namespace tilescope::cpu {

// The warp grid with two shared buffers, tile s + 1 staged before tile s is multiplied (the
// CUDA kernel's register prefetch; the CPU keeps no registers apart from shared memory).
void runPrefetched(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Prefetched>(params), cancel);
}

}  // namespace tilescope::cpu
