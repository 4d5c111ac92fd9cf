#include "cpu_kernels.hpp"

namespace tilescope::cpu {

// One thread walks all of C (seed 002's matmul_seq); bounded by the catalogue's maxWork.
void runSerial(const Gemm& g, const Params& /*params*/, const std::atomic<bool>* cancel) {
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

}  // namespace tilescope::cpu
