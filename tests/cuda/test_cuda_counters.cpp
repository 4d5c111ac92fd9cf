// The GPU's hardware counters against the traffic model, where the model is exact: the sectors
// of uncoalesced and coalesced loads, the passes of shared reads, and DRAM traffic between the
// compulsory bytes and the model's no-reuse bytes. Each test prints both sides.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "gpu_test.hpp"
#include "tilescope/counter_model.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {
namespace {

class CudaCounters : public test::GpuTest {
 protected:
  static RunResult counted(const std::string& kernel, Shape shape, Params params = {},
                           ElementType element = ElementType::F32) {
    RunRequest request;
    request.kernel = {kernel, std::move(params)};
    request.shape = shape;
    request.element = element;
    request.sampling.warmups = 0;
    request.sampling.fixedReps = 2;
    request.collectCounters = true;
    RunResult result = makeCudaBackend()->run(request, {}, nullptr);
    std::cout << kernel << " " << shape.m << "x" << shape.n << "x" << shape.k << ": "
              << (result.counters ? result.counters->source : *result.countersUnavailable) << '\n';
    for (const CounterComparison& c : compareWithModel(result))
      std::cout << "  " << c.what << " (" << c.unit << "): model " << c.model << ", measured "
                << c.measured << (c.agrees ? "" : "  <- " + c.why) << '\n';
    return result;
  }

  // The comparison named `what`; fails the test where there is none.
  static CounterComparison comparison(const RunResult& result, const std::string& what) {
    for (const CounterComparison& c : compareWithModel(result))
      if (c.what == what) return c;
    ADD_FAILURE() << "no comparison of " << what;
    return {};
  }
};

// Collection must work where ncu does; a run under compute-sanitizer has the counters taken.
#define TS_REQUIRE_COUNTERS(result)                                                  \
  do {                                                                               \
    if ((result).countersUnavailable &&                                              \
        (result).countersUnavailable->find("another profiler") != std::string::npos) \
      GTEST_SKIP() << *(result).countersUnavailable;                                 \
    ASSERT_TRUE((result).counters) << (result).countersUnavailable.value_or("");     \
  } while (false)

TEST_F(CudaCounters, KeepTheTimingAndTheVerification) {
  const RunResult result = counted("naive", {512, 512, 512});
  TS_REQUIRE_COUNTERS(result);
  EXPECT_TRUE(result.verified());
  EXPECT_GT(result.stats.medianMs, 0);
  EXPECT_EQ(result.stats.reps, 2);
  EXPECT_NE(result.counters->source.find("CUPTI"), std::string::npos);
  EXPECT_GT(result.counters->achievedOccupancy, 0);
  EXPECT_LE(result.counters->achievedOccupancy, 1);
}

// A warp's A loads touch 32 rows, its B loads one element: 16.5 sectors per load on average.
TEST_F(CudaCounters, RowPerThreadLoadsAsTheModelCountsThem) {
  const RunResult result = counted("row-per-thread", {512, 512, 512});
  TS_REQUIRE_COUNTERS(result);
  const CounterComparison loads = comparison(result, "global loads");
  EXPECT_DOUBLE_EQ(loads.model, 16.5);
  EXPECT_TRUE(loads.agrees) << loads.measured;
  EXPECT_TRUE(comparison(result, "global stores").agrees);
}

TEST_F(CudaCounters, NaiveLoadsAndStoresAsTheModelCountsThem) {
  const RunResult result = counted("naive", {1024, 1024, 1024}, {{"tile", 16}});
  TS_REQUIRE_COUNTERS(result);
  EXPECT_TRUE(comparison(result, "global loads").agrees);
  EXPECT_TRUE(comparison(result, "global stores").agrees);
}

// The model predicts no conflicts for 16 x 16 tiles: a warp reads one A word (a broadcast) and 32
// consecutive B words. The compiler may merge reads into wider ones, so the passes per request
// are not the model's, but the conflicts are.
TEST_F(CudaCounters, SharedTiledBankConflictsAsTheModelPredicts) {
  const RunResult result = counted("shared-tiled", {1024, 1024, 1024}, {{"tile", 16}});
  TS_REQUIRE_COUNTERS(result);
  const CounterComparison conflicts = comparison(result, "bank conflicts");
  EXPECT_EQ(conflicts.model, 0);
  EXPECT_TRUE(conflicts.agrees) << conflicts.measured;
}

// Without caches the model is an upper bound; no kernel can move less than its operands.
TEST_F(CudaCounters, NaiveDramTrafficLiesBetweenCompulsoryAndTheModel) {
  const RunResult result = counted("naive", {4096, 4096, 4096}, {{"tile", 16}});
  TS_REQUIRE_COUNTERS(result);
  const double dram = result.counters->dramReadBytes + result.counters->dramWriteBytes;
  const double compulsory = double(problemBytes(result.shape, result.element));
  const KernelTraffic traffic = kernelTraffic(Mapping(result.kernel, result.shape));
  EXPECT_GE(dram, compulsory * (1 - kCounterMargin));
  EXPECT_LE(dram, traffic.globalBytes);
  EXPECT_TRUE(comparison(result, "DRAM traffic").agrees);
}

TEST_F(CudaCounters, TensorKernelsReportTheTensorPipe) {
  for (const char* kernel : {"tensor-mma", "library"}) {
    const RunResult result = counted(kernel, {1024, 1024, 1024}, {}, ElementType::F16);
    TS_REQUIRE_COUNTERS(result);
    ASSERT_TRUE(result.counters->tensorPipeUtilisation) << kernel;
    EXPECT_GT(*result.counters->tensorPipeUtilisation, 0.05) << kernel;
    EXPECT_LE(*result.counters->tensorPipeUtilisation, 1.0) << kernel;
  }
}

}  // namespace
}  // namespace tilescope
