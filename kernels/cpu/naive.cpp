#include "cpu_kernels.hpp"

namespace tilescope::cpu {

// One thread per element of C, reading A and B straight from memory (seeds 001a, 003a, 004-1).
void runNaive(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  const maps::Naive map{tile};
  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    forEachThread(map.block(), [&](Dim2 thread, int) {
      const std::int64_t i = map.row(block, thread, 0), j = map.col(block, thread, 0);
      if (i < g.m && j < g.n) g.c[i * g.n + j] = dot(g.a + i * g.k, 1, g.b + j, g.n, g.k);
    });
  });
}

}  // namespace tilescope::cpu
