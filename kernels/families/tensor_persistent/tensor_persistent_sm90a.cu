// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-persistent, tensor-tf32 and tensor-fp8 (Hopper, sm_90a only): tensor-tma's
// warp-specialised block, launched once per SM and looping over output tiles in
// maps::PersistentOrder's grouped order. The producer's thread 0 runs ahead into the next tile's
// k-steps while the consumers still multiply or store this one: the stage ring and its mbarrier
// phases run on across tiles. With clusters of two blocks (two tiles stacked along M) each producer
// loads half of B's slabs and multicasts them into both blocks, and the consumers free a stage in
// both blocks. tensor-tf32 (maps::PersistentTf32) is the same kernel but for its consumers, which
// compute each tile transposed with B through registers. tensor-fp8 (maps::PersistentFp8) reads a
// K-major B, whose boxes are n rows like A's. Every index and the tile order come from the maps.
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "families/tensor_fp8/tensor_fp8.hpp"
#include "families/tensor_tf32/tensor_tf32.hpp"
#include "tensor_map.hpp"
#include "tma_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::Persistent;
using maps::PersistentFp8;
using maps::PersistentTf32;

template <typename Map>
inline constexpr bool kTransposed = std::is_same_v<Map, PersistentTf32>;
// The registers of the roles (setmaxnreg). On 40 the producer's thread spills its tile order and
// slab loop (52 bytes in 2-block clusters); on 56 it does not, and the consumers' 224 still hold
// fp16's and bf16's 128 accumulators: 2.4 % faster at 4096^3 (docs/performance.md). tensor-tf32's
// consumers also hold B's words and keep 232 (slower at 8192^3 on 224); tensor-fp8 ran as fast
// either way and keeps 40 / 232 too.
template <typename Map>
inline constexpr int kProducerRegs = std::is_same_v<Map, Persistent> ? 56 : kProducerRegisters;
template <typename Map>
inline constexpr int kConsumerRegs = std::is_same_v<Map, Persistent> ? 224 : kConsumerRegisters;
static_assert(128 * kProducerRegs<Persistent> + 256 * kConsumerRegs<Persistent> ==
                  128 * kProducerRegisters + 256 * kConsumerRegisters,
              "the roles share the registers the launch gave the block");

// A K-major B's box: 64 n rows (tensor-fp8).
template <typename Map>
inline constexpr int kSlabRows = 64;
template <>
inline constexpr int kSlabRows<PersistentFp8> = PersistentFp8::kSlabRows;

// The tile order's band height is read at run time, so one kernel serves every `group`: the
// compiled configurations are the valid ones with the first group.
template <typename Map>
inline constexpr int kCompiledGroup = Map::kAxes[5].values[0];

template <typename Map>
constexpr int compiledCount() {
  int count = 0;
  for (const Map& map : kConfigs<Map>) count += map.group == kCompiledGroup<Map>;
  return count;
}

template <typename Map>
constexpr std::array<Map, compiledCount<Map>()> compiledConfigs() {
  std::array<Map, compiledCount<Map>()> list{};
  std::size_t next = 0;
  for (const Map& map : kConfigs<Map>)
    if (map.group == kCompiledGroup<Map>) list[next++] = map;
  return list;
}

template <typename Map>
inline constexpr auto kCompiled = compiledConfigs<Map>();
template <typename Map, int kIndex>
inline constexpr Map kCompiledConfig = kCompiled<Map>[kIndex];

