// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-persistent: its catalogue entry, its thread map and its schedule on the CPU, registered
// once.

#include "families/tensor_persistent/tensor_persistent.hpp"
#include "families/registration.hpp"
#include "families/tensor_tma/tensor_tma_recipe.hpp"
#include "families/tensor_tma/tensor_tma_rules.hpp"

namespace tilescope::families::tensor_persistent {

namespace {

// The k-step view's recipe: tensor-tma's k-step, in blocks that loop over tiles, in clusters
// sharing B.
std::string stepRecipe(const Mapping& m) {
  const auto& map = std::get<maps::Persistent>(m.threadMap());
  std::string text =
      warpSpecialisedRecipe(m, map) + "\nacross tiles: " + str(m.launchGrid().x) +
      " blocks (at most one per SM; fewer where fewer finish in as many rounds) take up to " +
      std::to_string(m.rounds()) + " tiles each, in a grouped order (bands of " + str(map.group) +
      " tile rows, column by column); the stages and their mbarrier phases run on from one tile "
      "into the next, so the producer fills the next tile's first stages while the consumers "
      "store this one";
  if (map.cluster > 1) {
    const std::string cluster = str(map.cluster);
    text += "\nclusters of " + cluster +
            " blocks take tiles stacked along M: each producer loads 1/" + cluster +
            " of B's boxes and the copy engine multicasts them into every block of the cluster, "
            "so each B tile crosses L2 once per cluster (the traffic model counts it once); a "
            "stage is refilled once the consumers of all " +
            cluster + " blocks have freed it";
  }
  return text;
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "tensor-persistent",
            .displayName = "Tensor cores (persistent, clusters)",
            .seed =
                "fast.cu kernels 6 and 8 (pranjalssh); CUTLASS's sm90 persistent tile scheduler "
                "and TMA multicast; the PTX ISA's clusters, mapa and multicast::cluster",
            .teaching =
                "tensor-tma's block, launched only as many times as the GPU holds blocks at once "
                "(one per SM, or fewer where fewer finish in as many rounds), each block looping "
                "over tiles of C. Two things get cheaper. Between tiles the producer simply goes "
                "on filling stages with the next tile's k-steps while the consumers store this "
                "one, so no block starts with an empty pipeline. And the tiles are handed out in a "
                "grouped order, bands of `group` tile rows walked column by column, so the blocks "
                "working at one time read a few columns of B and rows of A that stay in L2. With "
                "cluster = 2, pairs of blocks on neighbouring SMs take two tiles stacked along M: "
                "they need the same tile of B, so each loads half of it and the copy engine "
                "multicasts it into both, and a stage is refilled only when the consumers of both "
                "blocks have freed it. Needs an sm_90 GPU (H100, H200).",
            .params = ladderParams(maps::Persistent::fromValues({128, 256, 64, 4, 2, 16}),
                                   kPersistentDescriptions),
            .backends = {"cuda"},
            .constraints = "BM = 128 (two consumer warpgroups of 64 rows), BN a multiple of 64 up "
                           "to 256; BK = 64; the stages fit in 227 KiB of shared memory",
            .check = ladderCheck<maps::Persistent>(warpSpecialisedRules<maps::Persistent>),
            .types = {ElementType::F16, ElementType::BF16},
            .hue = {"#8a034e", "#fd88cb"},
            .cudaArchitecture = {.minimum = 90,
                                 .only = true,
                                 .needs = "Hopper's wgmma, TMA and clusters"}},
       .threadMap = ladderThreadMap<maps::Persistent>,
       .stepRecipe = stepRecipe});
}

}  // namespace tilescope::families::tensor_persistent
