// SPDX-License-Identifier: GPL-3.0-or-later
// register-tiled (seed 004 method 2): 16 x 16 threads per block, each accumulating a T x T block
// of C in registers from T values of A's column k and T values of B's row k; no shared memory.
// T = 1, 2, 4, ..., 64: the large tiles stay on purpose. Past T = 8 the T*T accumulators no
// longer fit in the 255 registers a thread may use and spill to local memory (the seed's cliff);
// `cuobjdump -res-usage` on this library shows the registers and spill stores per tile.
#include "device_common.cuh"
#include "families/register_tiled/register_tiled.hpp"

namespace tilescope::cuda {

namespace {

// Adds the outer products of A's column k and B's row k to the thread's T x T sums, for every k.
// Unchecked, the rows and columns must all lie inside A and B: the interior threads' loop is then
// the seed's own, with no bounds check per load.
template <int kTile, bool kChecked>
__device__ __forceinline__ void accumulate(const maps::RegisterTiled& map, Dim2 block, Dim2 thread,
                                           const ProductArgs& args, float (&sum)[kTile][kTile]) {
  constexpr int kRowUnroll = kTile <= 32 ? kTile : 1;
  const float* a = args.aAs<float>();
  const float* b = args.bAs<float>();
  for (std::int64_t k = 0; k < args.k; ++k) {
    float aColumn[kTile], bRow[kTile];
#pragma unroll
    for (int r = 0; r < kTile; ++r) {
      const std::int64_t row = map.row(block, thread, r);
      aColumn[r] = kChecked ? loadOrZero(a, args.m, args.k, row, k) : a[row * args.k + k];
    }
#pragma unroll
    for (int c = 0; c < kTile; ++c) {
      const std::int64_t col = map.col(block, thread, c);
      bRow[c] = kChecked ? loadOrZero(b, args.k, args.n, k, col) : b[k * args.n + col];
    }
    // Fully unrolled, every accumulator is a named register for as long as they fit. At T = 64
    // the full unroll (4096 FMAs) takes minutes to compile and the sum lives in local memory
    // either way, so only the inner loop unrolls there.
#pragma unroll(kRowUnroll)
    for (int r = 0; r < kTile; ++r)
#pragma unroll
      for (int c = 0; c < kTile; ++c) sum[r][c] += aColumn[r] * bRow[c];
  }
}

// Up to T = 8 two blocks fit on an SM (at most 128 registers a thread), as the seed's own code
// compiles (96); left alone, nvcc gives T = 8 142 registers and one block, half as fast at 4096^3.
template <int kTile>
inline constexpr int kMinBlocksPerSm = kTile <= 8 ? 2 : 1;

template <int kTile, bool kTraced>
__global__ void __launch_bounds__(
    maps::RegisterTiled::kThreadsPerSide* maps::RegisterTiled::kThreadsPerSide,
    kMinBlocksPerSm<kTile>) registerTiledKernel(ProductArgs args) {
  const maps::RegisterTiled map{kTile};
  const Dim2 block = blockCoord(), thread = threadCoord();
  // A thread whose first output lies past the edge owns none; with no barrier to meet, it can
  // leave (large tiles leave most of an edge block idle).
  if (map.row(block, thread, 0) >= args.m || map.col(block, thread, 0) >= args.n) return;
  constexpr int kRowUnroll = kTile <= 32 ? kTile : 1;
  float sum[kTile][kTile] = {};
  if (map.row(block, thread, kTile - 1) < args.m && map.col(block, thread, kTile - 1) < args.n)
    accumulate<kTile, false>(map, block, thread, args, sum);
  else
    accumulate<kTile, true>(map, block, thread, args, sum);
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

static void launchRegisterTiled(int tile, const ProductArgs& args) {
  const maps::RegisterTiled map{tile};
  launchChecked(kKernels.pick(tile, args.traced(), "register-tiled"), "register-tiled",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::register_tiled {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("register-tiled",
                {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchRegisterTiled(params.at("tile"), args);
                }});
}

}  // namespace tilescope::families::register_tiled
