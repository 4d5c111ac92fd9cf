#include "block_tiling.hpp"

namespace tilescope::cpu {

// Warptile with `stages` tiles in flight (siboehm's kernel 11, CUTLASS's multistage cp.async).
void runPipelined(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  runLadder(g, ladderMap<maps::Pipelined>(params), cancel);
}

}  // namespace tilescope::cpu
