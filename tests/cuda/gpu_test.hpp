// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the GPU tests share: a fixture that skips without a usable GPU, the catalogue's CUDA
// configurations as test parameters, and a product run once through the launch functions.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "device_memory.hpp"
#include "launch.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/problem.hpp"

namespace tilescope::test {

// Why no GPU test can run in this process (no driver, no GPU), or nullopt.
const std::optional<std::string>& gpuUnavailable();

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto& why = gpuUnavailable()) GTEST_SKIP() << "no usable CUDA GPU: " << *why;
  }
};

// One configuration of a catalogue kernel the CUDA backend implements.
struct KernelCase {
  KernelConfig config;
  int tile = 0;  // 0 for kernels without a tile
  ElementType element = ElementType::F32;
};

// Every CUDA kernel with every configuration the catalogue accepts: each tile of a seed kernel,
// each valid (compiled) combination of a ladder kernel's parameters, and the library reference
// too when asked; each in every element type the kernel multiplies.
std::vector<KernelCase> everyCudaConfiguration(bool withLibrary);
// The ladder's corners: per ladder kernel its default and its first and last valid
// configurations (the parameter space's extremes), for the slow checks.
std::vector<KernelConfig> ladderCorners();
// "shared_tiled_T7", "warptile_BM128_BN128_...", "tensor_mma_..._bf16": a valid GoogleTest name.
std::string caseName(const ::testing::TestParamInfo<KernelCase>& info);
std::string describe(const KernelCase& kernelCase, const Shape& shape);
// The Mapping of a configuration as this GPU launches it: a persistent kernel's tiles are placed
// by the blocks the current GPU holds at once, which its launch counts.
Mapping launchedMapping(const KernelConfig& config, const Shape& shape, ElementType element);

// A and B uploaded once, in `element`'s storage; run() launches one configuration on them and
// returns C.
class DeviceProduct {
 public:
  explicit DeviceProduct(const Operands& operands, ElementType element = ElementType::F32);

  const Shape& shape() const { return shape_; }
  // Poisons C with NaN, launches (through cuBLAS for the library), waits, and copies C back.
  // With `owners`, the instrumented variant also returns who wrote each element.
  struct Owners {
    std::vector<int> block, thread;
  };
  Matrix run(const KernelConfig& config, Owners* owners = nullptr);

 private:
  Shape shape_;
  ElementType element_;
  cuda::DeviceBuffer<std::byte> a_, b_;
  cuda::DeviceBuffer<float> c_;
};

// The Kernel Editor's shared-tiled template with the experiment its comment suggests made: A's
// tile stored transposed (written a[tx][ty], read a[kk][ty]); empty if the template changed so
// that the edit no longer applies.
std::string sharedTiledWithATransposed();

}  // namespace tilescope::test
