// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend's runner: refusals, memory checks, cancellation, progress and the result it
// reports; and the block scheduler the kernels share.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu_kernels.hpp"
#include "scoped_settings.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"

namespace tilescope {
namespace {

RunRequest requestFor(const std::string& kernel, Shape shape) {
  RunRequest request;
  request.kernel = {kernel, {}};
  request.shape = shape;
  request.sampling.warmups = 0;
  request.sampling.fixedReps = 1;
  return request;
}

// Runs and returns the kind of the tilescope::Error thrown; fails the test if none is.
ErrorKind errorKindOf(const RunRequest& request, const ProgressFn& progress = {},
                      const std::atomic<bool>* cancel = nullptr, std::string* message = nullptr) {
  try {
    makeCpuBackend()->run(request, progress, cancel);
  } catch (const Error& error) {
    if (message) *message = error.what();
    return error.kind();
  }
  ADD_FAILURE() << "run() did not throw";
  return ErrorKind::DeviceLost;
}

TEST(CpuBackend, IsAvailableWithOneDescribedDevice) {
  const auto backend = makeCpuBackend();
  EXPECT_EQ(backend->id(), "cpu");
  EXPECT_FALSE(backend->unavailableReason().has_value());
  const std::vector<DeviceInfo> devices = backend->devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_FALSE(devices[0].name.empty());
  bool hasCores = false;
  for (const auto& [name, value] : devices[0].facts)
    if (name == "logical cores") hasCores = std::stoi(value) >= 1;
  EXPECT_TRUE(hasCores);
}

// Asked for hardware counters, the CPU backend keeps its timing and says why it has none.
TEST(CpuBackend, SaysItHasNoHardwareCountersAndKeepsTheRun) {
  RunRequest request = requestFor("naive", {16, 16, 16});
  const RunResult plain = makeCpuBackend()->run(request, {}, nullptr);
  EXPECT_FALSE(plain.countersUnavailable);
  request.collectCounters = true;
  const RunResult result = makeCpuBackend()->run(request, {}, nullptr);
  EXPECT_TRUE(result.verified());
  EXPECT_GT(result.stats.medianMs, 0);
  EXPECT_FALSE(result.counters);
  ASSERT_TRUE(result.countersUnavailable);
  EXPECT_NE(result.countersUnavailable->find("CPU backend has no hardware counters"),
            std::string::npos);
}

TEST(CpuBackend, RefusesInvalidConfigurationsWithAReason) {
  const auto backend = makeCpuBackend();
  const Shape shape{8, 8, 8};
  EXPECT_FALSE(backend->refusal({"naive", {{"tile", 16}}}, shape).has_value());
  const auto badTile = backend->refusal({"naive", {{"tile", 33}}}, shape);
  ASSERT_TRUE(badTile.has_value());
  EXPECT_NE(badTile->find("33"), std::string::npos) << *badTile;
  EXPECT_TRUE(backend->refusal({"no-such-kernel", {}}, shape).has_value());
  EXPECT_TRUE(backend->refusal({"naive", {}}, Shape{0, 8, 8}).has_value());
}

TEST(CpuBackend, MultipliesFp32OnlyAndSaysWhereTheOtherTypesRun) {
  const auto backend = makeCpuBackend();
  const Shape shape{8, 8, 8};
  EXPECT_FALSE(backend->refusal({"library", {}}, shape, ElementType::F32));
  for (const ElementType type : {ElementType::TF32, ElementType::F16, ElementType::BF16}) {
    const auto why = backend->refusal({"library", {}}, shape, type);
    ASSERT_TRUE(why) << toString(type);
    EXPECT_NE(why->find("CUDA"), std::string::npos) << *why;
  }
  EXPECT_TRUE(backend->refusal({"tensor-mma", {}}, shape, ElementType::F16));
  RunRequest request;
  request.kernel = {"library", {}};
  request.shape = shape;
  request.element = ElementType::BF16;
  try {
    backend->run(request, {}, nullptr);
    FAIL() << "bf16 should be refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unsupported);
  }
}

// A user kernel compiled for the CPU runs and verifies; what needs a GPU says so, at its line.
TEST(CpuBackend, RunsAUserKernelAndSaysWhatNeedsAGpu) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const auto backend = makeCpuBackend();
  RunRequest request;
  request.kernel = {userKernelId("mine"), {}, userKernelTemplate("naive")->source};
  request.shape = {33, 17, 9};
  request.fill = Fill::Integer;
  EXPECT_EQ(backend->refusal(request), std::nullopt);
  EXPECT_TRUE(backend->run(request, {}, nullptr).verified());
  request.kernel.source = "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_CLUSTER(2)\nTS_KERNEL {}\n";
  try {
    backend->run(request, {}, nullptr);
    FAIL() << "the CPU backend ran a kernel in clusters";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(error.what()),
              "mine.cu did not compile for the CPU, line 2: TS_CLUSTER needs an NVIDIA GPU: the "
              "CPU runs no thread-block clusters");
  }
  // An FP8 kernel (tensor-fp8's template, or any in e4m3 or e5m2) runs on the GPU alone.
  request.kernel.source = userKernelTemplate("tensor-fp8")->source;
  for (const ElementType type : {ElementType::E4M3, ElementType::E5M2}) {
    request.element = type;
    EXPECT_EQ(backend->refusal(request), std::string("the CPU backend multiplies fp32 only: ") +
                                             toString(type) +
                                             " needs tensor cores (the CUDA backend)");
    const HostCompileResult onCpu = compileUserKernelForHost(
        {"mine", "TS_TYPES(e4m3, e5m2)\nTS_LAUNCH(1, 1, 1, 1, 0)\nTS_KERNEL {}\n"},
        {"host", {}, type}, false);
    EXPECT_FALSE(onCpu.module);
    ASSERT_FALSE(onCpu.result.diagnostics.empty());
    EXPECT_EQ(
        onCpu.result.diagnostics.front().message,
        std::string("the CPU multiplies fp32 only: ") + toString(type) + " needs an NVIDIA GPU");
  }
}

