// SPDX-License-Identifier: GPL-3.0-or-later
// naive (seeds 001a, 003a, 004 method 1): one thread per element of C, reading its row of A and
// its column of B straight from global memory. Along a warp B is read coalesced, A broadcast.
#include <cstdint>

#include "device_common.cuh"
#include "families/naive/naive.hpp"

namespace tilescope::cuda {

namespace {

// Index is int when every index fits (indicesFitInt), as in the seeds' code, else int64.
template <typename Index, bool kTraced>
__global__ void naiveKernel(int tile, ProductArgs args) {
  const maps::Naive map{tile};
  const Dim2 block = blockCoord(), thread = threadCoord();
  const Index i = Index(map.row(block, thread, 0)), j = Index(map.col(block, thread, 0));
  const Index m = Index(args.m), n = Index(args.n), depth = Index(args.k);
  if (i >= m || j >= n) return;  // no barrier follows
  const float* a = args.aAs<float>();
  const float* b = args.bAs<float>();
  float sum = 0.0f;
  for (Index k = 0; k < depth; ++k) sum += a[i * depth + k] * b[k * n + j];
  storeOutput<kTraced>(args, i, j, sum);
}

template <typename Index>
void launchWithIndex(int tile, const ProductArgs& args) {
  const maps::Naive map{tile};
  launchChecked(args.traced() ? naiveKernel<Index, true> : naiveKernel<Index, false>, "naive",
                map.grid(args.m, args.n), map.block(), tile, args);
}

}  // namespace

static void launchNaive(int tile, const ProductArgs& args) {
  if (indicesFitInt(args))
    launchWithIndex<int>(tile, args);
  else
    launchWithIndex<std::int64_t>(tile, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::naive {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("naive", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchNaive(params.at("tile"), args);
                }});
}

}  // namespace tilescope::families::naive
