#include "cpu_kernels.hpp"

namespace tilescope::cpu {

// Each thread owns one row of C and strides over its columns (seed 000a).
void runRowPerThread(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
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

}  // namespace tilescope::cpu
