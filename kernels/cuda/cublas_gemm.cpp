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
  check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args.b, n, args.a, k, &zero,
                    args.c, n),
        "cuBLAS SGEMM");
}

}  // namespace tilescope::cuda
