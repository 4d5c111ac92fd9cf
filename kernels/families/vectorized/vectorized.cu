// SPDX-License-Identifier: GPL-3.0-or-later
// vectorized (siboehm's kernels 6 and 8): blocktile-2d with float4 copies (a scalar path where rows
// are not 16-byte aligned), A staged transposed and padded, float4 shared reads.
#include "families/vectorized/vectorized.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr auto kKernels = ladderTable<maps::Vectorized>();

}  // namespace

static void launchVectorized(const maps::Vectorized& map, const ProductArgs& args) {
  launchLadder(kKernels.pick(map, "vectorized"), "vectorized", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::vectorized {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("vectorized", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchVectorized(ladderMap<maps::Vectorized>(params), args);
                }});
}

}  // namespace tilescope::families::vectorized
