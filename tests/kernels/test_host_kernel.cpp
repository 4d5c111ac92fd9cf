// SPDX-License-Identifier: GPL-3.0-or-later
// User kernels on the CPU: every SIMT template compiled by the host's C++ compiler runs with
// CUDA's semantics and verifies at sizes that are no tile multiple, its trace draws its
// catalogue Mapping's pictures, and the sanitizer finds each mistake of a student at its line
// and nothing in a correct template. The GPU-only templates are refused with the reason.
#include <gtest/gtest.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "scoped_settings.hpp"
#include "template_config.hpp"
#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope {
namespace {

const std::vector<Shape> kShapes = {{1, 1, 1}, {33, 17, 9}, {129, 65, 33}};

std::string said(const CompileResult& result) {
  std::string text = result.log;
  for (const CompileDiagnostic& d : result.diagnostics)
    text += "\n[" + std::to_string(d.line) + "] " + d.message;
  return text;
}

// The templates that need an NVIDIA GPU: the tensor cores, and pipelined's cp.async.
bool gpuOnly(const std::string& kernel) {
  return kernel == "pipelined" || kernel.rfind("tensor-", 0) == 0;
}

// C = A B on integers in [-8, 8] with the kernel: whether C equals the exact product, and what
// the sanitizer found.
struct Product {
  Product(const Shape& shape)
      : shape(shape),
        operands(makeOperands(shape, Fill::Integer, 7)),
        c(makePoisonedMatrix(shape.m, shape.n)) {}
  SanitizerReport run(const HostModule& module) {
    poison(c);
    return module.launch(operands.a.data.data(), operands.b.data.data(), c.data.data(), shape,
                         module.launchFor(shape), nullptr);
  }
  bool verified() const {
    return verify(c, referenceProduct(operands.a, operands.b), operands.a, operands.b).passed;
  }
  Shape shape;
  Operands operands;
  Matrix c;
};

class HostKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  }
  static HostCompileResult compiled(const UserKernelSource& source, bool trace, bool sanitize,
                                    const Params& params = {}) {
    return compileUserKernelForHost(source, {"host", params, ElementType::F32, trace}, sanitize);
  }
};

TEST_F(HostKernel, EverySimtTemplateRunsAndVerifiesAndTheTensorOnesAreRefused) {
  int ran = 0;
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    SCOPED_TRACE(t.kernel);
    const HostCompileResult build = compiled({t.kernel, t.source}, false, false);
    if (gpuOnly(t.kernel)) {
      ASSERT_FALSE(build.result.ok);
      const auto refusal =
          std::find_if(build.result.diagnostics.begin(), build.result.diagnostics.end(),
                       [](const CompileDiagnostic& d) {
                         return d.message.find("needs an NVIDIA GPU") != std::string::npos;
                       });
      ASSERT_NE(refusal, build.result.diagnostics.end()) << said(build.result);
      EXPECT_GT(refusal->line, 0);
      continue;
    }
    ASSERT_TRUE(build.result.ok) << said(build.result);
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                   std::to_string(shape.k));
      Product product(shape);
      EXPECT_TRUE(product.run(*build.module).clean());
      EXPECT_TRUE(product.verified());
    }
    ++ran;
  }
  EXPECT_EQ(ran, 12);  // prefetched's SIMT part too
}

// Traced and sanitized at once: the sanitizer finds nothing in a correct template, and the trace
// of an interior and of the last block draws the catalogue Mapping's pictures.
TEST_F(HostKernel, EverySimtTemplatesCpuTraceDrawsItsMappingAndTheSanitizerFindsNothing) {
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    if (gpuOnly(t.kernel)) continue;
    SCOPED_TRACE(t.kernel);
    const HostCompileResult build = compiled({t.kernel, t.source}, true, true);
    ASSERT_TRUE(build.result.ok) << said(build.result);
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
                   std::to_string(shape.k));
      Product product(shape);
      const HostLaunch launch = build.module->launchFor(shape);
      const Mapping mapping(test::catalogueConfig(t, build.result.values), shape);
      EXPECT_EQ(launch.kDepth, mapping.kDepth());
      for (const Dim2 block : {Dim2{launch.grid.x / 2, launch.grid.y / 2},
                               Dim2{launch.grid.x - 1, launch.grid.y - 1}}) {
        KernelTrace trace = build.module->trace(
            product.operands.a.data.data(), product.operands.b.data.data(), product.c.data.data(),
            shape, launch, block, (1 << 22) / (launch.block.x * launch.block.y));
        ASSERT_FALSE(trace.truncated);
        trace.kernel = {userKernelId(t.kernel), build.result.values, t.source};
        EXPECT_TRUE(product.verified());
        EXPECT_EQ(traceDifferences(Mapping(trace), mapping), std::vector<std::string>{});
      }
    }
  }
}

