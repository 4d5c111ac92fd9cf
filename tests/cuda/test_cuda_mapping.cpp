// SPDX-License-Identifier: GPL-3.0-or-later
// The mapping proof: the instrumented variant of each kernel records, per element of C, the
// block and thread CUDA ran it on; they must be the ones tilescope::Mapping::owner() names, so
// the diagrams and the traffic model describe what the GPU really does.
#include <sstream>
#include <vector>

#include "gpu_test.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope::test {
namespace {

class KernelMapping : public GpuTest, public ::testing::WithParamInterface<KernelCase> {};

TEST_P(KernelMapping, EveryElementIsWrittenByTheThreadTheMappingNames) {
  const KernelConfig config = resolve(GetParam().config);
  // One element; a few blocks with ragged edges; enough to need several blocks of the largest
  // register tile (16 x 64 rows per block); for a persistent kernel also enough tiles for three
  // rounds of its blocks.
  std::vector<Shape> shapes = {{1, 1, 1}, {37, 45, 5}, {1100, 1030, 3}};
  if (config.kernel == "tensor-persistent") shapes.push_back({2200, 2100, 3});
  if (config.kernel == "tensor-tf32") shapes.push_back({2200, 4200, 3});
  // FP8 runs only with K a multiple of 16 (rows of K bytes, 16-byte aligned for TMA).
  if (isFp8(GetParam().element)) {
    for (Shape& shape : shapes) shape.k = 16;
    shapes.push_back({2200, 2100, 16});
  }
  for (const Shape& shape : shapes) {
    const Operands operands = makeOperands(shape, Fill::Integer, 11, GetParam().element);
    DeviceProduct device(operands, GetParam().element);
    DeviceProduct::Owners owners;
    const Matrix c = device.run(config, &owners);

    // The block CUDA ran is the launched one: for a persistent kernel the block its tile order
    // gives the tile, for the others the tile's own.
    const Mapping mapping = launchedMapping(config, shape, GetParam().element);
    std::int64_t mismatches = 0;
    std::ostringstream first;
    for (std::int64_t i = 0; i < shape.m; ++i) {
      for (std::int64_t j = 0; j < shape.n; ++j) {
        const ThreadRef owner = mapping.owner(i, j);
        const std::int64_t block = mapping.launchedBlockOf(owner.block);
        const int thread = owner.thread.x + owner.thread.y * mapping.block().x;
        const std::size_t index = std::size_t(i * shape.n + j);
        if (owners.block[index] == block && owners.thread[index] == thread) continue;
        if (mismatches++ == 0)
          first << "C[" << i << "][" << j << "]: mapping says block " << block << " thread "
                << thread << ", the GPU ran block " << owners.block[index] << " thread "
                << owners.thread[index];
      }
    }
    EXPECT_EQ(mismatches, 0) << describe(GetParam(), shape) << "; first: " << first.str();

    const Verification v =
        verify(c, referenceProduct(operands.a, operands.b), operands.a, operands.b);
    EXPECT_EQ(v.nonFinite, 0) << describe(GetParam(), shape);
    EXPECT_EQ(v.maxAbsError, 0.0) << describe(GetParam(), shape);
  }
}

INSTANTIATE_TEST_SUITE_P(Cuda, KernelMapping,
                         ::testing::ValuesIn(everyCudaConfiguration(/*withLibrary=*/false)),
                         caseName);

}  // namespace
}  // namespace tilescope::test
