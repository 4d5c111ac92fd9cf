// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// TMA tensor maps for the warp-specialised Hopper kernels (tensor-tma, tensor-persistent): made on
// the host per launch, passed to the kernel as __grid_constant__ parameters.
#include <cuda.h>

#include <cstdint>

namespace tilescope::cuda {

// A rows x cols row-major matrix of 16-bit elements (FLOAT16, BFLOAT16) or 32-bit ones (FLOAT32,
// for tf32), read in boxes of boxRows x 128 bytes (64 or 32 columns: the widest row the 128-byte
// swizzle takes) that land swizzled; past the edges the engine writes zeros. The caller has checked
// that a row is a multiple of 16 bytes. Throws Error(Unsupported) when the driver lacks
// cuTensorMapEncodeTiled and Error(LaunchFailed) when it refuses the matrix; `kernel` names the
// catalogue kernel in the message.
CUtensorMap swizzledTensorMap(const void* matrix, std::int64_t rows, std::int64_t cols, int boxRows,
                              CUtensorMapDataType type, const char* kernel);

}  // namespace tilescope::cuda
