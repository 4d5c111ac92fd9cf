// SPDX-License-Identifier: GPL-3.0-or-later
// prefetched (issue 13's FP32 SIMT rung): the warp grid with 4 x 4 lane pieces, the next k-step
// prefetched through registers into a second shared buffer, fragments double-buffered in
// registers across the barrier.
#include <type_traits>
#include <utility>

#include "families/prefetched/prefetched.hpp"
#include "ladder_device.cuh"

namespace tilescope::cuda {

namespace {

using Map = maps::Prefetched;

// Two shared buffers, filled through registers one k-step ahead. While the block multiplies
// tile s from one buffer, each thread holds its copies of tile s + 1, loaded from global memory
// before the multiply-adds, and stores them into the other buffer; one barrier then makes tile
// s + 1 whole and frees tile s's buffer for s + 2. In the float4 kernels the store and the barrier
// come before the last inner index's multiply-adds, which cover the barrier's gap (sgemm_v3's
// order; the element-by-element kernels spill with it and keep them after). At 128 outputs a
// thread the fragments are double-buffered in registers, across the barrier too: inner index
// kk + 1's are read while kk is multiplied, and tile s + 1's first ones before tile s's last
// multiply-adds.
// kVector: both operands' rows are 16-byte aligned, and every copy is one float4 load, pinned
// with the fragment reads at the top of the k-step (pinnedLoad); otherwise element by element.
// The float4 kernels run two k-steps an iteration, one from each buffer, so that every shared
// address is a constant offset. kInside: M, N and K are multiples of the tile, so no copy is
// checked against the edges. Each made them about 2 % faster at 4096^3 and 8192^3, and with int
// step counters in place of 64-bit ones ptxas scheduled the loop 2 % slower (H200;
// docs/performance.md). One instantiation per path: one kernel holding two paths no longer fits
// in 128 registers.
template <int kIndex, bool kVector, bool kInside>
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
  // copies lie beyond K and read nothing; without checks (kInside) the last prefetch is skipped.
  const auto load = [&] {
#pragma unroll
    for (int i = 0; i < aCopy.copiesPerThread(); ++i) {
      aNext[i] = kInside ? aFrom[i].loadInside() : aFrom[i].load(args.m, args.k, kVector);
      aFrom[i].advance();
    }
#pragma unroll
    for (int i = 0; i < bCopy.copiesPerThread(); ++i) {
      bNext[i] = kInside ? bFrom[i].loadInside() : bFrom[i].load(args.k, args.n, kVector);
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
  constexpr int kRows = kRowsOf<kConfig<Map, kIndex>>, kCols = kColsOf<kConfig<Map, kIndex>>;
  const auto readAt = [&](const float* stage, int kk, float(&a)[kRows], float(&b)[kCols]) {
    readFragments<kMap, kVector>(stage, stage + map.aLayout().words(), t, kk, a, b);
  };

  float sum[kRows][kCols] = {};
  float a[2][kRows], b[2][kCols];  // the fragments held across the barrier
  const std::int64_t steps = ceilDiv(args.k, kDepth);
  float* const first = shared;
  float* const second = shared + map.stageWords();
  // Multiplies tile s from `stage` and fills `next` with tile s + 1.
  // `prefetch` (a std::bool_constant): load tile s + 1 first. Only kInside's last k-step does not.
  const auto step = [&](std::int64_t s, const float* stage, float* next, auto prefetch) {
    const bool more = s + 1 < steps;
    if constexpr (decltype(prefetch)::value) load();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      if constexpr (kAcrossBarrier) {
        if (kk + 1 < kDepth) {
          readAt(stage, kk + 1, a[(kk + 1) % 2], b[(kk + 1) % 2]);
        } else if (more) {
          store(next);
          __syncthreads();
          readAt(next, 0, a[0], b[0]);
        }
        outerProduct<kMap>(a[kk % 2], b[kk % 2], sum);
      } else {
        float aNow[kRows], bNow[kCols];
        readAt(stage, kk, aNow, bNow);
        if (kVector && kk + 1 == kDepth && more) {
          store(next);
          __syncthreads();
        }
        outerProduct<kMap>(aNow, bNow, sum);
      }
    }
    if constexpr (!kVector && !kAcrossBarrier) {
      if (more) {
        store(next);
        __syncthreads();
      }
    }
  };
  load();
  store(first);
  __syncthreads();
  if constexpr (kAcrossBarrier) readAt(first, 0, a[0], b[0]);
  std::int64_t s = 0;
  if constexpr (kVector) {
    // Two k-steps an iteration; kInside stops a pair early, as its last k-step loads nothing.
    for (; s + (kInside ? 2 : 1) < steps; s += 2) {
      step(s, first, second, std::true_type{});
      step(s + 1, second, first, std::true_type{});
    }
  }
  for (; s < steps; ++s) {
    float* const stage = s % 2 == 0 ? first : second;
    float* const next = s % 2 == 0 ? second : first;
    if (kInside && s + 1 == steps)
      step(s, stage, next, std::false_type{});
    else
      step(s, stage, next, std::true_type{});
  }
  storeTile<kMap>(args, block, t, sum);
}

template <bool kVector, bool kInside, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return LadderTable<Map, sizeof...(kIndex)>{kConfigs<Map>,
                                             {prefetchedKernel<kIndex, kVector, kInside>...}};
}

constexpr auto kIndices = std::make_integer_sequence<int, maps::validCount<Map>()>{};
constexpr auto kInsideKernels = makeTable<true, true>(kIndices);
constexpr auto kVectorKernels = makeTable<true, false>(kIndices);
constexpr auto kScalarKernels = makeTable<false, false>(kIndices);

}  // namespace

static void launchPrefetched(const maps::Prefetched& map, const ProductArgs& args) {
  const bool vector = map.aVectorCopies(args.k) && map.bVectorCopies(args.n);
  const bool inside = vector && map.tilesDivide(args.m, args.n, args.k);
  launchLadder((inside   ? kInsideKernels
                : vector ? kVectorKernels
                         : kScalarKernels)
                   .pick(map, "prefetched"),
               "prefetched", map, args);
}

}  // namespace tilescope::cuda

namespace tilescope::families::prefetched {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("prefetched", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchPrefetched(ladderMap<maps::Prefetched>(params), args);
                }});
}

}  // namespace tilescope::families::prefetched