// `order` is the launch's map: the compiled one with its group and the resident blocks the
// launch counted, which place the tiles.
template <typename Map, int kIndex, typename Element>
__global__ void __launch_bounds__(kCompiledConfig<Map, kIndex>.threads(), 1)
    persistentKernel(const ProductArgs args, const Map order,
                     const __grid_constant__ CUtensorMap aTensor,
                     const __grid_constant__ CUtensorMap bTensor) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr Map kMap = kCompiledConfig<Map, kIndex>.withElementBytes(kBytes<Element>);
  constexpr Map map = kMap;
  constexpr int kStages = map.stages, kCluster = map.cluster;
  constexpr int kConsumerWarps = Map::kConsumerWarpgroups * Map::kWarpgroupThreads / 32;
  constexpr Pipeline pipeline = map.pipeline();
  extern __shared__ __align__(16) unsigned char dynamicShared[];
  unsigned char* const base = atomAligned(dynamicShared);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(base + kStages * map.stageBytes());
  std::uint64_t* const empty = full + kStages;
  // `filled` counts the k-steps through the ring since the launch, over every tile.
  const auto stage = [&](int filled) { return base + pipeline.stageOf(filled) * map.stageBytes(); };
  const int t = int(threadIdx.x);
  const int cta = int(blockIdx.x);
  const int rounds = order.roundsOf(cta, args.m, args.n);
  // Per block the k-steps of all its tiles stay far below 2^31 (A alone would not fit in memory
  // otherwise): int counters, since 64-bit ones made the producer spill on its 40 registers.
  const int steps = int(ceilDiv(args.k, map.kDepth()));
  // TMA needs 16-byte aligned rows; an operand without them is copied by the producer's threads,
  // each block its own (then nothing is multicast).
  // (tensor-fp8 runs only where K keeps both operands' rows aligned: TMA copies everything.)
  constexpr bool kBAlongK = kCopiesBAlongK<Map>;
  const bool aByTma = kBAlongK || map.aVectorCopies(args.k);
  const bool bByTma = kBAlongK || map.bVectorCopies(args.n);
  const bool allByTma = aByTma && bByTma;
  const bool multicast = map.multicastsB(args.k, args.n);
  // tensor-tf32's lanes read their words of B from the stage themselves. Where the producer's
  // threads write the stage, every lane frees it after its own reads: compute-sanitizer's racecheck
  // sees those writes, and does not follow the __syncwarp that orders the lanes' reads before lane
  // 0's arrival. Where TMA writes the stage, lane 0 frees it for its warp (every lane: 1.2 %
  // slower at 8192^3, docs/performance.md).
  const bool everyLaneReleases = kTransposed<Map> && !allByTma;

  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      initBarrier(&full[s], allByTma ? 1 : Map::kWarpgroupThreads);
      // Every consumer warp (or thread, see above) of every block of the cluster frees the stage
      // in every block.
      initBarrier(&empty[s], kConsumerWarps * (everyLaneReleases ? 32 : 1) * kCluster);
    }
    fenceBarrierInit();
  }
  // The barriers exist, in every block of the cluster, before a partner's copy or arrival comes.
  if constexpr (kCluster > 1)
    syncCluster();
  else
    __syncthreads();

  if (map.isProducer(t)) {
    shrinkRegisters<kProducerRegs<Map>>();
    if (!allByTma || t == 0) {
      // B's boxes: slabs of 64 columns (k rows of 128 bytes), or of 64 n rows when K-major.
      constexpr int kSlabs =
          kBAlongK ? map.bn / kSlabRows<Map> : map.bn * kBytes<Element> / Map::kRowBytes;
      constexpr int kSlabColumns = kBAlongK ? kSlabRows<Map> : Map::kRowBytes / kBytes<Element>;
      // With multicast this block loads its 1/cluster of B's slabs into every block.
      const int firstSlab = multicast ? int(clusterRank()) * (kSlabs / kCluster) : 0;
      const int lastSlab = multicast ? firstSlab + kSlabs / kCluster : kSlabs;
      const unsigned tmaBytes =
          (aByTma ? map.aStageBytes() : 0) + (bByTma ? map.stageBytes() - map.aStageBytes() : 0);
      int filled = 0;
      for (int round = 0; round < rounds; ++round) {
        const Dim2 tile = order.tileAt(cta, round, args.m, args.n);
        for (int s = 0; s < steps; ++s, ++filled) {
          const int index = pipeline.stageOf(filled);
          // The stage's previous use must have been freed by every consumer warp of the cluster
          // (with multicast this block writes into its partners' stages too).
          if (filled >= kStages) waitBarrier(&empty[index], int((filled / kStages - 1) & 1));
          unsigned char* const aTile = stage(filled);
          unsigned char* const bTile = aTile + map.aStageBytes();
          if (t == 0) {
            if (allByTma)
              arriveExpectingBytes(&full[index], tmaBytes);
            else if (tmaBytes > 0)
              expectBytes(&full[index], tmaBytes);
            const int k0 = int(s * map.bk);
            if (aByTma) loadBox(aTile, aTensor, k0, tile.y * map.bm, &full[index]);
            if (bByTma)
              for (int slab = firstSlab; slab < lastSlab; ++slab) {
                unsigned char* const to = bTile + slab * map.slabBytes();
                const int n0 = tile.x * map.bn + slab * kSlabColumns;
                // TMA's coordinates: innermost (contiguous) first.
                const int x = kBAlongK ? k0 : n0, y = kBAlongK ? n0 : k0;
                if (multicast)
                  loadBoxMulticast(to, bTensor, x, y, &full[index], (1u << kCluster) - 1);
                else
                  loadBox(to, bTensor, x, y, &full[index]);
              }
          }
          if constexpr (!kBAlongK) {
            if (allByTma) continue;
            if (!aByTma) copyElements<kMap, Element, true>(args, tile, t, s, aTile);
            if (!bByTma) copyElements<kMap, Element, false>(args, tile, t, s, bTile);
            fenceSharedForAsyncProxy();  // the stores above, then wgmma's reads (async proxy)
            arrive(&full[index]);
          }
        }
      }
    }
  } else {
    growRegisters<kConsumerRegs<Map>>();
    const int consumer = map.consumerOf(t);
    // Each warp frees a stage in every block of the cluster once its batch on it is done.
    const auto release = [&](int filled) {
      // tensor-tf32's lanes read their words of the stage themselves: all of them, then lane 0's
      // arrival (elsewhere the stage is read by wgmma, which every lane waited for).
      if constexpr (kTransposed<Map>) __syncwarp();
      if (!everyLaneReleases && t % 32 != 0) return;
      std::uint64_t* const barrier = &empty[pipeline.stageOf(filled)];
      if constexpr (kCluster > 1) {
        for (unsigned rank = 0; rank < unsigned(kCluster); ++rank) arriveInCluster(barrier, rank);
      } else {
        arrive(barrier);
      }
    };
    float sum[map.rowsPerThread() * map.colsPerThread()];
    int filled = 0;
    for (int round = 0; round < rounds; ++round) {
      if constexpr (kTransposed<Map>) {
        Tf32Words<kMap> words;
        for (int s = 0; s < steps; ++s, ++filled) {
          waitBarrier(&full[pipeline.stageOf(filled)], int((filled / kStages) & 1));
          // The batch of the k-step before reads its words of B from the registers this step's
          // words go to: it ends first, and frees its stage. (The other consumer's batch keeps
          // the tensor cores busy meanwhile; a second set of words, so that the batch could run
          // on, measured 10 % slower: H200, 4096^3.)
          waitWarpgroup<0>();
          if (s > 0) release(filled - 1);
          readTf32Words<kMap>(words, stage(filled), t);
          multiplyTransposed<kMap>(sum, words, stage(filled), s > 0);
        }
      } else {
        for (int s = 0; s < steps; ++s, ++filled) {
          waitBarrier(&full[pipeline.stageOf(filled)], int((filled / kStages) & 1));
          multiplyStage<kMap, Element>(sum, stage(filled), consumer, s > 0);
          // The batch of the k-step before is done (this one's runs on): free its stage.
          waitWarpgroup<pipeline.mmaInFlight>();
          if (s > 0) release(filled - 1);
        }
      }
      waitWarpgroup<0>();
      // The tile's last stage is free before its stores: the producer is filling the next tile.
      release(filled - 1);
      const Dim2 tile = order.tileAt(cta, round, args.m, args.n);
      if constexpr (kTransposed<Map>)
        storeTileTransposed<kMap>(args, tile, t, sum);
      else
        storeTileQuads<kMap>(args, tile, t, sum);
    }
  }
  // No block leaves while a partner may still multicast into it or arrive on its barriers.
  if constexpr (kCluster > 1) syncCluster();
