// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the warp-specialised Hopper kernels (tensor-tma, tensor-persistent) share on the device:
// mbarriers, TMA copies (multicast to a cluster too), register reallocation between the roles,
// the cluster's barrier and addresses, and the producer's element-by-element edge path. sm_90a
// only: include from files built for that architecture alone.
#include <cuda.h>

#include "wgmma_device.cuh"

namespace tilescope::cuda {

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

// TMA's swizzle and wgmma's descriptors work on address bits: the stages start at the first
// 1024-byte boundary of the dynamic shared memory (the maps reserve one atom for this).
__device__ __forceinline__ unsigned char* atomAligned(unsigned char* dynamicShared) {
  constexpr unsigned kAtom = 1024;
  return dynamicShared + (kAtom - sharedAddress(dynamicShared) % kAtom) % kAtom;
}

// ---- The consumers' side ----

// Maps whose B is stored K-major (tensor-fp8): B's boxes and descriptors lie like A's.
template <typename Map>
inline constexpr bool kCopiesBAlongK = requires {
  std::remove_cv_t<Map>::kCopiesBAlongK;
};

// One k-step of consumer `consumer` (its 64 rows): the map's BK / kInstrK wgmma instructions on the
// stage, committed as one batch. The first instruction overwrites the accumulators unless
// `accumulate` (a tile's first k-step), so they need no zeroing, which also keeps ptxas from
// serialising the batches.
template <auto kMap, typename Element, int kRegisters>
__device__ __forceinline__ void multiplyStage(float (&sum)[kRegisters], const unsigned char* stage,
                                              int consumer, bool accumulate) {
  constexpr auto map = kMap;
  constexpr int kAtom = map.kAtomBytes;
  const unsigned char* aTile = stage + map.aByte(consumer * map.kConsumerRows, 0);
  const unsigned char* bTile = stage + map.aStageBytes();
  // A K-major B (FP8) lies like A: n rows of 128 bytes.
  constexpr bool kBAlongK = kCopiesBAlongK<decltype(map)>;
  // The batch's first descriptors; a later instruction's operands lie a fixed number of bytes on.
  const std::uint64_t a0 = descriptor(aTile, 16, kAtom);
  const std::uint64_t b0 =
      kBAlongK ? descriptor(bTile, 16, kAtom) : descriptor(bTile, map.slabBytes(), kAtom);
  fenceAccumulators();
#pragma unroll
  for (int kk = 0; kk < map.bk / map.kInstrK; ++kk) {
    // A: 16 more k values are 32 bytes along the swizzled rows, 8-row atoms 1024 bytes apart.
    // B: 16 k values are two 8-row atom groups (1024 bytes each) down every slab; the slabs,
    // 64 columns each, lie slabBytes apart.
    constexpr int kABytes = map.kInstrK * kBytes<Element>;
    constexpr int kBBytes = kBAlongK ? map.kInstrK * kBytes<Element> : map.kInstrK * map.kRowBytes;
    static_assert(kABytes % 16 == 0 && kBBytes % 16 == 0, "descriptor starts are in 16-byte units");
    WarpgroupMma<Element, map.bn>::run(sum, descriptorAfter(a0, kk * kABytes),
                                       descriptorAfter(b0, kk * kBBytes), accumulate || kk > 0);
  }
  commitWarpgroup();
}

// Consumer thread t's accumulators into C for the map's block (tile) `block`: pairs of floats
// while rows of C are 8-byte aligned and no owners are recorded, else one element at a time.
template <auto kMap, int kRegisters>
__device__ __forceinline__ void storeTile(const ProductArgs& args, Dim2 block, int t,
                                          const float (&sum)[kRegisters]) {
  constexpr auto map = kMap;
  // Register j is output slot (row j % 4 / 2, column 2 (j / 4) + j % 2).
  const Dim2 thread{t, 0};
  const bool pairs = !recordsOwners(args) && map.vectorStores(args.n);
#pragma unroll
  for (int j = 0; j < map.bn / 2; j += 2) {
    const std::int64_t row = map.row(block, thread, j % 4 / 2);
    const std::int64_t col = map.col(block, thread, 2 * (j / 4));
    if (row >= args.m) continue;
    if (pairs) {
      if (col < args.n) storeOutputs(args, row, col, make_float2(sum[j], sum[j + 1]));
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
}

// storeTile's fast path for tensor-persistent: 16-byte stores, half as many store instructions
// (and L1 wavefronts) as pairs. Lanes q and q ^ 1 of a row hold columns 2q, 2q + 1 of two
// neighbouring 8-column chunks; one exchange of a pair gives the even lane four consecutive
// columns of the first chunk and the odd lane four of the second. Needs rows of C 16-byte aligned
// (N a multiple of 4 and C aligned): a four-column vector is then wholly inside or past the edge.
// Elsewhere, and when owners are recorded, storeTile's path.
template <auto kMap, int kRegisters>
__device__ __forceinline__ void storeTileQuads(const ProductArgs& args, Dim2 block, int t,
                                               const float (&sum)[kRegisters]) {
  constexpr auto map = kMap;
  static_assert(map.bn % 16 == 0, "chunks of 8 columns come in pairs");
  const bool quads =
      !recordsOwners(args) && args.n % 4 == 0 && reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0;
  if (!quads) {
    storeTile<kMap>(args, block, t, sum);
    return;
  }
  const Dim2 thread{t, 0};
  const bool odd = t % 2 != 0;
  // Registers j + 2h, j + 2h + 1: row half h of chunk j / 4; j + 4 + 2h, j + 5 + 2h: the same
  // row of chunk j / 4 + 1. The even lane sends its second chunk's pair, the odd lane its first
  // chunk's, and stores the four columns that start at `firstCol(j)`.
  const auto exchange = [&](int j, int h) {
    const float a0 = sum[j + 2 * h], a1 = sum[j + 2 * h + 1];
    const float b0 = sum[j + 4 + 2 * h], b1 = sum[j + 5 + 2 * h];
    const float r0 = __shfl_xor_sync(0xffffffffu, odd ? a0 : b0, 1);
    const float r1 = __shfl_xor_sync(0xffffffffu, odd ? a1 : b1, 1);
    return odd ? make_float4(r0, r1, b0, b1) : make_float4(a0, a1, r0, r1);
  };
  const auto firstCol = [&](int j) {
    return odd ? map.col(block, thread, 2 * (j / 4 + 1)) - 2 : map.col(block, thread, 2 * (j / 4));
  };
  // A tile wholly inside C needs no bounds: one pointer per row half, and every later pair's
  // columns at the same distance from the first pair's in every lane, a constant the stores carry
  // as an offset (about ten instructions a store, not 36).
  if ((std::int64_t(block.y) + 1) * map.bm <= args.m &&
      (std::int64_t(block.x) + 1) * map.bn <= args.n) {
    constexpr int kLane = map.firstOutputThread();
    float* const rowStart[2] = {args.c + map.row(block, thread, 0) * args.n + firstCol(0),
                                args.c + map.row(block, thread, 1) * args.n + firstCol(0)};
#pragma unroll
    for (int j = 0; j < map.bn / 2; j += 8)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        __stwb(reinterpret_cast<float4*>(rowStart[h] + map.colInBlock(kLane, 2 * (j / 4)) -
                                         map.colInBlock(kLane, 0)),
               exchange(j, h));
    return;
  }
#pragma unroll
  for (int j = 0; j < map.bn / 2; j += 8) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // The shuffles come before any lane skips a row past M.
      const float4 values = exchange(j, h);
      const std::int64_t row = map.row(block, thread, h);
      if (row >= args.m) continue;
      const std::int64_t col = firstCol(j);
      if (col >= args.n) continue;
      storeOutputs(args, row, col, values);
    }
  }
}

// ---- tensor-tf32's consumers: the tile transposed, B through registers ----

// tensor-tf32's consumer thread t's words of B for one k-step (maps::PersistentTf32::bFragment):
// four per 8-deep k-chunk, read from the stage before the step's batch.
template <auto kMap>
using Tf32Words = unsigned[kMap.bk / kMap.kInstrK][4];

template <auto kMap>
__device__ __forceinline__ void readTf32Words(Tf32Words<kMap>& words, const unsigned char* stage,
                                              int t) {
  constexpr auto map = kMap;
  const unsigned char* bTile = stage + map.aStageBytes();
#pragma unroll
  for (int chunk = 0; chunk < map.bk / map.kInstrK; ++chunk)
#pragma unroll
    for (int slot = 0; slot < 4; ++slot) {
      const Cell at = map.bFragment(t, slot, chunk);
      words[chunk][slot] =
          *reinterpret_cast<const unsigned*>(bTile + map.bByte(int(at.row), int(at.col)));
    }
}

// One k-step of a tensor-tf32 consumer: per 8-deep k-chunk one m64n256k8 with the thread's words
// of B as the first operand and A's whole tile (K-major, through a descriptor) as the second,
// committed as one batch. wgmma.fence orders the words' reads before the instructions.
template <auto kMap>
__device__ __forceinline__ void multiplyTransposed(float (&sum)[128], const Tf32Words<kMap>& words,
                                                   const unsigned char* stage, bool accumulate) {
  constexpr auto map = kMap;
  // 8 more k values are 32 bytes along A's swizzled rows, 8-row atoms 1024 bytes apart.
  const std::uint64_t a0 = descriptor(stage, 16, map.kAtomBytes);
  fenceAccumulators();
#pragma unroll
  for (int chunk = 0; chunk < map.bk / map.kInstrK; ++chunk)
    warpgroupMmaTf32(sum, words[chunk], descriptorAfter(a0, chunk * map.kInstrK * 4),
                     accumulate || chunk > 0);
  commitWarpgroup();
}

// Consumer thread t's transposed accumulators into C for tile `block`. Register j holds row slot
// 2 (j / 4) + j % 2 and column slot j % 4 / 2 (maps::PersistentTf32): a thread's values run down
// two columns, four apart. Where rows of C are 16-byte aligned and no owners are recorded, the
// four lanes holding eight neighbouring columns (lanes 4g + q, g % 4 = 0 .. 3) transpose their
// 4 x 4 values of two rows with two rounds of exchanges, so each stores four columns of a row as a
// float4 and the four together two rows' whole 32-byte sectors; elsewhere one float at a time.
// (Storing a tile wholly inside C without bounds checks, as storeTileQuads does, measured 1-2 %
// slower here: docs/performance.md.)
template <auto kMap>
__device__ __forceinline__ void storeTileTransposed(const ProductArgs& args, Dim2 block, int t,
                                                    const float (&sum)[128]) {
  constexpr auto map = kMap;
  const Dim2 thread{t, 0};
  const bool quads =
      !recordsOwners(args) && args.n % 4 == 0 && reinterpret_cast<std::uintptr_t>(args.c) % 16 == 0;
  if (!quads) {
#pragma unroll
    for (int j = 0; j < 128; ++j) {
      const std::int64_t row = map.row(block, thread, 2 * (j / 4) + j % 2);
      const std::int64_t col = map.col(block, thread, j % 4 / 2);
      if (row >= args.m || col >= args.n) continue;
      if (recordsOwners(args))
        storeOutput<true>(args, row, col, sum[j]);
      else
        storeOutput<false>(args, row, col, sum[j]);
    }
    return;
  }
  // This lane's place among the four: bit 0 pairs it across lanes 4 apart, bit 1 across 8.
  const int place = t % 32 / 4 % 4;
  const bool low = (place & 1) != 0, high = (place & 2) != 0;
#pragma unroll
  for (int chunk = 0; chunk < 32; ++chunk) {
    // Row 8 chunk + 2q of this lane's two columns, then row 8 chunk + 2q + 1 of both.
    float v[4] = {sum[4 * chunk], sum[4 * chunk + 2], sum[4 * chunk + 1], sum[4 * chunk + 3]};
    // Exchange the values whose bit 0 differs from the lane's, then those whose bit 1 does:
    // lane `place` ends with value `place` of each of the four lanes, in lane order (selects,
    // not a conditional assignment, which kept v in local memory).
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const float sent = __shfl_xor_sync(0xffffffffu, low ? v[2 * p] : v[2 * p + 1], 4);
      v[2 * p] = low ? sent : v[2 * p];
      v[2 * p + 1] = low ? v[2 * p + 1] : sent;
    }
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const float sent = __shfl_xor_sync(0xffffffffu, high ? v[p] : v[p + 2], 8);
      v[p] = high ? sent : v[p];
      v[p + 2] = high ? v[p + 2] : sent;
    }
    // Lane `place` now holds row slot 2 chunk + place / 2, the four columns of slot place % 2.
    const std::int64_t row = map.row(block, thread, 2 * chunk + place / 2);
    const std::int64_t col = map.col(block, thread, place % 2) - place;
    if (row >= args.m || col >= args.n) continue;
    storeOutputs(args, row, col, make_float4(v[0], v[1], v[2], v[3]));
  }
}

// ---- Thread-block clusters (PTX ISA, "Cluster of cooperative thread arrays") ----

// This block's rank inside its cluster.
__device__ __forceinline__ unsigned clusterRank() {
  unsigned rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
// Every thread of every block of the cluster arrives, then waits for all: what one block wrote
// (barrier initialisation, say) is visible to the others, and no block leaves while a partner may
// still write into its shared memory or arrive on its barriers.
__device__ __forceinline__ void syncCluster() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}
// Arrives on the barrier at the same offset in block `rank` of the cluster (this one included).
// The arrival only says "this warp's wgmma reads of the stage are done" (wgmma.wait_group saw to
// that), so it carries no cluster-scope release: that would wait, at every k-step, for the
// warp's earlier stores of C to reach the whole cluster: with it tensor-persistent ran at 400
// TFLOP/s instead of 725 (H200, bf16 4096^3, cluster 2).
__device__ __forceinline__ void arriveInCluster(std::uint64_t* barrier, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(sharedAddress(barrier)),
      "r"(rank)
      : "memory");
}
// One box of a 2-D tensor map into the same offset of every block in `ctaMask`'s shared memory,
// each copy completing on the barrier at `barrier`'s offset in that block.
__device__ __forceinline__ void loadBoxMulticast(unsigned char* destination,
                                                 const CUtensorMap& tensor, int column, int row,
                                                 std::uint64_t* barrier, unsigned short ctaMask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(sharedAddress(destination)),
      "l"(reinterpret_cast<std::uint64_t>(&tensor)), "r"(column), "r"(row),
      "r"(sharedAddress(barrier)), "h"(ctaMask)
      : "memory");
}

}  // namespace tilescope::cuda
