// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tiling rules tensor-tma words itself, for its registration and for tensor-persistent's,
// whose blocks are tensor-tma's (maps::WarpSpecialised).
#include "families/registration.hpp"

namespace tilescope::families {

template <typename Map>
std::optional<std::string> warpSpecialisedRules(const Map& map, maps::TilingRule rule) {
  if (rule == maps::TilingRule::TileDivides)
    return "two consumer warpgroups take 64 rows each and one instruction all the columns: BM = " +
           str(map.bm) + " must be 128 and BN = " + str(map.bn) + " a multiple of 64 up to 256";
  if (rule == maps::TilingRule::Fragments)
    return "a k-step is one 128-byte swizzled row of A: BK = " + str(map.bk) +
           " must be 64 16-bit values";
  if (rule == maps::TilingRule::SharedMemory)
    return str(map.stages) + " stages of " + str(map.stageBytes() / 1024) + " KiB (A " +
           str(map.bm) + " x " + str(map.bk) + ", B " + str(map.bk) + " x " + str(map.bn) +
           ") and their barriers need " + str(map.sharedBytes() / 1024) +
           " KiB of shared memory; a block may take " + str(Map::kSharedLimitBytes / 1024) + " KiB";
  return std::nullopt;
}

}  // namespace tilescope::families