#else
  __trap();  // wgmma, setmaxnreg and clusters' multicast need sm_90a; the backend refuses others
#endif
}

template <typename Map>
using PersistentKernel = void (*)(ProductArgs, Map, CUtensorMap, CUtensorMap);

template <typename Map, typename Element, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return std::array<PersistentKernel<Map>, sizeof...(kIndex)>{
      persistentKernel<Map, kIndex, Element>...};
}

template <typename Map, typename Element>
const auto kKernels =
    makeTable<Map, Element>(std::make_integer_sequence<int, compiledCount<Map>()>{});

template <typename Map>
const char* kernelName() {
  if constexpr (kCopiesBAlongK<Map>) return "tensor-fp8";
  return kTransposed<Map> ? "tensor-tf32" : "tensor-persistent";
}

template <typename Map, typename Element>
PersistentKernel<Map> kernelFor(const Map& map) {
  Map compiled = map;
  compiled.group = kCompiledGroup<Map>;
  for (std::size_t i = 0; i < kCompiled<Map>.size(); ++i)
    if (kCompiled<Map>[i].values() == compiled.values()) return kKernels<Map, Element>[i];
  throw Error(
      ErrorKind::InvalidArgument,
      std::string(kernelName<Map>()) + ": no CUDA kernel is compiled for this configuration");
}

