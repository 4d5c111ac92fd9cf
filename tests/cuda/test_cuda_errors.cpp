// SPDX-License-Identifier: GPL-3.0-or-later
// The recoverable error paths on a real GPU: each failure is a typed error with a message that
// names its cause, and the next normal run succeeds.
#include "gpu_test.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope::test {
namespace {

class CudaErrors : public GpuTest {
 protected:
  static RunRequest request(const std::string& kernel, int tile, const Shape& shape) {
    RunRequest run;
    run.kernel = {kernel, {{"tile", tile}}};
    run.shape = shape;
    run.fill = Fill::Integer;
    run.sampling.warmups = 0;
    run.sampling.fixedReps = 1;
    return run;
  }

  // The backend still works: a small verified run.
  void expectNormalRun() {
    const RunResult result = backend->run(request("shared-tiled", 16, {65, 47, 33}), {}, nullptr);
    EXPECT_TRUE(result.verified());
    EXPECT_FALSE(backend->unavailableReason());
  }

  // The error `run` throws, which must be one.
  static Error thrownBy(const std::function<void()>& run) {
    try {
      run();
    } catch (const Error& error) {
      return error;
    }
    ADD_FAILURE() << "nothing was thrown";
    return Error(ErrorKind::InvalidArgument, "nothing thrown");
  }

  std::unique_ptr<Backend> backend = makeCudaBackend();
};

TEST_F(CudaErrors, AnOversizedProblemIsRefusedWithTheBytesNeededAndFree) {
  // 2^20 x 2^20 floats of C alone are 4 TiB.
  const Error error = thrownBy([&] {
    backend->run(request("naive", 16, {kMaxDimension, kMaxDimension, 1}), {}, nullptr);
  });
  EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
  const std::string message = error.what();
  EXPECT_NE(message.find("bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("free"), std::string::npos) << message;
  expectNormalRun();
}

TEST_F(CudaErrors, AFailedAllocationIsOutOfMemoryAndClearedForTheNextCall) {
  const Error error = thrownBy([] { cuda::DeviceBuffer<float> huge(std::int64_t(1) << 42); });
  EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the allocation error was left behind";
  expectNormalRun();
}

TEST_F(CudaErrors, AGridTooTallIsALaunchFailureNamingTheLimit) {
  // naive with T = 1 launches one block row per row of C; CUDA allows 65535 in y.
  const Error error = thrownBy([&] {
    backend->run(request("naive", 1, {70000, 1, 1}), {}, nullptr);
  });
  EXPECT_EQ(error.kind(), ErrorKind::LaunchFailed);
  EXPECT_NE(std::string(error.what()).find("65535"), std::string::npos) << error.what();
  expectNormalRun();
}

TEST_F(CudaErrors, TooManyThreadsPerBlockIsALaunchFailureNamingTheLimit) {
  const std::int64_t size = 40;
  cuda::DeviceBuffer<float> a(size * size), b(size * size), c(size * size);
  for (const auto* buffer : {&a, &b}) TS_CUDA_CHECK(cudaMemset(buffer->get(), 0, buffer->bytes()));
  const cuda::ProductArgs args{a.get(), b.get(), c.get(), size, size, size};
  // The catalogue stops at T = 32 (1024 threads); the launch function itself takes any tile.
  const Error error = thrownBy([&] { cuda::cudaLaunchOf("naive").launch({{"tile", 33}}, args); });
  EXPECT_EQ(error.kind(), ErrorKind::LaunchFailed);
  EXPECT_NE(std::string(error.what()).find("1024 threads"), std::string::npos) << error.what();
  cuda::cudaLaunchOf("naive").launch({{"tile", 32}}, args);
  TS_CUDA_CHECK(cudaDeviceSynchronize());
  expectNormalRun();
}

}  // namespace
}  // namespace tilescope::test
