// SPDX-License-Identifier: GPL-3.0-or-later
// Compiles of user kernels in a child process with limits (tilescope/compile/compile_child.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench_process.hpp"
#include "tilescope/compile/compile_child.hpp"
#include "tilescope/exercise/sandbox.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {
namespace {

using Clock = std::chrono::steady_clock;

std::string sourceFile(const std::string& path) {
  std::ifstream in(std::string(TILESCOPE_SOURCE_DIR) + "/" + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string& shapedSource() {
  static const std::string source = userKernelTemplate("shared-tiled")->source;
  return source;
}

// 4,096 constant evaluations of a million steps each: minutes in any compiler.
const std::string& slowSource() {
  static const std::string source = sourceFile("tests/grade/submissions/compile_bomb.cu");
  return source;
}

// An initialiser of 16^6 numbers from six macros: gigabytes in any compiler.
std::string hungrySource() {
  std::string macros = "#define A0 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\n";
  for (int level = 1; level <= 6; ++level) {
    macros += "#define A" + std::to_string(level) + " ";
    for (int i = 0; i < 16; ++i)
      macros += (i > 0 ? "," : "") + std::string("A") + std::to_string(level - 1);
    macros += "\n";
  }
  return macros + "__device__ int big[] = {A6};\n" + shapedSource();
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> messages(const CompileResult& result) {
  std::vector<std::string> out;
  for (const CompileDiagnostic& d : result.diagnostics) out.push_back(d.message);
  return out;
}

class CompileChild : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (host()) {
      if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
    } else if (const auto why = userKernelCompilerUnavailable()) {
      GTEST_SKIP() << *why;
    }
  }
  bool host() const { return GetParam(); }
  CompileTarget target() const { return {host(), false}; }
  CompileOptions options() const { return {host() ? "host" : "sm_90a", {}, ElementType::F32}; }
  CompileResult inChild(const std::string& name, const std::string& source,
                        const compile::Limits& limits,
                        const std::atomic<bool>* cancel = nullptr) const {
    return compile::compileInChild(TILESCOPE_BENCH, {name, source}, options(), target(), limits,
                                   cancel);
  }
};

TEST_P(CompileChild, ANormalKernelCompilesAsInProcess) {
  const CompileResult here = host() ? buildUserKernelForHost({"tiled", shapedSource()}, options())
                                    : compileUserKernelHere({"tiled", shapedSource()}, options());
  const CompileResult child = inChild("tiled", shapedSource(), {});
  ASSERT_TRUE(here.ok) << here.log;
  EXPECT_TRUE(child.ok) << child.log;
  EXPECT_EQ(child.diagnostics, here.diagnostics);
  if (host()) {
    EXPECT_EQ(child.log, here.log);  // ptxas's log holds its compile times
  }
  EXPECT_EQ(child.arch, here.arch);
  EXPECT_EQ(child.values, here.values);
  ASSERT_EQ(child.params.size(), here.params.size());
  for (std::size_t i = 0; i < here.params.size(); ++i) {
    EXPECT_EQ(child.params[i].name, here.params[i].name);
    EXPECT_EQ(child.params[i].allowed, here.params[i].allowed);
    EXPECT_EQ(child.params[i].defaultValue, here.params[i].defaultValue);
  }
  // NVRTC's image names the folder it ran in (its line table): the same size, not the same bytes.
  EXPECT_EQ(child.image.empty(), here.image.empty());
  EXPECT_EQ(child.resources, here.resources);
  EXPECT_EQ(child.declaresKStep, here.declaresKStep);
  if (!host()) {
    EXPECT_FALSE(child.image.empty());
    EXPECT_TRUE(child.resources.has_value()) << "ptxas reports them in a child";
  }
}

TEST_P(CompileChild, ASourceErrorComesBackAtItsLine) {
  std::string source = shapedSource();
  source.replace(source.find("float sum"), 9, "floot sum");
  const CompileResult child = inChild("typo", source, {});
  EXPECT_FALSE(child.ok);
  ASSERT_FALSE(child.diagnostics.empty());
  const std::size_t line =
      1 + std::count(source.begin(), source.begin() + std::ptrdiff_t(source.find("floot")), '\n');
  EXPECT_EQ(child.diagnostics.front().line, int(line)) << child.diagnostics.front().message;
}

TEST_P(CompileChild, ACompileOverTheTimeLimitIsStopped) {
  const compile::Limits limits{2, 0};
  const auto start = Clock::now();
  const CompileResult child = inChild("bomb", slowSource(), limits);
  const double seconds = secondsSince(start);
  EXPECT_FALSE(child.ok);
  EXPECT_EQ(messages(child), std::vector{compile::timeLimitMessage(limits)});
  EXPECT_NE(compile::timeLimitMessage(limits).find("the compiler took longer than 2 s"),
            std::string::npos);
  EXPECT_LT(seconds, 10) << "the limit is 2 s";
}

TEST_P(CompileChild, ACompileOverTheMemoryLimitIsStopped) {
  if (!exercise::sandbox::addressSpaceLimitWorks())
    GTEST_SKIP() << "a sanitizer's shadow memory leaves no room for an address-space limit";
  const compile::Limits limits{60, std::uint64_t(1) << 30};
  const CompileResult child = inChild("hungry", hungrySource(), limits);
  EXPECT_FALSE(child.ok);
  ASSERT_FALSE(child.diagnostics.empty());
  EXPECT_EQ(child.diagnostics.front().message, compile::memoryLimitMessage(limits)) << child.log;
  EXPECT_NE(
      child.diagnostics.front().message.find("the compiler ran out of its 1 GiB memory limit"),
      std::string::npos);
}

TEST_P(CompileChild, CancelStopsACompileInProgress) {
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    cancel = true;
  });
  const auto start = Clock::now();
  const CompileResult child = inChild("bomb", slowSource(), {60, 0}, &cancel);
  const double seconds = secondsSince(start);
  canceller.join();
  EXPECT_FALSE(child.ok);
  EXPECT_EQ(messages(child), std::vector<std::string>{"the compile was cancelled"});
  EXPECT_LT(seconds, 10);
}

