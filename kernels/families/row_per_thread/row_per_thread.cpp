// SPDX-License-Identifier: GPL-3.0-or-later
// row-per-thread: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/row_per_thread/row_per_thread.hpp"
#include "cpu/direct_tiling.hpp"
#include "families/registration.hpp"

namespace tilescope::families::row_per_thread {

namespace {

using namespace cpu;

// Each thread owns one row of C and strides over its columns (seed 000a).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const maps::RowPerThread map{tileParam(params)};
  runFromMemory(g, map, 1, int(map.colsPerThread(g.n)), cancel);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "row-per-thread",
            .displayName = "Row per thread (uncoalesced)",
            .seed = "seed 000a",
            .teaching =
                "Thread x of a block owns one row of C and strides over its columns. The 32 lanes "
                "of a warp read 32 different rows of A at once: 32 separate memory sectors per "
                "load instead of one, which is why it is slower than the naive kernel.",
            .params = {blockTile(
                32,
                "T: threads per block side (T x T threads; x picks the row, y the column stride)")},
            .backends = kCpuAndCuda,
            .hue = {"#a1955d", "#c6b97f"}},
       .threadMap = [](const Params& params, ElementType) -> ThreadMap {
         return maps::RowPerThread{params.at("tile")};
       },
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::row_per_thread
