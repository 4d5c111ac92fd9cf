// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A or B on its way to the GPU, in the storage of its element type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tilescope/mapping.hpp"
#include "tilescope/problem.hpp"

namespace tilescope::cuda {

// A or B as the GPU stores it: the floats themselves for fp32 and tf32, packed 16-bit words for
// fp16 and bf16, bytes for FP8 (the operands already hold values of the type, so packing is
// exact). An FP8 B is stored transposed, N rows of K values (storesBKMajor).
class HostOperand {
 public:
  HostOperand(const Matrix& matrix, ElementType type, Operand operand) : matrix_(matrix) {
    const int bytes = storageBytes(type);
    if (bytes == 4) return;
    packed_.resize(matrix.data.size() * std::size_t(bytes));
    const bool transposed = operand == Operand::B && storesBKMajor(type);
    for (std::int64_t r = 0; r < matrix.rows; ++r)
      for (std::int64_t c = 0; c < matrix.cols; ++c) {
        const std::int64_t at = transposed ? c * matrix.rows + r : r * matrix.cols + c;
        store(packed_.data() + at * bytes, matrix.at(r, c), type);
      }
  }
  const void* data() const {
    return packed_.empty() ? static_cast<const void*>(matrix_.data.data()) : packed_.data();
  }
  std::size_t bytes() const {
    return packed_.empty() ? matrix_.data.size() * sizeof(float) : packed_.size();
  }

 private:
  static void store(unsigned char* to, float value, ElementType type) {
    switch (type) {
      case ElementType::F16: {
        const std::uint16_t bits = __half_raw(__float2half_rn(value)).x;
        std::memcpy(to, &bits, sizeof bits);
        return;
      }
      case ElementType::BF16: {
        const std::uint16_t bits = __nv_bfloat16_raw(__float2bfloat16_rn(value)).x;
        std::memcpy(to, &bits, sizeof bits);
        return;
      }
      case ElementType::E4M3:
        *to = __nv_cvt_float_to_fp8(value, __NV_SATFINITE, __NV_E4M3);
        return;
      case ElementType::E5M2:
        *to = __nv_cvt_float_to_fp8(value, __NV_SATFINITE, __NV_E5M2);
        return;
      case ElementType::F32:
      case ElementType::TF32:
        break;
    }
    std::memcpy(to, &value, sizeof value);
  }

  const Matrix& matrix_;
  std::vector<unsigned char> packed_;
};

}  // namespace tilescope::cuda