// A trace on the CPU carries what the sanitizer found. Where another block than the one asked
// for made the fault, that block is traced: its accesses lead up to the finding.
TEST(CpuBackend, ATraceCarriesTheSanitizersFindingsFromTheBlockThatMadeThem) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const auto backend = makeCpuBackend();
  TraceRequest request;
  request.kernel = {userKernelId("clean"), {}, userKernelTemplate("naive")->source};
  request.shape = {64, 64, 64};
  request.block = {1, 1};
  const KernelTrace clean = backend->trace(request, {}, nullptr);
  EXPECT_TRUE(clean.sanitizer.clean()) << clean.sanitizer.text();
  EXPECT_EQ(clean.tracedBlock, (Dim2{1, 1}));

  // Block (0,1) alone reads a word of its tile no thread wrote.
  request.kernel = {
      userKernelId("faulty"),
      {},
      "TS_LAUNCH(4, 4, 2, 2, 0)\n"
      "TS_KERNEL {\n"
      "  __shared__ float t[4][4];\n"
      "  if (threadIdx.x > 0) t[threadIdx.y][threadIdx.x] = 1.0f;\n"
      "  __syncthreads();\n"
      "  const float x = blockIdx.x == 0 && blockIdx.y == 1 ? t[0][0] : 0.0f;\n"
      "  ts::storeC(p, blockIdx.y * 4 + threadIdx.y, blockIdx.x * 4 + threadIdx.x, x);\n"
      "}\n"};
  request.shape = {8, 8, 8};
  const KernelTrace faulty = backend->trace(request, {}, nullptr);
  ASSERT_FALSE(faulty.sanitizer.clean());
  const SanitizerFinding& finding = faulty.sanitizer.findings.front();
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::UnwrittenRead) << finding.message;
  EXPECT_EQ(finding.line, 6) << finding.message;
  EXPECT_EQ(finding.block, (Dim2{0, 1})) << finding.message;
  EXPECT_EQ(faulty.tracedBlock, (Dim2{0, 1}));

  // Every block races (the barrier after the tiles' stores is gone): the block asked for is
  // traced, and its own findings come first, however the other cores' blocks ran.
  std::string racy = userKernelTemplate("shared-tiled")->source;
  racy.erase(racy.find("    __syncthreads();\n"), std::string("    __syncthreads();\n").size());
  request.kernel = {userKernelId("racy"), {}, racy};
  request.shape = {64, 64, 64};
  request.block = {1, 2};
  for (int attempt = 0; attempt < 3; ++attempt) {
    const KernelTrace traced = backend->trace(request, {}, nullptr);
    EXPECT_EQ(traced.tracedBlock, (Dim2{1, 2}));
    ASSERT_FALSE(traced.sanitizer.clean());
    EXPECT_EQ(traced.sanitizer.findings.front().block, (Dim2{1, 2}));
    EXPECT_EQ(traced.sanitizer.findings.front().kind, SanitizerFinding::Kind::Race);
  }
}

