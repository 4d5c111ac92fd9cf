// SPDX-License-Identifier: GPL-3.0-or-later
// Every CUDA kernel with every tile it allows, on square sizes around the tile and the block and
// on rectangular shapes, in every element type it multiplies: exact against the CPU double
// reference on integer-valued inputs (integers in [-8, 8] are exact in every type, FP8 too, and
// every partial sum is an integer below 2^24, so any difference is a bug, not rounding).
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "gpu_test.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope::test {
namespace {

// Operands, their double reference and their device copy, shared by every configuration.
struct CachedProblem {
  CachedProblem(const Shape& shape, ElementType element)
      : operands(makeOperands(shape, Fill::Integer, 7, element)),
        reference(referenceProduct(operands.a, operands.b)),
        device(operands, element) {}
  Operands operands;
  std::vector<double> reference;
  DeviceProduct device;
};

class KernelExactness : public GpuTest, public ::testing::WithParamInterface<KernelCase> {
 protected:
  static void TearDownTestSuite() { cache().clear(); }

  // The tile T (a ladder kernel's k-step depth BK), and the rows and columns one block covers (T,
  // 16 T for register-tiled, BM and BN for the ladder): the edges where bounds checks and zero
  // padding matter.
  std::tuple<std::int64_t, std::int64_t, std::int64_t> tileAndBlock() const {
    if (GetParam().config.params.empty()) return {1, 1, 1};
    const Mapping mapping(resolve(GetParam().config), Shape{4096, 4096, 4096}, GetParam().element);
    const std::int64_t tile = GetParam().tile > 0 ? GetParam().tile : mapping.kDepth();
    return {tile, mapping.blockRows({0, 0}).count, mapping.blockCols({0, 0}).count};
  }

  std::vector<std::int64_t> squareSizes() const {
    const auto [tile, span, spanCols] = tileAndBlock();
    // 1023 and 1025: K and N not multiples of 4, so the float4 kernels take their scalar paths.
    std::set<std::int64_t> sizes = {1, 2, 7, 17, 33, 257, 1000, 1023, 1024, 1025};
    for (const std::int64_t edge : {tile, span})
      for (const std::int64_t size : {edge - 1, edge, edge + 1})
        if (size >= 1) sizes.insert(size);
    return {sizes.begin(), sizes.end()};
  }

  std::vector<Shape> rectangularShapes() const {
    const auto [tile, span, spanCols] = tileAndBlock();
    return {{1, 1025, 7},
            {1025, 1, 33},
            {17, 257, 1000},
            {7, 1000, 2},
            {257, 33, 1025},
            {1000, 1024, 1},
            {tile + 1, 2 * tile + 3, std::max<std::int64_t>(tile - 1, 1)},
            {span + 1, span - 1 > 0 ? span - 1 : 3, 2 * span + 1},
            // Whole blocks and an odd number of k-steps: prefetched's unchecked copies run two
            // k-steps an iteration, and then one more.
            {2 * span, spanCols, 3 * tile}};
  }

  // The serial kernel is bounded on the GPU (KernelInfo::maxWork); the test keeps to the bound.
  bool allowed(const Shape& shape) const {
    const KernelInfo& info = kernelInfo(GetParam().config.kernel);
    const auto bound = info.maxWork.find("cuda");
    return bound == info.maxWork.end() || bound->second <= 0 ||
           double(shape.m) * double(shape.n) * double(shape.k) <= bound->second;
  }

  void expectExact(const Shape& shape) {
    if (!allowed(shape)) return;
    // FP8 rows of K bytes go through TMA (tensor-fp8) or cuBLASLt, both of which need K a
    // multiple of 16: any other K is refused, saying so.
    if (isFp8(GetParam().element) && shape.k % 16 != 0) {
      try {
        cachedProblem(shape, GetParam().element).device.run(GetParam().config);
        ADD_FAILURE() << describe(GetParam(), shape) << ": K = " << shape.k << " ran";
      } catch (const Error& error) {
        EXPECT_EQ(error.kind(), ErrorKind::Unsupported) << error.what();
        EXPECT_NE(std::string(error.what()).find("multiple of 16"), std::string::npos)
            << error.what();
      }
      return;
    }
    CachedProblem& problem = cachedProblem(shape, GetParam().element);
    const Matrix c = problem.device.run(GetParam().config);
    const Verification v = verify(c, problem.reference, problem.operands.a, problem.operands.b);
    EXPECT_EQ(v.nonFinite, 0) << describe(GetParam(), shape) << ": elements left unwritten";
    EXPECT_EQ(v.maxAbsError, 0.0) << describe(GetParam(), shape)
                                  << ": integer inputs must give the exact product";
  }

