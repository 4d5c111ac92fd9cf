// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-mma: its catalogue entry, its thread map and its schedule on the CPU, registered once.

#include "families/tensor_mma/tensor_mma.hpp"

#include <algorithm>
#include "families/registration.hpp"

namespace tilescope::families::tensor_mma {

namespace {

// The rules tensor-mma words itself (the others: explainRule).
std::optional<std::string> ownRules(const maps::TensorCore& map, maps::TilingRule rule) {
  if (rule == maps::TilingRule::TileDivides)
    return "the warp tile WM x WN = " + str(map.wm) + " x " + str(map.wn) +
           " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn);
  if (rule == maps::TilingRule::Fragments)
    return "a warp tile is whole 16 x 16 pieces of two 16 x 8 accumulators, and a k-step whole "
           "16-deep chunks: WM = " +
           str(map.wm) + " must be a multiple of 16, WN = " + str(map.wn) +
           " of 16, BK = " + str(map.bk) + " of 16";
  return std::nullopt;
}

// The k-step view's words for the product of the staged tiles: a warp's fragments, then one
// mma.sync per 16 x 8 accumulator.
std::string productPhrase(const Mapping& m) {
  const auto& map = std::get<maps::TensorCore>(m.threadMap());
  const int chunk = std::max(m.readsEveryK(Operand::A), m.readsEveryK(Operand::B));
  const std::string reads = storageBytes(m.element()) == 2 ? "ldmatrix.x4 loads" : "word loads";
  return "for each of the " + str(m.kDepth() / chunk) + " chunks of " + str(chunk) +
         " values of k, each warp loads its fragments from the tiles (" +
         str(m.sharedReadSlots(Operand::A)) + " " + reads + " of As, " +
         str(m.sharedReadSlots(Operand::B)) + " of Bs) and issues " +
         str(map.fragmentsM() * map.fragmentsN()) + " " + m.mmaShape() +
         " mma.sync instructions, one per 16×8 accumulator; each lane keeps " +
         std::to_string(m.rowsPerThread() * m.colsPerThread()) +
         " of its warp's sums (rows g and g+8, columns 2q and 2q+1 of each accumulator, lane = "
         "4g + q)";
}

// The block view's legend of a warp's sub-tiles: the halves of its accumulators.
std::string warpPieces(std::size_t count, const std::string& tile, const std::string& lanes) {
  return std::to_string(count) + " accumulator halves of " + tile + " (lanes as " + lanes +
         ": lane 4g + q at row g, columns 2q and 2q+1)";
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info =
           {.id = "tensor-mma",
            .displayName = "Tensor cores (mma.sync)",
            .seed =
                "CUTLASS's sm80 multistage tensor-op GEMM; the PTX ISA's mma.sync fragment layouts",
            .teaching =
                "The multiply-adds move from the FP32 cores to the tensor cores: one mma.sync "
                "instruction has a warp multiply a 16 x 16 fp16 (or bf16, or 16 x 8 tf32) fragment "
                "of A by one of B into a 16 x 8 FP32 accumulator, 4096 multiply-adds at once. The "
                "warp tiles are as in warptile, but a lane's outputs now follow the hardware's "
                "fragment layout (rows g and g+8, columns 2q and 2q+1, lane = 4g + q). ldmatrix "
                "loads the fragments from shared rows padded onto distinct banks, and cp.async "
                "stages keep the tiles coming.",
            .params = ladderParams(
                maps::TensorCore::fromValues({128, 128, 32, 64, 32, 4}),
                withBlock({{"WM", "rows of C per warp: WM/16 accumulator rows of 16"},
                           {"WN", "columns of C per warp: WN/8 accumulator columns of 8"},
                           {"stages", "shared buffers in flight: the cp.async pipeline depth"}})),
            .backends = {"cuda"},
            .constraints =
                "(BM/WM)*(BN/WN) = 4..8 warps; WM, WN multiples of 16; " + kEvenCopiesRule,
            .check = ladderCheck<maps::TensorCore>(ownRules),
            .types = {ElementType::F16, ElementType::BF16, ElementType::TF32},
            .hue = {"#dd1e35", "#f91215"},
            .cudaArchitecture = {.minimum = 80,
                                 .needs = "mma.sync on fp16, bf16 and tf32 and cp.async"}},
       .threadMap = ladderThreadMap<maps::TensorCore>,
       .productPhrase = productPhrase,
       .warpPieces = warpPieces});
}

}  // namespace tilescope::families::tensor_mma
