// SPDX-License-Identifier: GPL-3.0-or-later
// pipelined (siboehm's kernel 11, CUTLASS's multistage GEMM): warptile with `stages` shared buffers
// filled by cp.async ahead of the compute.
#include "families/pipelined/pipelined.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::Pipelined>();

}  // namespace

static void launchPipelined(const maps::Pipelined& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "pipelined"), "pipelined", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::pipelined {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("pipelined", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchPipelined(ladderMap<maps::Pipelined>(params), args);
                }});
}

}  // namespace tilescope::families::pipelined