template <typename Map>
cudaLaunchAttribute clusterAttribute(const Map& map) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = unsigned(map.cluster);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return attribute;
}

// The blocks of `kernel` the current GPU holds at once, in whole clusters (its stages take most of
// an SM's shared memory: one block per SM). Asked of CUDA once per kernel and device.
template <typename Map>
int countResidentCtas(PersistentKernel<Map> kernel, const Map& map) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, int> counted;
  int device = 0;
  TS_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard lock(mutex);
  const std::pair key{reinterpret_cast<const void*>(kernel), device};
  if (const auto it = counted.find(key); it != counted.end()) return it->second;

  const Dim2 block = map.block();
  const int shared = map.sharedBytes();
  checkLaunch(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared),
              kernelName<Map>(), {map.cluster, 1}, block);
  cudaLaunchAttribute cluster = clusterAttribute(map);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(map.cluster));
  config.blockDim = dim3(unsigned(block.x));
  config.dynamicSmemBytes = std::size_t(shared);
  config.attrs = &cluster;
  config.numAttrs = 1;
  int clusters = 0;
  TS_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  if (clusters < 1)
    throw Error(ErrorKind::LaunchFailed, std::string(kernelName<Map>()) + ": no cluster of " +
                                             std::to_string(map.cluster) + " blocks with " +
                                             std::to_string(shared / 1024) +
                                             " KiB of shared memory each fits on this GPU");
  return counted[key] = clusters * map.cluster;
}

template <typename Map, typename Element>
Map launchMap(const Map& configured) {
  const Map map = configured.withElementBytes(kBytes<Element>);
  return map.withResidentCtas(countResidentCtas(kernelFor<Map, Element>(map), map));
}

template <typename Map, typename Element>
void launchFor(const Map& configured, const ProductArgs& args, CUtensorMapDataType type) {
  const Map map = launchMap<Map, Element>(configured);
  const PersistentKernel<Map> kernel = kernelFor<Map, Element>(map);
  const Dim2 grid = map.launchGrid(args.m, args.n), block = map.block();
  const std::size_t shared = std::size_t(map.sharedBytes());
  if (LaunchProbe* probe = LaunchProbe::active()) {
    probe->record({reinterpret_cast<const void*>(kernel), grid, block, shared, map.clusterShape()});
    return;
  }
  // Operands TMA cannot describe keep a zeroed map the kernel never reads.
  const CUtensorMap aTensor =
      map.aVectorCopies(args.k)
          ? swizzledTensorMap(args.a, args.m, args.k, map.bm, type, kernelName<Map>())
          : CUtensorMap{};
  // A K-major B (N rows of K values) in boxes of 64 n rows; else K rows in boxes of BK.
  const CUtensorMap bTensor =
      !map.bVectorCopies(args.n) ? CUtensorMap{}
      : kCopiesBAlongK<Map>
          ? swizzledTensorMap(args.b, args.n, args.k, kSlabRows<Map>, type, kernelName<Map>())
          : swizzledTensorMap(args.b, args.k, args.n, map.bk, type, kernelName<Map>());
  cudaLaunchAttribute cluster = clusterAttribute(map);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(grid.x), unsigned(grid.y));
  config.blockDim = dim3(unsigned(block.x));
  config.dynamicSmemBytes = shared;
  config.attrs = &cluster;
  config.numAttrs = 1;
  checkLaunch(cudaLaunchKernelEx(&config, kernel, args, map, aTensor, bTensor), kernelName<Map>(),
              grid, block);
}

}  // namespace

