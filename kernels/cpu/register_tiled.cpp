#include <algorithm>
#include <vector>

#include "cpu_kernels.hpp"

namespace tilescope::cpu {

// Each thread of a 16 x 16 block accumulates a T x T block of C (seed 004-2): per k it reads T
// values of A's column k and T of B's row k, then does T*T multiply-adds from those locals.
void runRegisterTiled(const Gemm& g, const Params& params, const std::atomic<bool>* cancel) {
  const int tile = tileParam(params);
  const maps::RegisterTiled map{tile};
  const auto slots = std::size_t(tile);

  launchBlocks(map.grid(g.m, g.n), cancel, [&](Dim2 block) {
    // The thread's "registers": its accumulators and the A and B values of the current k.
    std::vector<float> accumulator(slots * slots), bValues(slots);
    std::vector<std::int64_t> rows, cols;  // the thread's slots inside C, in slot order
    rows.reserve(slots);
    cols.reserve(slots);
    forEachThread(map.block(), [&](Dim2 thread, int) {
      rows.clear();
      cols.clear();
      for (int r = 0; r < tile; ++r)
        if (const std::int64_t i = map.row(block, thread, r); i < g.m) rows.push_back(i);
      for (int c = 0; c < tile; ++c)
        if (const std::int64_t j = map.col(block, thread, c); j < g.n) cols.push_back(j);
      if (rows.empty() || cols.empty()) return;  // a thread of the padding

      const std::size_t rowCount = rows.size(), colCount = cols.size();
      std::fill(accumulator.begin(), accumulator.end(), 0.0f);
      for (std::int64_t k = 0; k < g.k; ++k) {
        const float* bRow = g.b + k * g.n;
        for (std::size_t c = 0; c < colCount; ++c) bValues[c] = bRow[cols[c]];
        for (std::size_t r = 0; r < rowCount; ++r) {
          const float aValue = g.a[rows[r] * g.k + k];
          float* out = accumulator.data() + r * slots;
          for (std::size_t c = 0; c < colCount; ++c) out[c] += aValue * bValues[c];
        }
      }
      for (std::size_t r = 0; r < rowCount; ++r)
        for (std::size_t c = 0; c < colCount; ++c)
          g.c[rows[r] * g.n + cols[c]] = accumulator[r * slots + c];
    });
  });
}

}  // namespace tilescope::cpu
