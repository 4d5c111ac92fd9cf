// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-wgmma (Hopper's warpgroup MMA, sm_90a only): each warpgroup multiplies its 64 rows of
// the block tile with wgmma.mma_async reading A and B from 128-byte swizzled cp.async stages
// through shared-memory descriptors. Every index and byte offset comes from maps::Wgmma.
#include "families/tensor_wgmma/tensor_wgmma.hpp"
#include "wgmma_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::Wgmma;

template <int kIndex, typename Element>
__global__ void __launch_bounds__(kConfig<Wgmma, kIndex>.threads()) wgmmaKernel(ProductArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Wgmma kMap = kConfig<Wgmma, kIndex>.withElementBytes(kBytes<Element>);
  constexpr Wgmma map = kMap;
  constexpr int kStages = map.stages, kAtom = Wgmma::kAtomBytes;
  extern __shared__ __align__(16) unsigned char dynamicShared[];
  // The swizzle works on address bits, so every atom starts on a 1024-byte boundary.
  unsigned char* const base =
      dynamicShared + (kAtom - int(sharedAddress(dynamicShared) % kAtom)) % kAtom;
  const Dim2 block = blockCoord();
  const int t = int(threadIdx.x), warpgroup = t / 128;
  const auto stageOf = [&](std::int64_t s) { return base + int(s % kStages) * map.stageBytes(); };
  // Not zeroed: the first instruction overwrites them (accumulate 0). Registers a wgmma group
  // uses that other instructions define make ptxas serialise every wgmma.
  float sum[map.instructionsN()][64];
  const std::int64_t steps = ceilDiv(args.k, map.kDepth());
  // Tiles s + 1 .. s + kAhead are being copied while tile s is multiplied and the wgmma group of
  // tile s - 1 may still be reading its stage, so a stage is refilled two tiles after its use.
  constexpr int kAhead = kStages - 2;
  static_assert(kAhead >= 1, "tensor-wgmma needs at least three stages");
#pragma unroll
  for (int s = 0; s < kAhead; ++s) {
    if (s < steps) copyStage<kMap, Element>(args, block, t, s, stageOf(s));
    commitCopies();
  }
  constexpr int kAtomsAlongN = map.bn / Wgmma::kAtomCols;
  for (std::int64_t s = 0; s < steps; ++s) {
    waitCopies<kAhead - 1>();
    fenceSharedForAsyncProxy();
    // Past this barrier tile s is in place for every warpgroup, and each has finished the wgmma
    // group of tile s - 2, whose stage the next copy fills.
    __syncthreads();
    const std::int64_t ahead = s + kAhead;
    if (ahead < steps) copyStage<kMap, Element>(args, block, t, ahead, stageOf(ahead));
    commitCopies();
    const unsigned char* aTile = stageOf(s) + map.aByte(warpgroup * Wgmma::kWarpgroupRows, 0);
    const unsigned char* bTile = stageOf(s) + map.aStageBytes();
    fenceAccumulators();
#pragma unroll
    for (int kk = 0; kk < map.bk / Wgmma::kInstrK; ++kk) {
      // A: 16 more k values are 32 bytes further along the swizzled rows; 8-row atoms follow one
      // another. B: 16 k values are two 8-row atom groups; 64-column atoms lie side by side.
      const std::uint64_t a = descriptor(aTile + kk * Wgmma::kInstrK * kBytes<Element>, 16, kAtom);
#pragma unroll
      for (int i = 0; i < map.instructionsN(); ++i) {
        const unsigned char* bStart =
            bTile + (2 * kk * kAtomsAlongN + i * Wgmma::kInstrN / Wgmma::kAtomCols) * kAtom;
        WarpgroupMma<Element, Wgmma::kInstrN>::run(
            sum[i], a, descriptor(bStart, kAtom, kAtomsAlongN * kAtom), s > 0 || kk > 0);
      }
    }
    commitWarpgroup();
    waitWarpgroup<1>();  // tile s - 1's group is done; tile s's runs on into the next iteration
  }
  waitWarpgroup<0>();
  // Register j of instruction i is output slot (row j % 4 / 2, column 2 (16 i + j / 4) + j % 2).
  const Dim2 thread{t, 0};
  const bool pairs = !recordsOwners(args) && map.vectorStores(args.n);
#pragma unroll
  for (int i = 0; i < map.instructionsN(); ++i)
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      const std::int64_t row = map.row(block, thread, j % 4 / 2);
      const std::int64_t col = map.col(block, thread, 2 * (16 * i + j / 4));
      if (row >= args.m) continue;
      if (pairs) {
        if (col < args.n) storeOutputs(args, row, col, make_float2(sum[i][j], sum[i][j + 1]));
        continue;
      }
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (col + e >= args.n) continue;
        if (recordsOwners(args))
          storeOutput<true>(args, row, col + e, sum[i][j + e]);
        else
          storeOutput<false>(args, row, col + e, sum[i][j + e]);
      }
    }
#else
  __trap();  // wgmma exists on sm_90a only; the backend refuses other GPUs
#endif
}

template <typename Element, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return LadderTable<Wgmma, sizeof...(kIndex)>{kConfigs<Wgmma>, {wgmmaKernel<kIndex, Element>...}};
}

template <typename Element>
constexpr auto kKernels =
    makeTable<Element>(std::make_integer_sequence<int, maps::validCount<Wgmma>()>{});

template <typename Element>
void launchFor(const Wgmma& map, const ProductArgs& args) {
  launchLadder(kKernels<Element>.pick(map, "tensor-wgmma"), "tensor-wgmma",
               map.withElementBytes(kBytes<Element>), args);
}

}  // namespace

static void launchWgmma(const Wgmma& map, const ProductArgs& args) {
  switch (args.element) {
    case ElementType::F16:
      return launchFor<__half>(map, args);
    case ElementType::BF16:
      return launchFor<__nv_bfloat16>(map, args);
    case ElementType::F32:
    case ElementType::TF32:
      break;
  }
  throw Error(ErrorKind::Unsupported, "tensor-wgmma multiplies fp16 or bf16");
}

}  // namespace tilescope::cuda

namespace tilescope::families::tensor_wgmma {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("tensor-wgmma", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchWgmma(ladderMap<maps::Wgmma>(params), args);
                }});
}

}  // namespace tilescope::families::tensor_wgmma
