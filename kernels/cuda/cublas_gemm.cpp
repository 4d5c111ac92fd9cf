// SPDX-License-Identifier: GPL-3.0-or-later
#include "cublas_gemm.hpp"

#include "cublas_library.hpp"
#include "cuda_check.hpp"

namespace tilescope::cuda {

namespace {

// cuBLASLt's FP8 kernels want a workspace; 32 MiB is what NVIDIA's samples give Hopper.
constexpr std::int64_t kWorkspaceBytes = 32 << 20;

}  // namespace

CublasGemm::CublasGemm() {
  check(cublas().create(&handle_), "creating the cuBLAS handle");
  check(cublas().ltCreate(&lightHandle_), "creating the cuBLASLt handle");
}

CublasGemm::~CublasGemm() {
  for (auto& [key, plan] : fp8Plans_) {
    cublas().ltMatrixLayoutDestroy(plan.a);
    cublas().ltMatrixLayoutDestroy(plan.b);
    cublas().ltMatrixLayoutDestroy(plan.c);
    cublas().ltMatmulDescDestroy(plan.operation);
  }
  cublas().ltDestroy(lightHandle_);
  cublas().destroy(handle_);
}

void CublasGemm::multiply(const ProductArgs& args) {
  // cuBLAS is column-major, and a row-major M x N matrix is its N x M transpose. So the row-major
  // C = A B is the column-major C^T = B^T A^T: the same call with the operands swapped.
  const float one = 1.0f, zero = 0.0f;
  const int m = int(args.m), n = int(args.n), k = int(args.k);
  if (isFp8(args.element)) return multiplyFp8(args);
  if (args.element == ElementType::F32) {
    check(cublas().sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args.bAs<float>(), n,
                         args.aAs<float>(), k, &zero, args.c, n),
          "cuBLAS SGEMM");
    return;
  }
  // Tensor-core types: inputs in the type, C and the accumulation in FP32. TF32 inputs are
  // floats that the FAST_TF32 compute type lets the tensor cores read.
  const cudaDataType input = args.element == ElementType::F16    ? CUDA_R_16F
                             : args.element == ElementType::BF16 ? CUDA_R_16BF
                                                                 : CUDA_R_32F;
  const cublasComputeType_t compute =
      args.element == ElementType::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check(cublas().gemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args.b, input, n, args.a,
                        input, k, &zero, args.c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
        std::string("cuBLAS GemmEx (") + toString(args.element) + ")");
}

// FP8 in cuBLASLt's "TN" form, the only one it offers: with A (M x K) and B (stored N x K) both
// K-major, the column-major C^T (N x M) = B A^T is op(X) = X^T on B's bytes (a K x N column-major
// matrix) times A's bytes (K x M), untransposed.
const CublasGemm::Fp8Plan& CublasGemm::fp8Plan(const ProductArgs& args) {
  const Fp8Key key{args.m, args.n, args.k, args.element};
  if (const auto found = fp8Plans_.find(key); found != fp8Plans_.end()) return found->second;
  // The shape in every message: cuBLASLt's FP8 kernels refuse some shapes (on an H100, N = 29
  // at M = 37 and 40; N = 24 and 72 ran).
  const std::string what = std::string("cuBLASLt FP8 matmul (") + toString(args.element) + ") at " +
                           std::to_string(args.m) + " x " + std::to_string(args.n) + " x " +
                           std::to_string(args.k);
  // Its leading dimensions (K bytes for both operands) must be multiples of 16.
  if (args.k % 16 != 0)
    throw Error(ErrorKind::Unsupported,
                what + " needs K a multiple of 16 (K = " + std::to_string(args.k) + ")");
  if (args.element != ElementType::E4M3)
    throw Error(ErrorKind::Unsupported,
                what + ": cuBLASLt multiplies e5m2 only by e4m3, never e5m2 by e5m2");
  const cudaDataType input = CUDA_R_8F_E4M3;
  if (workspace_.count() == 0) workspace_ = DeviceBuffer<std::byte>(kWorkspaceBytes);
  Fp8Plan plan;
  const auto release = [&] {
    cublas().ltMatrixLayoutDestroy(plan.a);
    cublas().ltMatrixLayoutDestroy(plan.b);
    cublas().ltMatrixLayoutDestroy(plan.c);
    cublas().ltMatmulDescDestroy(plan.operation);
  };
  cublasLtMatmulPreference_t preference = nullptr;
  try {
    check(cublas().ltMatmulDescCreate(&plan.operation, CUBLAS_COMPUTE_32F, CUDA_R_32F), what);
    const cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
    check(cublas().ltMatmulDescSetAttribute(plan.operation, CUBLASLT_MATMUL_DESC_TRANSA,
                                            &transposed, sizeof transposed),
          what);
    check(cublas().ltMatmulDescSetAttribute(plan.operation, CUBLASLT_MATMUL_DESC_TRANSB, &plain,
                                            sizeof plain),
          what);
    // Accumulate in the tensor cores' own FP32 sums all along K, as tensor-fp8 does (without it
    // cuBLASLt adds its partial sums into separate registers every few k-steps).
    const std::int8_t fastAccumulation = 1;
    check(cublas().ltMatmulDescSetAttribute(plan.operation, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                            &fastAccumulation, sizeof fastAccumulation),
          what);
    check(cublas().ltMatrixLayoutCreate(&plan.a, input, std::uint64_t(args.k),
                                        std::uint64_t(args.n), args.k),
          what);
    check(cublas().ltMatrixLayoutCreate(&plan.b, input, std::uint64_t(args.k),
                                        std::uint64_t(args.m), args.k),
          what);
    check(cublas().ltMatrixLayoutCreate(&plan.c, CUDA_R_32F, std::uint64_t(args.n),
                                        std::uint64_t(args.m), args.n),
          what);
    check(cublas().ltMatmulPreferenceCreate(&preference), what);
    const std::uint64_t workspaceBytes = kWorkspaceBytes;
    check(cublas().ltMatmulPreferenceSetAttribute(preference,
                                                  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &workspaceBytes, sizeof workspaceBytes),
          what);
    cublasLtMatmulHeuristicResult_t chosen{};
    int found = 0;
    check(cublas().ltMatmulAlgoGetHeuristic(lightHandle_, plan.operation, plan.a, plan.b, plan.c,
                                            plan.c, preference, 1, &chosen, &found),
          what);
    if (found == 0)
      throw Error(ErrorKind::Unsupported, what + ": cuBLASLt has no kernel for this shape");
    plan.algorithm = chosen.algo;
  } catch (...) {
    cublas().ltMatmulPreferenceDestroy(preference);
    release();
    throw;
  }
  cublas().ltMatmulPreferenceDestroy(preference);
  return fp8Plans_.emplace(key, plan).first->second;
}

void CublasGemm::multiplyFp8(const ProductArgs& args) {
  const Fp8Plan& plan = fp8Plan(args);
  const float one = 1.0f, zero = 0.0f;
  check(cublas().ltMatmul(lightHandle_, plan.operation, &one, args.b, plan.a, args.a, plan.b, &zero,
                          args.c, plan.c, args.c, plan.c, &plan.algorithm, workspace_.get(),
                          workspace_.bytes(), nullptr),
        std::string("cuBLASLt FP8 matmul (") + toString(args.element) + ")");
}

}  // namespace tilescope::cuda
