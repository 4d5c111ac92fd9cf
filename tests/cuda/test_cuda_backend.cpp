// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend as the app and the CLI see it: devices, timing with phases, the host-clock
// pitfall, verification at both sizes, progress, cancel and refusals.
#include <algorithm>

#include "gpu_test.hpp"

namespace tilescope::test {
namespace {

class CudaBackendTest : public GpuTest {
 protected:
  static RunRequest request(const KernelConfig& kernel, const Shape& shape) {
    RunRequest run;
    run.kernel = kernel;
    run.shape = shape;
    return run;
  }

  std::unique_ptr<Backend> backend = makeCudaBackend();
};

std::optional<std::string> fact(const DeviceInfo& device, const std::string& key) {
  for (const auto& [name, value] : device.facts)
    if (name == key) return value;
  return std::nullopt;
}

TEST_F(CudaBackendTest, ListsEachGpuWithItsFacts) {
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_FALSE(devices.empty());
  for (const DeviceInfo& device : devices) {
    EXPECT_FALSE(device.name.empty());
    for (const char* key : {"compute capability", "SMs", "memory", "SM clock (peak)",
                            "driver supports CUDA", "CUDA runtime"})
      EXPECT_TRUE(fact(device, key)) << device.name << " lacks '" << key << "'";
    EXPECT_GT(std::stoi(fact(device, "SMs").value_or("0")), 0);
  }
}

TEST_F(CudaBackendTest, TimesTheKernelWithPhasesAndShowsTheUnsynchronisedPitfall) {
  RunRequest run = request({"naive", {{"tile", 16}}}, {1024, 1024, 1024});
  const RunResult result = backend->run(run, {}, nullptr);
  EXPECT_EQ(result.backend, "cuda");
  EXPECT_EQ(result.device, backend->devices().front().name);
  EXPECT_EQ(result.kernel, (KernelConfig{"naive", {{"tile", 16}}}));
  ASSERT_TRUE(result.verification);
  EXPECT_TRUE(result.verified()) << "normalized error " << result.verification->normalizedError;

  const Stats& stats = result.stats;
  EXPECT_GE(stats.reps, 1);
  EXPECT_LE(stats.minMs, stats.medianMs);
  EXPECT_LE(stats.medianMs, stats.maxMs);
  EXPECT_GT(stats.minMs, 0.0);
  EXPECT_NEAR(result.gflops, 2.0 * 1024 * 1024 * 1024 / (stats.medianMs * 1e6),
              1e-9 * result.gflops);

  ASSERT_TRUE(result.phases);
  EXPECT_GT(result.phases->h2dMs, 0.0);
  EXPECT_GT(result.phases->d2hMs, 0.0);
  EXPECT_EQ(result.phases->kernelMs, stats.medianMs);
  // A naive 1024^3 product runs for about a millisecond; returning from the launch takes
  // microseconds. A host clock that does not wait sees only the launch.
  ASSERT_TRUE(result.unsyncedHostMs);
  EXPECT_LT(*result.unsyncedHostMs, stats.minMs);
}

TEST_F(CudaBackendTest, LargeProblemsAreVerifiedOnTheGpu) {
  // 1536 x 1536 x 1024 is past the CPU double reference's bound: the kernels are compared with
  // cuBLAS, cuBLAS itself with sampled rows of the double reference.
  for (const KernelConfig& kernel :
       {KernelConfig{"shared-tiled", {{"tile", 16}}}, KernelConfig{"library", {}}}) {
    RunRequest run = request(kernel, {1536, 1536, 1024});
    run.sampling.fixedReps = 1;
    const RunResult result = backend->run(run, {}, nullptr);
    ASSERT_TRUE(result.verification) << kernel.kernel;
    EXPECT_TRUE(result.verified())
        << kernel.kernel << ": normalized error " << result.verification->normalizedError;
    EXPECT_EQ(result.verification->nonFinite, 0) << kernel.kernel;
  }
}

TEST_F(CudaBackendTest, ReportsProgressAndHonoursCancel) {
  RunRequest run = request({"naive", {{"tile", 16}}}, {256, 256, 256});
  run.sampling.fixedReps = 3;
  std::vector<std::pair<double, std::string>> updates;
  backend->run(
      run,
      [&](double fraction, const std::string& stage) { updates.emplace_back(fraction, stage); },
      nullptr);
  ASSERT_FALSE(updates.empty());
  for (std::size_t i = 1; i < updates.size(); ++i)
    EXPECT_GE(updates[i].first, updates[i - 1].first) << updates[i].second;
  EXPECT_EQ(updates.back().first, 1.0);
  const auto saw = [&](const std::string& stage) {
    return std::any_of(updates.begin(), updates.end(),
                       [&](const auto& update) { return update.second == stage; });
  };
  EXPECT_TRUE(saw("warm-up"));
  EXPECT_TRUE(saw("timing repetition 3"));

  const std::atomic<bool> cancelled{true};
  try {
    backend->run(run, {}, &cancelled);
    FAIL() << "a cancelled run finished";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cancelled);
  }
  EXPECT_TRUE(backend->run(run, {}, nullptr).verified());
}

TEST_F(CudaBackendTest, RefusesTheSerialKernelBeyondItsBound) {
  const Shape large{1024, 1024, 1024};
  const auto why = backend->refusal({"serial", {}}, large);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("M*N*K"), std::string::npos) << *why;
  EXPECT_FALSE(backend->refusal({"serial", {}}, {64, 64, 64}));
  EXPECT_FALSE(backend->refusal({"naive", {{"tile", 16}}}, large));
  try {
    backend->run(request({"serial", {}}, large), {}, nullptr);
    FAIL() << "the serial kernel ran past its bound";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unsupported);
  }
}

TEST_F(CudaBackendTest, RejectsAnUnknownDevice) {
  RunRequest run = request({"naive", {}}, {8, 8, 8});
  run.device = int(backend->devices().size());
  try {
    backend->run(run, {}, nullptr);
    FAIL() << "ran on a device that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace tilescope::test
