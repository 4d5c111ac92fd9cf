// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The library reference: cuBLAS on row-major data (SGEMM for fp32, cublasGemmEx with FP32
// accumulation for the 16-bit and tf32 tensor-core types, cuBLASLt's matmul for FP8), which is
// the GPU's ground truth for the hand-written kernels at sizes where the CPU double reference
// would take too long.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <map>
#include <tuple>

#include "device_memory.hpp"
#include "launch.hpp"

namespace tilescope::cuda {

class CublasGemm {
 public:
  // Creates the handles on the current device; throws tilescope::Error when cuBLAS cannot start.
  CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;
  ~CublasGemm();

  // C = A B in args.element on the default stream, asynchronously; the owner fields of `args`
  // are ignored. FP8 operands are K-major (storesBKMajor): B holds N rows of K values.
  void multiply(const ProductArgs& args);

 private:
  // cuBLASLt's descriptors and chosen algorithm for one FP8 shape and type, made once: asking
  // the heuristic takes longer on the host than a small product on the GPU.
  struct Fp8Plan {
    cublasLtMatmulDesc_t operation = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algorithm{};
  };
  using Fp8Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, ElementType>;
  const Fp8Plan& fp8Plan(const ProductArgs& args);
  void multiplyFp8(const ProductArgs& args);

  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lightHandle_ = nullptr;
  DeviceBuffer<std::byte> workspace_;
  std::map<Fp8Key, Fp8Plan> fp8Plans_;
};

}  // namespace tilescope::cuda
