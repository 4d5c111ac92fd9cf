// SPDX-License-Identifier: GPL-3.0-or-later
// A sticky fault (illegal address) in its own process: the backend turns it into DeviceLost with
// the advice to restart, refuses every later run, and the results measured before stay intact.
#include "cuda_check.hpp"
#include "gpu_test.hpp"

namespace tilescope::test {

cudaError_t provokeIllegalAddress();

namespace {

class CudaFault : public GpuTest {};

TEST_F(CudaFault, AStickyFaultMarksTheBackendLostAndAsksForARestart) {
  const std::unique_ptr<Backend> backend = makeCudaBackend();
  RunRequest run;
  run.kernel = {"naive", {{"tile", 16}}};
  run.shape = {64, 64, 64};
  run.sampling.fixedReps = 1;
  const RunResult before = backend->run(run, {}, nullptr);
  ASSERT_TRUE(before.verified());

  const cudaError_t fault = provokeIllegalAddress();
  ASSERT_NE(fault, cudaSuccess);
  EXPECT_EQ(cuda::classify(fault), ErrorKind::DeviceLost) << cudaGetErrorName(fault);

  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      backend->run(run, {}, nullptr);
      FAIL() << "ran after a sticky fault";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::DeviceLost);
      EXPECT_FALSE(error.recoverable());
      EXPECT_NE(std::string(error.what()).find("restart TileScope"), std::string::npos)
          << error.what();
    }
  }
  const auto why = backend->unavailableReason();
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("restart TileScope"), std::string::npos) << *why;
  EXPECT_TRUE(before.verified());
  EXPECT_GT(before.stats.medianMs, 0.0);
}

}  // namespace
}  // namespace tilescope::test
