// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the Hopper kernels (tensor-wgmma, tensor-tma) share on the device: shared-memory matrix
// descriptors, the wgmma.mma_async instructions they issue, and the fences and waits around them.
// sm_90a only: include from files built for that architecture alone.
#include <cuda_fp8.h>

#include "tensor_device.cuh"
#include "wgmma_descriptor.hpp"

namespace tilescope::cuda {

// A shared-memory matrix descriptor of `start` (wgmma_descriptor.hpp). For an N-major
// (transposed) operand the leading offset steps between 64-column atoms along N and the stride
// offset between 8-row atom groups along K; K-major A uses the stride offset alone.
__device__ __forceinline__ std::uint64_t descriptor(const unsigned char* start, int leadingBytes,
                                                    int strideBytes) {
  return descriptorAt(sharedAddress(start), leadingBytes, strideBytes);
}

// One m64nNk16 instruction: D = A B + (accumulate ? D : 0) with A K-major (imm-trans-a 0) and B
// N-major, i.e. B's rows of N values contiguous (imm-trans-b 1); for FP8 one m64nNk32 with both
// operands K-major. D holds the warpgroup's 64 x N
// accumulators, N / 2 a thread: register j is row j % 4 / 2 * 8 + lane / 4 of the warp's 16 and
// column 8 (j / 4) + 2 (lane % 4) + j % 2.
template <typename Element, int kN>
struct WarpgroupMma;

// The instruction's accumulator registers, as PTX operands %0.. and as asm outputs.
#define TS_WGMMA_REGISTERS_64                                                                   \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
  "%56, %57, %58, %59, %60, %61, %62, %63}"
#define TS_WGMMA_REGISTERS_128                                                                  \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
  "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "  \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "  \
  "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "    \
  "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "  \
  "%123, %124, %125, %126, %127}"
#define TS_WGMMA_ACCUMULATORS_64(d)                                                               \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TS_WGMMA_ACCUMULATORS_128(d)                                                              \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),  \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),  \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),  \
      "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),  \
      "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),  \
      "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]),  \
      "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),          \
      "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),         \
      "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),         \
      "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]),         \
      "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// kRegs accumulators take operands %0 .. %(kRegs - 1); the descriptors and the scale-d flag
// follow as %kRegs, %kRegs + 1 and %kRegs + 2. `k` is the instruction's depth; `layout` its
// transpose operands after the scales: A K-major and B N-major (", 0, 1") for the 16-bit types,
// none for FP8, whose operands are both K-major (the instruction has no transpose for 8 bits).
#define TS_WGMMA_INSTRUCTION(ElementType, typeName, n, k, layout, regs, a, b, p)               \
  template <>                                                                                  \
  struct WarpgroupMma<ElementType, n> {                                                        \
    __device__ __forceinline__ static void run(float (&d)[regs], std::uint64_t descA,          \
                                               std::uint64_t descB, int accumulate) {          \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #p                                     \
                   ", 0;\n"                                                                    \
                   "wgmma.mma_async.sync.aligned.m64n" #n "k" #k ".f32." typeName "." typeName \
                   " " TS_WGMMA_REGISTERS_##regs ", %" #a ", %" #b ", p, 1, 1" layout ";\n}\n" \
                   : TS_WGMMA_ACCUMULATORS_##regs(d)                                           \
                   : "l"(descA), "l"(descB), "r"(accumulate));                                 \
    }                                                                                          \
  };

TS_WGMMA_INSTRUCTION(__half, "f16", 128, 16, ", 0, 1", 64, 64, 65, 66)
TS_WGMMA_INSTRUCTION(__nv_bfloat16, "bf16", 128, 16, ", 0, 1", 64, 64, 65, 66)
TS_WGMMA_INSTRUCTION(__half, "f16", 256, 16, ", 0, 1", 128, 128, 129, 130)
TS_WGMMA_INSTRUCTION(__nv_bfloat16, "bf16", 256, 16, ", 0, 1", 128, 128, 129, 130)
TS_WGMMA_INSTRUCTION(__nv_fp8_e4m3, "e4m3", 128, 32, "", 64, 64, 65, 66)
TS_WGMMA_INSTRUCTION(__nv_fp8_e5m2, "e5m2", 128, 32, "", 64, 64, 65, 66)
TS_WGMMA_INSTRUCTION(__nv_fp8_e4m3, "e4m3", 256, 32, "", 128, 128, 129, 130)
TS_WGMMA_INSTRUCTION(__nv_fp8_e5m2, "e5m2", 256, 32, "", 128, 128, 129, 130)

// tf32 with A from registers, m64n256k8: tf32 operands in shared memory must be K-major, so the
// transposed product (tensor-tf32) passes its N-major operand through registers. `a` holds the
// four fragment words of a thread (rows g, g + 8 at k q, then at k q + 4; g = lane / 4,
// q = lane % 4, in the warp's 16 rows), descB a K-major operand; D as in WarpgroupMma.
__device__ __forceinline__ void warpgroupMmaTf32(float (&d)[128], const unsigned (&a)[4],
                                                 std::uint64_t descB, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " TS_WGMMA_REGISTERS_128
      ", {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
      : TS_WGMMA_ACCUMULATORS_128(d)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(descB), "r"(accumulate));
}

#undef TS_WGMMA_INSTRUCTION
#undef TS_WGMMA_ACCUMULATORS_128
#undef TS_WGMMA_ACCUMULATORS_64
#undef TS_WGMMA_REGISTERS_128
#undef TS_WGMMA_REGISTERS_64

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
// Ordinary stores (cp.async, the element-by-element edge paths) write shared memory through the
// generic proxy; wgmma and TMA read it through the async proxy, which sees those writes only
// after this fence.
__device__ __forceinline__ void fenceSharedForAsyncProxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

}  // namespace tilescope::cuda
