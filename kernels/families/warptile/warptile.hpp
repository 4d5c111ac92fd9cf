// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of warptile: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "tilescope/thread_map.hpp"

namespace tilescope::maps {

// The warp grid of warptile and pipelined (siboehm's step 10; the lane layout of CUTLASS's SIMT
// GEMM): the block tile is cut into (BM/WM) x (BN/WN) warp tiles, warp w taking row w / (BN/WN)
// and column w % (BN/WN) of them. Inside a warp tile the 32 lanes form a 4 x 8 grid (lane / 8
// down, lane % 8 across) that covers a 4TM x 8TN sub-tile, each lane a TM x TN piece; the warp
// repeats it (WM/4TM) x (WN/8TN) times, so a thread owns (WM/4) x (WN/8) outputs. Per inner index
// eight lanes read eight consecutive TN-wide pieces of the B row: with TN = 4 that is one 128-byte
// row of shared memory, conflict-free.
template <typename Self>
struct WarpGrid : LadderBase<Self> {
  int wm, wn, tm, tn;
  static constexpr int kLaneRows = 4, kLaneCols = 8;

  TS_HDC int warpsAlongN() const { return this->bn / wn; }
  TS_HDC int warps() const { return this->bm / wm * warpsAlongN(); }
  TS_HDC int threads() const { return warps() * 32; }
  TS_HDC int subM() const { return kLaneRows * tm; }
  TS_HDC int subN() const { return kLaneCols * tn; }
  // The derived warp sub-iterations: how often the 4 x 8 lane grid repeats down and across.
  TS_HDC int itersM() const { return wm / subM(); }
  TS_HDC int itersN() const { return wn / subN(); }
  TS_HDC std::int64_t rowsPerThread(std::int64_t = 0) const { return itersM() * tm; }
  TS_HDC std::int64_t colsPerThread(std::int64_t = 0) const { return itersN() * tn; }
  TS_HDC int rowInBlock(int t, int r) const {
    return t / 32 / warpsAlongN() * wm + r / tm * subM() + t % 32 / kLaneCols * tm + r % tm;
  }
  TS_HDC int colInBlock(int t, int c) const {
    return t / 32 % warpsAlongN() * wn + c / tn * subN() + t % 32 % kLaneCols * tn + c % tn;
  }
  TS_HDC OwnerSlot slotOf(int i, int j) const {
    const int inWarpRow = i % wm, inWarpCol = j % wn;
    const int warp = i / wm * warpsAlongN() + j / wn;
    const int lane = inWarpRow % subM() / tm * kLaneCols + inWarpCol % subN() / tn;
    return {{},
            {warp * 32 + lane, 0},
            inWarpRow / subM() * tm + inWarpRow % tm,
            inWarpCol / subN() * tn + inWarpCol % tn};
  }
  constexpr TilingRule checkWarps() const {
    if (this->bm % wm != 0 || this->bn % wn != 0 || tm % Self::kCopyWidth != 0 ||
        tn % Self::kCopyWidth != 0)
      return TilingRule::TileDivides;
    if (warps() < 4 || warps() > 8) return TilingRule::WarpCount;
    if (wm % subM() != 0 || wn % subN() != 0) return TilingRule::WarpShape;
    return this->checkCopies();
  }
};

// warptile: vectorized's float4 copies and padded transposed A tile, with the warp grid above.
struct Warptile : WarpGrid<Warptile> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  static constexpr bool kATransposed = true, kAVectorCopies = true;
  // A float4 store takes four consecutive registers; with 64 accumulators or more, ptxas then
  // needs more registers than the 128 that give two blocks per SM (127 became 163 at the default
  // tile, and the kernel ran 1.8x slower: H100, 4096^3). So C is stored one float at a time.
  static constexpr bool kVectorStores = false;
  static constexpr std::array<ParamAxis, 7> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {64, 128, 256}, 3},
                                                      {"BK", {8, 16}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {4, 8}, 2},
                                                      {"TN", {4, 8}, 2}}};
  static constexpr Warptile fromValues(const std::array<int, 7>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}};
  }
  constexpr std::array<int, 7> values() const { return {bm, bn, bk, wm, wn, tm, tn}; }
  constexpr TilingRule check() const { return checkWarps(); }
};

}  // namespace tilescope::maps

namespace tilescope::families::warptile {
using Map = maps::Warptile;
}  // namespace tilescope::families::warptile
