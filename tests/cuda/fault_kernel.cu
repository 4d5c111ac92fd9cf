// SPDX-License-Identifier: GPL-3.0-or-later
// A deliberate kernel fault for test_cuda_fault.cpp: a write through a null pointer, which the
// GPU reports as an illegal address and which poisons the process's CUDA context.
#include <cuda_runtime.h>

namespace tilescope::test {

namespace {
__global__ void writeThroughNull(float* target) {
  target[threadIdx.x] = 1.0f;
}
}  // namespace

cudaError_t provokeIllegalAddress() {
  writeThroughNull<<<1, 32>>>(nullptr);
  return cudaDeviceSynchronize();
}

}  // namespace tilescope::test
