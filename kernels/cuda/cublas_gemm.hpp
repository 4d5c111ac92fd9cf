// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The library reference: cuBLAS on row-major data (SGEMM for fp32, cublasGemmEx with FP32
// accumulation for the tensor-core types), which is the GPU's ground truth for the hand-written
// kernels at sizes where the CPU double reference would take too long.
#include <cublas_v2.h>

#include "launch.hpp"

namespace tilescope::cuda {

class CublasGemm {
 public:
  // Creates the handle on the current device; throws tilescope::Error when cuBLAS cannot start.
  CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;
  ~CublasGemm();

  // C = A B in args.element on the default stream, asynchronously; the owner fields of `args`
  // are ignored.
  void multiply(const ProductArgs& args);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace tilescope::cuda