// The shared-tiled template with `from` replaced by `to` (once), and the line of `marker` there.
struct Edited {
  std::string source;
  int line = 0;
};
Edited sharedTiledWith(const std::string& from, const std::string& to, const std::string& marker) {
  Edited edited{userKernelTemplate("shared-tiled")->source, 0};
  const std::size_t at = edited.source.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) edited.source.replace(at, from.size(), to);
  const std::size_t mark = edited.source.find(marker);
  edited.line =
      int(std::count(edited.source.begin(), edited.source.begin() + std::ptrdiff_t(mark), '\n')) +
      1;
  return edited;
}

// The first finding of the sanitized shared-tiled `edited` at TILE = `tile`, 40 x 40 x 40.
SanitizerFinding firstFinding(const Edited& edited, int tile) {
  const HostCompileResult build = compileUserKernelForHost(
      {"student", edited.source}, {"host", {{"TILE", tile}}, ElementType::F32, false}, true);
  EXPECT_TRUE(build.result.ok) << said(build.result);
  if (!build.result.ok) return {};
  Product product({40, 40, 40});
  const SanitizerReport report = product.run(*build.module);
  EXPECT_FALSE(report.clean());
  if (report.clean()) return {};
  EXPECT_NE(report.text().find(report.findings.front().message), std::string::npos);
  return report.findings.front();
}

TEST_F(HostKernel, TheSanitizerFindsAMissingBarrierAsARace) {
  const Edited edited = sharedTiledWith("    __syncthreads();\n    for (int kk", "    for (int kk",
                                        "ts::writeShared(p, ts::TileA");
  const SanitizerFinding finding = firstFinding(edited, 16);
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::Race) << finding.message;
  EXPECT_EQ(finding.line, edited.line) << finding.message;
  EXPECT_NE(finding.message.find("a race"), std::string::npos) << finding.message;
}

TEST_F(HostKernel, TheSanitizerFindsAnIndexPastTheTilesEnd) {
  const Edited edited = sharedTiledWith("a[ty][tx],", "a[ty][tx + 1],", "a[ty][tx + 1]");
  const SanitizerFinding finding = firstFinding(edited, 16);
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::OutOfBounds) << finding.message;
  EXPECT_EQ(finding.line, edited.line) << finding.message;
  EXPECT_EQ(finding.thread.x, 15) << finding.message;
  EXPECT_NE(finding.message.find("a indexed with 16"), std::string::npos) << finding.message;
}

TEST_F(HostKernel, TheSanitizerFindsABarrierInDivergentCode) {
  const Edited edited =
      sharedTiledWith("    __syncthreads();\n    for (int kk",
                      "    if (tx < 16) __syncthreads();\n    for (int kk", "if (tx < 16)");
  const SanitizerFinding finding = firstFinding(edited, 32);
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::DivergentBarrier) << finding.message;
  EXPECT_EQ(finding.line, edited.line) << finding.message;
  EXPECT_NE(finding.message.find("reached by 512 of the block's 1024 threads"), std::string::npos)
      << finding.message;
  // Not a sanitized build: still an error, not a hang.
  const HostCompileResult plain = compileUserKernelForHost(
      {"student", edited.source}, {"host", {{"TILE", 32}}, ElementType::F32, false}, false);
  ASSERT_TRUE(plain.result.ok) << said(plain.result);
  Product product({40, 40, 40});
  const SanitizerReport report = product.run(*plain.module);
  ASSERT_FALSE(report.clean());
  EXPECT_EQ(report.findings.front().kind, SanitizerFinding::Kind::DivergentBarrier);
}

