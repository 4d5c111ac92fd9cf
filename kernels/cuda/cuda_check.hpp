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

// 13000 -> "13.0": the encoding of cudaDriverGetVersion, cudaRuntimeGetVersion and CUDART_VERSION.
std::string formatCudaVersion(int version);

// Why the runtime refused the driver (cudaErrorInsufficientDriver), in words a user can act on.
// `driverCudaVersion` is cudaDriverGetVersion's (0: no driver could be loaded), `driverRelease`
// the NVIDIA kernel module's version ("580.65.06"; "" when unknown), `runtimeVersion` the
// runtime's (CUDART_VERSION) and `minimumDriver` the oldest driver release that runtime accepts
// (580 for CUDA 13; 0 when unknown).
std::string insufficientDriverMessage(int driverCudaVersion, const std::string& driverRelease,
                                      int runtimeVersion, int minimumDriver);

// The driver release in the text of /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX
// x86_64 Kernel Module  580.65.06  Sun Jul 27 ..."), or "" when it names none.
std::string driverReleaseIn(const std::string& procVersionText);

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
