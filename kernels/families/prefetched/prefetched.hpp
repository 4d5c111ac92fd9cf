// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of prefetched: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/warptile/warptile.hpp"

namespace tilescope::maps {

// prefetched (plan b of issue 13: CUTLASS's SIMT GEMM and Liu-xiandong's sgemm_v3 on Hopper):
// the warp grid with TM = TN = 4 pieces, so a thread's values of A (transposed) and of B are
// whole float4s 16 and 32 words apart: 128-bit shared reads only. Each thread loads its share of
// tile s + 1 from global memory into registers while the block multiplies tile s, then stores it
// into the second of two shared buffers (dynamic shared memory: 256 x 128 x 16 needs more than
// 48 KiB): one barrier per k-step. The fragments of A and B are double-buffered in registers,
// across the barrier too: those of inner index 0 of tile s + 1 are read before the last inner
// index of tile s is multiplied. A thread of 64 outputs keeps to 128 registers so that 16 warps
// share an SM; at 128 outputs (cuBLAS's 256 x 128 tile of 8 warps) a thread may take 255.
struct Prefetched : WarpGrid<Prefetched> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  // C one float at a time, as in warptile: float4 stores spilled at the 128-register bound.
  static constexpr bool kATransposed = true, kAVectorCopies = true, kVectorStores = false;
  // One kernel per path: both operands are copied as float4s, or neither is.
  static constexpr bool kVectorCopiesTogether = true;
  static constexpr std::array<ParamAxis, 7> kAxes = {{{"BM", {64, 128, 256}, 3},
                                                      {"BN", {64, 128, 256}, 3},
                                                      {"BK", {8, 16}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {4}, 1},
                                                      {"TN", {4}, 1}}};
  static constexpr Prefetched fromValues(const std::array<int, 7>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}};
  }
  constexpr std::array<int, 7> values() const { return {bm, bn, bk, wm, wn, tm, tn}; }
  TS_HDC Pipeline pipeline() const { return {2, StageFill::Registers}; }
  // Registers a thread may take: 128 up to 64 outputs, else all 255 the instruction set allows.
  TS_HDC int registerBudget() const { return rowsPerThread() * colsPerThread() <= 64 ? 128 : 256; }
  // Blocks per SM the kernel is compiled for: as many as the 64 Ki registers of an SM hold at
  // that budget.
  TS_HDC int minBlocksPerSm() const { return 65536 / (threads() * registerBudget()); }
  constexpr TilingRule check() const { return checkWarps(); }
};

}  // namespace tilescope::maps

namespace tilescope::families::prefetched {
using Map = maps::Prefetched;
}  // namespace tilescope::families::prefetched
