// SPDX-License-Identifier: GPL-3.0-or-later
// serial: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/serial/serial.hpp"
#include "families/registration.hpp"

namespace tilescope::families::serial {

namespace {

using namespace cpu;

// One thread walks all of C (seed 002's matmul_seq); bounded by the catalogue's maxWork.
void runOnCpu(const Gemm& g, const Params& /*params*/, const std::atomic<bool>* cancel) {
  const maps::Serial map;
  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    const Dim2 thread{0, 0};
    for (std::int64_t r = 0; r < map.rowsPerThread(g.m); ++r) {
      const std::int64_t i = map.row(block, thread, r);
      for (std::int64_t c = 0; c < map.colsPerThread(g.n); ++c) {
        const std::int64_t j = map.col(block, thread, c);
        g.c[i * g.n + j] = dot(g.a + i * g.k, 1, g.b + j, g.n, g.k);
      }
    }
  });
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "serial",
            .displayName = "Serial (one thread)",
            .seed = "seed 002 (matmul_seq)",
            .teaching =
                "One thread computes every element of C in turn. On a GPU this wastes all but one "
                "of thousands of cores: it is the baseline that shows why we parallelise at all.",
            .params = {},
            .backends = kCpuAndCuda,
            // Bounded because a launch cannot be interrupted: seed 002 measured about 200 s for
            // 1024^3 on one GPU thread. One H200 thread does about 66 M multiply-adds per
            // second, so 2^27 (512^3) takes about 2.5 s; one CPU core takes seconds for 2^30.
            .maxWork = {{"cpu", double(1LL << 30)}, {"cuda", double(1LL << 27)}},
            .hue = {"#5e3b31", "#996647"}},
       .threadMap = [](const Params&, ElementType) -> ThreadMap { return maps::Serial{}; },
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::serial
