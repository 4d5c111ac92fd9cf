// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's roofline ceilings measured for real (FP32, TF32, FP16 and BF16 through cuBLAS, the
// bandwidth through a copy): positive, below twice the datasheet where the
// datasheet knows the GPU, cancellable, and refused for a device that does not exist.
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
  // From sm_80 on the tensor cores take every type, and outrun the SIMT cores.
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major >= 8) {
    ASSERT_EQ(ceilings.compute.size(), std::size(kElementTypes));
    for (std::size_t i = 0; i < ceilings.compute.size(); ++i)
      EXPECT_EQ(ceilings.compute[i].name, computeCeilingFor(kElementTypes[i]));
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
