// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-fp8: its catalogue entry and its thread map, registered once (it runs on the GPU only).

#include "families/tensor_fp8/tensor_fp8.hpp"
#include "families/registration.hpp"
#include "families/tensor_tma/tensor_tma_recipe.hpp"

namespace tilescope::families::tensor_fp8 {

namespace {

// The rules tensor-fp8 words itself (the others: explainRule).
std::optional<std::string> ownRules(const Map& map, maps::TilingRule rule) {
  if (rule == maps::TilingRule::TileDivides)
    return "two consumer warpgroups take 64 rows each and one instruction all the columns: BM = " +
           str(map.bm) + " must be 128 and BN = " + str(map.bn) + " a multiple of 64 up to 256";
  if (rule == maps::TilingRule::Fragments)
    return "a k-step is one 128-byte swizzled row of A and of B: BK = " + str(map.bk) +
           " must be 128 FP8 values";
  if (rule == maps::TilingRule::SharedMemory)
    return str(map.stages) + " stages of " + str(map.stageBytes() / 1024) + " KiB (A " +
           str(map.bm) + " x " + str(map.bk) + ", B " + str(map.bn) + " x " + str(map.bk) +
           " bytes) and their barriers need " + str(map.sharedBytes() / 1024) +
           " KiB of shared memory; a block may take " + str(Map::kSharedLimitBytes / 1024) + " KiB";
  return std::nullopt;
}

// The k-step view's recipe: tensor-persistent's pipeline and tile order, with both operands
// K-major.
std::string stepRecipe(const Mapping& m) {
  const Map& map = std::get<Map>(m.threadMap());
  const std::string bk = str(map.bk);
  return "Warp-specialised and persistent like tensor-persistent, a " + str(map.stages) +
         "-stage pipeline over one-byte FP8 values. wgmma reads FP8 tiles from shared memory only "
         "along k, so B is stored transposed (N rows of K values), as cuBLASLt's FP8 matmul also "
         "wants it. In every k-step:\nproducer (warpgroup 0, one thread): wait on 'empty', then "
         "ask the TMA copy engine for one box of A (" +
         str(map.bm) + " × " + bk + ") and " + str(map.bn / Map::kSlabRows) + " boxes of B (" +
         str(Map::kSlabRows) + " n rows × " + bk +
         " k), landing in the 128-byte swizzle\nconsumers (warpgroups 1 and 2, " +
         str(Map::kConsumerRows) + " rows each): wait on 'full', issue " +
         str(map.bk / Map::kInstrK) + " wgmma m64n" + str(map.bn) +
         "k32 reading both tiles from shared memory, keep that batch in flight and free the "
         "previous step's stage; each thread keeps " +
         std::to_string(m.rowsPerThread() * m.colsPerThread()) + " FP32 sums" +
         persistentVariantTiles(m, map);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "tensor-fp8",
            .displayName = "Tensor cores FP8 (persistent, E4M3 and E5M2)",
            .seed = "tensor-persistent; the PTX ISA's wgmma .e4m3 and .e5m2 (FP8 operands in "
                    "shared memory must be K-major); cuBLASLt's FP8 matmul",
            .teaching =
                "tensor-persistent for 8-bit floats: each value takes one byte, so a 128-byte "
                "row of a stage holds 128 values of k and one wgmma multiplies 32 of them. The "
                "tensor cores do twice the work per cycle that they do in fp16, and each byte "
                "moved feeds twice as many operations. FP8 tiles must lie along k in shared "
                "memory, and the copy engine cannot transpose, so B is stored transposed in "
                "global memory (N rows of K values), as cuBLASLt's FP8 matmul wants it. E4M3 "
                "keeps 3 mantissa bits and values up to 448; E5M2 2 bits and values up to 57344. "
                "The sums stay in FP32. Needs an sm_90 GPU (H100, H200) and K a multiple of 16.",
            .params =
                ladderParams(Map::fromValues({128, 256, 128, 4, 2, 16}), kPersistentDescriptions),
            .backends = {"cuda"},
            .constraints = "BM = 128 (two consumer warpgroups of 64 rows), BN a multiple of 64 up "
                           "to 256; BK = 128 (128-byte rows of FP8); the stages fit in 227 KiB of "
                           "shared memory; K a multiple of 16",
            .check = ladderCheck<Map>(ownRules),
            .types = {ElementType::E4M3, ElementType::E5M2},
            .hue = {"#0c0036", "#f6f6fc"},
            .cudaArchitecture = {.minimum = 90,
                                 .only = true,
                                 .needs = "Hopper's FP8 wgmma, TMA and clusters"}},
       .threadMap = ladderThreadMap<Map>,
       .stepRecipe = stepRecipe});
}

}  // namespace tilescope::families::tensor_fp8