TEST_F(HostKernel, TheSanitizerFindsAReadOfAWordNoThreadWrote) {
  const Edited edited =
      sharedTiledWith("    ts::writeShared(p, ts::TileA",
                      "    if (tx > 0) ts::writeShared(p, ts::TileA", "sum += ts::readShared");
  const SanitizerFinding finding = firstFinding(edited, 16);
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::UnwrittenRead) << finding.message;
  EXPECT_EQ(finding.line, edited.line) << finding.message;
  EXPECT_NE(finding.message.find("no thread of the block wrote"), std::string::npos)
      << finding.message;
}

// shared-tiled as a student writes it from the seed: plain indexing of the tiles and of p.A, p.B,
// p.C, no accessors.
constexpr const char* kPlainSharedTiled = R"(TS_PARAM(TILE, 16, 8, 16)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KERNEL {
  __shared__ float a[TILE][TILE];
  __shared__ float b[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    a[ty][tx] = i < p.M && k0 + tx < p.K ? p.A[i * p.K + k0 + tx] : 0.0f;
    b[ty][tx] = k0 + ty < p.K && j < p.N ? p.B[(k0 + ty) * p.N + j] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) sum += a[ty][kk] * b[kk][tx];
    __syncthreads();
  }
  if (i < p.M && j < p.N) p.C[i * p.N + j] = sum;
}
)";

// Plain a[r][c] reads and writes are checked as the accessors' are: correct, nothing is found;
// without the barrier after the stores, the race is found where the next thread writes.
TEST_F(HostKernel, TheSanitizerChecksPlainIndexingOfSharedArrays) {
  const HostCompileResult correct = compiled({"plain", kPlainSharedTiled}, false, true);
  ASSERT_TRUE(correct.result.ok) << said(correct.result);
  Product product({40, 40, 40});
  EXPECT_EQ(product.run(*correct.module).text(), "");
  EXPECT_TRUE(product.verified());

  std::string racy = kPlainSharedTiled;
  racy.erase(racy.find("    __syncthreads();\n    for (int kk"),
             std::string("    __syncthreads();\n").size());
  const HostCompileResult build = compiled({"plain", racy}, false, true);
  ASSERT_TRUE(build.result.ok) << said(build.result);
  const SanitizerReport report = product.run(*build.module);
  ASSERT_FALSE(report.clean());
  const SanitizerFinding& finding = report.findings.front();
  EXPECT_EQ(finding.kind, SanitizerFinding::Kind::Race) << finding.message;
  EXPECT_EQ(finding.line, 10) << finding.message;  // a[ty][tx] = ...
  EXPECT_NE(finding.message.find("a race"), std::string::npos) << finding.message;
}

// Warp-synchronous code and PTX are refused at their line, with the reason.
TEST_F(HostKernel, WarpShufflesAndPtxAreRefusedAtTheirLines) {
  const std::string source =
      "TS_LAUNCH(32, 1, 1, 1, 0)\n"
      "TS_KERNEL {\n"
      "  float v = threadIdx.x;\n"
      "  v += __shfl_down_sync(0xffffffffu, v, 16);\n"
      "  asm volatile(\"membar.cta;\");\n"
      "}\n";
  const HostCompileResult build = compiled({"warp", source}, false, false);
  ASSERT_FALSE(build.result.ok);
  ASSERT_EQ(build.result.diagnostics.size(), 2u) << said(build.result);
  EXPECT_EQ(build.result.diagnostics[0].line, 4);
  EXPECT_EQ(build.result.diagnostics[0].column, 8);
  EXPECT_NE(build.result.diagnostics[0].message.find("__shfl_down_sync needs an NVIDIA GPU"),
            std::string::npos)
      << said(build.result);
  EXPECT_EQ(build.result.diagnostics[1].line, 5);
  EXPECT_NE(build.result.diagnostics[1].message.find("asm needs an NVIDIA GPU"), std::string::npos)
      << said(build.result);
}

