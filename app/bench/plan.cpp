// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan.hpp"

#include "tilescope/error.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::bench {

namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

// --size, --m, --n and --k as given (a sweep may set the rest).
plan::Dimensions fixedDimensions(const PlanInput& input) {
  plan::Dimensions dims;
  if (input.size) dims.m = dims.n = dims.k = plan::parseDimension(*input.size, "--size");
  if (input.m) dims.m = plan::parseDimension(*input.m, "--m");
  if (input.n) dims.n = plan::parseDimension(*input.n, "--n");
  if (input.k) dims.k = plan::parseDimension(*input.k, "--k");
  return dims;
}

// Fixed options and sweeps must not both set the same thing.
void refuseConflicts(const PlanInput& input, const plan::Sweep& sweep) {
  const auto swept = [&](const std::string& key) { return sweep.find(key) != nullptr; };
  if (input.kernel && swept("kernel"))
    refuse("--kernel conflicts with --sweep kernel: give one of them");
  if (input.tile && swept("tile")) refuse("--tile conflicts with --sweep tile: give one of them");
  if (input.size && (swept("size") || swept("m") || swept("n") || swept("k")))
    refuse("--size conflicts with a size sweep: give one of them");
  const std::pair<const char*, const std::optional<std::string>*> fixedDims[] = {
      {"m", &input.m}, {"n", &input.n}, {"k", &input.k}};
  for (const auto& [key, value] : fixedDims) {
    if (*value && (swept(key) || swept("size")))
      refuse(std::string("--") + key + " conflicts with --sweep " + (swept(key) ? key : "size") +
             ": give one of them");
  }
}

}  // namespace

Shape problemShape(const PlanInput& input) {
  return plan::completeShape(fixedDimensions(input));
}

Plan buildPlan(const PlanInput& input, const Backend& backend) {
  const plan::Sweep sweep = plan::Sweep::parse(input.sweeps);
  refuseConflicts(input, sweep);

  Params given;  // --param and --tile
  if (input.params) {
    given = plan::parseParamsOption(*input.params, "--param");
    for (const auto& [name, value] : given)
      if (sweep.find(name)) refuse("--param " + name + " conflicts with --sweep " + name);
  }
  if (input.tile) given["tile"] = plan::parseParameterValue(*input.tile, "--tile");

  plan::Start start{input.base, fixedDimensions(input), backend.id(), {}};
  if (!input.kernel && !sweep.find("kernel"))
    refuse("no kernel: give --kernel ID or --sweep kernel=ID,... (see --list)");
  start.base.kernel = {input.kernel.value_or(input.base.kernel.kernel), given,
                       input.base.kernel.source};

  Plan result;
  for (const KernelInfo* kernel :
       plan::plannedKernels(sweep, start.base.kernel, start.backend, start.base.element)) {
    if (input.tile && !kernel->param("tile")) {
      refuse("--tile: kernel '" + kernel->id + "' has no tile parameter" +
             (kernel->params.empty() ? " (it takes no parameters)" : " (use --param)"));
    }
    // The planner keeps only the parameters each kernel has; an option that names one a kernel
    // lacks is a mistake to report.
    for (const auto& [name, value] : given)
      if (!kernel->param(name)) refuse(*refusal({kernel->id, {{name, value}}}));
    const auto remembered = input.remembered.find(kernel->id);
    if (!input.tile && !input.params && !sweep.sweepsParameterOf(*kernel) &&
        remembered != input.remembered.end()) {
      start.kernelParams.insert(*remembered);
      result.usedRemembered.push_back(kernel->id);
    }
  }
  result.runs = plan::planRuns(sweep, start);

  for (const RunRequest& run : result.runs) {
    if (const auto why = backend.refusal(run)) {
      const bool overBound =
          workLimitRefusal(kernelInfo(run.kernel), backend.id(), run.shape).has_value();
      throw Error(ErrorKind::Unsupported, "cannot run " + plan::describe(run) + " on " +
                                              backend.id() + ": " + *why +
                                              (overBound ? " (--allow-long-runs)" : ""));
    }
  }
  return result;
}

}  // namespace tilescope::bench
