// SPDX-License-Identifier: GPL-3.0-or-later
// tensor-mma (CUTLASS's sm80 multistage tensor-op GEMM): warp tiles of mma.sync accumulators fed
// by ldmatrix from cp.async stages. Every index comes from maps::TensorCore.
#include "families/tensor_mma/tensor_mma.hpp"
#include "tensor_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::TensorCore;

// The element types the tensor cores multiply here, and the mma.sync that takes them.
template <typename Element>
struct Mma;

template <>
struct Mma<__half> {
  __device__ __forceinline__ static void run(float (&d)[4], const unsigned (&a)[4],
                                             const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

template <>
struct Mma<__nv_bfloat16> {
  __device__ __forceinline__ static void run(float (&d)[4], const unsigned (&a)[4],
                                             const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// TF32 operands are floats whose low 13 mantissa bits the tensor cores ignore; the problem's
// values are already tf32 (makeOperands rounds them), so no conversion is needed.
template <>
struct Mma<float> {
  __device__ __forceinline__ static void run(float (&d)[4], const unsigned (&a)[4],
                                             const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// Four 8 x 8 matrices of 16-bit values; lanes 8i .. 8i + 7 name the rows of matrix i, and lane
// 4g + q receives row g, columns 2q and 2q + 1 of each (of each transposed, with kTransposed).
template <bool kTransposed>
__device__ __forceinline__ void loadMatrices(unsigned (&to)[4], const unsigned char* row) {
  if constexpr (kTransposed)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
                 : "r"(sharedAddress(row)));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
                 : "r"(sharedAddress(row)));
}

template <auto kMap>
using Accumulators = float[kMap.fragmentsM()][kMap.fragmentsN()][4];

// One staged k-step: per chunk of instrK values of k, the warp's A and B fragments from shared
// memory at the addresses the map names, then every accumulator's mma.
template <auto kMap, typename Element>
__device__ __forceinline__ void multiplyStage(const unsigned char* stage, int t,
                                              Accumulators<kMap>& sum) {
  constexpr auto map = kMap;
  constexpr int kM = map.fragmentsM(), kN = map.fragmentsN();
  const unsigned char* bTile = stage + map.aStageBytes();
#pragma unroll
  for (int chunk = 0; chunk < map.bk / map.instrK(); ++chunk) {
    unsigned a[kM][4], b[kN][2];
    if constexpr (kBytes<Element> == 2) {
#pragma unroll
      for (int i = 0; i < kM; ++i) {
        const Cell at = map.aFragment(t, i, chunk);
        loadMatrices<false>(a[i], stage + map.aByte(int(at.row), int(at.col)));
      }
#pragma unroll
      for (int j = 0; j < kN / 2; ++j) {
        const Cell at = map.bFragment(t, j, chunk);
        unsigned pair[4];
        loadMatrices<true>(pair, bTile + map.bByte(int(at.row), int(at.col)));
        b[2 * j][0] = pair[0];
        b[2 * j][1] = pair[1];
        b[2 * j + 1][0] = pair[2];
        b[2 * j + 1][1] = pair[3];
      }
    } else {
#pragma unroll
      for (int i = 0; i < kM; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const Cell at = map.aFragment(t, i * 4 + r, chunk);
          a[i][r] = *reinterpret_cast<const unsigned*>(stage + map.aByte(int(at.row), int(at.col)));
        }
#pragma unroll
      for (int j = 0; j < kN; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const Cell at = map.bFragment(t, j * 2 + r, chunk);
          b[j][r] = *reinterpret_cast<const unsigned*>(bTile + map.bByte(int(at.row), int(at.col)));
        }
    }
#pragma unroll
    for (int i = 0; i < kM; ++i)
#pragma unroll
      for (int j = 0; j < kN; ++j) Mma<Element>::run(sum[i][j], a[i], b[j]);
  }
}

// The accumulators into C: register 2h + e of accumulator (i, j) is the thread's output slot
// (2i + h, 2j + e). Pairs of columns go out as one float2 where N is even.
template <auto kMap>
__device__ __forceinline__ void storeAccumulators(const ProductArgs& args, Dim2 block, int t,
                                                  const Accumulators<kMap>& sum) {
  constexpr auto map = kMap;
  const Dim2 thread{t, 0};
  const bool pairs = !recordsOwners(args) && map.vectorStores(args.n);
#pragma unroll
  for (int i = 0; i < map.fragmentsM(); ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = map.row(block, thread, 2 * i + h);
      if (row >= args.m) continue;
#pragma unroll
      for (int j = 0; j < map.fragmentsN(); ++j) {
        const std::int64_t col = map.col(block, thread, 2 * j);
        const float first = sum[i][j][2 * h], second = sum[i][j][2 * h + 1];
        if (pairs) {
          if (col < args.n) storeOutputs(args, row, col, make_float2(first, second));
          continue;
        }
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (col + e >= args.n) continue;
          const float value = e == 0 ? first : second;
          if (recordsOwners(args))
            storeOutput<true>(args, row, col + e, value);
          else
            storeOutput<false>(args, row, col + e, value);
        }
      }
    }
}

// The multistage loop of pipelinedKernel (see there): wait for tile s, one barrier, start the copy
// of tile s + stages - 1 into the stage tile s - 1 used, multiply tile s.
template <int kIndex, typename Element>
__global__ void __launch_bounds__(kConfig<TensorCore, kIndex>.threads())
    tensorMmaKernel(ProductArgs args) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  constexpr TensorCore kMap = kConfig<TensorCore, kIndex>.withElementBytes(kBytes<Element>);
  constexpr int kStages = kMap.stages;
  extern __shared__ __align__(128) unsigned char dynamicShared[];
  const Dim2 block = blockCoord();
  const int t = int(threadIdx.x);
  const auto stageOf = [&](std::int64_t s) {
    return dynamicShared + int(s % kStages) * kMap.stageBytes();
  };
  Accumulators<kMap> sum = {};
  const std::int64_t steps = ceilDiv(args.k, kMap.kDepth());
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps) copyStage<kMap, Element>(args, block, t, s, stageOf(s));
    commitCopies();
  }
  for (std::int64_t s = 0; s < steps; ++s) {
    waitCopies<kStages - 2>();
    __syncthreads();
    const std::int64_t ahead = s + kStages - 1;
    if (ahead < steps) copyStage<kMap, Element>(args, block, t, ahead, stageOf(ahead));
    commitCopies();
    multiplyStage<kMap, Element>(stageOf(s), t, sum);
  }
  storeAccumulators<kMap>(args, block, t, sum);
#else
  __trap();  // mma.sync with these types and cp.async need sm_80; the backend refuses older GPUs
#endif
}

