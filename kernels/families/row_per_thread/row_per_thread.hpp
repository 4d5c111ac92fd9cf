// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of row-per-thread: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// row-per-thread (seed 000a): blocks of T x T threads tile the rows only. Thread (x, y) of block
// b owns row b.x*T + x and the columns y, y+T, y+2T, ... so the 32 lanes of a warp (consecutive
// x) read 32 different rows of A: the uncoalesced pattern the seed warns about.
struct RowPerThread {
  int tile;
  TS_HD Dim2 block() const { return {tile, tile}; }
  TS_HD Dim2 grid(std::int64_t m, std::int64_t) const { return {int(ceilDiv(m, tile)), 1}; }
  TS_HD std::int64_t rowsPerThread(std::int64_t) const { return 1; }
  TS_HD std::int64_t colsPerThread(std::int64_t n) const { return ceilDiv(n, tile); }
  TS_HD std::int64_t row(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.x) * tile + t.x;
  }
  TS_HD std::int64_t col(Dim2, Dim2 t, std::int64_t c) const { return t.y + c * tile; }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{int(i / tile), 0}, {int(i % tile), int(j % tile)}, 0, int(j / tile)};
  }
  TS_HD int kDepth() const { return 1; }

  // Global-memory accesses, for the Mapping: one per column the thread visits.
  std::int64_t instructionsPerStep(Access, Extent e) const { return colsPerThread(e.n); }
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step,
                                   std::int64_t instr, Extent e) const {
    return directAccess(access, row(b, t, 0), col(b, t, instr), step, e);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::row_per_thread {
using Map = maps::RowPerThread;
}  // namespace tilescope::families::row_per_thread
