// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of serial: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// serial (seed 002 matmul_seq): a single thread walks all of C; k-step s reads column s of A and
// row s of B. Output slot (r, c) is C[r][c].
struct Serial {
  TS_HD Dim2 block() const { return {1, 1}; }
  TS_HD Dim2 grid(std::int64_t, std::int64_t) const { return {1, 1}; }
  TS_HD std::int64_t rowsPerThread(std::int64_t m) const { return m; }
  TS_HD std::int64_t colsPerThread(std::int64_t n) const { return n; }
  TS_HD std::int64_t row(Dim2, Dim2, std::int64_t r) const { return r; }
  TS_HD std::int64_t col(Dim2, Dim2, std::int64_t c) const { return c; }
  TS_HD OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{0, 0}, {0, 0}, int(i), int(j)};
  }
  TS_HD int kDepth() const { return 1; }

  // Global-memory accesses, for the Mapping: one load of A and of B per output, in turn.
  std::int64_t instructionsPerStep(Access, Extent e) const { return e.m * e.n; }
  std::optional<Cell> globalAccess(Dim2, Dim2, Access access, std::int64_t step, std::int64_t instr,
                                   Extent e) const {
    return directAccess(access, instr / e.n, instr % e.n, step, e);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::serial {
using Map = maps::Serial;
}  // namespace tilescope::families::serial
