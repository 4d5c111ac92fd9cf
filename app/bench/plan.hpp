// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Turns the command line's run options into the validated list of runs: one run, or the
// cartesian product of the --sweep axes (planned by tilescope_plan). Every problem is found
// here, before anything runs: the options' conflicts, then the backend's refusals.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::bench {

// The run options as typed; numbers stay text until here so errors can quote them.
struct PlanInput {
  std::optional<std::string> kernel;
  std::optional<std::string> tile;
  std::optional<std::string> params;  // "K=V,..."
  std::optional<std::string> size, m, n, k;
  std::vector<std::string> sweeps;  // each "KEY=V1,V2,..." or "KEY=all"
  RunRequest base;                  // device, fill, seed, sampling and verify for every run
  // Per kernel id, the parameters --autotune remembered for this device: a kernel whose
  // parameters the options leave alone (no --tile, --param or sweep of one of its own) runs
  // with these instead of the catalogue's defaults.
  std::map<std::string, Params> remembered;
};

struct Plan {
  std::vector<RunRequest> runs;
  std::vector<std::string> usedRemembered;  // kernel ids that run with remembered parameters
};

// The one problem size the options give (--size, or --m, --n and --k); throws
// tilescope::Error(InvalidArgument) naming what is missing or out of range.
Shape problemShape(const PlanInput& input);

// The runs in order: kernel outermost, then the --sweep axes in the order given (the first
// one outermost). Throws tilescope::Error naming the first problem found.
Plan buildPlan(const PlanInput& input, const Backend& backend);

}  // namespace tilescope::bench
