// SPDX-License-Identifier: GPL-3.0-or-later
// library: its catalogue entry, its thread map and its schedule on the CPU, registered once.
#include <cblas.h>

#include "families/registration.hpp"

namespace tilescope::families::library {

namespace {

using namespace cpu;

// OpenBLAS sgemm, the CPU yardstick. One call: it cannot be cancelled part-way.
void runOnCpu(const Gemm& g, const Params& /*params*/, const std::atomic<bool>* /*cancel*/) {
  // validateShape() bounds every dimension by kMaxDimension, so they fit BLAS's int.
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, g.a, k, g.b, n, 0.0f, g.c,
              n);
}

}  // namespace

void registerFamily(Registry& registry) {
  registry.add(
      {.info = {.id = "library",
                .displayName = "Library reference (OpenBLAS / cuBLAS)",
                .seed = "reference: OpenBLAS sgemm on the CPU; cuBLAS sgemm, cublasGemmEx for "
                        "tf32, fp16 and bf16, or cuBLASLt's matmul for FP8, on the GPU",
                .teaching = "The vendor library: the yardstick every hand-written kernel is "
                            "measured against. Its tiling is not visible, so it has no diagram.",
                .params = {},
                .backends = kCpuAndCuda,
                .hasMapping = false,
                // The tensor-core types run through cublasGemmEx, e4m3 through cuBLASLt (FP32
                // accumulation) on the GPU. cuBLASLt multiplies e5m2 only by e4m3, never by
                // e5m2, so e5m2 has no library reference.
                .types = {ElementType::F32, ElementType::TF32, ElementType::F16, ElementType::BF16,
                          ElementType::E4M3},
                .hue = {"#757575", "#8d8d8d"}},
       .runOnCpu = runOnCpu});
}

}  // namespace tilescope::families::library
