// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --autotune KERNEL: every configuration the catalogue accepts and the backend can run, measured
// and verified; the landscape sorted by speed and the fastest verified one.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::plan {

struct AutotunePlan {
  std::vector<RunRequest> runs;
  // Configurations the backend refuses on this shape, each with its reason.
  std::vector<std::string> refused;
};

// Why a backend would refuse a run, or nullopt: Backend::refusal where the caller owns the
// backend (the CLI), the catalogue's checks where it does not (the app's GUI thread).
using RefusalFn = std::function<std::optional<std::string>(const RunRequest&)>;
RefusalFn catalogueRefusal(const std::string& backendId);

// The runs for `kernel` on `shape`: `base` with each valid configuration in catalogue order (a
// user kernel's source is base.kernel.source). Throws Error(InvalidArgument) for an unknown kernel
// or one of more configurations than a plan may hold (kMaxRuns, counted before any is made), and
// Error(Unsupported) when the backend can run none of its configurations.
AutotunePlan planAutotune(const std::string& kernel, const Shape& shape, const RunRequest& base,
                          const std::string& backendId, const RefusalFn& refusal);

// The results fastest first (by GFLOP/s; unverified runs keep their place by speed).
std::vector<RunResult> byThroughput(std::vector<RunResult> results);

// The fastest run that passed verification, or nullopt. With --no-verify nothing is verified
// and nothing can be trusted enough to remember.
std::optional<RunResult> fastestVerified(const std::vector<RunResult>& results);

}  // namespace tilescope::plan
