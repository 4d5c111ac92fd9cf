// tensor-tma (Hopper, sm_90a only): warp specialisation. Warpgroup 0 produces: its thread 0 fills
// each shared stage with TMA bulk tensor copies that complete on the stage's `full` mbarrier.
// Warpgroups 1 and 2 consume: each waits on `full`, multiplies its 64 rows with wgmma m64nBNk16,
// keeps one batch in flight and releases the stage on its `empty` mbarrier. No block-wide barrier
// after the barriers' set-up. Every index, byte offset and role comes from maps::Tma.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>
#include <string>
#include <utility>

#include "wgmma_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::Tma;

// ---- mbarriers (PTX ISA, "Parallel synchronization and communication: mbarrier") ----

__device__ __forceinline__ void initBarrier(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(barrier)),
               "r"(arrivals)
               : "memory");
}
// Makes the initialised barriers visible to the copy engine (the async proxy).
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void arrive(std::uint64_t* barrier) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                   sharedAddress(barrier))
               : "memory");
}
// Arrives and announces `bytes` the copy engine will deliver to this phase.
__device__ __forceinline__ void arriveExpectingBytes(std::uint64_t* barrier, unsigned bytes) {
  asm volatile(
      "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
          sharedAddress(barrier)),
      "r"(bytes)
      : "memory");
}
// Announces `bytes` without arriving (the thread arrives later, after its own stores).
__device__ __forceinline__ void expectBytes(std::uint64_t* barrier, unsigned bytes) {
  asm volatile(
      "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(barrier)),
      "r"(bytes)
      : "memory");
}
// Waits until the barrier's phase of parity `parity` has completed.
__device__ __forceinline__ void waitBarrier(std::uint64_t* barrier, int parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(sharedAddress(barrier)), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- TMA: one box of a 2-D tensor map into shared memory, completing on `barrier` ----

__device__ __forceinline__ void loadBox(unsigned char* destination, const CUtensorMap& tensor,
                                        int column, int row, std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(sharedAddress(destination)),
      "l"(reinterpret_cast<std::uint64_t>(&tensor)), "r"(column), "r"(row),
      "r"(sharedAddress(barrier))
      : "memory");
}

// setmaxnreg: the producer gives registers back, the consumers take them (a multiple of 8; the
// whole warpgroup executes it). 128 x 40 + 256 x 232 registers fit in the SM's 65536.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
template <int kRegisters>
__device__ __forceinline__ void shrinkRegisters() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void growRegisters() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

// The edge path: rows of A (or B) that are not 16-byte aligned (K, or N, no multiple of 8), which
// TMA cannot describe. Producer thread t copies its vectors of the tile (aCopy/aLoad, or
// bCopy/bLoad) element by element into the bytes aByte (bByte) names, zero past the matrix. Not
// unrolled: the producer runs on 40 registers.
template <auto kMap, typename Element, bool kA>
__device__ __forceinline__ void copyElements(const ProductArgs& args, Dim2 block, int t,
                                             std::int64_t s, unsigned char* tile) {
  constexpr auto map = kMap;
  constexpr maps::TileCopy copy = kA ? map.aCopy() : map.bCopy();
  const Bits<Element>* matrix = kA ? args.aAs<Bits<Element>>() : args.bAs<Bits<Element>>();
  const std::int64_t rows = kA ? args.m : args.k, cols = kA ? args.k : args.n;
  const Dim2 thread{t, 0};
#pragma unroll 1
  for (int i = 0; i < copy.copiesPerThread(); ++i) {
    const Cell to = copy.at(t, i);
    const Cell from = kA ? map.aLoad(block, thread, s, i) : map.bLoad(block, thread, s, i);
#pragma unroll 1
    for (int e = 0; e < copy.width; ++e) {
      const int byte =
          kA ? map.aByte(int(to.row), int(to.col) + e) : map.bByte(int(to.row), int(to.col) + e);
      *reinterpret_cast<Bits<Element>*>(tile + byte) =
          from.row < rows && from.col + e < cols ? matrix[from.row * cols + from.col + e] : 0;
    }
  }
}

template <int kIndex, typename Element>
__global__ void __launch_bounds__(kConfig<Tma, kIndex>.threads(), 1)
    tmaKernel(const ProductArgs args, const __grid_constant__ CUtensorMap aTensor,
              const __grid_constant__ CUtensorMap bTensor) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Tma kMap = kConfig<Tma, kIndex>.withElementBytes(kBytes<Element>);
  constexpr Tma map = kMap;
  constexpr int kStages = map.stages, kAtom = Tma::kAtomBytes;
  constexpr int kConsumerWarps = Tma::kConsumerWarpgroups * Tma::kWarpgroupThreads / 32;
  extern __shared__ __align__(16) unsigned char dynamicShared[];
  // TMA's swizzle and wgmma's descriptors work on address bits: every atom on a 1024-byte boundary.
  unsigned char* const base =
      dynamicShared + (kAtom - int(sharedAddress(dynamicShared) % kAtom)) % kAtom;
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
    const unsigned char* aTile = stage(s) + map.aByte(consumer * Tma::kConsumerRows, 0);
    const unsigned char* bTile = stage(s) + map.aStageBytes();
    fenceAccumulators();
