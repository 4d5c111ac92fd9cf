// SPDX-License-Identifier: GPL-3.0-or-later
// Every CUDA kernel through the whole backend (poison, launch, events, copies, verification) at
// a size that is no multiple of any tile. scripts/gpu-check runs this suite under
// compute-sanitizer's memcheck, racecheck, synccheck and initcheck; here it checks the results.
// TS_SANITIZE_KERNEL=<id> keeps to one kernel (a sanitizer over the whole catalogue takes minutes).
#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "gpu_test.hpp"

namespace tilescope::test {
namespace {

class CudaSanitize : public GpuTest {};

// The default tile, the non-power-of-two 7 where allowed, and the largest; a ladder kernel's
// default and the corners of its parameter space.
std::vector<Params> tilesToCheck(const KernelInfo& info) {
  if (info.check) {
    std::vector<Params> corners;
    for (const KernelConfig& config : ladderCorners())
      if (config.kernel == info.id) corners.push_back(config.params);
    return corners;
  }
  const ParamSpec* tile = info.param("tile");
  if (!tile) return {Params{}};
  std::vector<Params> picks = {{{"tile", tile->defaultValue}}, {{"tile", tile->allowed.back()}}};
  if (std::find(tile->allowed.begin(), tile->allowed.end(), 7) != tile->allowed.end())
    picks.push_back({{"tile", 7}});
  return picks;
}

TEST_F(CudaSanitize, EveryKernelAtAnOddSize) {
  const std::unique_ptr<Backend> backend = makeCudaBackend();
  const char* only = std::getenv("TS_SANITIZE_KERNEL");
  for (const KernelInfo& info : catalogue()) {
    if (std::find(info.backends.begin(), info.backends.end(), "cuda") == info.backends.end())
      continue;
    if (only && info.id != only) continue;
    // No tile multiple. K = 41 and N = 29 keep the vector-copy kernels on their scalar paths;
    // the second shape (K and N multiples of 8, two block rows, seven k-steps of 16 or four of
    // 32) on their 16-byte paths, with the pipeline's stages wrapping around; both run at every
    // tile checked. The third, at the default tile only (racecheck would take minutes a kernel
    // at every corner), wraps the Hopper kernels' rings of up to six stages (13 k-steps of 64,
    // 26 of 32, 7 of 128), on the path where the producer's threads copy the operands. FP8 rows
    // of K bytes go through the copy engine, which needs K a multiple of 16, and cuBLASLt's FP8
    // matmul refuses N = 29 (24 and 72 ran on an H100): K and N round up to multiples of 16.
    std::vector<std::pair<Params, Shape>> checks;
    for (const Params& params : tilesToCheck(info))
      for (const Shape& shape : {Shape{37, 29, 41}, Shape{131, 72, 104}})
        checks.emplace_back(params, shape);
    checks.emplace_back(Params{}, Shape{37, 29, 803});
    for (const auto& [params, shape] : checks)
      for (const ElementType element : info.types) {
        RunRequest run;
        run.kernel = {info.id, params};
        run.shape = shape;
        if (isFp8(element)) {
          run.shape.k = (shape.k + 15) / 16 * 16;
          run.shape.n = (shape.n + 15) / 16 * 16;
        }
        run.element = element;
        run.fill = Fill::Integer;
        run.sampling.warmups = 0;
        run.sampling.fixedReps = 1;
        const std::string what =
            info.id + " " + formatParams(run.kernel) + " in " + toString(element);
        const RunResult result = backend->run(run, {}, nullptr);
        ASSERT_TRUE(result.verification) << what;
        EXPECT_TRUE(result.verified()) << what;
        EXPECT_EQ(result.verification->maxAbsError, 0.0) << what;
      }
  }
}

}  // namespace
}  // namespace tilescope::test
