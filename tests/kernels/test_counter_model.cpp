// SPDX-License-Identifier: GPL-3.0-or-later
// The counters set beside the traffic model: which figures are compared, when they agree, and
// what the app says where they part.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tilescope/counter_model.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {
namespace {

RunResult runOf(const std::string& kernel, Shape shape, Params params = {}) {
  RunResult r;
  r.backend = "cuda";
  r.kernel = resolve({kernel, std::move(params)});
  r.shape = shape;
  return r;
}

// Counters exactly as the model predicts them, DRAM traffic at the model's no-reuse bytes.
HardwareCounters asModelled(const RunResult& r) {
  const Mapping mapping(r.kernel, r.shape);
  const KernelTraffic traffic = kernelTraffic(mapping);
  const AccessTotals& a = traffic.totals(Access::LoadA);
  const AccessTotals& b = traffic.totals(Access::LoadB);
  const AccessTotals& c = traffic.totals(Access::StoreC);
  HardwareCounters hw;
  hw.globalLoadRequests = a.requests + b.requests;
  hw.globalLoadSectors = a.sectors + b.sectors;
  hw.globalStoreRequests = c.requests;
  hw.globalStoreSectors = c.sectors;
  hw.dramReadBytes = traffic.globalBytes - c.bytesFetched();
  hw.dramWriteBytes = c.bytesFetched();
  return hw;
}

// A copy: the comparisons are often a temporary.
CounterComparison find(const std::vector<CounterComparison>& all, const std::string& what) {
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const CounterComparison& c) { return c.what == what; });
  if (it == all.end()) throw std::runtime_error("no comparison of " + what);
  return *it;
}

TEST(CounterModel, NothingToCompareWithoutCounters) {
  EXPECT_TRUE(compareWithModel(runOf("naive", {64, 64, 64})).empty());
}

// Row-per-thread: a warp's A loads touch 32 rows (32 sectors), its B loads one element (1 sector).
TEST(CounterModel, RowPerThreadLoadsAverageTheUncoalescedAAndTheBroadcastB) {
  RunResult r = runOf("row-per-thread", {64, 64, 64});
  r.counters = asModelled(r);
  const auto all = compareWithModel(r);
  const CounterComparison loads = find(all, "global loads");
  EXPECT_DOUBLE_EQ(loads.model, (32.0 + 1.0) / 2.0);
  EXPECT_DOUBLE_EQ(loads.measured, loads.model);
  EXPECT_TRUE(loads.agrees);
  EXPECT_TRUE(loads.why.empty());
  for (const CounterComparison& c : all) EXPECT_TRUE(c.agrees) << c.what;
}

TEST(CounterModel, SectorsPerRequestBeyondTheMarginDisagreeAndSayWhy) {
  RunResult r = runOf("naive", {128, 128, 128});
  HardwareCounters hw = asModelled(r);
  hw.globalLoadSectors *= 1 + 2 * kCounterMargin;
  r.counters = hw;
  const CounterComparison loads = find(compareWithModel(r), "global loads");
  EXPECT_FALSE(loads.agrees);
  EXPECT_NE(loads.why.find("more sectors per load than the model"), std::string::npos);
  hw.globalLoadSectors = asModelled(r).globalLoadSectors * (1 + kCounterMargin / 2);
  r.counters = hw;
  EXPECT_TRUE(find(compareWithModel(r), "global loads").agrees);
}

// No cache in the model: DRAM traffic anywhere from the compulsory bytes up to the model's agrees,
// and below the model the app says the L2 served the rest.
TEST(CounterModel, DramTrafficBetweenCompulsoryAndTheModelAgreesAndNamesTheCache) {
  RunResult r = runOf("naive", {256, 256, 256});
  const double compulsory = double(problemBytes(r.shape, r.element));
  HardwareCounters hw = asModelled(r);
  const double model = hw.dramReadBytes + hw.dramWriteBytes;
  ASSERT_GT(model, 4 * compulsory);
  hw.dramReadBytes = 1.5 * compulsory;
  hw.dramWriteBytes = 0;
  r.counters = hw;
  const auto all = compareWithModel(r);
  const CounterComparison dram = find(all, "DRAM traffic");
  EXPECT_DOUBLE_EQ(dram.model, model / 1e6);
  EXPECT_DOUBLE_EQ(dram.measured, 1.5 * compulsory / 1e6);
  EXPECT_TRUE(dram.agrees);
  EXPECT_NE(dram.why.find("L2 cache served most re-reads"), std::string::npos);
  const CounterComparison intensity = find(all, "arithmetic intensity");
  EXPECT_DOUBLE_EQ(intensity.measured, r.shape.flops() / (1.5 * compulsory));
  EXPECT_FALSE(intensity.agrees);
  EXPECT_NE(intensity.why.find("further right on the roofline"), std::string::npos);

  hw.dramReadBytes = 1.5 * model;
  r.counters = hw;
  const CounterComparison above = find(compareWithModel(r), "DRAM traffic");
  EXPECT_FALSE(above.agrees);
  EXPECT_NE(above.why.find("no-reuse bound"), std::string::npos);
}

