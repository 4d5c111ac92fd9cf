// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-tf32: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/tensor_tf32/tensor_tf32.hpp"
#include "families/registration.hpp"
#include "families/tensor_tma/tensor_tma_recipe.hpp"

namespace tilescope::families::tensor_tf32 {

namespace {

// The rules tensor-tf32 words itself (the others: explainRule).
std::optional<std::string> ownRules(const maps::PersistentTf32& map, maps::TilingRule rule) {
  if (rule == maps::TilingRule::TileDivides)
    return "two consumer warpgroups take 64 columns each and one instruction all the rows: BM = " +
           str(map.bm) + " must be 256 and BN = " + str(map.bn) + " 128";
  return std::nullopt;
}

// The k-step view's recipe: tensor-persistent's pipeline and tile order, each tile computed
// transposed with B through registers.
std::string stepRecipe(const Mapping& m) {
  using Map = maps::PersistentTf32;
  const Map& map = std::get<Map>(m.threadMap());
  const std::string bm = str(map.bm), bk = str(map.bk);
  return "Warp-specialised and persistent like tensor-persistent, a " + str(map.stages) +
         "-stage pipeline. tf32 wgmma reads shared tiles only along k, and B's rows run along n, "
         "so each tile is computed transposed (C^T = B^T A^T). In every k-step:\nproducer "
         "(warpgroup 0, one thread): wait on 'empty', then ask the TMA copy engine for one box of "
         "A (" +
         bm + " × " + bk + ") and " + str(map.bn / Map::kSlabColumns) + " boxes of B (" + bk +
         " × 32), landing in the 128-byte swizzle\nconsumers (warpgroups 1 and 2, " +
         str(Map::kConsumerColumns) + " columns each): wait on 'full'; for each of the " +
         str(map.bk / Map::kInstrK) +
         " chunks of 8 values of k, each thread reads 4 words of B from the stage into registers "
         "(lanes chosen so that a warp's reads hit 32 banks), then the warpgroup issues wgmma "
         "m64n" +
         bm +
         "k8 with those registers as its first operand and A's tile, read from shared memory, as "
         "its second; the batch stays in flight while the previous stage is freed; each thread "
         "keeps " +
         std::to_string(m.rowsPerThread() * m.colsPerThread()) +
         " of the sums, down two columns of C, and four lanes swap them before storing so that "
         "each writes 16 consecutive bytes" +
         persistentVariantTiles(m, map);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "tensor-tf32",
                .displayName = "Tensor cores tf32 (persistent, B through registers)",
                .seed = "tensor-persistent; the PTX ISA's wgmma with A in registers (tf32 operands "
                        "read from shared memory must be K-major)",
                .teaching =
                    "tensor-persistent for tf32. wgmma reads a tf32 tile from shared memory only "
                    "along k, and B's rows run along n, so the block computes its tile transposed: "
                    "C^T = B^T A^T. A's tile, whose rows run along k, becomes the instruction's "
                    "second operand and is read from shared memory as it lies; B's tile reaches "
                    "the instruction through registers, each consumer thread reading four words of "
                    "it before every 8-deep k-chunk. The columns a lane holds are chosen so that a "
                    "warp's 32 reads hit 32 different banks of the swizzled tile. A thread's "
                    "accumulators then lie down columns of C, so before storing, four lanes swap "
                    "values to write 16 consecutive bytes each. The tile is 256 x 128, like "
                    "cuBLAS's. Needs an sm_90 GPU (H100, H200).",
                .params = ladderParams(maps::PersistentTf32::fromValues({256, 128, 32, 4, 2, 8}),
                                       kPersistentDescriptions),
                .backends = {"cuda"},
                .constraints =
                    "BM = 256, BN = 128 (two consumer warpgroups of 64 columns), BK = 32 (128-byte "
                    "rows of tf32); the stages fit in 227 KiB of shared memory",
                .check = ladderCheck<maps::PersistentTf32>(ownRules),
                .types = {ElementType::TF32},
                .hue = {"#584d70", "#b5b7f9"},
                .cudaArchitecture = {.minimum = 90, .only = true, .needs = "Hopper's wgmma"}},
       .threadMap = ladderThreadMap<maps::PersistentTf32>,
       .stepRecipe = stepRecipe});
}

}  // namespace tilescope::families::tensor_tf32
