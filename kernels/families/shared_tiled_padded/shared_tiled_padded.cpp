// SPDX-License-Identifier: GPL-3.0-or-later
// shared-tiled-padded: its catalogue entry, its thread map and its schedule on the CPU, registered
// once.
#include "families/shared_tiled_padded/shared_tiled_padded.hpp"
#include "families/registration.hpp"
#include "families/shared_tiled/shared_tiles_cpu.hpp"

namespace tilescope::families::shared_tiled_padded {

namespace {

maps::SharedTiledPadded mapOf(const Params& params) {
  return {{{{params.at("tile")}}}, params.at("pad")};
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "shared-tiled-padded",
                .displayName = "Shared tiles, A transposed and padded",
                .seed = "shared-tiled; the padding of siboehm's SGEMM worklog, kernel 8, and of "
                        "NVIDIA's shared-memory transpose",
                .teaching = "Shared-tiled with its A tile stored transposed, k along the tile's "
                            "rows, as the vectorized rung stores it. The load from global memory "
                            "stays coalesced, but a warp's lanes now store down one column of the "
                            "tile: with T = 32 and no padding all 32 stores hit one bank and run "
                            "one after another. Widening each row by one word (pad = 1) puts "
                            "every row on the next bank. Compare pad = 0 and pad = 1 in the "
                            "memory-access view's banks.",
                .params = {{"tile",
                            "T: the thread block and both staged tiles are T x T",
                            32,
                            {8, 16, 32},
                            "the CUDA backend compiles T = 8, 16 and 32: the tile sizes whose "
                            "warps show the bank pattern"},
                           {"pad",
                            "words added to each row of the transposed A tile",
                            1,
                            {0, 1},
                            "pad is 0 (the conflicts) or 1 (their fix)"}},
                .backends = kCpuAndCuda,
                .hue = {"#3b4800", "#6c8100"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap { return mapOf(params); },
       .runOnCpu =
           [](const cpu::Gemm& gemm, const Params& params, const std::atomic<bool>* cancel) {
             runSharedTiles(gemm, mapOf(params), cancel);
           }});
}

}  // namespace tilescope::families::shared_tiled_padded