// Shared-tiled: the model's wavefronts per shared read and its conflicts, against the banks'.
TEST(CounterModel, SharedReadsAndBankConflictsAgainstTheModel) {
  RunResult r = runOf("shared-tiled", {64, 64, 64}, {{"tile", 16}});
  const Mapping mapping(r.kernel, r.shape);
  double reads = 0, wavefronts = 0;
  for (Operand operand : {Operand::A, Operand::B}) {
    const auto totals = sharedReadTotals(mapping, operand);
    ASSERT_TRUE(totals);
    reads += double(totals->reads);
    wavefronts += double(totals->wavefronts);
  }
  const double perLaunch = double(mapping.blockCount() * mapping.kSteps());
  HardwareCounters hw = asModelled(r);
  hw.sharedLoadRequests = reads * perLaunch;
  hw.sharedLoadWavefronts = wavefronts * perLaunch;
  r.counters = hw;
  const auto all = compareWithModel(r);
  const CounterComparison shared = find(all, "shared-memory loads");
  EXPECT_DOUBLE_EQ(shared.model, wavefronts / reads);
  EXPECT_TRUE(shared.agrees);
  const CounterComparison bank = find(all, "bank conflicts");
  EXPECT_TRUE(bank.agrees) << bank.model << " " << bank.measured;

  hw.sharedBankConflicts = hw.sharedLoadRequests;  // one extra pass for every read
  r.counters = hw;
  const CounterComparison conflicted = find(compareWithModel(r), "bank conflicts");
  EXPECT_FALSE(conflicted.agrees);
  EXPECT_NE(conflicted.why.find("more conflicts than the model"), std::string::npos);
}

TEST(CounterModel, ThePartingSummaryNamesOnlyWhatDisagrees) {
  RunResult r = runOf("naive", {128, 128, 128});
  EXPECT_EQ(partingSummary(r), "");
  HardwareCounters hw = asModelled(r);
  r.counters = hw;
  EXPECT_EQ(partingSummary(r), "");
  hw.globalLoadSectors *= 2;
  r.counters = hw;
  EXPECT_EQ(partingSummary(r), "global loads: counted 4, the model 2 sectors per request (" +
                                   find(compareWithModel(r), "global loads").why + ")");
}

TEST(CounterModel, TheLibraryIsSetAgainstTheCompulsoryTrafficOnly) {
  RunResult r = runOf("library", {512, 512, 512});
  const double compulsory = double(problemBytes(r.shape, r.element));
  HardwareCounters hw;
  hw.dramReadBytes = compulsory;
  r.counters = hw;
  const auto all = compareWithModel(r);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].what, "DRAM traffic");
  EXPECT_TRUE(all[0].agrees);
}

TEST(CounterModel, AchievedOccupancyBelowTheTheoreticalSaysWhy) {
  RunResult r = runOf("naive", {64, 64, 64});
  r.resources = KernelResources{32, 0, 0, 256, 8, 1.0};
  HardwareCounters hw = asModelled(r);
  hw.achievedOccupancy = 0.6;
  r.counters = hw;
  const CounterComparison occupancy = find(compareWithModel(r), "occupancy");
  EXPECT_DOUBLE_EQ(occupancy.model, 100);
  EXPECT_DOUBLE_EQ(occupancy.measured, 60);
  EXPECT_FALSE(occupancy.agrees);
  EXPECT_NE(occupancy.why.find("last wave of blocks"), std::string::npos);
}

}  // namespace
}  // namespace tilescope
