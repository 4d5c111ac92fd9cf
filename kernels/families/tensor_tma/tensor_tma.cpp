// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-tma: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/tensor_tma/tensor_tma.hpp"
#include "families/registration.hpp"
#include "families/tensor_tma/tensor_tma_recipe.hpp"
#include "families/tensor_tma/tensor_tma_rules.hpp"

namespace tilescope::families::tensor_tma {

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "tensor-tma",
            .displayName = "Tensor cores (TMA, warp-specialised)",
            .seed = "CUTLASS's sm90 warp-specialised GEMM; fast.cu kernels 4-5 (pranjalssh); the "
                    "PTX ISA's cp.async.bulk.tensor, mbarrier and setmaxnreg",
            .teaching =
                "The block splits into roles. One producer warpgroup only copies: a single thread "
                "asks the TMA copy engine for whole swizzled tiles of A and B, and the engine "
                "signals an mbarrier when a stage has arrived. Two consumer warpgroups only "
                "multiply: each waits for a stage's barrier, runs wgmma m64n256k16 on it, and "
                "frees the stage on another barrier once its batch is done, with the next batch "
                "already issued. No thread waits at a block-wide barrier, and the producer hands "
                "its registers to the consumers (setmaxnreg) so each can hold 128 accumulators. "
                "Needs an sm_90 GPU (H100, H200).",
            .params = ladderParams(
                maps::Tma::fromValues({128, 256, 64, 4}),
                withBlock({{"stages", "shared stages the producer fills ahead of the consumers"}})),
            .backends = {"cuda"},
            .constraints = "BM = 128 (two consumer warpgroups of 64 rows), BN a multiple of 64 up "
                           "to 256; BK = 64; the stages fit in 227 KiB of shared memory",
            .check = ladderCheck<maps::Tma>(warpSpecialisedRules<maps::Tma>),
            .types = {ElementType::F16, ElementType::BF16},
            .hue = {"#bb8883", "#dba89f"},
            .cudaArchitecture = {.minimum = 90, .only = true, .needs = "Hopper's wgmma and TMA"}},
       .threadMap = ladderThreadMap<maps::Tma>,
       .stepRecipe = [](const Mapping& m) {
         return warpSpecialisedRecipe(m, std::get<maps::Tma>(m.threadMap()));
       }});
}

}  // namespace tilescope::families::tensor_tma
