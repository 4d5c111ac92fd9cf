// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/plan/autotune.hpp"

#include <algorithm>
#include <limits>

#include "tilescope/error.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::plan {

RefusalFn catalogueRefusal(const std::string& backendId) {
  return [backendId](const RunRequest& run) -> std::optional<std::string> {
    if (auto why = refusal(run.kernel)) return why;
    if (auto why = elementRefusal(kernelInfo(run.kernel), run.element)) return why;
    if (run.allowLongRuns) return std::nullopt;
    return workLimitRefusal(kernelInfo(run.kernel), backendId, run.shape);
  };
}

AutotunePlan planAutotune(const std::string& kernel, const Shape& shape, const RunRequest& base,
                          const std::string& backendId, const RefusalFn& refusal) {
  const std::optional<std::string>& source = base.kernel.source;
  const KernelInfo& info = kernelInfo(KernelConfig{kernel, {}, source});
  // Counted before anything is enumerated: 40 two-valued parameters are 2^40 configurations.
  if (const std::uint64_t count = configurationCount(info); count > kMaxRuns)
    throw Error(ErrorKind::InvalidArgument,
                "--autotune " + kernel + ": the kernel has " +
                    (count == std::numeric_limits<std::uint64_t>::max()
                         ? "more than " + std::to_string(count)
                         : std::to_string(count)) +
                    " configurations (the product of its parameters' allowed values), more than "
                    "the " +
                    std::to_string(kMaxRuns) +
                    " one autotune may run; allow fewer values, or sweep some parameters");
  AutotunePlan plan;
  for (const KernelConfig& config : validConfigurations(info, source)) {
    RunRequest run = base;
    run.kernel = config;
    run.shape = shape;
    if (const auto why = refusal(run))
      plan.refused.push_back(describe(run) + ": " + *why);
    else
      plan.runs.push_back(std::move(run));
  }
  if (plan.runs.empty()) {
    throw Error(ErrorKind::Unsupported,
                "--autotune " + kernel + ": the " + backendId +
                    " backend runs none of its configurations on this shape" +
                    (plan.refused.empty() ? "" : " (" + plan.refused.front() + ")"));
  }
  return plan;
}

std::vector<RunResult> byThroughput(std::vector<RunResult> results) {
  std::stable_sort(results.begin(), results.end(),
                   [](const RunResult& a, const RunResult& b) { return a.gflops > b.gflops; });
  return results;
}

std::optional<RunResult> fastestVerified(const std::vector<RunResult>& results) {
  std::optional<RunResult> best;
  for (const RunResult& r : results)
    if (r.verified() && (!best || r.gflops > best->gflops)) best = r;
  return best;
}

}  // namespace tilescope::plan
