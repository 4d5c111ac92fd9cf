// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A or B on its way to the GPU, in the storage of its element type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include "tilescope/problem.hpp"

namespace tilescope::cuda {

// A or B as the GPU stores it: the floats themselves for fp32 and tf32, packed 16-bit words for
// fp16 and bf16 (the operands already hold values of the type, so packing is exact).
class HostOperand {
 public:
  HostOperand(const Matrix& matrix, ElementType type) : matrix_(matrix) {
    if (storageBytes(type) == 4) return;
    packed_.resize(matrix.data.size());
    for (std::size_t i = 0; i < packed_.size(); ++i)
      packed_[i] = type == ElementType::F16
                       ? __half_raw(__float2half_rn(matrix.data[i])).x
                       : __nv_bfloat16_raw(__float2bfloat16_rn(matrix.data[i])).x;
  }
  const void* data() const {
    return packed_.empty() ? static_cast<const void*>(matrix_.data.data()) : packed_.data();
  }
  std::size_t bytes() const {
    return packed_.empty() ? matrix_.data.size() * sizeof(float)
                           : packed_.size() * sizeof(std::uint16_t);
  }

 private:
  const Matrix& matrix_;
  std::vector<std::uint16_t> packed_;
};

}  // namespace tilescope::cuda
