// SPDX-License-Identifier: GPL-3.0-or-later
// Resources and occupancy: every hand-written kernel's launch, as the backend plans it, has the
// grid, block and shared memory its Mapping describes, and the runtime's figures are sane.
#include <cuda_runtime.h>

#include "gpu_test.hpp"
#include "kernel_resources.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/occupancy.hpp"

namespace tilescope::test {
namespace {

class KernelResourcesTest : public GpuTest, public ::testing::WithParamInterface<KernelCase> {};

TEST_P(KernelResourcesTest, TheLaunchIsTheMappingsAndItsResourcesAreSane) {
  const ResolvedKernel config = resolve(GetParam().config);
  // FP8 runs only with K a multiple of 16 (rows of K bytes, 16-byte aligned for TMA).
  const Shape shape{1000, 1030, isFp8(GetParam().element) ? 80 : 70};
  cuda::ProductArgs args{nullptr, nullptr, nullptr, shape.m, shape.n, shape.k};
  args.element = GetParam().element;
  const cuda::LaunchPlan plan = cuda::plannedLaunch(config, args);
  const Mapping mapping = launchedMapping(config, shape, GetParam().element);
  EXPECT_EQ(plan.grid.x, mapping.launchGrid().x);
  EXPECT_EQ(plan.grid.y, mapping.launchGrid().y);
  EXPECT_EQ(plan.cluster.x, mapping.cluster().x);
  EXPECT_EQ(plan.cluster.y, mapping.cluster().y);
  // A persistent launch holds no more blocks than the GPU keeps at once, all its tiles placed.
  if (mapping.persistent()) {
    int device = 0, multiprocessors = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
              cudaSuccess);
    EXPECT_LE(plan.grid.x, multiprocessors);
    EXPECT_EQ(plan.grid.x % plan.cluster.x, 0);
  }
  EXPECT_EQ(plan.block.x * plan.block.y, mapping.threadsPerBlock());

  const KernelResources resources = cuda::resourcesOf(plan);
  EXPECT_EQ(resources.sharedBytesPerBlock, mapping.sharedBytesPerBlock());
  EXPECT_EQ(resources.threadsPerBlock, mapping.threadsPerBlock());
  EXPECT_GT(resources.registersPerThread, 0);
  EXPECT_LE(resources.registersPerThread, 255);
  EXPECT_GE(resources.localBytesPerThread, 0);
  // The persistent tensor-core kernels spill nothing: on 40 registers tensor-persistent's producer
  // spilled its tile order in 2-block clusters and ran 1.5-2.5 % slower (docs/performance.md).
  if (mapping.persistent()) {
    EXPECT_EQ(resources.localBytesPerThread, 0);
  }
  EXPECT_GE(resources.blocksPerSM, 1) << "a compiled configuration must fit on an SM";
  EXPECT_GT(resources.occupancy, 0.0);
  EXPECT_LE(resources.occupancy, 1.0);
  // The theoretical occupancy the Kernel Editor shows without a GPU is the driver's.
  int device = 0;
  cudaDeviceProp properties{};
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&properties, device), cudaSuccess);
  const std::string arch = "sm_" + std::to_string(properties.major * 10 + properties.minor);
  const auto theoretical = withTheoreticalOccupancy(arch, resources);
  ASSERT_TRUE(theoretical) << arch;
  EXPECT_EQ(theoretical->blocksPerSM, resources.blocksPerSM)
      << resources.registersPerThread << " registers, " << resources.sharedBytesPerBlock
      << " bytes of shared memory, " << resources.threadsPerBlock << " threads";
}

INSTANTIATE_TEST_SUITE_P(Cuda, KernelResourcesTest,
                         ::testing::ValuesIn(everyCudaConfiguration(/*withLibrary=*/false)),
                         caseName);

TEST_F(GpuTest, RunResultsCarryResourcesExceptForTheLibrary) {
  const std::unique_ptr<Backend> backend = makeCudaBackend();
  RunRequest run;
  run.shape = {256, 256, 256};
  run.sampling.warmups = 0;
  run.sampling.fixedReps = 1;
  run.kernel = {"warptile", {}};
  const RunResult ladder = backend->run(run, {}, nullptr);
  ASSERT_TRUE(ladder.resources);
  EXPECT_EQ(ladder.resources->threadsPerBlock,
            Mapping(resolve(run.kernel), run.shape).threadsPerBlock());
  run.kernel = {"library", {}};
  EXPECT_FALSE(backend->run(run, {}, nullptr).resources);
}

// The SIMT rungs sized for it keep two blocks (16 warps) or more per SM at their default tiles,
// and spill nothing: a float4 store of C once cost warptile its second block (127 registers
// became 163, and it ran 1.8x slower) and made prefetched spill.
TEST_F(GpuTest, TheSimtRungsDefaultTilesKeepTwoBlocksPerSmWithoutSpills) {
  const Shape shape{4096, 4096, 4096};
  for (const char* kernel : {"vectorized", "warptile", "prefetched"}) {
    const cuda::ProductArgs args{nullptr, nullptr, nullptr, shape.m, shape.n, shape.k};
    const KernelResources resources =
        cuda::resourcesOf(cuda::plannedLaunch(resolve({kernel, {}}), args));
    EXPECT_GE(resources.blocksPerSM, 2)
        << kernel << ": " << resources.registersPerThread << " registers";
    EXPECT_EQ(resources.localBytesPerThread, 0) << kernel;
  }
}

}  // namespace
}  // namespace tilescope::test
