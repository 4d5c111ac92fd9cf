// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of pipelined: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/warptile/warptile.hpp"

namespace tilescope::maps {

// pipelined (siboehm's step 11 and CUTLASS's multistage GEMM): warptile with `stages` shared
// buffers filled by cp.async. While the block computes on tile s, tiles s+1 .. s+stages-1 are on
// their way, so the loads' latency hides behind the multiply-adds. A cp.async lands in shared
// memory without passing through registers, so the transposed A tile is copied one 4-byte
// element at a time; B keeps its 16-byte copies.
struct Pipelined : WarpGrid<Pipelined> {
  int stages;
  static constexpr int kCopyWidth = 4, kAPad = 4;
  // C one float at a time, as in warptile.
  static constexpr bool kATransposed = true, kAVectorCopies = false, kVectorStores = false;
  static constexpr std::array<ParamAxis, 8> kAxes = {{{"BM", {64, 128}, 2},
                                                      {"BN", {128, 256}, 2},
                                                      {"BK", {16, 32}, 2},
                                                      {"WM", {32, 64}, 2},
                                                      {"WN", {32, 64}, 2},
                                                      {"TM", {8}, 1},
                                                      {"TN", {4}, 1},
                                                      {"stages", {2, 3, 4}, 3}}};
  static constexpr Pipelined fromValues(const std::array<int, 8>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4], v[5], v[6]}, v[7]};
  }
  constexpr std::array<int, 8> values() const { return {bm, bn, bk, wm, wn, tm, tn, stages}; }
  TS_HDC Pipeline pipeline() const { return {stages, StageFill::CpAsync}; }
  constexpr TilingRule check() const { return checkWarps(); }
};

}  // namespace tilescope::maps

namespace tilescope::families::pipelined {
using Map = maps::Pipelined;
}  // namespace tilescope::families::pipelined
