// register-tiled (seed 004 method 2): 16 x 16 threads per block, each accumulating a T x T block
// of C in registers from T values of A's column k and T values of B's row k; no shared memory.
// T = 1, 2, 4, ..., 64: the large tiles stay on purpose. Past T = 8 the T*T accumulators no
// longer fit in the 255 registers a thread may use and spill to local memory (the seed's cliff);
// `cuobjdump -res-usage` on this library shows the registers and spill stores per tile.
#include "device_common.cuh"

namespace tilescope::cuda {

namespace {

template <int kTile, bool kTraced>
__global__ void registerTiledKernel(ProductArgs args) {
  const maps::RegisterTiled map{kTile};
  const Dim2 block = blockCoord(), thread = threadCoord();
  // A thread whose first output lies past the edge owns none; with no barrier to meet, it can
  // leave (large tiles leave most of an edge block idle).
  if (map.row(block, thread, 0) >= args.m || map.col(block, thread, 0) >= args.n) return;
  constexpr int kRowUnroll = kTile <= 32 ? kTile : 1;
  float sum[kTile][kTile] = {};
  for (std::int64_t k = 0; k < args.k; ++k) {
    float aColumn[kTile], bRow[kTile];
#pragma unroll
    for (int r = 0; r < kTile; ++r) {
      aColumn[r] = loadOrZero(args.aAs<float>(), args.m, args.k, map.row(block, thread, r), k);
    }
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      bRow[c] = loadOrZero(args.bAs<float>(), args.k, args.n, k, map.col(block, thread, c));
    }
    // Fully unrolled, every accumulator is a named register for as long as they fit. At T = 64
    // the full unroll (4096 FMAs) takes minutes to compile and the sum lives in local memory
    // either way, so only the inner loop unrolls there.
#pragma unroll(kRowUnroll)
    for (int r = 0; r < kTile; ++r)
#pragma unroll
      for (int c = 0; c < kTile; ++c) sum[r][c] += aColumn[r] * bRow[c];
  }
#pragma unroll(kRowUnroll)
  for (int r = 0; r < kTile; ++r)
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      const std::int64_t i = map.row(block, thread, r), j = map.col(block, thread, c);
      if (i < args.m && j < args.n) storeOutput<kTraced>(args, i, j, sum[r][c]);
    }
}

using Kernel = void (*)(ProductArgs);

template <int... kTile>
constexpr KernelTable<Kernel, sizeof...(kTile)> makeTable() {
  return {
      {kTile...}, {registerTiledKernel<kTile, false>...}, {registerTiledKernel<kTile, true>...}};
}

constexpr auto kKernels = makeTable<1, 2, 4, 8, 16, 32, 64>();

}  // namespace

void launchRegisterTiled(int tile, const ProductArgs& args) {
  const maps::RegisterTiled map{tile};
  launchChecked(kKernels.pick(tile, args.traced(), "register-tiled"), "register-tiled",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda
