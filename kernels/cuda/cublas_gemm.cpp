// SPDX-License-Identifier: GPL-3.0-or-later
#include "cublas_gemm.hpp"

#include "cuda_check.hpp"

namespace tilescope::cuda {

CublasGemm::CublasGemm() {
  check(cublasCreate(&handle_), "creating the cuBLAS handle");
}

CublasGemm::~CublasGemm() {
  cublasDestroy(handle_);
}

void CublasGemm::multiply(const ProductArgs& args) {
  // cuBLAS is column-major, and a row-major M x N matrix is its N x M transpose. So the row-major
  // C = A B is the column-major C^T = B^T A^T: the same call with the operands swapped.
  const float one = 1.0f, zero = 0.0f;
  const int m = int(args.m), n = int(args.n), k = int(args.k);
  if (args.element == ElementType::F32) {
    check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args.bAs<float>(), n,
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
  check(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args.b, input, n, args.a,
                     input, k, &zero, args.c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
        std::string("cuBLAS GemmEx (") + toString(args.element) + ")");
}

}  // namespace tilescope::cuda