TEST(CpuBackend, RefusesSerialBeyondItsWorkLimit) {
  const auto backend = makeCpuBackend();
  const double limit = kernelInfo("serial").maxWork.at("cpu");
  ASSERT_GT(limit, 0);
  // The largest cube within the limit is accepted; the next one is refused.
  std::int64_t side = 1;
  while (double(side + 1) * double(side + 1) * double(side + 1) <= limit) ++side;
  const Shape within{side, side, side}, beyond{side + 1, side + 1, side + 1};
  EXPECT_FALSE(backend->refusal({"serial", {}}, within).has_value());
  const auto reason = backend->refusal({"serial", {}}, beyond);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("serial"), std::string::npos) << *reason;
  // Other kernels have no such bound.
  EXPECT_FALSE(backend->refusal({"naive", {}}, beyond).has_value());

  std::string message;
  EXPECT_EQ(errorKindOf(requestFor("serial", beyond), {}, nullptr, &message),
            ErrorKind::Unsupported);
  EXPECT_EQ(message, *reason);
}

TEST(CpuBackend, AllowLongRunsLiftsOnlyTheWorkBound) {
  const auto backend = makeCpuBackend();
  RunRequest request = requestFor("serial", {2048, 2048, 2048});
  ASSERT_TRUE(backend->refusal(request).has_value());
  EXPECT_EQ(backend->refusal(request),
            workLimitRefusal(kernelInfo("serial"), "cpu", request.shape));
  request.allowLongRuns = true;
  EXPECT_FALSE(backend->refusal(request).has_value());
  // Whatever the backend cannot do stays refused.
  request.kernel = {"naive", {{"tile", 33}}};
  EXPECT_TRUE(backend->refusal(request).has_value());
  request.kernel = {"serial", {}};
  request.shape = {0, 8, 8};
  EXPECT_TRUE(backend->refusal(request).has_value());
}

TEST(CpuBackend, RejectsBadInputAsInvalidArgument) {
  RunRequest badTile = requestFor("shared-tiled", {8, 8, 8});
  badTile.kernel.params["tile"] = 0;
  EXPECT_EQ(errorKindOf(badTile), ErrorKind::InvalidArgument);
  EXPECT_EQ(errorKindOf(requestFor("no-such-kernel", {8, 8, 8})), ErrorKind::InvalidArgument);
  EXPECT_EQ(errorKindOf(requestFor("naive", {8, -1, 8})), ErrorKind::InvalidArgument);
  RunRequest otherDevice = requestFor("naive", {8, 8, 8});
  otherDevice.device = 1;
  EXPECT_EQ(errorKindOf(otherDevice), ErrorKind::InvalidArgument);
}

// The largest accepted shape needs terabytes: the run must refuse before allocating anything
// (an AddressSanitizer build would abort on an attempt to allocate that much).
TEST(CpuBackend, RefusesAProblemLargerThanMemoryBeforeAllocating) {
  for (bool verify : {true, false}) {
    RunRequest request = requestFor("naive", {kMaxDimension, kMaxDimension, kMaxDimension});
    request.verify = verify;
    bool progressed = false;
    std::string message;
    EXPECT_EQ(
        errorKindOf(
            request, [&](double, const std::string&) { progressed = true; }, nullptr, &message),
        ErrorKind::OutOfMemory);
    EXPECT_FALSE(progressed) << "the run started before the memory check";
    EXPECT_NE(message.find("M=1048576"), std::string::npos) << message;
    EXPECT_NE(message.find("available"), std::string::npos) << message;
    EXPECT_EQ(message.find("double reference") != std::string::npos, verify) << message;
  }
}

