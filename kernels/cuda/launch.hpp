// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA launches of the kernel families, as host functions: each launches one catalogue kernel
// on the current device's default stream, with its launch shape taken from its thread map. Plain
// C++ (no CUDA syntax), so the backend and the GPU tests can call them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/catalogue.hpp"

namespace tilescope::cuda {

// Device pointers of one product C = A B, all row-major: A is M x K, B is K x N, C is M x N. A and
// B hold `element` values (see ElementType); C is float32.
// With ownerBlock and ownerThread set, the instrumented variant of the kernel also records, per
// element of C, the linear block (x + y * gridDim.x) and linear thread (x + y * blockDim.x) that
// wrote it, so a test can hold the kernel to tilescope::Mapping::owner().
struct ProductArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  float* c = nullptr;
  std::int64_t m = 1, n = 1, k = 1;
  int* ownerBlock = nullptr;
  int* ownerThread = nullptr;
  ElementType element = ElementType::F32;

  bool traced() const { return ownerBlock != nullptr && ownerThread != nullptr; }
  // The operands as the element type's storage (the FP32 and TF32 kernels read floats).
  template <typename T>
  TS_HD const T* aAs() const {
    return static_cast<const T*>(a);
  }
  template <typename T>
  TS_HD const T* bAs() const {
    return static_cast<const T*>(b);
  }
};

// A family's CUDA launch, registered by its .cu (kernels/families/<name>/<name>.cu). `launch`
// throws Error(InvalidArgument) for a configuration the family was not compiled for, and
// Error(LaunchFailed) when CUDA refuses the launch (see cuda_check.hpp); it does not wait for the
// kernel: a fault inside it surfaces at the next synchronising call.
struct CudaLaunch {
  void (*launch)(const Params& params, const ProductArgs& args) = nullptr;
  // A persistent kernel's launch depends on how many of its blocks the current GPU holds at once:
  // that count, so the Mapping can describe the launch exactly; null for the other kernels.
  int (*residentBlocks)(const Params& params, ElementType element) = nullptr;
};

class Launchers {
 public:
  void add(const std::string& kernel, CudaLaunch launch);
  const CudaLaunch* find(const std::string& kernel) const;

 private:
  std::vector<std::pair<std::string, CudaLaunch>> launches_;
};

// Every family's registerCuda(), in catalogue order (generated: registered_cuda_families.cpp).
void registerCudaFamilies(Launchers& launchers);

// The launch of catalogue kernel `kernel`; throws Error(Unsupported) where it has no hand-written
// CUDA kernel (the library reference runs through cuBLAS, a user kernel through its UserModule).
const CudaLaunch& cudaLaunchOf(const std::string& kernel);

// Launches the hand-written kernel a resolved configuration names (not the library reference,
// which needs a cuBLAS handle: see cublas_gemm.hpp).
void launchMapped(const ResolvedKernel& kernel, const ProductArgs& args);

}  // namespace tilescope::cuda