 private:
  using ProblemKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, ElementType>;
  static std::map<ProblemKey, std::unique_ptr<CachedProblem>>& cache() {
    static std::map<ProblemKey, std::unique_ptr<CachedProblem>> problems;
    return problems;
  }
  static CachedProblem& cachedProblem(const Shape& shape, ElementType element) {
    auto& slot = cache()[{shape.m, shape.n, shape.k, element}];
    if (!slot) slot = std::make_unique<CachedProblem>(shape, element);
    return *slot;
  }
};

TEST_P(KernelExactness, SquareSizesAroundTheTileAndTheBlock) {
  for (const std::int64_t size : squareSizes()) expectExact({size, size, size});
}

TEST_P(KernelExactness, RectangularShapes) {
  for (const Shape& shape : rectangularShapes()) expectExact(shape);
}

// A persistent kernel's blocks take several tiles in turn, its stage ring running on from one
// tile into the next: shapes of two to five rounds per block, K of one to nine k-steps (so the
// ring wraps inside a tile and across tiles), the TMA path and the element-by-element edge paths
// (K, then N, no multiple of 8), and a last tile row a cluster only half covers.
class PersistentExactness : public KernelExactness {};

std::vector<KernelCase> persistentConfigurations() {
  std::vector<KernelCase> cases;
  for (const KernelCase& kernelCase : everyCudaConfiguration(/*withLibrary=*/false))
    if (cuda::cudaLaunchOf(kernelCase.config.kernel).residentBlocks) cases.push_back(kernelCase);
  return cases;
}

TEST_P(PersistentExactness, SeveralTilesPerBlock) {
  for (const Shape& shape : {Shape{2049, 2115, 72}, Shape{2200, 1500, 520}, Shape{1283, 2300, 61},
                             Shape{2100, 1999, 64}, Shape{4096, 4096, 128}})
    expectExact(shape);
}

INSTANTIATE_TEST_SUITE_P(Cuda, PersistentExactness, ::testing::ValuesIn(persistentConfigurations()),
                         caseName);

INSTANTIATE_TEST_SUITE_P(Cuda, KernelExactness,
                         ::testing::ValuesIn(everyCudaConfiguration(/*withLibrary=*/true)),
                         caseName);

// naive indexes in int when every index fits and in int64 otherwise: a C of more than 2^31
// elements (8 GiB, k = 1) takes the int64 path, and its last row lies past the int range.
class NaiveWideIndices : public GpuTest {};

TEST_F(NaiveWideIndices, ElementsPastTheIntRangeAreRight) {
  const std::int64_t m = 65536, n = 32769;
  const std::int64_t cBytes = m * n * std::int64_t(sizeof(float));
  std::size_t freeBytes = 0, totalBytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&freeBytes, &totalBytes), cudaSuccess);
  if (std::int64_t(freeBytes) < cBytes + (std::int64_t(1) << 30))
    GTEST_SKIP() << "needs " << (cBytes >> 20) << " MiB of free GPU memory";
  ASSERT_GT(m * n, std::int64_t(std::numeric_limits<int>::max()));
  ASSERT_GT((m - 1) * n, std::int64_t(std::numeric_limits<int>::max()));

  const Operands operands = makeOperands({m, n, 1}, Fill::Integer, 11, ElementType::F32);
  cuda::DeviceBuffer<float> a(m), b(n), c(m * n);
  ASSERT_EQ(cudaMemcpy(a.get(), operands.a.data.data(), a.bytes(), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b.get(), operands.b.data.data(), b.bytes(), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemset(c.get(), 0xFF, c.bytes()), cudaSuccess);  // NaN: unwritten cannot pass
  cuda::cudaLaunchOf("naive").launch({{"tile", 16}}, {a.get(), b.get(), c.get(), m, n, 1});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // The first rows, a middle one and the last two (past 2^31), each element A[i][0] * B[0][j].
  std::vector<float> row(static_cast<std::size_t>(n));
  for (const std::int64_t i : {std::int64_t(0), std::int64_t(1), m / 2, m - 2, m - 1}) {
    ASSERT_EQ(cudaMemcpy(row.data(), c.get() + i * n, std::size_t(n) * sizeof(float),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (std::int64_t j = 0; j < n; ++j)
      ASSERT_EQ(row[std::size_t(j)],
                operands.a.data[std::size_t(i)] * operands.b.data[std::size_t(j)])
          << "C[" << i << "][" << j << "]";
  }
}

}  // namespace
}  // namespace tilescope::test
