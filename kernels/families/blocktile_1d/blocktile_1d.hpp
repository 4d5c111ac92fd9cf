// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of blocktile-1d: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// blocktile-1d (siboehm's step 4, 1-D blocktiling): BM*BN/TM threads; thread t computes TM
// outputs down column t % BN of the block tile, rows (t / BN) * TM onwards. For each inner index
// it reads one B value and reuses it for TM multiply-adds from the shared A tile.
struct BlockTile1D : LadderBase<BlockTile1D> {
  int tm;
  static constexpr int kCopyWidth = 1, kAPad = 0;
  static constexpr bool kATransposed = false, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 4> kAxes = {
      {{"BM", {64, 128}, 2}, {"BN", {64, 128}, 2}, {"BK", {8, 16}, 2}, {"TM", {4, 8, 16}, 3}}};
  static constexpr BlockTile1D fromValues(const std::array<int, 4>& v) {
    return {{v[0], v[1], v[2]}, v[3]};
  }
  constexpr std::array<int, 4> values() const { return {bm, bn, bk, tm}; }

  TS_HDC int threads() const { return bm / tm * bn; }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return 1; }
  TS_HDC int rowInBlock(int t, int r) const { return t / bn * tm + r; }
  TS_HDC int colInBlock(int t, int) const { return t % bn; }
  TS_HDC OwnerSlot slotOf(int i, int j) const { return {{}, {i / tm * bn + j, 0}, i % tm, 0}; }
  constexpr TilingRule check() const {
    if (bm % tm != 0) return TilingRule::TileDivides;
    if (!wholeWarps(threads())) return TilingRule::ThreadCount;
    return checkCopies();
  }
};

}  // namespace tilescope::maps

namespace tilescope::families::blocktile_1d {
using Map = maps::BlockTile1D;
}  // namespace tilescope::families::blocktile_1d
