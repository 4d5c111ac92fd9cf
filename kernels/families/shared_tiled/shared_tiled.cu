// SPDX-License-Identifier: GPL-3.0-or-later
// shared-tiled (seeds 000b, 002, 003b, 004 method 3): A and B both staged in T x T shared tiles
// per k-step, zero past the edges. Any T from 1 to 32 (7 included, as in seed 003): one
// instantiation per tile of shared_tiles_device.cuh's kernel, so the inner loop unrolls. Unlike
// seed 003, the k loop and its barriers run in every thread; only the final store is
// bounds-checked.
#include <array>
#include <utility>

#include "families/shared_tiled/shared_tiled.hpp"
#include "families/shared_tiled/shared_tiles_device.cuh"

namespace tilescope::cuda {

namespace {

constexpr int kMaxTile = 32;  // 32 x 32 threads: CUDA's limit of 1024 threads per block

using Kernel = void (*)(ProductArgs);

// Tiles 1 .. kMaxTile.
struct Compiled {
  static constexpr auto kMaps = [] {
    std::array<maps::SharedTiled, kMaxTile> all{};
    for (int i = 0; i < kMaxTile; ++i) all[std::size_t(i)] = {{{i + 1}}};
    return all;
  }();
};

template <int... kIndex>
constexpr KernelTable<Kernel, sizeof...(kIndex)> makeTable(std::integer_sequence<int, kIndex...>) {
  return {{(kIndex + 1)...},
          {sharedTilesKernel<Compiled, kIndex, false>...},
          {sharedTilesKernel<Compiled, kIndex, true>...}};
}

constexpr auto kKernels = makeTable(std::make_integer_sequence<int, kMaxTile>{});

}  // namespace

static void launchSharedTiled(int tile, const ProductArgs& args) {
  const maps::SharedTiled map{{tile}};
  launchChecked(kKernels.pick(tile, args.traced(), "shared-tiled"), "shared-tiled",
                map.grid(args.m, args.n), map.block(), args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::shared_tiled {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("shared-tiled", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchSharedTiled(params.at("tile"), args);
                }});
}

}  // namespace tilescope::families::shared_tiled
