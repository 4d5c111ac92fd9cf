// SPDX-License-Identifier: GPL-3.0-or-later
// prefetched (issue 13's FP32 SIMT rung): the warp grid with 4 x 4 lane pieces, the next k-step
// prefetched through registers into a second shared buffer, fragments double-buffered in
// registers across the barrier.
#include <utility>

#include "families/prefetched/prefetched.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

using Map = maps::Prefetched;

// Two shared buffers, filled through registers one k-step ahead. While the block multiplies
// tile s from one buffer, each thread holds its float4s of tile s + 1, loaded from global memory
// before the multiply-adds, and stores them into the other buffer after; one barrier then makes
// tile s + 1 whole and frees tile s's buffer for s + 2. The fragments are double-buffered in
// registers: inner index kk + 1's are read while kk is multiplied. At 128 outputs a thread only
// 8 warps share an SM, too few to fill the barrier's gap, so there the store, the barrier and the
// read of tile s + 1's first fragments come before the last inner index of tile s, whose
// multiply-adds then cover that read's latency (sgemm_v3's order). kVector: both operands' rows
// are 16-byte aligned, and every copy is one float4 load, pinned with the fragment reads at the
// top of the k-step (pinnedLoad); otherwise element by element. Two instantiations, because one
// kernel holding both paths no longer fits in 128 registers.
template <int kIndex, bool kVector>
__global__ void __launch_bounds__(kConfig<Map, kIndex>.threads(),
                                  kConfig<Map, kIndex>.minBlocksPerSm())
    prefetchedKernel(ProductArgs args) {
  constexpr Map kMap = kConfig<Map, kIndex>, map = kMap;
  constexpr maps::TileCopy aCopy = map.aCopy(), bCopy = map.bCopy();
  constexpr int kDepth = map.kDepth();
  static_assert(aCopy.width == 4 && Map::kATransposed, "float4 copies, A transposed");
  // The fragment buffers held across the barrier fit only the 255-register budget: at 128
  // registers they spill, and the unrolled inner loop already reads kk + 1 while kk runs.
  constexpr bool kAcrossBarrier = map.registerBudget() > 128;
  static_assert(kDepth % 2 == 0, "inner index 0 of the next tile reuses fragment buffer 0");
  extern __shared__ __align__(16) float shared[];
  const Dim2 block = blockCoord();
  const int t = int(threadIdx.x);
  const Dim2 thread{t, 0};

  float4 aNext[aCopy.copiesPerThread()], bNext[bCopy.copiesPerThread()];
  StepCursor aFrom[aCopy.copiesPerThread()], bFrom[bCopy.copiesPerThread()];
#pragma unroll
  for (int i = 0; i < aCopy.copiesPerThread(); ++i)
    aFrom[i] = StepCursor::of(args.aAs<float>(), args.k, map.aLoad(block, thread, 0, i),
                              map.aLoad(block, thread, 1, i));
#pragma unroll
  for (int i = 0; i < bCopy.copiesPerThread(); ++i)
    bFrom[i] = StepCursor::of(args.bAs<float>(), args.n, map.bLoad(block, thread, 0, i),
                              map.bLoad(block, thread, 1, i));
  // Loads the copies of the cursors' step, then moves them to the next. Past the last step the
  // copies lie beyond K and read nothing, so the last prefetch needs no branch.
  const auto load = [&] {
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      aNext[i] = aFrom[i].load(args.m, args.k, kVector);
      aFrom[i].advance();
    }
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      bNext[i] = bFrom[i].load(args.k, args.n, kVector);
      bFrom[i].advance();
    }
  };
  const auto store = [&](float* stage) {
    float* aTile = stage;
    float* bTile = stage + map.aLayout().words();
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      const Cell at = aCopy.at(t, i);
      const int row = int(at.row), col = int(at.col);
      aTile[map.aWord(row, col)] = aNext[i].x;
      aTile[map.aWord(row, col + 1)] = aNext[i].y;
      aTile[map.aWord(row, col + 2)] = aNext[i].z;
      aTile[map.aWord(row, col + 3)] = aNext[i].w;
    }
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      const Cell at = bCopy.at(t, i);
      *reinterpret_cast<float4*>(&bTile[map.bWord(int(at.row), int(at.col))]) = bNext[i];
    }
  };
  const auto stageOf = [&](std::int64_t s) { return shared + int(s % 2) * map.stageWords(); };
  constexpr int kRows = kRowsOf<kConfig<Map, kIndex>>, kCols = kColsOf<kConfig<Map, kIndex>>;
  const auto readAt = [&](std::int64_t s, int kk, float(&a)[kRows], float(&b)[kCols]) {
    readFragments<kMap, kVector>(stageOf(s), stageOf(s) + map.aLayout().words(), t, kk, a, b);
  };

  float sum[kRows][kCols] = {};
  float a[2][kRows], b[2][kCols];
  const std::int64_t steps = ceilDiv(args.k, kDepth);
  load();
  store(stageOf(0));
  __syncthreads();
  if constexpr (kAcrossBarrier) readAt(0, 0, a[0], b[0]);
  for (std::int64_t s = 0; s < steps; ++s) {
    const bool more = s + 1 < steps;
    load();
    if constexpr (kAcrossBarrier) {
#pragma unroll
      for (int kk = 0; kk < kDepth; ++kk) {
        if (kk + 1 < kDepth) {
          readAt(s, kk + 1, a[(kk + 1) % 2], b[(kk + 1) % 2]);
        } else if (more) {
          store(stageOf(s + 1));
          __syncthreads();
          readAt(s + 1, 0, a[0], b[0]);
        }
        outerProduct<kMap>(a[kk % 2], b[kk % 2], sum);
      }
    } else {
      multiplyTiles<kMap, kVector>(stageOf(s), stageOf(s) + map.aLayout().words(), t, sum);
      if (more) store(stageOf(s + 1));
      __syncthreads();
    }
  }
  storeTile<kMap>(args, block, t, sum);
}

template <bool kVector, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return LadderTable<Map, sizeof...(kIndex)>{kConfigs<Map>, {prefetchedKernel<kIndex, kVector>...}};
}

constexpr auto kIndices = std::make_integer_sequence<int, maps::validCount<Map>()>{};
constexpr auto kVectorKernels = makeTable<true>(kIndices);
constexpr auto kScalarKernels = makeTable<false>(kIndices);

}  // namespace

static void launchPrefetched(const maps::Prefetched& map, const ProductArgs& args) {
  const bool vector = map.aVectorCopies(args.k) && map.bVectorCopies(args.n);
  launchLadder((vector ? kVectorKernels : kScalarKernels).pick(map, "prefetched"), "prefetched",
               map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::prefetched {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("prefetched", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchPrefetched(ladderMap<maps::Prefetched>(params), args);
                }});
}

}  // namespace tilescope::families::prefetched
