// tensor-wgmma (Hopper's warpgroup MMA, sm_90a only): each warpgroup multiplies its 64 rows of
// the block tile with wgmma.mma_async reading A and B from 128-byte swizzled cp.async stages
// through shared-memory descriptors. Every index and byte offset comes from maps::Wgmma.
#include "tensor_device.cuh"

namespace tilescope::cuda {

namespace {

using maps::Wgmma;

// A shared-memory matrix descriptor (PTX ISA, "matrix descriptor format"): the start address and
// the leading and stride byte offsets in 16-byte units, and the swizzle mode (1: 128 bytes).
__device__ __forceinline__ std::uint64_t descriptor(const unsigned char* start, int leadingBytes,
                                                    int strideBytes) {
  return std::uint64_t(sharedAddress(start) >> 4 & 0x3FFF) |
         std::uint64_t(leadingBytes >> 4 & 0x3FFF) << 16 |
         std::uint64_t(strideBytes >> 4 & 0x3FFF) << 32 | std::uint64_t(1) << 62;
}

// One m64n128k16 instruction: D = A B + (accumulate ? D : 0) with A K-major (imm-trans-a 0) and B
// N-major, i.e. B's rows of N values contiguous (imm-trans-b 1). D holds the warpgroup's 64 x 128
// accumulators, 64 a thread.
template <typename Element>
struct WarpgroupMma;

// The instruction's 64 accumulator registers, as PTX operands %0..%63 and as asm outputs.
#define TS_WGMMA_ACCUMULATOR_REGISTERS                                                          \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
  "%56, %57, %58, %59, %60, %61, %62, %63}"
#define TS_WGMMA_ACCUMULATORS(d)                                                                  \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

template <>
struct WarpgroupMma<__half> {
  __device__ __forceinline__ static void run(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                             int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " TS_WGMMA_ACCUMULATOR_REGISTERS
        ", %64, %65, p, 1, 1, 0, 1;\n}\n"
        : TS_WGMMA_ACCUMULATORS(d)
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

template <>
struct WarpgroupMma<__nv_bfloat16> {
  __device__ __forceinline__ static void run(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                             int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " TS_WGMMA_ACCUMULATOR_REGISTERS
        ", %64, %65, p, 1, 1, 0, 1;\n}\n"
        : TS_WGMMA_ACCUMULATORS(d)
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

#undef TS_WGMMA_ACCUMULATORS
#undef TS_WGMMA_ACCUMULATOR_REGISTERS

__device__ __forceinline__ void fenceAccumulators() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commitWarpgroup() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most kPending of the warpgroup's committed wgmma groups are still running.
template <int kPending>
__device__ __forceinline__ void waitWarpgroup() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// cp.async and the edge path write shared memory through the generic proxy; wgmma reads it
// through the async proxy, which sees those writes only after this fence.
__device__ __forceinline__ void fenceSharedForAsyncProxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

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
        WarpgroupMma<Element>::run(sum[i], a, descriptor(bStart, kAtom, kAtomsAlongN * kAtom),
                                   s > 0 || kk > 0);
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
        if (col < args.n)
          *reinterpret_cast<float2*>(args.c + row * args.n + col) =
              make_float2(sum[i][j], sum[i][j + 1]);
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

void launchWgmma(const Wgmma& map, const ProductArgs& args) {
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
