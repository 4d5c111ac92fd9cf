// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of shared-tiled-padded: how it maps threads to data, the one source of truth that
// its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all read.
#include "families/shared_tiled/shared_tiled.hpp"

namespace tilescope::maps {

// shared-tiled-padded: shared-tiled with its A tile stored transposed, k along the tile's rows, as
// the later rungs store it (vectorized reads a thread's values of A as consecutive words), and each
// row widened by `pad` words. Thread (x, y) still loads A[b.y*T + y][s*T + x], so a warp's load
// stays coalesced, but it stores that value at tile row x, column y: the lanes of a warp, one x
// apart, write down a column of the tile, T + pad words apart. With T = 32 and no pad every lane
// hits the same bank (a 32-way conflict); a pad of one word puts each row on the next bank.
struct SharedTiledPadded : SharedTiled {
  int pad = 1;
  TS_HDC SharedTile aTile() const { return {tile, pad}; }
  TS_HDC Cell aTileStore(Dim2 t) const { return {t.x, t.y}; }
  TS_HDC Cell aTileRead(Dim2 t, int kk) const { return {kk, t.y}; }
  TS_HDC Cell aLoad(Dim2 b, Dim2 t, std::int64_t s) const {
    return {std::int64_t(b.y) * tile + t.y, s * tile + t.x};
  }

  // Global-memory accesses, for the Mapping: shared-tiled's, with this map's load of A.
  std::optional<Cell> globalAccess(Dim2 b, Dim2 t, Access access, std::int64_t step,
                                   std::int64_t instr, Extent e) const {
    if (access == Access::LoadA) return inside(aLoad(b, t, step), e.m, e.k);
    return SharedTiled::globalAccess(b, t, access, step, instr, e);
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::shared_tiled_padded {
using Map = maps::SharedTiledPadded;
}  // namespace tilescope::families::shared_tiled_padded