// A module of the same text that is still loaded is the one a compile returns: no compiler, no
// cache folder, no dlopen (a grader's child compiles, then checks without file access).
TEST_F(HostKernel, ALoadedModuleIsReturnedWithoutTheCompilerOrTheCacheFolder) {
  namespace fs = std::filesystem;
  const fs::path cache =
      fs::temp_directory_path() / ("tilescope-live-modules-" + std::to_string(::getpid()));
  const test::ScopedVariable cacheHome("XDG_CACHE_HOME", cache.string());
  const UserKernelTemplate& naive = *userKernelTemplate("naive");
  // A text no other test compiles: its own parameter value.
  const UserKernelSource source{"live", naive.source};
  const Params params{{"TILE", 4}};
  HostCompileResult plain = compiled(source, false, false, params);
  const HostCompileResult sanitized = compiled(source, true, true, params);
  ASSERT_TRUE(plain.result.ok) << said(plain.result);
  ASSERT_TRUE(sanitized.result.ok) << said(sanitized.result);
  EXPECT_NE(plain.module, sanitized.module);

  fs::remove_all(cache);
  const test::ScopedVariable cxx("CXX", "/nonexistent/c++");
  HostCompileResult again = compiled(source, false, false, params);
  const HostCompileResult sanitizedAgain = compiled(source, true, true, params);
  EXPECT_TRUE(again.result.ok) << said(again.result);
  EXPECT_EQ(again.module, plain.module);
  EXPECT_EQ(sanitizedAgain.module, sanitized.module);
  EXPECT_EQ(again.result.values, plain.result.values);
  EXPECT_FALSE(fs::exists(cache)) << "nothing was written";
  Product product({33, 17, 9});
  EXPECT_TRUE(product.run(*again.module).clean());
  EXPECT_TRUE(product.verified());

  // Once no one holds it, a compile needs the compiler again.
  const HostModule* const was = plain.module.get();
  plain.module.reset();
  again.module.reset();
  const HostCompileResult without = compiled(source, false, false, params);
  EXPECT_FALSE(without.result.ok) << "CXX names a missing compiler";
  EXPECT_NE(without.module.get(), was);
  EXPECT_TRUE(compiled(source, true, true, params).result.ok) << "the sanitized one is held";
  fs::remove_all(cache);
}

// A compiler outside the system's folders (/opt/gcc/bin/g++) reads the headers and libraries
// beside its bin/: the grader's sandbox lets it read that whole installation.
TEST(HostCompilerInstallation, IsTheFolderAboveTheCompilersBinWhereverItsLinkIs) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("tilescope-installation-" + std::to_string(::getpid()));
  fs::create_directories(root / "opt/gcc/bin");
  fs::create_directories(root / "tools");
  for (const fs::path& program : {root / "opt/gcc/bin/g++", root / "tools/wrapper"}) {
    std::ofstream(program) << "#!/bin/sh\n";
    fs::permissions(program, fs::perms::owner_all);
  }
  fs::create_symlink(root / "opt/gcc/bin/g++", root / "tools/c++");
  const std::string installation = fs::canonical(root / "opt/gcc").string();
  {
    const test::ScopedVariable cxx("CXX", (root / "opt/gcc/bin/g++").string());
    EXPECT_EQ(hostCompilerInstallation(), installation);
    cxx.set((root / "tools/c++").string() + " -O2");
    EXPECT_EQ(hostCompilerInstallation(), installation) << "the link's target, options dropped";
    cxx.set((root / "tools/wrapper").string());
    EXPECT_EQ(hostCompilerInstallation(), fs::canonical(root / "tools").string());
    cxx.set((root / "no-such/bin/g++").string());
    EXPECT_EQ(hostCompilerInstallation(), std::nullopt);
  }
  fs::remove_all(root);
}

