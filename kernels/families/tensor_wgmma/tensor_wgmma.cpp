// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-wgmma: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/tensor_wgmma/tensor_wgmma.hpp"
#include "families/registration.hpp"

namespace tilescope::families::tensor_wgmma {

namespace {

// The rules tensor-wgmma words itself (the others: explainRule).
std::optional<std::string> ownRules(const maps::Wgmma& map, maps::TilingRule rule) {
  if (rule == maps::TilingRule::TileDivides)
    return "a warpgroup takes 64 rows and an instruction 128 columns: BM = " + str(map.bm) +
           " must be a multiple of 64 and BN = " + str(map.bn) + " of 128";
  if (rule == maps::TilingRule::Fragments)
    return "a k-step is one 128-byte swizzled row of A: BK = " + str(map.bk) +
           " must be 64 16-bit values";
  return std::nullopt;
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "tensor-wgmma",
                .displayName = "Tensor cores (Hopper wgmma)",
                .seed = "Hopper's warpgroup MMA (PTX wgmma.mma_async); CUTLASS's sm90 GEMM layouts",
                .teaching =
                    "Hopper's tensor cores take whole warpgroups: four warps issue one "
                    "wgmma.mma_async that multiplies a 64 x 16 piece of A by a 16 x 128 piece of "
                    "B, both read straight from shared memory through descriptors, no ldmatrix. "
                    "The tiles sit in the 128-byte swizzle the instruction expects (chunk c of row "
                    "r at c XOR r mod 8), and the instruction runs asynchronously: the warps only "
                    "wait for it before the stage is reused. Needs an sm_90 GPU (H100, H200).",
                .params = ladderParams(
                    maps::Wgmma::fromValues({128, 256, 64, 4}),
                    withBlock(
                        {{"stages", "shared buffers in flight: the cp.async pipeline depth"}})),
                .backends = {"cuda"},
                .constraints = "BM multiple of 64 (one warpgroup each), BN of 128; BK = 64; " +
                               kEvenCopiesRule,
                .check = ladderCheck<maps::Wgmma>(ownRules),
                .types = {ElementType::F16, ElementType::BF16},
                .hue = {"#b601ee", "#d202d1"},
                .cudaArchitecture = {.minimum = 90, .only = true, .needs = "Hopper's wgmma"}},
       .threadMap = ladderThreadMap<maps::Wgmma>});
}

}  // namespace tilescope::families::tensor_wgmma
