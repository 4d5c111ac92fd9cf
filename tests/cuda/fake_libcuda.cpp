// SPDX-License-Identifier: GPL-3.0-or-later
// A stand-in for the NVIDIA driver's libcuda.so.1 that reports an old driver: the CUDA runtime
// asks it for its version, finds it older than itself and refuses it with
// cudaErrorInsufficientDriver, as it would on a machine whose driver predates the toolkit. Loaded
// through LD_LIBRARY_PATH by the cuda_driver_too_old test; it is never installed.
#include <cstdlib>

extern "C" {

// CUDA_SUCCESS (0) and the driver's CUDA version, 12040 (CUDA 12.4) unless
// TILESCOPE_FAKE_CUDA_DRIVER says otherwise.
__attribute__((visibility("default"))) int cuDriverGetVersion(int* version) {
  const char* fake = std::getenv("TILESCOPE_FAKE_CUDA_DRIVER");
  *version = fake ? std::atoi(fake) : 12040;
  return 0;
}

__attribute__((visibility("default"))) int cuInit(unsigned int /*flags*/) {
  return 0;
}
}
