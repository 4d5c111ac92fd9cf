// SPDX-License-Identifier: GPL-3.0-or-later
// row-per-thread: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/row_per_thread/row_per_thread.hpp"
#include "families/registration.hpp"

namespace tilescope::families::row_per_thread {

namespace {

using namespace cpu;

// Each thread owns one row of C and strides over its columns (seed 000a).
void runOnCpu(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  const maps::RowPerThread map{tile};
  const std::int64_t colsPerThread = map.colsPerThread(g.n);
  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    forEachThread(map.block(), [&](Dim2 thread, int) {
      const std::int64_t i = map.row(block, thread, 0);
      if (i >= g.m) return;  // a thread of the padding rows
      for (std::int64_t c = 0; c < colsPerThread; ++c) {
        const std::int64_t j = map.col(block, thread, c);
        if (j < g.n) g.c[i * g.n + j] = dot(g.a + i * g.k, 1, g.b + j, g.n, g.k);
      }
    });
  });
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
