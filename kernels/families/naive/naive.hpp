// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of naive: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// naive (seeds 001a, 003a, 004-1): one thread per element of C. x runs along a row of C, so a
// warp's 32 lanes read 32 consecutive floats of B (coalesced) and one broadcast float of A.
struct Naive {
  int tile;
  TS_HDC Dim2 block() const { return {tile, tile}; }
  TS_HDC Dim2 grid(std::int64_t m, std::int64_t n) const {
    return {int(ceilDiv(n, tile)), int(ceilDiv(m, tile))};
  }
  TS_HDC std::int64_t rowsPerThread(std::int64_t) const { return 1; }
  TS_HDC std::int64_t colsPerThread(std::int64_t) const { return 1; }
  TS_HDC std::int64_t row(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.y) * tile + t.y;
  }
  TS_HDC std::int64_t col(Dim2 b, Dim2 t, std::int64_t) const {
    return std::int64_t(b.x) * tile + t.x;
  }
  TS_HDC OwnerSlot owner(std::int64_t i, std::int64_t j) const {
    return {{int(j / tile), int(i / tile)}, {int(j % tile), int(i % tile)}, 0, 0};
  }
  TS_HDC int kDepth() const { return 1; }

  // Global-memory accesses, for the Mapping: one load of A and of B per k, one store.
  std::int64_t instructionsPerStep(Access, Extent) const { return 1; }
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step, std::int64_t,
                                   Extent e) const {
    return directAccess(access, row(b, t, 0), col(b, t, 0), step, e);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::naive {
using Map = maps::Naive;
}  // namespace tilescope::families::naive
