// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of register-tiled: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// register-tiled (seed 004-2): blocks of 16 x 16 threads; each thread accumulates a T x T block
// of C in registers, reading T values of A's column s and T values of B's row s per k-step. No
// shared memory: reuse comes from registers alone, until large T spills them.
struct RegisterTiled {
  static constexpr int kThreadsPerSide = 16;
  int tile;
  TS_HD Dim2 block() const { return {kThreadsPerSide, kThreadsPerSide}; }
  TS_HD std::int64_t blockSpan() const { return std::int64_t(kThreadsPerSide) * tile; }
  TS_HD Dim2 grid(std::int64_t m, std::int64_t n) const {
    return {int(ceilDiv(n, blockSpan())), int(ceilDiv(m, blockSpan()))};
  }
  TS_HD std::int64_t rowsPerThread(std::int64_t) const { return tile; }
  TS_HD std::int64_t colsPerThread(std::int64_t) const { return tile; }
  TS_HD std::int64_t row(Dim2 b, Dim2 t, std::int64_t r) const {
    return (std::int64_t(b.y) * kThreadsPerSide + t.y) * tile + r;
  }
  TS_HD std::int64_t col(Dim2 b, Dim2 t, std::int64_t c) const {
    return (std::int64_t(b.x) * kThreadsPerSide + t.x) * tile + c;
  }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    const std::int64_t threadRow = i / tile, threadCol = j / tile;
    return {{int(threadCol / kThreadsPerSide), int(threadRow / kThreadsPerSide)},
            {int(threadCol % kThreadsPerSide), int(threadRow % kThreadsPerSide)},
            int(i % tile),
            int(j % tile)};
  }
  TS_HD int kDepth() const { return 1; }

  // Global-memory accesses, for the Mapping: per k, T values of A's column and T of B's row; at
  // the end T x T stores.
  std::int64_t instructionsPerStep(Access access, Extent) const {
    return access == Access::StoreC ? std::int64_t(tile) * tile : tile;
  }
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step,
                                   std::int64_t instr, Extent e) const {
    if (access == Access::LoadA) return inside({row(b, t, instr), step}, e.m, e.k);
    if (access == Access::LoadB) return inside({step, col(b, t, instr)}, e.k, e.n);
    return inside({row(b, t, instr / tile), col(b, t, instr % tile)}, e.m, e.n);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::register_tiled {
using Map = maps::RegisterTiled;
}  // namespace tilescope::families::register_tiled
