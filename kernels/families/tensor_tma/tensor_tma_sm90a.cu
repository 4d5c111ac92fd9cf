// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-tma (Hopper, sm_90a only): warp specialisation. Warpgroup 0 produces: its thread 0 fills
// each shared stage with TMA bulk tensor copies that complete on the stage's `full` mbarrier.
// Warpgroups 1 and 2 consume: each waits on `full`, multiplies its 64 rows with wgmma m64nBNk16,
// keeps one batch in flight and releases the stage on its `empty` mbarrier. No block-wide barrier
// after the barriers' set-up. Every index, byte offset and role comes from maps::Tma.
#include <array>
#include <utility>

#include "families/tensor_tma/tensor_tma.hpp"
#include "tensor_map.hpp"
#include "tma_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::Tma;

template <int kIndex, typename Element>
__global__ void __launch_bounds__(kConfig<Tma, kIndex>.threads(), 1)
    tmaKernel(const ProductArgs args, const __grid_constant__ CUtensorMap aTensor,
              const __grid_constant__ CUtensorMap bTensor) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Tma kMap = kConfig<Tma, kIndex>.withElementBytes(kBytes<Element>);
  constexpr Tma map = kMap;
  constexpr int kStages = map.stages;
  constexpr int kConsumerWarps = Tma::kConsumerWarpgroups * Tma::kWarpgroupThreads / 32;
  extern __shared__ __align__(16) unsigned char dynamicShared[];
  unsigned char* const base = atomAligned(dynamicShared);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(base + kStages * map.stageBytes());
  std::uint64_t* const empty = full + kStages;
  constexpr Pipeline pipeline = map.pipeline();
  const auto stage = [&](std::int64_t s) { return base + pipeline.stageOf(s) * map.stageBytes(); };
  const int t = int(threadIdx.x);
  const Dim2 block = blockCoord();
  // TMA needs 16-byte aligned rows; an operand without them is copied by the producer's threads.
  const bool aByTma = map.aVectorCopies(args.k), bByTma = map.bVectorCopies(args.n);
  const bool allByTma = aByTma && bByTma;
  const std::int64_t steps = ceilDiv(args.k, map.kDepth());

  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      initBarrier(&full[s], allByTma ? 1 : Tma::kWarpgroupThreads);
      initBarrier(&empty[s], kConsumerWarps);
    }
    fenceBarrierInit();
  }
  __syncthreads();  // the only block-wide barrier: the mbarriers exist from here on

  if (map.isProducer(t)) {
    shrinkRegisters<kProducerRegisters>();
    if (allByTma && t != 0) return;
    const unsigned tmaBytes =
        (aByTma ? map.aStageBytes() : 0) + (bByTma ? map.stageBytes() - map.aStageBytes() : 0);
    for (std::int64_t s = 0; s < steps; ++s) {
      const int index = pipeline.stageOf(s);
      // The stage's previous use (step s - stages) must have been released by every consumer warp.
      if (s >= kStages) waitBarrier(&empty[index], int((s / kStages - 1) & 1));
      unsigned char* const aTile = stage(s);
      unsigned char* const bTile = aTile + map.aStageBytes();
      if (t == 0) {
        if (allByTma)
          arriveExpectingBytes(&full[index], tmaBytes);
        else if (tmaBytes > 0)
          expectBytes(&full[index], tmaBytes);
        const int k0 = int(s * map.bk);
        if (aByTma) loadBox(aTile, aTensor, k0, block.y * map.bm, &full[index]);
        if (bByTma)
          for (int slab = 0; slab < map.bn * kBytes<Element> / Tma::kRowBytes; ++slab)
            loadBox(bTile + slab * map.slabBytes(), bTensor,
                    block.x * map.bn + slab * (Tma::kRowBytes / kBytes<Element>), k0, &full[index]);
      }
      if (allByTma) continue;
      if (!aByTma) copyElements<kMap, Element, true>(args, block, t, s, aTile);
      if (!bByTma) copyElements<kMap, Element, false>(args, block, t, s, bTile);
      fenceSharedForAsyncProxy();  // the stores above, then wgmma's reads through the async proxy
      arrive(&full[index]);
    }
    return;
  }

  growRegisters<kConsumerRegisters>();
  const int consumer = map.consumerOf(t);
  // Not zeroed: the first instruction overwrites them (accumulate 0), which keeps ptxas from
  // serialising the wgmma batches.
  float sum[map.bn / 2];
  for (std::int64_t s = 0; s < steps; ++s) {
    const int index = pipeline.stageOf(s);
    waitBarrier(&full[index], int((s / kStages) & 1));
    multiplyStage<kMap, Element>(sum, stage(s), consumer, s > 0);
    // The batch of step s - 1 is done (step s's runs on): each warp frees that stage.
    waitWarpgroup<pipeline.mmaInFlight>();
    if (s > 0 && t % 32 == 0) arrive(&empty[pipeline.stageOf(s - 1)]);
  }
  waitWarpgroup<0>();

  storeTile<kMap>(args, block, t, sum);
