// SPDX-License-Identifier: GPL-3.0-or-later
// Runs spread over several devices: every run once, one at a time per device, outcomes in the
// order asked, failures and cancels as a sequential sweep has them.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "tilescope/error.hpp"
#include "tilescope/plan/spread.hpp"

namespace tilescope::plan {
namespace {

// A device that takes a few milliseconds per run, fails the runs asked to, and counts how many
// runs it had at once.
class FakeDevice final : public Backend {
 public:
  explicit FakeDevice(std::set<std::int64_t> failingSizes = {})
      : failing_(std::move(failingSizes)) {}
  std::string id() const override { return "fake"; }
  std::optional<std::string> unavailableReason() const override { return std::nullopt; }
  std::vector<DeviceInfo> devices() const override {
    return {{0, "fake 0", {}}, {1, "fake 1", {}}};
  }
  RunResult run(const RunRequest& request, const ProgressFn& progress,
                const std::atomic<bool>* cancel) override {
    const int now = ++running_;
    most_ = std::max(most_.load(), now);
    if (progress) progress(0.5, "timing");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    --running_;
    if (cancel && cancel->load()) throw Error(ErrorKind::Cancelled, "cancelled");
    if (failing_.count(request.shape.m)) throw Error(ErrorKind::InvalidArgument, "refused");
    RunResult result;
    result.shape = request.shape;
    result.backend = "fake on " + std::to_string(request.device);
    ++runs_;
    return result;
  }
  DeviceCeilings measureCeilings(int, const ProgressFn&, const std::atomic<bool>*) override {
    return {};
  }
  int most() const { return most_; }
  int runs() const { return runs_; }

 protected:
  std::optional<std::string> capabilityRefusal(const KernelConfig&, const Shape&,
                                               ElementType) const override {
    return std::nullopt;
  }

 private:
  std::set<std::int64_t> failing_;
  std::atomic<int> running_{0}, most_{0}, runs_{0};
};

std::vector<RunRequest> sizes(int count) {
  std::vector<RunRequest> runs(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) runs[std::size_t(i)].shape = {i + 1, 1, 1};
  return runs;
}

TEST(RunSpread, EveryRunOnceInTheOrderAskedOneAtATimePerDevice) {
  FakeDevice first, second;
  const std::vector<RunOutcome> outcomes =
      runSpread({&first, &second}, {0, 1}, sizes(40), true, {}, nullptr);
  ASSERT_EQ(outcomes.size(), 40u);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    ASSERT_TRUE(outcomes[i].result) << i;
    EXPECT_EQ(outcomes[i].result->shape.m, std::int64_t(i) + 1);
    EXPECT_EQ(outcomes[i].result->backend, "fake on " + std::to_string(outcomes[i].device));
  }
  EXPECT_EQ(first.runs() + second.runs(), 40);
  EXPECT_GT(first.runs(), 0);
  EXPECT_GT(second.runs(), 0);
  EXPECT_EQ(first.most(), 1);
  EXPECT_EQ(second.most(), 1);
}

TEST(RunSpread, AFailureStopsNewRunsUnlessKeepGoing) {
  FakeDevice first({3}), second({3});
  std::vector<RunOutcome> outcomes =
      runSpread({&first, &second}, {0, 1}, sizes(20), false, {}, nullptr);
  ASSERT_TRUE(outcomes[2].failure);
  EXPECT_EQ(*outcomes[2].failure, "refused");
  // The runs after it that had not started never ran.
  EXPECT_FALSE(outcomes.back().ran());
  outcomes = runSpread({&first, &second}, {0, 1}, sizes(20), true, {}, nullptr);
  EXPECT_TRUE(outcomes[2].failure);
  EXPECT_TRUE(std::all_of(outcomes.begin(), outcomes.end(), [](auto& o) { return o.ran(); }));
}

TEST(RunSpread, ACancelStopsEveryDevice) {
  FakeDevice first, second;
  std::atomic<bool> cancel{false};
  std::atomic<int> reported{0};
  const SpreadProgress progress = [&](std::size_t, int, double, const std::string& stage) {
    EXPECT_EQ(stage, "timing");
    if (++reported == 6) cancel = true;
  };
  const std::vector<RunOutcome> outcomes =
      runSpread({&first, &second}, {0, 1}, sizes(200), true, progress, &cancel);
  const auto ran = std::count_if(outcomes.begin(), outcomes.end(), [](auto& o) { return o.ran(); });
  EXPECT_GE(ran, 4);
  EXPECT_LE(ran, 8);
}

TEST(RunSpread, DevicesAreAllOrAList) {
  EXPECT_EQ(parseDevices("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parseDevices("1,0", 2), (std::vector<int>{1, 0}));
  EXPECT_THROW(parseDevices("2", 2), Error);
  EXPECT_THROW(parseDevices("0,0", 2), Error);
  EXPECT_THROW(parseDevices("0,", 2), Error);
  EXPECT_THROW(parseDevices("x", 2), Error);
}

}  // namespace
}  // namespace tilescope::plan
