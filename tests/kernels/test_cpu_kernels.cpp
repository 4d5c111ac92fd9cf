// SPDX-License-Identifier: GPL-3.0-or-later
// Every catalogue kernel on the CPU backend against the double-precision reference: within the
// K-scaled float32 tolerance on random inputs, exact on integer-valued ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "tilescope/backend.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope {

// Readable parameter values in gtest's failure messages.
void PrintTo(Fill fill, std::ostream* out) {
  *out << (fill == Fill::Integer ? "Fill::Integer" : "Fill::Random");
}

namespace {

// The kernels the CPU backend implements; with `tiledOnly`, those that take a tile.
std::vector<std::string> cpuKernelIds(bool tiledOnly) {
  std::vector<std::string> ids;
  for (const KernelInfo& info : catalogue()) {
    const bool onCpu =
        std::find(info.backends.begin(), info.backends.end(), "cpu") != info.backends.end();
    if (onCpu && (!tiledOnly || info.param("tile"))) ids.push_back(info.id);
  }
  return ids;
}

// Runs a kernel exactly once (no warm-up, one repetition) and verifies it.
RunResult runOnce(const KernelConfig& config, const Shape& shape, Fill fill) {
  RunRequest request;
  request.kernel = config;
  request.shape = shape;
  request.fill = fill;
  request.seed = 7;
  request.sampling.warmups = 0;
  request.sampling.fixedReps = 1;
  return makeCpuBackend()->run(request, {}, nullptr);
}

void expectMatchesReference(const RunResult& result, Fill fill) {
  ASSERT_TRUE(result.verification.has_value());
  const Verification& v = *result.verification;
  EXPECT_EQ(v.nonFinite, 0) << "elements left unwritten (still NaN) or not finite";
  EXPECT_LE(v.normalizedError, kFloat32Tolerance);
  EXPECT_TRUE(v.passed);
  // Integer-valued inputs in [-8, 8]: every partial sum is exact in float32.
  if (fill == Fill::Integer) {
    EXPECT_EQ(v.maxAbsError, 0.0);
  }
  EXPECT_EQ(result.stats.reps, 1);
}

std::string shapeText(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

class CpuKernelTest : public testing::TestWithParam<std::tuple<std::string, Fill>> {
 protected:
  const std::string& kernel() const { return std::get<0>(GetParam()); }
  Fill fill() const { return std::get<1>(GetParam()); }
};

TEST_P(CpuKernelTest, MatchesReferenceOnSquareAndRectangularShapes) {
  const std::vector<Shape> shapes = {{1, 1, 1},       {7, 7, 7},       {33, 33, 33},
                                     {100, 100, 100}, {257, 257, 257}, {7, 33, 100},
                                     {257, 1, 33},    {100, 257, 7},   {1, 100, 257}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(kernel() + " at " + shapeText(shape));
    expectMatchesReference(runOnce({kernel(), {}}, shape, fill()), fill());
  }
}

class TiledCpuKernelTest : public CpuKernelTest {};

// Small shapes that no tile divides evenly, so every tile meets partial blocks and K padding;
// every valid configuration, so a tiled kernel's other parameters (a pad) are covered too.
TEST_P(TiledCpuKernelTest, MatchesReferenceWithEveryValidTile) {
  ASSERT_NE(kernelInfo(kernel()).param("tile"), nullptr);
  const std::vector<Shape> shapes = {{1, 1, 1}, {33, 33, 33}, {7, 33, 100}, {65, 17, 40}};
  for (const KernelConfig& config : validConfigurations(kernelInfo(kernel()))) {
    for (const Shape& shape : shapes) {
      SCOPED_TRACE(kernel() + " " + formatParams(config) + " at " + shapeText(shape));
      const RunResult result = runOnce(config, shape, fill());
      EXPECT_EQ(result.kernel, config);
      expectMatchesReference(result, fill());
    }
  }
}

// The ladder: every configuration the catalogue accepts (each one a compiled CUDA kernel), on
// shapes that cross block edges in M and N, with K neither a multiple of BK nor of 4 and with it
// a multiple of both. Integer inputs, so the result must be exact.
class LadderCpuKernelTest : public testing::TestWithParam<std::string> {};

TEST_P(LadderCpuKernelTest, EveryValidConfigurationIsExactAtBlockEdges) {
  const std::vector<Shape> shapes = {{1, 1, 1}, {130, 67, 21}, {67, 260, 36}};
  for (const KernelConfig& config : validConfigurations(kernelInfo(GetParam()))) {
    for (const Shape& shape : shapes) {
      SCOPED_TRACE(GetParam() + " " + formatParams(config) + " at " + shapeText(shape));
      const RunResult result = runOnce(config, shape, Fill::Integer);
      EXPECT_EQ(result.kernel, config);
      expectMatchesReference(result, Fill::Integer);
    }
  }
}

std::vector<std::string> ladderKernelIds() {
  std::vector<std::string> ids;
  for (const KernelInfo& info : catalogue())
    if (info.check && !elementRefusal(info, ElementType::F32)) ids.push_back(info.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Ladder, LadderCpuKernelTest, testing::ValuesIn(ladderKernelIds()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

std::string testName(const testing::TestParamInfo<CpuKernelTest::ParamType>& info) {
  std::string name = std::get<0>(info.param);
  std::replace(name.begin(), name.end(), '-', '_');
  return name + (std::get<1>(info.param) == Fill::Integer ? "_integer" : "_random");
}

INSTANTIATE_TEST_SUITE_P(AllKernels, CpuKernelTest,
                         testing::Combine(testing::ValuesIn(cpuKernelIds(false)),
                                          testing::Values(Fill::Random, Fill::Integer)),
                         testName);
INSTANTIATE_TEST_SUITE_P(TiledKernels, TiledCpuKernelTest,
                         testing::Combine(testing::ValuesIn(cpuKernelIds(true)),
                                          testing::Values(Fill::Random, Fill::Integer)),
                         testName);

}  // namespace
}  // namespace tilescope
