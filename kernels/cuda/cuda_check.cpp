// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda_check.hpp"

#include <algorithm>
#include <sstream>

#include "cublas_library.hpp"

namespace tilescope::cuda {

namespace {

std::string describe(cudaError_t status) {
  return std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")";
}

std::string consequence(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::OutOfMemory:
      return "; the GPU does not have that much free memory";
    case ErrorKind::DeviceLost:
      return "; the GPU context is lost for this process: restart TileScope to use the GPU again";
    default:
      return "";
  }
}

[[noreturn]] void raise(cudaError_t status, const std::string& context) {
  const ErrorKind kind = classify(status);
  // A recoverable error stays as the runtime's last error until read; read it now so the next
  // unrelated check does not report it again. A sticky error cannot be cleared this way.
  if (kind != ErrorKind::DeviceLost) cudaGetLastError();
  throw Error(kind, context + ": " + describe(status) + consequence(kind));
}

int deviceLimit(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess)
    return 0;
  return value;
}

// Which CUDA launch limit a grid and block break, in words, or "" when none is broken (the
// invalid launch then has another cause, such as missing machine code for this GPU).
std::string brokenLimit(Dim2 grid, Dim2 block) {
  const int maxThreads = deviceLimit(cudaDevAttrMaxThreadsPerBlock);
  const int maxGridX = deviceLimit(cudaDevAttrMaxGridDimX);
  const int maxGridY = deviceLimit(cudaDevAttrMaxGridDimY);
  if (maxThreads > 0 && std::int64_t(block.x) * block.y > maxThreads)
    return "; a block may hold at most " + std::to_string(maxThreads) + " threads";
  if (maxGridX > 0 && grid.x > maxGridX)
    return "; a grid may be at most " + std::to_string(maxGridX) + " blocks wide in x";
  if (maxGridY > 0 && grid.y > maxGridY)
    return "; a grid may be at most " + std::to_string(maxGridY) +
           " blocks tall in y (use a larger tile or a smaller M)";
  return "";
}

}  // namespace

std::string formatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string insufficientDriverMessage(int driverCudaVersion, const std::string& driverRelease,
                                      int runtimeVersion, int minimumDriver) {
  const std::string needed =
      minimumDriver > 0
          ? "the NVIDIA driver " + std::to_string(minimumDriver) + " or newer"
          : "an NVIDIA driver that supports CUDA " + formatCudaVersion(runtimeVersion);
  const std::string built = "this TileScope was built with CUDA " +
                            formatCudaVersion(runtimeVersion) + ", which needs " + needed;
  if (driverCudaVersion == 0)
    return "no NVIDIA driver was found (libcuda.so.1 could not be loaded): " + built +
           " (the cpu backend needs no driver)";
  const std::string found =
      driverRelease.empty()
          ? "the NVIDIA driver supports CUDA " + formatCudaVersion(driverCudaVersion) + " only"
          : "the NVIDIA driver is " + driverRelease + ", which supports CUDA " +
                formatCudaVersion(driverCudaVersion) + " only";
  return found + "; " + built + ": update the driver, or use a TileScope built with an older CUDA";
}

std::string driverReleaseIn(const std::string& procVersionText) {
  // The first word of the first line that reads DDD.D or DDD.D.D (three or more digits first).
  const std::string firstLine = procVersionText.substr(0, procVersionText.find('\n'));
  std::istringstream words(firstLine);
  for (std::string word; words >> word;) {
    std::size_t groups = 0, at = 0;
    bool digitsOnly = true;
    for (std::size_t dot = 0; at <= word.size(); at = dot + 1, ++groups) {
      dot = std::min(word.find('.', at), word.size());
      digitsOnly = digitsOnly && dot > at &&
                   std::all_of(word.begin() + long(at), word.begin() + long(dot),
                               [](char c) { return c >= '0' && c <= '9'; });
      if (groups == 0) digitsOnly = digitsOnly && dot - at >= 3;
    }
    if (digitsOnly && (groups == 2 || groups == 3)) return word;
  }
  return {};
}

ErrorKind classify(cudaError_t status) {
  switch (status) {
    case cudaErrorMemoryAllocation:
      return ErrorKind::OutOfMemory;
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidValue:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidResourceHandle:
    case cudaErrorCooperativeLaunchTooLarge:
      return ErrorKind::LaunchFailed;
    case cudaErrorNotSupported:
      return ErrorKind::Unsupported;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemNotReady:
    case cudaErrorStubLibrary:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorInitializationError:
      return ErrorKind::Unavailable;
    default:
      // cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorMisalignedAddress,
      // cudaErrorIllegalInstruction, cudaErrorHardwareStackError, cudaErrorAssert,
      // cudaErrorECCUncorrectable, ...: faults that leave the context unusable. Anything not
      // known to be recoverable is treated the same way rather than trusted.
      return ErrorKind::DeviceLost;
  }
}

void check(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) raise(status, what);
}

namespace {

// cuBLAS's words for `status`, or its number where the library cannot be loaded.
std::string cublasStatusText(cublasStatus_t status) {
  try {
    return cublas().getStatusString(status);
  } catch (const Error&) {
    return "cuBLAS status " + std::to_string(int(status));
  }
}

}  // namespace

void check(cublasStatus_t status, const std::string& what) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return;
    case CUBLAS_STATUS_ALLOC_FAILED:
      cudaGetLastError();
      throw Error(ErrorKind::OutOfMemory, what + ": cuBLAS could not allocate GPU memory");
    case CUBLAS_STATUS_INVALID_VALUE:
      throw Error(ErrorKind::LaunchFailed, what + ": " + cublasStatusText(status));
    case CUBLAS_STATUS_ARCH_MISMATCH:
    case CUBLAS_STATUS_NOT_SUPPORTED:
      throw Error(ErrorKind::Unsupported, what + ": " + cublasStatusText(status));
    case CUBLAS_STATUS_NOT_INITIALIZED:
    case CUBLAS_STATUS_LICENSE_ERROR:
      throw Error(ErrorKind::Unavailable, what + ": " + cublasStatusText(status));
    default: {
      // Execution or internal failures: the CUDA error underneath says whether the context
      // survived.
      const cudaError_t underlying = cudaGetLastError();
      if (underlying != cudaSuccess) raise(underlying, what);
      throw Error(ErrorKind::LaunchFailed, what + ": " + cublasStatusText(status));
    }
  }
}

void checkLaunch(cudaError_t status, const char* kernel, Dim2 grid, Dim2 block) {
  if (status == cudaSuccess) return;
  const std::string context = std::string("launching ") + kernel + " on a grid of " +
                              std::to_string(grid.x) + " x " + std::to_string(grid.y) +
                              " blocks of " + std::to_string(block.x) + " x " +
                              std::to_string(block.y) + " threads";
  if (classify(status) != ErrorKind::LaunchFailed) raise(status, context);
  cudaGetLastError();
  throw Error(ErrorKind::LaunchFailed,
              context + ": " + describe(status) + brokenLimit(grid, block));
}

}  // namespace tilescope::cuda
