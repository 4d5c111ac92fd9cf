// SPDX-License-Identifier: GPL-3.0-or-later
// serial (seed 002's matmul_seq): one GPU thread computes all of C, to show what a GPU is
// without parallelism. The backend bounds its work (KernelInfo::maxWork): a launch cannot be
// interrupted and this one is slow.
#include "device_common.cuh"
#include "families/serial/serial.hpp"

namespace tilescope::cuda {

namespace {

template <bool kTraced>
__global__ void serialKernel(ProductArgs args) {
  const maps::Serial map;
  const Dim2 block = blockCoord(), thread = threadCoord();
  for (std::int64_t r = 0; r < map.rowsPerThread(args.m); ++r) {
    const std::int64_t i = map.row(block, thread, r);
    for (std::int64_t c = 0; c < map.colsPerThread(args.n); ++c) {
      const std::int64_t j = map.col(block, thread, c);
      float sum = 0.0f;
      for (std::int64_t k = 0; k < args.k; ++k)
        sum += args.aAs<float>()[i * args.k + k] * args.bAs<float>()[k * args.n + j];
      storeOutput<kTraced>(args, i, j, sum);
    }
  }
}

}  // namespace

static void launchSerial(const ProductArgs& args) {
  const maps::Serial map;
  launchChecked(args.traced() ? serialKernel<true> : serialKernel<false>, "serial",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::serial {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("serial", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchSerial(args);
                }});
}

}  // namespace tilescope::families::serial
