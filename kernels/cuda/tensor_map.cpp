// SPDX-License-Identifier: GPL-3.0-or-later
#include "tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.hpp"
#include "tilescope/error.hpp"

namespace tilescope::cuda {

namespace {

// The widest row the 128-byte swizzle takes.
constexpr int kBoxRowBytes = 128;

int elementBytes(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
      return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:  // FP8
      return 1;
    default:
      return 2;
  }
}

// cuTensorMapEncodeTiled from the driver the runtime has loaded, so nothing links libcuda.
PFN_cuTensorMapEncodeTiled_v12000 encodeTiled(const char* kernel) {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    TS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000,
                                                   cudaEnableDefault, &found));
    return found == cudaDriverEntryPointSuccess
               ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry)
               : nullptr;
  }();
  if (function == nullptr)
    throw Error(ErrorKind::Unsupported, std::string(kernel) +
                                            " needs cuTensorMapEncodeTiled, which this CUDA "
                                            "driver does not offer");
  return function;
}

}  // namespace

CUtensorMap swizzledTensorMap(const void* matrix, std::int64_t rows, std::int64_t cols, int boxRows,
                              CUtensorMapDataType type, const char* kernel) {
  CUtensorMap tensor{};
  const cuuint64_t size[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const int bytes = elementBytes(type);
  const cuuint64_t rowBytes[1] = {cuuint64_t(cols) * cuuint64_t(bytes)};
  const cuuint32_t box[2] = {cuuint32_t(kBoxRowBytes / bytes), cuuint32_t(boxRows)};
  const cuuint32_t step[2] = {1, 1};
  const CUresult status =
      encodeTiled(kernel)(&tensor, type, 2, const_cast<void*>(matrix), size, rowBytes, box, step,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw Error(ErrorKind::LaunchFailed,
                std::string(kernel) + ": cuTensorMapEncodeTiled refused a " + std::to_string(rows) +
                    " x " + std::to_string(cols) + " operand (CUresult " +
                    std::to_string(int(status)) + ")");
  return tensor;
}

}  // namespace tilescope::cuda
