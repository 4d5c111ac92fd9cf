// SPDX-License-Identifier: GPL-3.0-or-later
// shared-tiled: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include "families/shared_tiled/shared_tiled.hpp"
#include "families/registration.hpp"
#include "families/shared_tiled/shared_tiles_cpu.hpp"

namespace tilescope::families::shared_tiled {

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "shared-tiled",
                .displayName = "Shared A and B tiles",
                .seed = "seeds 000b, 002 (matmul_shared), 003b, 004-3",
                .teaching = "Each step the block stages a T x T tile of A and one of B in shared "
                            "memory, waits at a barrier, and multiplies the tiles from there: "
                            "global traffic falls by a factor of T. Edge tiles are zero-padded, "
                            "and every barrier sits outside the bounds checks (unlike seed 003).",
                .params = {blockTile(
                    16, "T: the thread block and both staged tiles are T x T (any T, e.g. 7)")},
                .backends = kCpuAndCuda,
                .hue = {"#0b8040", "#0d8c60"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap {
         return maps::SharedTiled{{{params.at("tile")}}};
       },
       .runOnCpu =
           [](const cpu::Gemm& gemm, const Params& params, const std::atomic<bool>* cancel) {
             runSharedTiles(gemm, maps::SharedTiled{{{params.at("tile")}}}, cancel);
           }});
}

}  // namespace tilescope::families::shared_tiled
