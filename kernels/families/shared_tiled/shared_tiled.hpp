// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of shared-tiled: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/shared_a/shared_a.hpp"

namespace tilescope::maps {

// shared-tiled (seeds 000b, 002, 003b, 004-3): A and B both staged in T x T tiles per k-step;
// thread (x, y) loads A[b.y*T + y][s*T + x] and B[s*T + y][b.x*T + x], zero past the edges.
struct SharedTiled : SharedA {
  TS_HDC SharedTile bTile() const { return {tile, 0}; }
  TS_HDC Cell bTileStore(Dim2 t) const { return {t.y, t.x}; }
  TS_HDC Cell bTileRead(Dim2 t, int kk) const { return {kk, t.x}; }
  TS_HDC Cell bLoad(Dim2 b, Dim2 t, std::int64_t s) const {
    const Cell at = bTileStore(t);
    return {s * tile + at.row, std::int64_t(b.x) * tile + at.col};
  }

  // Global-memory accesses, for the Mapping: one element of each tile per k-step, one store.
  std::int64_t instructionsPerStep(Access, Extent) const { return 1; }
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step, std::int64_t,
                                   Extent e) const {
    if (access == Access::LoadA) return inside(aLoad(b, t, step), e.m, e.k);
    if (access == Access::LoadB) return inside(bLoad(b, t, step), e.k, e.n);
    return inside({row(b, t, 0), col(b, t, 0)}, e.m, e.n);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::shared_tiled {
using Map = maps::SharedTiled;
}  // namespace tilescope::families::shared_tiled
