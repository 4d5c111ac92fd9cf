// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tensor-tma's k-step in words, for the k-step view: its registration's recipe, the first part
// of tensor-persistent's, whose blocks are tensor-tma's (maps::WarpSpecialised), and the last part
// of its variants'.
#include <string>

#include "families/registration.hpp"

namespace tilescope::families {

// The producer's and the consumers' parts of one k-step, met at two mbarriers per stage.
template <typename Map>
std::string warpSpecialisedRecipe(const Mapping& m, const Map& map) {
  const std::string bk = str(map.bk);
  return "Warp-specialised, a " + str(map.stages) +
         "-stage pipeline without block-wide barriers. In every k-step:\nproducer (warpgroup 0, "
         "one thread): wait on the stage's 'empty' mbarrier until both consumers have freed it, "
         "then ask the TMA copy engine for the tiles " +
         str(map.pipeline().ahead()) + " steps ahead: one box of A (" + str(map.bm) + " × " + bk +
         ") and " + str(map.bn / 64) + " boxes of B (" + bk +
         " × 64), landing in the 128-byte swizzle, zero past the edges; the engine signals the "
         "stage's 'full' mbarrier\nconsumers (warpgroups 1 and 2, " +
         str(Map::kConsumerRows) + " rows each): wait on 'full', issue " +
         str(map.bk / Map::kInstrK) + " wgmma m64n" + str(map.bn) +
         "k16 reading both tiles from shared memory, keep that batch in flight and free the "
         "previous step's stage ('empty') once its batch is done; each thread keeps " +
         std::to_string(m.rowsPerThread() * m.colsPerThread()) + " of the sums";
}

// The last lines of a recipe of tensor-persistent's variants (tensor-tf32, tensor-fp8): the tiles
// each block takes in turn, and the clusters sharing B.
template <typename Map>
std::string persistentVariantTiles(const Mapping& m, const Map& map) {
  return "\nacross tiles: " + str(m.launchGrid().x) + " blocks take up to " +
         std::to_string(m.rounds()) + " tiles each in the grouped order (bands of " +
         str(map.group) + " tile rows)" +
         (map.cluster > 1 ? "\nclusters of " + str(map.cluster) +
                                " blocks take tiles stacked along M and share B's boxes by "
                                "multicast, as in tensor-persistent"
                          : std::string());
}

}  // namespace tilescope::families
