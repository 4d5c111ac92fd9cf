// naive (seeds 001a, 003a, 004 method 1): one thread per element of C, reading its row of A and
// its column of B straight from global memory. Along a warp B is read coalesced, A broadcast.
#include "device_common.cuh"

namespace tilescope::cuda {

namespace {

template <bool kTraced>
__global__ void naiveKernel(int tile, ProductArgs args) {
  const maps::Naive map{tile};
  const Dim2 block = blockCoord(), thread = threadCoord();
  const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
  if (i >= args.m || j >= args.n) return;  // no barrier follows
  float sum = 0.0f;
  for (std::int64_t k = 0; k < args.k; ++k)
    sum += args.aAs<float>()[i * args.k + k] * args.bAs<float>()[k * args.n + j];
  storeOutput<kTraced>(args, i, j, sum);
}

}  // namespace

void launchNaive(int tile, const ProductArgs& args) {
  const maps::Naive map{tile};
  launchChecked(args.traced() ? naiveKernel<true> : naiveKernel<false>, "naive",
                map.grid(args.m, args.n), map.block(), tile, args);
}

}  // namespace tilescope::cuda
