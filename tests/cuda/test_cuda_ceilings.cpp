// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's roofline ceilings measured for real (FP32, TF32, FP16 and BF16 through cuBLAS, FP8
// through cuBLASLt, the bandwidth through a copy): positive, below twice the datasheet where the
// datasheet knows the GPU, cancellable, and refused for a device that does not exist.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "gpu_test.hpp"
#include "tilescope/ceilings.hpp"
#include "tilescope/error.hpp"

namespace tilescope::test {
namespace {

class CudaCeilingsTest : public GpuTest {
 protected:
  std::unique_ptr<Backend> backend = makeCudaBackend();
};

// A measured ceiling is a real rate, and no device beats its datasheet twice over: a figure that
// high means the timing or the byte count is wrong.
void expectPlausible(const Ceiling& ceiling) {
  EXPECT_TRUE(std::isfinite(ceiling.measured) && ceiling.measured > 0)
      << ceiling.name << ": " << ceiling.measured;
  if (ceiling.datasheet) {
    EXPECT_LT(ceiling.measured, 2 * *ceiling.datasheet)
        << ceiling.name << ": " << ceiling.measured << " " << ceiling.unit << " against "
        << *ceiling.datasheet;
  }
  EXPECT_FALSE(ceiling.method.empty()) << ceiling.name;
}

TEST_F(CudaCeilingsTest, MeasuresEveryTypeAndTheBandwidthBelowTwiceTheDatasheet) {
  const DeviceInfo device = backend->devices().front();
  const DeviceCeilings ceilings = backend->measureCeilings(0, {}, nullptr);
  EXPECT_EQ(ceilings.backend, "cuda");
  EXPECT_EQ(ceilings.device, device.name);
  EXPECT_EQ(ceilings.bandwidth.name, kBandwidthCeiling);
  EXPECT_EQ(ceilings.bandwidth.unit, kBandwidthUnit);
  expectPlausible(ceilings.bandwidth);
  // FP32 on the SIMT cores first, then each tensor-core input type, all through cuBLAS.
  ASSERT_FALSE(ceilings.compute.empty());
  EXPECT_EQ(ceilings.compute.front().name, kFp32Ceiling);
  for (const Ceiling& ceiling : ceilings.compute) {
    EXPECT_EQ(ceiling.unit, kComputeUnit);
    expectPlausible(ceiling);
  }
  // From sm_80 on the tensor cores take every 16- and 32-bit type, from sm_89 FP8 too (one
  // ceiling for e4m3 and e5m2), and outrun the SIMT cores.
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  if (major >= 8) {
    std::vector<std::string> expected;
    for (const ElementType type : kElementTypes) {
      const std::string name = computeCeilingFor(type);
      const bool onThisGpu = !isFp8(type) || major * 10 + minor >= 89;
      if (onThisGpu && std::find(expected.begin(), expected.end(), name) == expected.end())
        expected.push_back(name);
    }
    std::vector<std::string> measured;
    for (const Ceiling& ceiling : ceilings.compute) measured.push_back(ceiling.name);
    EXPECT_EQ(measured, expected);
    ASSERT_GE(ceilings.compute.size(), 3u);
    EXPECT_GT(ceilings.compute[2].measured, ceilings.compute[0].measured);
  }
  // The table's figures come with the measurement for the GPUs it knows.
  EXPECT_EQ(ceilings.bandwidth.datasheet.has_value(), datasheetFor(device.name).has_value());
}

TEST_F(CudaCeilingsTest, CancelStopsTheMeasurement) {
  std::atomic<bool> cancel{true};
  try {
    backend->measureCeilings(0, {}, &cancel);
    ADD_FAILURE() << "a cancelled measurement returned";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cancelled);
  }
  // The backend stays usable.
  EXPECT_FALSE(backend->unavailableReason());
}

TEST_F(CudaCeilingsTest, AMissingDeviceIsRefused) {
  try {
    backend->measureCeilings(int(backend->devices().size()), {}, nullptr);
    ADD_FAILURE() << "no error for a missing device";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace tilescope::test
