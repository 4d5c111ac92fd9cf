// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's roofline ceilings: cuBLAS for the arithmetic rates, a device-to-device copy for the
// memory bandwidth, timed with CUDA events.
#include <atomic>
#include <string>

#include "cublas_gemm.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/ceilings.hpp"

namespace tilescope::cuda {

// Measures on the current device (the caller has called cudaSetDevice) with its cuBLAS handle;
// `device` is the name the results carry. Throws Error(OutOfMemory) when the buffers do not fit,
// Error(Cancelled) when `cancel` is set between repetitions, and the errors of cuda_check.hpp.
DeviceCeilings measureCeilings(const std::string& device, CublasGemm& gemm,
                               const ProgressFn& progress, const std::atomic<bool>* cancel);

}  // namespace tilescope::cuda
