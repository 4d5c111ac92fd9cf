// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of shared-a: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/naive/naive.hpp"

namespace tilescope::maps {

// The T x T shared tiles of shared-a and shared-tiled: thread (x, y) stores the element at tile
// row y, tile column x, and an optional pad widens each row (the usual bank-conflict fix; the
// catalogue kernels use pad 0, the traffic model compares both).
struct SharedTile {
  int tile, pad = 0;
  TS_HDC int stride() const { return tile + pad; }
  TS_HDC int word(int row, int col) const { return row * stride() + col; }
  TS_HDC int words() const { return tile * stride(); }
};

// shared-a (seed 001b): the naive mapping, but each k-step first stages a T x T tile of A in
// shared memory (thread (x, y) loads A[b.y*T + y][s*T + x]); B is still read from global memory.
struct SharedA : Naive {
  TS_HDC int kDepth() const { return tile; }
  TS_HDC SharedTile aTile() const { return {tile, 0}; }
  // Where thread t stores its staged element inside the tile, and what it reads back at inner
  // index kk of the product (tile row, tile column).
  TS_HDC Cell aTileStore(Dim2 t) const { return {t.y, t.x}; }
  TS_HDC Cell aTileRead(Dim2 t, int kk) const { return {t.y, kk}; }
  // The A element thread t loads at k-step s (the tile is zero-padded past M and K).
  TS_HDC Cell aLoad(Dim2 b, Dim2 t, std::int64_t s) const {
    const Cell at = aTileStore(t);
    return {std::int64_t(b.y) * tile + at.row, s * tile + at.col};
  }

  // Global-memory accesses, for the Mapping: every thread stages one element of A per k-step
  // (zero past the edges) and reads B once per inner index.
  std::int64_t instructionsPerStep(Access access, Extent) const {
    return access == Access::LoadB ? kDepth() : 1;
  }
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step,
                                   std::int64_t instr, Extent e) const {
    if (access == Access::LoadA) return inside(aLoad(b, t, step), e.m, e.k);
    const std::int64_t i = row(b, t, 0), j = col(b, t, 0);
    if (access == Access::StoreC) return inside({i, j}, e.m, e.n);
    const std::int64_t k = step * kDepth() + instr;
    if (i >= e.m || j >= e.n || k >= e.k) return std::nullopt;
    return Cell{k, j};
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::shared_a {
using Map = maps::SharedA;
}  // namespace tilescope::families::shared_a