template <typename Element, int... kIndex>
constexpr auto makeTable(std::integer_sequence<int, kIndex...>) {
  return LadderTable<TensorCore, sizeof...(kIndex)>{kConfigs<TensorCore>,
                                                    {tensorMmaKernel<kIndex, Element>...}};
}

template <typename Element>
constexpr auto kKernels =
    makeTable<Element>(std::make_integer_sequence<int, maps::validCount<TensorCore>()>{});

template <typename Element>
void launchFor(const TensorCore& map, const ProductArgs& args) {
  launchLadder(kKernels<Element>.pick(map, "tensor-mma"), "tensor-mma",
               map.withElementBytes(kBytes<Element>), args);
}

}  // namespace

static void launchTensorCore(const TensorCore& map, const ProductArgs& args) {
  switch (args.element) {
    case ElementType::F16:
      return launchFor<__half>(map, args);
    case ElementType::BF16:
      return launchFor<__nv_bfloat16>(map, args);
    case ElementType::TF32:
      return launchFor<float>(map, args);
    case ElementType::F32:
      break;
  }
  throw Error(ErrorKind::Unsupported,
              "tensor-mma multiplies fp16, bf16 or tf32: fp32 runs on the SIMT kernels");
}

}  // namespace tilescope::cuda

namespace tilescope::families::tensor_mma {

void registerCuda(cuda::Launchers& launchers) {
  launchers.add("tensor-mma", {.launch = [](const Params& params, const cuda::ProductArgs& args) {
                  cuda::launchTensorCore(ladderMap<maps::TensorCore>(params), args);
                }});
}

}  // namespace tilescope::families::tensor_mma