INSTANTIATE_TEST_SUITE_P(Backends, CompileChild, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Cpu" : "Nvrtc"; });

TEST(CompileChildProgram, AProgramThatCannotStartIsNamed) {
  const CompileResult child = compile::compileInChild(
      "/nonexistent/tilescope-bench", {"k", shapedSource()}, {}, {}, compile::Limits{});
  EXPECT_FALSE(child.ok);
  ASSERT_EQ(child.diagnostics.size(), 1u);
  EXPECT_NE(child.diagnostics.front().message.find("/nonexistent/tilescope-bench"),
            std::string::npos)
      << child.diagnostics.front().message;
}

// The CPU backend compiles through the isolated compiler and loads what it left: the run is the
// same as in process, exact on integers. It runs in a forked process that ends with _Exit:
// LeakSanitizer's scan at exit now and then crashes on a loaded kernel's dynamic TLS, a known
// fault of that scan, not of this path.
TEST(CompileChildProgram, ACpuRunCompilesInTheChild) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const auto runAndExit = [] {
    std::atomic<int> compiles{0};
    setIsolatedCompiler([&](const UserKernelSource& kernel, const CompileOptions& options,
                            const CompileTarget& target, const std::atomic<bool>* cancel) {
      ++compiles;
      return compile::compileInChild(TILESCOPE_BENCH, kernel, options, target, {}, cancel);
    });
    RunRequest request;
    request.kernel = {userKernelId("tiled_run"), {}, shapedSource()};
    request.shape = {96, 80, 72};
    request.fill = Fill::Integer;
    request.sampling.fixedReps = 1;
    const RunResult result = makeBackend("cpu")->run(request, {}, nullptr);
    const bool exact =
        result.verification && result.verification->passed && result.verification->maxAbsError == 0;
    std::fprintf(stderr, "compiles %d, exact %d\n", compiles.load(), int(exact));
    std::_Exit(compiles == 1 && exact ? 0 : 1);
  };
  EXPECT_EXIT(runAndExit(), ::testing::ExitedWithCode(0), "compiles 1, exact 1");
}

TEST(CompileChildProgram, BenchStopsAKernelFileOverTheTimeLimit) {
  const e2e::ScratchDir dir;
  std::ofstream(dir.file("bomb.cu")) << slowSource();
  setenv("TILESCOPE_COMPILE_SECONDS", "2", 1);
  const auto start = Clock::now();
  const e2e::BenchOutcome outcome =
      e2e::runBench({"--backend", "cpu", "--kernel-file", dir.file("bomb.cu"), "--size", "64"});
  const double seconds = secondsSince(start);
  unsetenv("TILESCOPE_COMPILE_SECONDS");
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  EXPECT_EQ(outcome.exitCode, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("bomb.cu did not compile for the CPU: the compiler took longer "
                             "than 2 s"),
            std::string::npos)
      << outcome.err;
  EXPECT_LT(seconds, 15);
}

TEST(CompileChildProgram, BenchRunsAKernelFileThroughTheChild) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  const e2e::ScratchDir dir;
  std::ofstream(dir.file("tiled.cu")) << shapedSource();
  const e2e::BenchOutcome outcome =
      e2e::runBench({"--backend", "cpu", "--kernel-file", dir.file("tiled.cu"), "--size", "64",
                     "--fill", "integer", "--reps", "1", "--format", "csv"});
  EXPECT_EQ(outcome.exitCode, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("user:tiled"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find(",true,"), std::string::npos) << outcome.out;
}

}  // namespace
}  // namespace tilescope