#pragma unroll
    for (int kk = 0; kk < map.bk / Tma::kInstrK; ++kk) {
      // A: 16 more k values are 32 bytes along the swizzled rows, 8-row atoms 1024 bytes apart.
      // B: 16 k values are two 8-row atom groups (1024 bytes each) down every slab; the slabs,
      // 64 columns each, lie slabBytes apart.
      const std::uint64_t a = descriptor(aTile + kk * Tma::kInstrK * kBytes<Element>, 16, kAtom);
      const std::uint64_t b =
          descriptor(bTile + kk * Tma::kInstrK * Tma::kRowBytes, map.slabBytes(), kAtom);
      WarpgroupMma<Element, map.bn>::run(sum, a, b, s > 0 || kk > 0);
    }
    commitWarpgroup();
    // The batch of step s - 1 is done (step s's runs on): each warp frees that stage.
    waitWarpgroup<pipeline.mmaInFlight>();
    if (s > 0 && t % 32 == 0) arrive(&empty[pipeline.stageOf(s - 1)]);
  }
  waitWarpgroup<0>();

  // Register j is output slot (row j % 4 / 2, column 2 (j / 4) + j % 2).
  const Dim2 thread{t, 0};
  const bool pairs = !recordsOwners(args) && map.vectorStores(args.n);
#pragma unroll
  for (int j = 0; j < map.bn / 2; j += 2) {
    const std::int64_t row = map.row(block, thread, j % 4 / 2);
    const std::int64_t col = map.col(block, thread, 2 * (j / 4));
    if (row >= args.m) continue;
    if (pairs) {
      if (col < args.n)
        *reinterpret_cast<float2*>(args.c + row * args.n + col) = make_float2(sum[j], sum[j + 1]);
      continue;
    }
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (col + e >= args.n) continue;
      if (recordsOwners(args))
        storeOutput<true>(args, row, col + e, sum[j + e]);
      else
        storeOutput<false>(args, row, col + e, sum[j + e]);
    }
  }
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

// cuTensorMapEncodeTiled from the driver the runtime has loaded, so nothing links libcuda.
PFN_cuTensorMapEncodeTiled_v12000 encodeTiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    TS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000,
                                                   cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || entry == nullptr)
      throw Error(ErrorKind::Unsupported,
                  "tensor-tma needs cuTensorMapEncodeTiled, which this CUDA driver does not offer");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return function;
}

// A rows x cols row-major matrix of 16-bit elements, read in boxes of boxRows x 64 (128 bytes, the
// widest row the 128-byte swizzle takes) that land swizzled; past the edges the engine writes
// zeros. The caller has checked that a row is a multiple of 16 bytes.
CUtensorMap tensorMap(const void* matrix, std::int64_t rows, std::int64_t cols, int boxRows,
                      CUtensorMapDataType type) {
  CUtensorMap tensor{};
  const cuuint64_t size[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t rowBytes[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {cuuint32_t(Tma::kRowBytes / 2), cuuint32_t(boxRows)};
  const cuuint32_t step[2] = {1, 1};
  const CUresult status =
      encodeTiled()(&tensor, type, 2, const_cast<void*>(matrix), size, rowBytes, box, step,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw Error(ErrorKind::LaunchFailed, "tensor-tma: cuTensorMapEncodeTiled refused a " +
                                             std::to_string(rows) + " x " + std::to_string(cols) +
                                             " operand (CUresult " + std::to_string(int(status)) +
                                             ")");
  return tensor;
}

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
      map.aVectorCopies(args.k) ? tensorMap(args.a, args.m, args.k, map.bm, type) : CUtensorMap{};
  const CUtensorMap bTensor =
      map.bVectorCopies(args.n) ? tensorMap(args.b, args.k, args.n, map.bk, type) : CUtensorMap{};
  checkLaunch(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)),
      "tensor-tma", grid, block);
  kernel<<<dim3(unsigned(grid.x), unsigned(grid.y)), dim3(unsigned(block.x)), shared>>>(
      args, aTensor, bTensor);
  checkLaunch(cudaGetLastError(), "tensor-tma", grid, block);
}

}  // namespace

void launchTma(const Tma& map, const ProductArgs& args) {
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
              "TMA copy of row-major B is not)");
}

}  // namespace tilescope::cuda