TEST(CpuBackend, CancelBeforeTheRunThrowsCancelled) {
  const std::atomic<bool> cancel{true};
  EXPECT_EQ(errorKindOf(requestFor("naive", {16, 16, 16}), {}, &cancel), ErrorKind::Cancelled);
}

// The progress report for a repetition comes after sample()'s own check, just before the kernel
// starts. A cancel raised there for the last repetition can only be seen between the kernel's
// blocks: without that check the run would finish normally.
TEST(CpuBackend, CancelDuringTheLastRepetitionStopsBetweenBlocks) {
  for (const char* kernel :
       {"serial", "row-per-thread", "naive", "shared-a", "shared-tiled", "register-tiled"}) {
    SCOPED_TRACE(kernel);
    RunRequest request = requestFor(kernel, {65, 65, 65});
    request.sampling.fixedReps = 2;
    std::atomic<bool> cancel{false};
    std::vector<std::string> stages;
    auto progress = [&](double, const std::string& stage) {
      stages.push_back(stage);
      if (stage == "timing 2/2") cancel = true;
    };
    EXPECT_EQ(errorKindOf(request, progress, &cancel), ErrorKind::Cancelled);
    EXPECT_EQ(stages, (std::vector<std::string>{"timing 1/2", "timing 2/2"}));
  }
}

TEST(CpuBackend, ReportsProgressInOrder) {
  RunRequest request = requestFor("shared-tiled", {40, 30, 20});
  request.sampling.warmups = 2;
  request.sampling.fixedReps = 3;
  std::vector<std::string> stages;
  std::vector<double> fractions;
  makeCpuBackend()->run(
      request,
      [&](double fraction, const std::string& stage) {
        stages.push_back(stage);
        fractions.push_back(fraction);
      },
      nullptr);
  EXPECT_EQ(stages, (std::vector<std::string>{"warm-up", "warm-up", "timing 1/3", "timing 2/3",
                                              "timing 3/3", "verifying", "done"}));
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    EXPECT_GE(fractions[i], 0.0);
    EXPECT_LE(fractions[i], 1.0);
    if (i > 0) {
      EXPECT_GE(fractions[i], fractions[i - 1]);
    }
  }
  EXPECT_EQ(fractions.back(), 1.0);
}

TEST(CpuBackend, ResultDescribesTheRun) {
  RunRequest request = requestFor("register-tiled", {50, 60, 70});
  request.sampling.fixedReps = 4;
  const RunResult result = makeCpuBackend()->run(request, {}, nullptr);
  EXPECT_EQ(result.backend, "cpu");
  EXPECT_EQ(result.device, makeCpuBackend()->devices()[0].name);
  EXPECT_EQ(result.kernel, (KernelConfig{"register-tiled", {{"tile", 8}}}));
  EXPECT_EQ(result.shape, (Shape{50, 60, 70}));
  EXPECT_EQ(result.stats.reps, 4);
  EXPECT_GT(result.stats.medianMs, 0);
  EXPECT_LE(result.stats.minMs, result.stats.medianMs);
  EXPECT_LE(result.stats.medianMs, result.stats.maxMs);
  EXPECT_DOUBLE_EQ(result.gflops, 2.0 * 50 * 60 * 70 / (result.stats.medianMs * 1e6));
  EXPECT_TRUE(result.verified());
  EXPECT_FALSE(result.phases.has_value());

  request.verify = false;
  EXPECT_FALSE(makeCpuBackend()->run(request, {}, nullptr).verification.has_value());
}

TEST(BlockScheduler, RunsEveryBlockExactlyOnce) {
  const Dim2 grid{7, 5};
  std::vector<std::atomic<int>> runs(35);
  cpu::launchBlocks(grid, nullptr, [&](Dim2 block) {
    ASSERT_LT(block.x, grid.x);
    ASSERT_LT(block.y, grid.y);
    ++runs[std::size_t(block.x + block.y * grid.x)];
  });
  for (const auto& count : runs) EXPECT_EQ(count.load(), 1);
}