#else
  __trap();  // wgmma and setmaxnreg exist on sm_90a only; the backend refuses other GPUs
#endif
}

using TmaKernel = void (*)(ProductArgs, CUtensorMap, CUtensorMap);

template <typename Element, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return std::pair{kConfigs<Tma>,
                   std::array<TmaKernel, sizeof...(kIndex)>{tmaKernel<kIndex, Element>...}};
}

template <typename Element>
const auto kKernels =
    makeTable<Element>(std::make_integer_sequence<int, maps::validCount<Tma>()>{});

template <typename Element>
void launchFor(const Tma& configured, const ProductArgs& args, CUtensorMapDataType type) {
  const Tma map = configured.withElementBytes(kBytes<Element>);
  const auto& [configs, kernels] = kKernels<Element>;
  TmaKernel kernel = nullptr;
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (configs[i].values() == map.values()) kernel = kernels[i];
  if (kernel == nullptr)
    throw Error(ErrorKind::InvalidArgument,
                "tensor-tma: no CUDA kernel is compiled for this configuration");
  const Dim2 grid = map.grid(args.m, args.n), block = map.block();
  const std::size_t shared = std::size_t(map.sharedBytes());
  if (LaunchProbe* probe = LaunchProbe::active()) {
    probe->record({reinterpret_cast<const void*>(kernel), grid, block, shared});
    return;
  }
  // Operands TMA cannot describe keep a zeroed map the kernel never reads.
  const CUtensorMap aTensor =
      map.aVectorCopies(args.k)
          ? swizzledTensorMap(args.a, args.m, args.k, map.bm, type, "tensor-tma")
          : CUtensorMap{};
  const CUtensorMap bTensor =
      map.bVectorCopies(args.n)
          ? swizzledTensorMap(args.b, args.k, args.n, map.bk, type, "tensor-tma")
          : CUtensorMap{};
  checkLaunch(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
      "tensor-tma", grid, block);
  kernel<<<dim3(unsigned(grid.x), unsigned(grid.y)), dim3(unsigned(block.x)), shared>>>(
      args, aTensor, bTensor);
  checkLaunch(cudaGetLastError(), "tensor-tma", grid, block);
}

}  // namespace

static void launchTma(const Tma& map, const ProductArgs& args) {
  switch (args.element) {
    case ElementType::F16:
      return launchFor<__half>(map, args, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    case ElementType::BF16:
      return launchFor<__nv_bfloat16>(map, args, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    case ElementType::F32:
    case ElementType::TF32:
      break;
  }
  throw Error(ErrorKind::Unsupported,
              "tensor-tma multiplies fp16 or bf16 (tf32 wgmma reads B only K-major, which a "
              "TMA copy of row-major B is not; tensor-tf32 multiplies tf32)");
}

}  // namespace tilescope::cuda

namespace tilescope::families::tensor_tma {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("tensor-tma", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchTma(ladderMap<maps::Tma>(params), args);
                }});
}

}  // namespace tilescope::families::tensor_tma