// What running `product` threw while RLIMIT_AS left `roomBytes` of address space, or "".
std::string failureWithRoom(Product& product, const HostModule& module, std::uint64_t roomBytes) {
  const test::ScopedAddressSpaceRoom room(roomBytes);
  if (!room.lowered()) return "the address-space limit could not be lowered";
  try {
    EXPECT_TRUE(product.run(module).clean());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Each worker's fiber stacks take 260 KiB a thread of its block, reserved address space: under an
// address-space limit with room for one worker's (a grader's child on a machine of many cores) the
// blocks run on the workers that found room, not nowhere.
TEST_F(HostKernel, UnderAnAddressSpaceLimitTheBlocksRunOnTheWorkersThatFitIt) {
#if defined(TILESCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer's shadow memory leaves no room for an address-space limit";
#endif
  if (cpu::workerThreads() < 2) GTEST_SKIP() << "one worker: nothing to leave out";
  // 32 x 32 threads a block: 260 MiB of stacks for each worker.
  const HostCompileResult build =
      compiled({"naive", userKernelTemplate("naive")->source}, false, false, {{"TILE", 32}});
  ASSERT_TRUE(build.result.ok) << said(build.result);
  Product product({96, 96, 40});
  EXPECT_EQ(failureWithRoom(product, *build.module, std::uint64_t(400) << 20), "");
  EXPECT_TRUE(product.verified());
}

// A grader's child on 16 cores with little room left under its limit: each worker's thread stack
// (8 MiB) counts with its fibers', and only the helpers a launch uses start. With 140 MiB left the
// launch fits two workers; fifteen helpers' stacks and a malloc arena took that room, and the
// launch threw bad_alloc.
TEST_F(HostKernel, UnderAnAddressSpaceLimitSixteenCoresStartOnlyTheWorkersThatFit) {
#if defined(TILESCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer's shadow memory leaves no room for an address-space limit";
#endif
  const test::ScopedVariable threads("TILESCOPE_CPU_THREADS", "16");
  // Two malloc arenas, as the grader's child has them (MALLOC_ARENA_MAX=2): the default, eight a
  // core, reserves 64 MiB for each helper that allocates. Left so for the rest of the process.
  mallopt(M_ARENA_MAX, 2);
  // 8 x 8 threads a block: 16.25 MiB of fiber stacks for each worker.
  const HostCompileResult build = compiled(
      {"shared-tiled", userKernelTemplate("shared-tiled")->source}, false, false, {{"TILE", 8}});
  ASSERT_TRUE(build.result.ok) << said(build.result);
  Product product({256, 256, 40});
  EXPECT_EQ(failureWithRoom(product, *build.module, std::uint64_t(140) << 20), "");
  EXPECT_TRUE(product.verified());
}

// What the kernel's code throws (here the C++ library's bad_alloc, as a failed `new` throws it)
// comes out of the launch as the core's Error naming the thread, plain and sanitized, and the
// workers go on with the next launch: unwinding past a fiber's first frame ended the process.
TEST_F(HostKernel, WhatTheKernelsCodeThrowsComesOutOfTheLaunchAndTheWorkersGoOn) {
  // A kernel includes no header, so it throws std::bad_alloc through libstdc++'s own function;
  // allocating petabytes instead would stop an AddressSanitizer build.
#if !defined(__GLIBCXX__)
  GTEST_SKIP() << "the kernel throws through libstdc++'s std::__throw_bad_alloc";
#endif
  const std::string source =
      "namespace std { [[noreturn]] void __throw_bad_alloc(); }\n"
      "TS_LAUNCH(4, 4, ts::ceilDiv(N, 4), ts::ceilDiv(M, 4), 0)\n"
      "TS_KERNEL {\n"
      "  const int i = blockIdx.y * 4 + threadIdx.y, j = blockIdx.x * 4 + threadIdx.x;\n"
      "  __syncthreads();\n"
      "  if (blockIdx.x == 1 && blockIdx.y == 0 && threadIdx.x == 2 && threadIdx.y == 1)\n"
      "    std::__throw_bad_alloc();\n"
      "  __syncthreads();\n"
      "  float sum = 0.0f;\n"
      "  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);\n"
      "  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);\n"
      "}\n";
  const HostCompileResult naive =
      compiled({"naive", userKernelTemplate("naive")->source}, false, false);
  ASSERT_TRUE(naive.result.ok) << said(naive.result);
  for (const bool sanitize : {false, true}) {
    SCOPED_TRACE(sanitize ? "sanitized" : "plain");
    const HostCompileResult build = compiled({"thrower", source}, false, sanitize);
    ASSERT_TRUE(build.result.ok) << said(build.result);
    Product product({16, 16, 8});
    try {
      product.run(*build.module);
      ADD_FAILURE() << "the launch returned";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::OutOfMemory);
      EXPECT_EQ(std::string(error.what()),
                "the kernel's code in block (1,0), thread (2,1) ran out of memory: an allocation "
                "failed");
    }
    Product next({33, 17, 9});
    EXPECT_TRUE(next.run(*naive.module).clean());
    EXPECT_TRUE(next.verified());
  }
}

// A build leaves the shared object in the cache folder without loading it: a global's
// constructor (code that runs at load) has not run; the compile that follows loads it from there.
TEST_F(HostKernel, ABuildDoesNotLoadTheKernelAndTheCompileAfterItDoes) {
  const std::string source =
      "extern \"C\" int setenv(const char*, const char*, int);\n"
      "static int loaded = setenv(\"TILESCOPE_TEST_LOADED\", \"yes\", 1);\n"
      "TS_LAUNCH(1, 1, 1, 1, 0)\n"
      "TS_KERNEL { if (threadIdx.x == 0 && loaded == 0) ts::storeC(p, 0, 0, 0.0f); }\n";
  ::unsetenv("TILESCOPE_TEST_LOADED");
  const CompileResult built = buildUserKernelForHost({"loads", source}, {.arch = "host"});
  ASSERT_TRUE(built.ok) << said(built);
  EXPECT_EQ(std::getenv("TILESCOPE_TEST_LOADED"), nullptr);
  const HostCompileResult loaded = compiled({"loads", source}, false, false);
  ASSERT_TRUE(loaded.result.ok) << said(loaded.result);
  ASSERT_NE(std::getenv("TILESCOPE_TEST_LOADED"), nullptr);
  EXPECT_EQ(std::string(std::getenv("TILESCOPE_TEST_LOADED")), "yes");
  const CompileResult broken = buildUserKernelForHost({"broken", "TS_KERNEL { x = 1; }\n"}, {});
  EXPECT_FALSE(broken.ok);
  ::unsetenv("TILESCOPE_TEST_LOADED");
}

// asm in any spelling is refused on the CPU: it would be x86 assembly, and .incbin reads files.
TEST_F(HostKernel, AsmInEverySpellingIsRefused) {
  for (const char* line :
       {"  __asm__(\".incbin \\\"/etc/passwd\\\"\");\n", "  __asm__ __volatile__(\"nop\");\n",
        "  __asm(\"nop\");\n", "  asm goto(\"nop\" ::: : out);\n"}) {
    SCOPED_TRACE(line);
    const std::string source =
        "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_KERNEL {\n" + std::string(line) + "out:;\n}\n";
    const HostCompileResult build = compiled({"asm", source}, false, false);
    ASSERT_FALSE(build.result.ok);
    ASSERT_EQ(build.result.diagnostics.size(), 1u) << said(build.result);
    EXPECT_EQ(build.result.diagnostics[0].line, 3);
    EXPECT_NE(build.result.diagnostics[0].message.find("needs an NVIDIA GPU"), std::string::npos);
  }
}

TEST_F(HostKernel, CompileErrorsAreAtTheUsersLines) {
  const std::string source = "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_KERNEL {\n  undeclared = 1;\n}\n";
  const HostCompileResult build = compiled({"broken", source}, false, false);
  ASSERT_FALSE(build.result.ok);
  ASSERT_FALSE(build.result.diagnostics.empty());
  EXPECT_EQ(build.result.diagnostics.front().line, 3) << said(build.result);
  EXPECT_TRUE(build.result.diagnostics.front().error);
}

}  // namespace
}  // namespace tilescope
