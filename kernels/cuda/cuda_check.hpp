// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one place where CUDA and cuBLAS status codes become typed tilescope::Error exceptions.
// Every runtime call in the backend goes through check(); nothing is printed and ignored.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "tilescope/error.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope::cuda {

// How an error affects the backend: out of memory and invalid launches are recoverable, a fault
// inside a kernel (illegal address, ...) poisons the CUDA context until the process ends.
ErrorKind classify(cudaError_t status);

// Throws Error(classify(status)) naming `what` and CUDA's own description; clears a recoverable
// error so it does not resurface at the next, unrelated call.
void check(cudaError_t status, const std::string& what);
void check(cublasStatus_t status, const std::string& what);

// check() for a kernel launch: the message names the kernel, grid and block, and for an invalid
// configuration the CUDA limit the launch broke.
void checkLaunch(cudaError_t status, const char* kernel, Dim2 grid, Dim2 block);

// A driver API function from the driver the runtime has loaded, so nothing links libcuda; throws
// Error(Unavailable) when the driver lacks it.
template <typename Function>
Function driverEntryPoint(const char* name) {
  void* found = nullptr;
  cudaDriverEntryPointQueryResult status{};
  check(cudaGetDriverEntryPointByVersion(name, &found, 12000, cudaEnableDefault, &status), name);
  if (status != cudaDriverEntryPointSuccess)
    throw Error(ErrorKind::Unavailable, std::string("the CUDA driver lacks ") + name);
  return reinterpret_cast<Function>(found);
}

}  // namespace tilescope::cuda

// Wraps a runtime call so the error message quotes the call itself.
#define TS_CUDA_CHECK(call) ::tilescope::cuda::check((call), #call)
