// pipelined (siboehm's kernel 11, CUTLASS's multistage GEMM): warptile with `stages` shared buffers
// filled by cp.async ahead of the compute.
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::Pipelined>();

}  // namespace

void launchPipelined(const maps::Pipelined& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "pipelined"), "pipelined", map, args);
}

}  // namespace tilescope::cuda