TEST(BlockScheduler, StopsTakingBlocksOnceCancelled) {
  const Dim2 grid{1000, 10};
  std::atomic<bool> cancel{false};
  std::atomic<int> started{0};
  EXPECT_THROW(
      {
        try {
          cpu::launchBlocks(grid, &cancel, [&](Dim2) {
            if (++started == 10) cancel = true;
          });
        } catch (const Error& error) {
          EXPECT_EQ(error.kind(), ErrorKind::Cancelled);
          throw;
        }
      },
      Error);
  // Each worker may finish the block it holds, but none starts another.
  EXPECT_LT(started.load(), 10 + int(std::thread::hardware_concurrency()) + 1);
}

TEST(BlockScheduler, KeepsItsThreadsFromLaunchToLaunch) {
  // A pool, not threads per launch: many launches see no more threads than one launch may use.
  // Kernel thread ids, which Linux does not hand out again soon (pthread ids it does).
  std::mutex seenMutex;
  std::set<pid_t> seen;
  for (int launch = 0; launch < 50; ++launch) {
    cpu::launchBlocks({64, 1}, nullptr, [&](Dim2) {
      const std::lock_guard lock(seenMutex);
      seen.insert(gettid());
    });
  }
  EXPECT_LE(int(seen.size()), cpu::workerThreads());
}

// Threads of this process, from the kernel's list of its tasks.
int processThreads() {
  return int(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                           std::filesystem::directory_iterator{}));
}

TEST(BlockScheduler, TilescopeCpuThreadsSetsTheWorkersWhenItIsACount) {
  const int cores = cpu::workerThreads();
  const test::ScopedVariable threads("TILESCOPE_CPU_THREADS", "3");
  EXPECT_EQ(cpu::workerThreads(), 3);
  for (const char* notACount : {"0", "-2", "3x", "", "1025", "99999999999"}) {
    threads.set(notACount);
    EXPECT_EQ(cpu::workerThreads(), cores) << notACount;
  }
  threads.set(std::to_string(cpu::kMaxWorkers));
  EXPECT_EQ(cpu::workerThreads(), cpu::kMaxWorkers);
}

TEST(BlockScheduler, HelpersStartAsLaunchesNeedThem) {
  // A launch of two workers on a machine of 16 (a grader's child that fits two under its memory
  // limit) starts one helper, not fifteen with a stack each.
  const test::ScopedVariable threads("TILESCOPE_CPU_THREADS", "16");
  const int before = processThreads();
  std::atomic<int> calls{0};
  cpu::runOnWorkers(2, [&] { ++calls; });
  EXPECT_GE(calls.load(), 1);
  EXPECT_LE(processThreads(), before + 1);
  cpu::runOnWorkers(16, [&] { ++calls; });
  EXPECT_LE(processThreads(), before + 15);
}

TEST(BlockScheduler, ALaunchInsideABlockRunsOnItsCaller) {
  // The outer launch holds the pool; the inner one must neither wait for it nor skip blocks.
  std::atomic<int> inner{0};
  cpu::launchBlocks({4, 1}, nullptr, [&](Dim2) {
    cpu::launchBlocks({3, 2}, nullptr, [&](Dim2) { ++inner; });
  });
  EXPECT_EQ(inner.load(), 4 * 6);
}

TEST(BlockScheduler, LaunchesFromTwoThreadsAtOnceBothFinish) {
  std::atomic<int> blocks{0};
  const auto launch = [&] {
    for (int i = 0; i < 20; ++i) cpu::launchBlocks({50, 2}, nullptr, [&](Dim2) { ++blocks; });
  };
  std::thread other(launch);
  launch();
  other.join();
  EXPECT_EQ(blocks.load(), 2 * 20 * 100);
}

TEST(BlockScheduler, HandsABlockFailureToTheCaller) {
  EXPECT_THROW(cpu::launchBlocks({4, 4}, nullptr,
                                 [](Dim2 block) {
                                   if (block.x == 2 && block.y == 3)
                                     throw std::runtime_error("block failed");
                                 }),
               std::runtime_error);
}

}  // namespace
}  // namespace tilescope
