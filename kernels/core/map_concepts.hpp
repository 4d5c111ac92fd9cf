// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The kinds of thread map that mapping.cpp and shared_access.cpp tell apart by what a map offers.
#include "tilescope/thread_map.hpp"

namespace tilescope {

// The seeds that stage single T x T tiles: A (shared-a), or A and B (shared-tiled), each through
// its map's layout (aTile, bTile) and its store, read and load formulas.
template <typename Map>
concept StagesSeedTileA = requires(const Map& map, Dim2 t) {
  map.aTile();
  map.aTileStore(t);
};
template <typename Map>
concept StagesSeedTileB = requires(const Map& map, Dim2 t) {
  map.bTile();
  map.bTileStore(t);
};

// The ladder families: block tiles staged in shared memory, parameters listed in kAxes.
template <typename Map>
concept LadderMap = requires {
  Map::kAxes;
};

// Tensor-core maps read their fragments with ldmatrix (or tf32 word reads), not per inner index.
template <typename Map>
concept FragmentMap = requires(const Map& map) {
  map.fragmentReads(true);
};

// B stored K-major (FP8: tensor-fp8): B's copies are N rows of K values, their vectors running
// along k. Every other ladder map copies K rows of N values.
template <typename Map>
concept CopiesBAlongK = requires {
  Map::kCopiesBAlongK;
}
&&Map::kCopiesBAlongK;

// Element (row, col) of a B copy (TileCopy::at) as a (k, n) cell of B's tile, and element `e` of
// the vector starting there.
template <typename Map>
Cell bCopyCell(Cell copied, int e = 0) {
  if constexpr (CopiesBAlongK<Map>)
    return {copied.col + e, copied.row};
  else
    return {copied.row, copied.col + e};
}

}  // namespace tilescope
