// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of blocktile-2d: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// The thread grid of blocktile-2d and vectorized: (BM/TM) x (BN/TN) threads, thread t owning the
// TM x TN outputs at rows (t / (BN/TN)) * TM and columns (t % (BN/TN)) * TN of the block tile.
template <typename Self>
struct ThreadGrid : LadderBase<Self> {
  int tm, tn;
  TS_HDC int threadsAlongN() const { return this->bn / tn; }
  TS_HDC int threads() const { return this->bm / tm * threadsAlongN(); }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return tn; }
  TS_HDC int rowInBlock(int t, int r) const { return t / threadsAlongN() * tm + r; }
  TS_HDC int colInBlock(int t, int c) const { return t % threadsAlongN() * tn + c; }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    return {{}, {i / tm * threadsAlongN() + j / tn, 0}, i % tm, j % tn};
  }
  constexpr TilingRule checkGrid(int pieceWidth) const {
    if (this->bm % tm != 0 || this->bn % tn != 0 || tm % pieceWidth != 0 || tn % pieceWidth != 0)
      return TilingRule::TileDivides;
    if (!wholeWarps(threads())) return TilingRule::ThreadCount;
    return this->checkCopies();
  }
};

// blocktile-2d (siboehm's step 5, 2-D blocktiling): a TM x TN register tile per thread; per inner
// index a thread reads TM values of A and TN of B from shared memory for TM*TN multiply-adds. The
// tiles are stored as they are in global memory, so the lanes of a warp reading A hit words
// TM*BK apart (one bank) and those reading B words TN apart: bank conflicts the next rung removes.
struct BlockTile2D : ThreadGrid<BlockTile2D> {
  static constexpr int kCopyWidth = 1, kAPad = 0;
  static constexpr bool kATransposed = false, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 5> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {64, 128}, 2},
                                                      {"BK", {8, 16}, 2},
                                                      {"TM", {4, 8}, 2},
                                                      {"TN", {4, 8}, 2}}};
  static constexpr BlockTile2D fromValues(const std::array<int, 5>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4]}};
  }
  constexpr std::array<int, 5> values() const { return {bm, bn, bk, tm, tn}; }
  constexpr TilingRule check() const { return checkGrid(1); }
};

}  // namespace tilescope::maps

namespace tilescope::families::blocktile_2d {
using Map = maps::BlockTile2D;
}  // namespace tilescope::families::blocktile_2d
