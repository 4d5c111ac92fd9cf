// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The thread map of vectorized: the one source of truth for how it maps threads to
// data. Its CUDA kernel, its CPU schedule, the Mapping, the diagrams and the traffic model all
// read these formulas (the conventions are in tilescope/thread_map.hpp).
#include "families/blocktile_2d/blocktile_2d.hpp"

namespace tilescope::maps {

// vectorized (siboehm's step 6, with step 8's padding): blocktile-2d's thread grid, but every
// copy from global memory is one 16-byte float4, and A is stored transposed (BK rows of BM, each
// padded by 4 words) so a thread's TM values of A are consecutive words read as float4s too. The
// padding spreads the transposing stores over all 32 banks.
struct Vectorized : ThreadGrid<Vectorized> {
  static constexpr int kCopyWidth = 4, kAPad = 4;
  static constexpr bool kATransposed = true, kAVectorCopies = true, kVectorStores = true;
  static constexpr std::array<ParamAxis, 5> kAxes = BlockTile2D::kAxes;
  static constexpr Vectorized fromValues(const std::array<int, 5>& v) {
    return {{{v[0], v[1], v[2]}, v[3], v[4]}};
  }
  constexpr std::array<int, 5> values() const { return {bm, bn, bk, tm, tn}; }
  constexpr TilingRule check() const { return checkGrid(kCopyWidth); }
};

}  // namespace tilescope::maps

namespace tilescope::families::vectorized {
using Map = maps::Vectorized;
}  // namespace tilescope::families::vectorized