static void launchPersistent(const maps::Persistent& map, const ProductArgs& args) {
  switch (args.element) {
    case ElementType::F16:
      return launchFor<Persistent, __half>(map, args, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    case ElementType::BF16:
      return launchFor<Persistent, __nv_bfloat16>(map, args, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    case ElementType::F32:
    case ElementType::TF32:
    case ElementType::E4M3:
    case ElementType::E5M2:
      break;
  }
  throw Error(
      ErrorKind::Unsupported,
      "tensor-persistent multiplies fp16 or bf16 (tf32: tensor-tf32; e4m3, e5m2: tensor-fp8)");
}

static int persistentResidentCtas(const maps::Persistent& map, ElementType element) {
  switch (element) {
    case ElementType::F16:
      return launchMap<Persistent, __half>(map).residentCtas;
    case ElementType::BF16:
      return launchMap<Persistent, __nv_bfloat16>(map).residentCtas;
    case ElementType::F32:
    case ElementType::TF32:
    case ElementType::E4M3:
    case ElementType::E5M2:
      break;
  }
  throw Error(ErrorKind::Unsupported, "tensor-persistent multiplies fp16 or bf16");
}

static void launchPersistentTf32(const maps::PersistentTf32& map, const ProductArgs& args) {
  if (args.element != ElementType::TF32)
    throw Error(ErrorKind::Unsupported,
                "tensor-tf32 multiplies tf32 (fp16, bf16: tensor-persistent)");
  launchFor<PersistentTf32, float>(map, args, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
}

static int persistentTf32ResidentCtas(const maps::PersistentTf32& map) {
  return launchMap<PersistentTf32, float>(map).residentCtas;
}

static void launchPersistentFp8(const maps::PersistentFp8& map, const ProductArgs& args) {
  // TMA copies rows that start on 16-byte boundaries only, and both operands' rows are K long.
  if (args.k % 16 != 0)
    throw Error(ErrorKind::Unsupported,
                "tensor-fp8 needs K a multiple of 16 (K = " + std::to_string(args.k) +
                    "): its FP8 rows must start on 16-byte boundaries for the copy engine, as "
                    "cuBLASLt's FP8 matmul needs too");
  switch (args.element) {
    case ElementType::E4M3:
      return launchFor<PersistentFp8, __nv_fp8_e4m3>(map, args, CU_TENSOR_MAP_DATA_TYPE_UINT8);
    case ElementType::E5M2:
      return launchFor<PersistentFp8, __nv_fp8_e5m2>(map, args, CU_TENSOR_MAP_DATA_TYPE_UINT8);
    case ElementType::F32:
    case ElementType::TF32:
    case ElementType::F16:
    case ElementType::BF16:
      break;
  }
  throw Error(ErrorKind::Unsupported, "tensor-fp8 multiplies e4m3 or e5m2");
}

static int persistentFp8ResidentCtas(const maps::PersistentFp8& map) {
  // One block per SM whatever the FP8 type: the same shared memory and registers.
  return launchMap<PersistentFp8, __nv_fp8_e4m3>(map).residentCtas;
}

}  // namespace tilescope::cuda

namespace tilescope::families::tensor_persistent {

// tensor-tf32 and tensor-fp8 are this kernel with maps::PersistentTf32 and maps::PersistentFp8:
// all three launch from here.
void registerCuda(cuda::Launchers& launchers) {
  launchers.add("tensor-persistent", {.launch =
                                          [](const Params& params, const cuda::ProductArgs& args) {
                                            cuda::launchPersistent(
                                                ladderMap<maps::Persistent>(params), args);
                                          },
                                      .residentBlocks =
                                          [](const Params& params, ElementType element) {
                                            return cuda::persistentResidentCtas(
                                                ladderMap<maps::Persistent>(params), element);
                                          }});
  launchers.add(
      "tensor-tf32",
      {.launch =
           [](const Params& params, const cuda::ProductArgs& args) {
             cuda::launchPersistentTf32(ladderMap<maps::PersistentTf32>(params), args);
           },
       .residentBlocks =
           [](const Params& params, ElementType) {
             return cuda::persistentTf32ResidentCtas(ladderMap<maps::PersistentTf32>(params));
           }});
  launchers.add(
      "tensor-fp8",
      {.launch =
           [](const Params& params, const cuda::ProductArgs& args) {
             cuda::launchPersistentFp8(ladderMap<maps::PersistentFp8>(params), args);
           },
       .residentBlocks =
           [](const Params& params, ElementType) {
             return cuda::persistentFp8ResidentCtas(ladderMap<maps::PersistentFp8>(params));
           }});
}

}  // namespace tilescope::families::tensor_persistent
