// SPDX-License-Identifier: GPL-3.0-or-later
// shared-tiled-padded: shared-tiled's kernel (shared_tiles_device.cuh) over this rung's map, one
// instantiation per compiled tile and pad.
#include <array>
#include <string>

#include "families/shared_tiled/shared_tiles_device.cuh"
#include "families/shared_tiled_padded/shared_tiled_padded.hpp"

namespace tilescope::cuda {

namespace {

using maps::SharedTiledPadded;
using Kernel = void (*)(ProductArgs);

constexpr SharedTiledPadded mapOf(int tile, int pad) {
  return {{{{tile}}}, pad};
}

// Every tile and pad the catalogue offers.
struct Compiled {
  static constexpr std::array<SharedTiledPadded, 6> kMaps = {
      mapOf(8, 0), mapOf(8, 1), mapOf(16, 0), mapOf(16, 1), mapOf(32, 0), mapOf(32, 1)};
};

template <std::size_t... kIndex>
constexpr std::array<Kernel, sizeof...(kIndex)> kernelsOf(bool traced,
                                                          std::index_sequence<kIndex...>) {
  return traced ? std::array<Kernel,
                             sizeof...(kIndex)>{sharedTilesKernel<Compiled, int(kIndex), true>...}
                : std::array<Kernel, sizeof...(kIndex)>{
                      sharedTilesKernel<Compiled, int(kIndex), false>...};
}

constexpr auto kPlain = kernelsOf(false, std::make_index_sequence<Compiled::kMaps.size()>{});
constexpr auto kTraced = kernelsOf(true, std::make_index_sequence<Compiled::kMaps.size()>{});

void launchSharedTiledPadded(const SharedTiledPadded& map, const ProductArgs& args) {
  for (std::size_t i = 0; i < Compiled::kMaps.size(); ++i) {
    if (Compiled::kMaps[i].tile != map.tile || Compiled::kMaps[i].pad != map.pad) continue;
    launchChecked(args.traced() ? kTraced[i] : kPlain[i], "shared-tiled-padded",
                  map.grid(args.m, args.n), map.block(), args);
    return;
  }
  throw Error(ErrorKind::InvalidArgument, "shared-tiled-padded: no CUDA kernel compiled for tile " +
                                              std::to_string(map.tile) + ", pad " +
                                              std::to_string(map.pad));
}

}  // namespace

}  // namespace tilescope::cuda

namespace tilescope::families::shared_tiled_padded {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("shared-tiled-padded",
                {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchSharedTiledPadded({{{{params.at("tile")}}}, params.at("pad")}, args);
                }});
}

}  // namespace tilescope::families::shared_tiled_padded
