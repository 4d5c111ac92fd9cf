// SPDX-License-Identifier: GPL-3.0-or-later
// row-per-thread (seed 000a): a thread owns one row of C and strides over its columns, so the
// 32 lanes of a warp read 32 different rows of A at once: the uncoalesced pattern to compare
// with naive.
#include "device_common.cuh"
#include "families/row_per_thread/row_per_thread.hpp"

namespace tilescope::cuda {

namespace {

template <bool kTraced>
__global__ void rowPerThreadKernel(int tile, ProductArgs args) {
  const maps::RowPerThread map{tile};
  const Dim2 block = blockCoord(), thread = threadCoord();
  const std::int64_t i = map.row(block, thread, 0);
  if (i >= args.m) return;  // this kernel has no barrier, so padding threads may leave early
  for (std::int64_t c = 0; c < map.colsPerThread(args.n); ++c) {
    const std::int64_t j = map.col(block, thread, c);
    if (j >= args.n) continue;
    float sum = 0.0f;
    for (std::int64_t k = 0; k < args.k; ++k)
      sum += args.aAs<float>()[i * args.k + k] * args.bAs<float>()[k * args.n + j];
    storeOutput<kTraced>(args, i, j, sum);
  }
}

}  // namespace

static void launchRowPerThread(int tile, const ProductArgs& args) {
  const maps::RowPerThread map{tile};
  launchChecked(args.traced() ? rowPerThreadKernel<true> : rowPerThreadKernel<false>,
                "row-per-thread", map.grid(args.m, args.n), map.block(), tile, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::row_per_thread {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("row-per-thread",
                {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchRowPerThread(params.at("tile"), args);
                }});
}

}  // namespace tilescope::families::row_per_thread
