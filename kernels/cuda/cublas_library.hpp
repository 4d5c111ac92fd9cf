// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// cuBLAS and cuBLASLt, loaded at their first use (toolkit_library.hpp says why). Only the
// library kernel and the GPU reference call them.
#include <cublasLt.h>
#include <cublas_v2.h>

namespace tilescope::cuda {

// The functions used, as (member, symbol) pairs: cublas_v2.h's names are macros for the _v2
// symbols.
#define TS_CUBLAS_FUNCTIONS(X)                                  \
  X(create, cublasCreate_v2)                                    \
  X(destroy, cublasDestroy_v2)                                  \
  X(sgemm, cublasSgemm_v2)                                      \
  X(getProperty, cublasGetProperty)                             \
  X(getStatusString, cublasGetStatusString)                     \
  X(ltCreate, cublasLtCreate)                                   \
  X(ltDestroy, cublasLtDestroy)                                 \
  X(ltMatmul, cublasLtMatmul)                                   \
  X(ltMatmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic)   \
  X(ltMatmulDescCreate, cublasLtMatmulDescCreate)               \
  X(ltMatmulDescDestroy, cublasLtMatmulDescDestroy)             \
  X(ltMatmulDescSetAttribute, cublasLtMatmulDescSetAttribute)   \
  X(ltMatrixLayoutCreate, cublasLtMatrixLayoutCreate)           \
  X(ltMatrixLayoutDestroy, cublasLtMatrixLayoutDestroy)         \
  X(ltMatmulPreferenceCreate, cublasLtMatmulPreferenceCreate)   \
  X(ltMatmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy) \
  X(ltMatmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute)

struct Cublas {
#define TS_CUBLAS_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
  TS_CUBLAS_FUNCTIONS(TS_CUBLAS_MEMBER)
#undef TS_CUBLAS_MEMBER
  // cublasGemmEx, named by its type: cublas_api.h adds a C++ overload of that name.
  cublasStatus_t (*gemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                           int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                           cublasGemmAlgo_t) = nullptr;
};

// The loaded functions; the first call loads them. Throws Error(Unavailable), saying which
// library is missing and where it comes from, when they cannot be loaded.
const Cublas& cublas();

}  // namespace tilescope::cuda
