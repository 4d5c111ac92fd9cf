// shared-tiled (seeds 000b, 002, 003b, 004 method 3): A and B both staged in T x T shared tiles
// per k-step, zero past the edges. Any T from 1 to 32 (7 included, as in seed 003): one
// instantiation per tile so the inner loop unrolls. Unlike seed 003, the k loop and its barriers
// run in every thread; only the final store is bounds-checked.
#include <utility>

#include "device_common.cuh"

namespace tilescope::cuda {

namespace {

constexpr int kMaxTile = 32;  // 32 x 32 threads: CUDA's limit of 1024 threads per block

template <int kTile, bool kTraced>
__global__ void sharedTiledKernel(ProductArgs args) {
  const maps::SharedTiled map{{kTile}};
  const maps::SharedTile aLayout = map.aTile(), bLayout = map.bTile();
  __shared__ float aTile[kTile * kTile];
  __shared__ float bTile[kTile * kTile];

  const Dim2 block = blockCoord(), thread = threadCoord();
  const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
  float sum = 0.0f;
  for (std::int64_t step = 0; step < ceilDiv(args.k, map.kDepth()); ++step) {
    const Cell a = map.aLoad(block, thread, step), b = map.bLoad(block, thread, step);
    const Cell aSlot = map.aTileStore(thread), bSlot = map.bTileStore(thread);
    aTile[aLayout.word(int(aSlot.row), int(aSlot.col))] =
        loadOrZero(args.aAs<float>(), args.m, args.k, a.row, a.col);
    bTile[bLayout.word(int(bSlot.row), int(bSlot.col))] =
        loadOrZero(args.bAs<float>(), args.k, args.n, b.row, b.col);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) {
      const Cell aRead = map.aTileRead(thread, kk), bRead = map.bTileRead(thread, kk);
      sum += aTile[aLayout.word(int(aRead.row), int(aRead.col))] *
             bTile[bLayout.word(int(bRead.row), int(bRead.col))];
    }
    __syncthreads();
  }
  if (i < args.m && j < args.n) storeOutput<kTraced>(args, i, j, sum);
}

using Kernel = void (*)(ProductArgs);

template <int... kIndex>
constexpr KernelTable<Kernel, sizeof...(kIndex)> makeTable(std::integer_sequence<int, kIndex...>) {
  return {{(kIndex + 1)...},
          {sharedTiledKernel<kIndex + 1, false>...},
          {sharedTiledKernel<kIndex + 1, true>...}};
}

constexpr auto kKernels = makeTable(std::make_integer_sequence<int, kMaxTile>{});

}  // namespace

void launchSharedTiled(int tile, const ProductArgs& args) {
  const maps::SharedTiled map{{tile}};
  launchChecked(kKernels.pick(tile, args.traced(), "shared-tiled"), "shared-tiled",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda
