// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The optimisation ladder on the device. Every ladder kernel takes its map (thread_map.hpp) as a
// template argument, so each index formula folds to constants, and is built from the same four
// pieces: copy a k-step's tiles into shared memory (through registers, or with cp.async), multiply
// the staged tiles into the thread's register tile, and store the register tile into C. The
// family's constants (copy width, A transposed, padding, read width) choose each piece's form.
//
// Every valid configuration of a family (maps::validConfigs) is compiled once, no more: the
// catalogue offers exactly that set. The mapping proof records owners through the same kernels
// (a run-time branch in the final store only), which halves the instantiations.
#include <type_traits>
#include <utility>

#include "device_common.cuh"
#include "kernel_resources.hpp"

namespace tilescope::cuda {

template <auto kMap>
using MapOf = std::remove_cvref_t<decltype(kMap)>;

// ProductArgs::traced() on the device: the instrumented run records who wrote each element.
__device__ __forceinline__ bool recordsOwners(const ProductArgs& args) {
  return args.ownerBlock != nullptr && args.ownerThread != nullptr;
}

// Four consecutive elements of a row-major matrix from `at` on: one 16-byte load on the vector
// path (the caller has checked that rows are 16-byte aligned, so a vector is wholly inside or
// wholly past the edge), else element by element; zero past the edges.
__device__ __forceinline__ float4 loadFour(const float* matrix, std::int64_t rows,
                                           std::int64_t cols, Cell at, bool vector) {
  if (vector) {
    if (at.row < rows && at.col < cols)
      return *reinterpret_cast<const float4*>(matrix + at.row * cols + at.col);
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  return make_float4(loadOrZero(matrix, rows, cols, at.row, at.col),
                     loadOrZero(matrix, rows, cols, at.row, at.col + 1),
                     loadOrZero(matrix, rows, cols, at.row, at.col + 2),
                     loadOrZero(matrix, rows, cols, at.row, at.col + 3));
}

// A shared-memory pointer as the 32-bit address PTX's shared-state instructions take.
__device__ __forceinline__ unsigned sharedAddress(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// ---- Loads that ptxas keeps in program order ----
//
// ptxas schedules loads to save registers: in prefetched at 128 registers it sinks the global
// loads of k-step s + 1 halfway down k-step s's multiply-adds, where too few remain to hide their
// latency. Volatile accesses keep their order among themselves, so a kernel that reads its
// fragments with pinnedRead pins the global loads issued before them (pinnedLoad) at the top of
// the k-step: 1.5-3 % faster from 2048^3 up (H200; docs/performance.md). Nothing writes the
// operands during a product, so volatile reads the same values.
__device__ __forceinline__ float4 pinnedLoad(const float* from) {
  float4 v;
  asm volatile("ld.volatile.global.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(from));
  return v;
}
__device__ __forceinline__ float4 pinnedRead(const float* from) {
  float4 v;
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(sharedAddress(from)));
  return v;
}

// One float4 copy of a thread followed through the k-steps. The maps' aLoad and bLoad are linear
// in the step, so the cursor takes the element the map names at step 0 and how far it moves per
// step, and each step adds those offsets instead of evaluating the formula again with 64-bit
// products (about 20 instructions a copy a step, 7 % of a 128 x 128 x 8 tile's instructions).
// Indices stay in int (a row or column index always fits), the address in a pointer that may
// point past the matrix while the copy lies in the padding, and is then never read.
struct StepCursor {
  const float* from;
  std::int64_t stride;
  int row, col, rowStep, colStep;

  // `first` and `second`: the copy's element at steps 0 and 1.
  static __device__ __forceinline__ StepCursor of(const float* matrix, std::int64_t cols,
                                                  Cell first, Cell second) {
    return {matrix + first.row * cols + first.col,
            (second.row - first.row) * cols + (second.col - first.col),
            int(first.row),
            int(first.col),
            int(second.row - first.row),
            int(second.col - first.col)};
  }

  // The four elements at the current step, zero past the edges (loadFour's rule). The vector
  // load is pinned where the kernel issues it (pinnedLoad).
  __device__ __forceinline__ float4 load(std::int64_t rows, std::int64_t cols, bool vector) const {
    if (vector)
      return row < rows && col < cols ? pinnedLoad(from) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const auto element = [&](int e) { return row < rows && col + e < cols ? from[e] : 0.0f; };
    return make_float4(element(0), element(1), element(2), element(3));
  }
  // The same for a vector copy known to lie inside the matrix: no bounds to check.
  __device__ __forceinline__ float4 loadInside() const { return pinnedLoad(from); }
  __device__ __forceinline__ void advance() {
    from += stride;
    row += rowStep;
    col += colStep;
  }
};

// Reads `kWidth` consecutive shared words (one float4 when 4) into registers; kPinned: with
// pinnedRead.
template <int kWidth, bool kPinned = false>
__device__ __forceinline__ void readWords(const float* from, float* to) {
  if constexpr (kWidth == 4) {
    const float4 v = kPinned ? pinnedRead(from) : *reinterpret_cast<const float4*>(from);
    to[0] = v.x;
    to[1] = v.y;
    to[2] = v.z;
    to[3] = v.w;
  } else {
    static_assert(kWidth == 1 && !kPinned);
    to[0] = *from;
  }
}

// The block's copy of k-step s, through registers: global loads, then shared stores at the words
// the layout names (a transposed A tile takes one store per element).
template <auto kMap>
__device__ __forceinline__ void copyTiles(const ProductArgs& args, Dim2 block, int t,
                                          std::int64_t s, float* aTile, float* bTile) {
  constexpr auto map = kMap;
  constexpr maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  const Dim2 thread{t, 0};
  if constexpr (aCopy.width == 1) {
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i), from = map.aLoad(block, thread, s, i);
      aTile[map.aWord(int(at.row), int(at.col))] =
          loadOrZero(args.aAs<float>(), args.m, args.k, from.row, from.col);
    }
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i), from = map.bLoad(block, thread, s, i);
      bTile[map.bWord(int(at.row), int(at.col))] =
          loadOrZero(args.bAs<float>(), args.k, args.n, from.row, from.col);
    }
  } else {
    static_assert(MapOf<kMap>::kATransposed, "float4 families stage A transposed");
    const bool aVector = map.aVectorCopies(args.k), bVector = map.bVectorCopies(args.n);
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i);
      const float4 v =
          loadFour(args.aAs<float>(), args.m, args.k, map.aLoad(block, thread, s, i), aVector);
      const int row = int(at.row), col = int(at.col);
      aTile[map.aWord(row, col)] = v.x;
      aTile[map.aWord(row, col + 1)] = v.y;
      aTile[map.aWord(row, col + 2)] = v.z;
      aTile[map.aWord(row, col + 3)] = v.w;
    }
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i);
      *reinterpret_cast<float4*>(&bTile[map.bWord(int(at.row), int(at.col))]) =
          loadFour(args.bAs<float>(), args.k, args.n, map.bLoad(block, thread, s, i), bVector);
    }
  }
}

// ---- cp.async: global memory straight into shared memory, no registers held (sm_80 and up) ----

// Copies 4 (or 16) bytes; with `valid` false nothing is read and the destination is zero-filled
// (src-size 0), so the padding past the matrix edges costs no branch around the copy.
__device__ __forceinline__ void copyAsync4(float* sharedDst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sharedAddress(sharedDst)),
               "l"(src), "r"(valid ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void copyAsync16(void* sharedDst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddress(sharedDst)),
               "l"(src), "r"(valid ? 16 : 0)
               : "memory");
}
__device__ __forceinline__ void commitCopies() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void waitCopies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// The block's copy of k-step s with cp.async: A one element at a time (it lands transposed), B
// in 16-byte copies when its rows are aligned. A copy past the edge reads nothing and zero-fills.
template <auto kMap>
__device__ __forceinline__ void copyTilesAsync(const ProductArgs& args, Dim2 block, int t,
                                               std::int64_t s, float* aTile, float* bTile) {
  constexpr auto map = kMap;
  constexpr maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  const Dim2 thread{t, 0};
  const bool bVector = map.bVectorCopies(args.n);
  const float *a = args.aAs<float>(), *b = args.bAs<float>();
#pragma unroll
  for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
    const Cell at = aCopy.at(t, i), from = map.aLoad(block, thread, s, i);
#pragma unroll
    for (int e = 0; e < aCopy.width; ++e) {
      const bool valid = from.row < args.m && from.col + e < args.k;
      copyAsync4(&aTile[map.aWord(int(at.row), int(at.col) + e)],
                 valid ? a + from.row * args.k + from.col + e : a, valid);
    }
  }
#pragma unroll
  for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
    const Cell at = bCopy.at(t, i), from = map.bLoad(block, thread, s, i);
    if (bVector) {
      const bool valid = from.row < args.k && from.col < args.n;
      copyAsync16(&bTile[map.bWord(int(at.row), int(at.col))],
                  valid ? b + from.row * args.n + from.col : b, valid);
    } else {
#pragma unroll
      for (int e = 0; e < bCopy.width; ++e) {
        const bool valid = from.row < args.k && from.col + e < args.n;
        copyAsync4(&bTile[map.bWord(int(at.row), int(at.col) + e)],
                   valid ? b + from.row * args.n + from.col + e : b, valid);
      }
    }
  }
}

// ---- Compute and store ----

template <auto kMap>
inline constexpr int kRowsOf = int(kMap.rowsPerThread());
template <auto kMap>
inline constexpr int kColsOf = int(kMap.colsPerThread());

// The thread's values of A and B at inner index kk of a staged k-step, into registers (float4
// reads where the family's layout makes them consecutive; kPinned: with pinnedRead).
template <auto kMap, bool kPinned = false>
__device__ __forceinline__ void readFragments(const float* aTile, const float* bTile, int t, int kk,
                                              float (&a)[kRowsOf<kMap>],
                                              float (&b)[kColsOf<kMap>]) {
  constexpr auto map = kMap;
  constexpr int kWidth = map.readWidth();
#pragma unroll
  for (int r = 0; r < kRowsOf<kMap>; r += kWidth)
    readWords<kWidth, kPinned>(aTile + map.aWord(map.rowInBlock(t, r), kk), a + r);
#pragma unroll
  for (int c = 0; c < kColsOf<kMap>; c += kWidth)
    readWords<kWidth, kPinned>(bTile + map.bWord(kk, map.colInBlock(t, c)), b + c);
}

// The outer product of one inner index into the thread's register tile.
template <auto kMap>
__device__ __forceinline__ void outerProduct(const float (&a)[kRowsOf<kMap>],
                                             const float (&b)[kColsOf<kMap>],
                                             float (&sum)[kRowsOf<kMap>][kColsOf<kMap>]) {
#pragma unroll
  for (int r = 0; r < kRowsOf<kMap>; ++r)
#pragma unroll
    for (int c = 0; c < kColsOf<kMap>; ++c) sum[r][c] = fmaf(a[r], b[c], sum[r][c]);
}

// Every inner index of one staged k-step: the fragments, then the outer product.
template <auto kMap>
__device__ __forceinline__ void multiplyTiles(const float* aTile, const float* bTile, int t,
                                              float (&sum)[kRowsOf<kMap>][kColsOf<kMap>]) {
#pragma unroll
  for (int kk = 0; kk < kMap.kDepth(); ++kk) {
    float a[kRowsOf<kMap>], b[kColsOf<kMap>];
    readFragments<kMap>(aTile, bTile, t, kk, a, b);
    outerProduct<kMap>(a, b, sum);
  }
}

// The thread's register tile into C: float4 stores where the family stores vectors and its
// columns come in aligned fours (and no owners are being recorded), else one store per element;
// nothing past the edges.
template <auto kMap>
__device__ __forceinline__ void storeTile(const ProductArgs& args, Dim2 block, int t,
                                          const float (&sum)[kRowsOf<kMap>][kColsOf<kMap>]) {
  constexpr auto map = kMap;
  constexpr int kRows = kRowsOf<kMap>, kCols = kColsOf<kMap>;
  const Dim2 thread{t, 0};
  if constexpr (MapOf<kMap>::kVectorStores) {
    if (!recordsOwners(args) && map.vectorStores(args.n)) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const std::int64_t i = map.row(block, thread, r);
#pragma unroll
        for (int c = 0; c < kCols; c += 4) {
          const std::int64_t j = map.col(block, thread, c);
          if (i < args.m && j < args.n)
            storeOutputs(args, i, j,
                         make_float4(sum[r][c], sum[r][c + 1], sum[r][c + 2], sum[r][c + 3]));
        }
      }
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const std::int64_t i = map.row(block, thread, r);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      const std::int64_t j = map.col(block, thread, c);
      if (i >= args.m || j >= args.n) continue;
      if (recordsOwners(args))
        storeOutput<true>(args, i, j, sum[r][c]);
      else
        storeOutput<false>(args, i, j, sum[r][c]);
    }
  }
}

// ---- The kernels ----

// A family's valid configurations; a kernel is named by its family and an index into them (nvcc
// cannot yet name a __global__ template by a class-type argument in its host stubs).
template <typename Map>
inline constexpr auto kConfigs = maps::validConfigs<Map>();
template <typename Map, int kIndex>
inline constexpr Map kConfig = kConfigs<Map>[kIndex];

// blocktile-1d, blocktile-2d, vectorized, warptile: one shared stage, copied through registers,
// with a barrier after the copy and one after the multiply.
template <typename Map, int kIndex>
__global__ void __launch_bounds__(kConfig<Map, kIndex>.threads()) stagedKernel(ProductArgs args) {
  constexpr Map kMap = kConfig<Map, kIndex>, map = kMap;
  __shared__ __align__(16) float shared[map.stageWords()];
  float* aTile = shared;
  float* bTile = shared + map.aLayout().words();
  const Dim2 block = blockCoord();
  const int t = int(threadIdx.x);
  float sum[kRowsOf<kMap>][kColsOf<kMap>] = {};
  const std::int64_t steps = ceilDiv(args.k, map.kDepth());
  for (std::int64_t s = 0; s < steps; ++s) {
    copyTiles<kMap>(args, block, t, s, aTile, bTile);
    __syncthreads();
    multiplyTiles<kMap>(aTile, bTile, t, sum);
    __syncthreads();
  }
  storeTile<kMap>(args, block, t, sum);
}

// pipelined: `stages` shared stages in dynamic shared memory. Before multiplying tile s a thread
// waits for its own copies of tile s (at most stages - 2 newer groups pending), the barrier makes
// every thread's copies visible and frees the stage tile s - 1 used, and the copy of tile
// s + stages - 1 into that stage starts before the multiply-adds. Every iteration commits one
// group, empty near the end, so the count of pending groups stays exact.
template <typename Map, int kIndex>
__global__ void __launch_bounds__(kConfig<Map, kIndex>.threads())
    pipelinedKernel(ProductArgs args) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  constexpr Map kMap = kConfig<Map, kIndex>, map = kMap;
  constexpr int kStages = map.stages;
  extern __shared__ __align__(16) float dynamicShared[];
  const Dim2 block = blockCoord();
  const int t = int(threadIdx.x);
  const auto stageOf = [&](std::int64_t s) {
    return dynamicShared + int(s % kStages) * map.stageWords();
  };
  float sum[kRowsOf<kMap>][kColsOf<kMap>] = {};
  const std::int64_t steps = ceilDiv(args.k, map.kDepth());
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps)
      copyTilesAsync<kMap>(args, block, t, s, stageOf(s), stageOf(s) + map.aLayout().words());
    commitCopies();
  }
  for (std::int64_t s = 0; s < steps; ++s) {
    waitCopies<kStages - 2>();
    __syncthreads();
    const std::int64_t ahead = s + kStages - 1;
    if (ahead < steps)
      copyTilesAsync<kMap>(args, block, t, ahead, stageOf(ahead),
                           stageOf(ahead) + map.aLayout().words());
    commitCopies();
    multiplyTiles<kMap>(stageOf(s), stageOf(s) + map.aLayout().words(), t, sum);
  }
  storeTile<kMap>(args, block, t, sum);
#else
  __trap();  // cp.async needs sm_80: ptxas refuses it for Turing, and the backend refuses Turing
#endif
}

// ---- Host side: one table per family, the launch ----

using LadderKernel = void (*)(ProductArgs);

template <typename Map, int kIndex>
constexpr LadderKernel kernelFor() {
  // A cp.async pipeline (pipelined) has its own main loop; the others stage through registers.
  if constexpr (kConfig<Map, kIndex>.pipeline().fill == StageFill::CpAsync)
    return pipelinedKernel<Map, kIndex>;
  else
    return stagedKernel<Map, kIndex>;
}

template <typename Map, std::size_t kCount>
struct LadderTable {
  std::array<Map, kCount> configs;
  std::array<LadderKernel, kCount> kernels;

  LadderKernel pick(const Map& map, const char* family) const {
    for (std::size_t i = 0; i < kCount; ++i)
      if (configs[i].values() == map.values()) return kernels[i];
    throw Error(ErrorKind::InvalidArgument,
                std::string(family) + ": no CUDA kernel is compiled for this configuration");
  }
};

template <typename Map, int... kIndex>
constexpr auto makeLadderTable(std::integer_sequence<int, kIndex...>) {
  return LadderTable<Map, sizeof...(kIndex)>{kConfigs<Map>, {kernelFor<Map, kIndex>()...}};
}

// Every valid configuration of a family, compiled.
template <typename Map>
constexpr auto ladderTable() {
  return makeLadderTable<Map>(std::make_integer_sequence<int, maps::validCount<Map>()>{});
}

// Launches a ladder kernel on the default stream (the kernels with several shared buffers keep
// them in dynamic shared memory, raising the 48 KiB default where they need more); under a
// LaunchProbe it only records the launch.
template <typename Map>
void launchLadder(LadderKernel kernel, const char* name, const Map& map, const ProductArgs& args) {
  const Dim2 grid = map.grid(args.m, args.n), block = map.block();
  // Every family with more than one shared buffer keeps them in dynamic shared memory.
  const std::size_t dynamicShared = map.buffers() > 1 ? std::size_t(4) * map.sharedWords() : 0;
  if (LaunchProbe* probe = LaunchProbe::active()) {
    probe->record({reinterpret_cast<const void*>(kernel), grid, block, dynamicShared});
    return;
  }
  if (dynamicShared > 0)
    checkLaunch(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(dynamicShared)),
                name, grid, block);
  kernel<<<dim3(unsigned(grid.x), unsigned(grid.y)), dim3(unsigned(block.x)), dynamicShared>>>(
      args);
  checkLaunch(cudaGetLastError(), name, grid, block);
}

}  // namespace tilescope::cuda
