// SPDX-License-Identifier: GPL-3.0-or-later
// shared-a (seed 001b): the naive mapping, but each k-step the block first stages a T x T tile of
// A in shared memory; B is still read from global memory. One instantiation per tile, so the
// inner loop over the tile unrolls.
#include <utility>

#include "device_common.cuh"
#include "families/shared_a/shared_a.hpp"

namespace tilescope::cuda {

namespace {

constexpr int kMaxTile = 32;  // 32 x 32 threads: CUDA's limit of 1024 threads per block

template <int kTile, bool kTraced>
__global__ void sharedAKernel(ProductArgs args) {
  const maps::SharedA map{{kTile}};
  const maps::SharedTile layout = map.aTile();
  __shared__ float aTile[kTile * kTile];

  const Dim2 block = blockCoord(), thread = threadCoord();
  const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
  // A padding column past N reads B's last column instead: its sum is never stored, and the inner
  // loop of every full k-step then needs no bounds check (the seed's code has none).
  const float* bColumn = args.bAs<float>() + (j < args.n ? j : args.n - 1);
  const std::int64_t fullSteps = args.k / kTile;
  float sum = 0.0f;
  // Padding threads stay in the loop: they load their share of the tile and meet every barrier.
  for (std::int64_t step = 0; step < ceilDiv(args.k, map.kDepth()); ++step) {
    const Cell a = map.aLoad(block, thread, step);
    const Cell slot = map.aTileStore(thread);
    aTile[layout.word(int(slot.row), int(slot.col))] =
        loadOrZero(args.aAs<float>(), args.m, args.k, a.row, a.col);
    __syncthreads();
    if (step < fullSteps) {
      const float* bRows = bColumn + step * kTile * args.n;
#pragma unroll
      for (int kk = 0; kk < kTile; ++kk) {
        const Cell read = map.aTileRead(thread, kk);
        sum += aTile[layout.word(int(read.row), int(read.col))] * bRows[kk * args.n];
      }
    } else {  // the last, partial k-step: B is zero past K. Rolled, so that its bounds checks
              // do not double the registers (64 against the seed's 32) and halve the occupancy.
#pragma unroll 1
      for (int kk = 0; kk < kTile; ++kk) {
        const std::int64_t k = step * kTile + kk;
        const Cell read = map.aTileRead(thread, kk);
        sum += aTile[layout.word(int(read.row), int(read.col))] *
               loadOrZero(args.bAs<float>(), args.k, args.n, k, j);
      }
    }
    __syncthreads();
  }
  if (i < args.m && j < args.n) storeOutput<kTraced>(args, i, j, sum);
}

using Kernel = void (*)(ProductArgs);

template <int... kIndex>
constexpr KernelTable<Kernel, sizeof...(kIndex)> makeTable(std::integer_sequence<int, kIndex...>) {
  return {{(kIndex + 1)...},
          {sharedAKernel<kIndex + 1, false>...},
          {sharedAKernel<kIndex + 1, true>...}};
}

constexpr auto kKernels = makeTable(std::make_integer_sequence<int, kMaxTile>{});

}  // namespace

static void launchSharedA(int tile, const ProductArgs& args) {
  const maps::SharedA map{{tile}};
  launchChecked(kKernels.pick(tile, args.traced(), "shared-a"), "shared-a",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::shared_a {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("shared-a", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchSharedA(params.at("tile"), args);
                }});
}

}  // namespace tilescope::families::shared_a
