// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Sweep planning for both front ends (tilescope-bench and the Qt app), without Qt or a backend:
// the --sweep axes (KEY=V1,V2,... or KEY=all), checked against the catalogue, expanded as a
// cartesian product into resolved run requests. Every problem is found before anything runs.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/backend.hpp"

namespace tilescope::plan {

// "shared-tiled tile=16 512x512x512": a run in one phrase, for progress and messages.
std::string describe(const RunRequest& run);

// Numbers as both front ends (and the run server) read them: parsed once, whole, range-checked,
// never truncated. Each throws tilescope::Error(InvalidArgument) with a message that names `what`
// and quotes the text.
std::int64_t parseInteger(const std::string& text, const std::string& what);
// A whole number in minimum..maximum.
std::int64_t parseIntegerIn(const std::string& text, const std::string& what, std::int64_t minimum,
                            std::int64_t maximum);
// A matrix dimension, 1..kMaxDimension.
std::int64_t parseDimension(const std::string& text, const std::string& what);
// A kernel parameter value (any int: the catalogue says which values a kernel allows).
int parseParameterValue(const std::string& text, const std::string& what);
// The parameters of --param K=V,...: at least one, each whole (see parseParams).
Params parseParamsOption(const std::string& text, const std::string& what);
// A finite number above 0 (no "inf", no "nan").
double parsePositiveNumber(const std::string& text, const std::string& what);

// The problem size as far as it is known; a sweep may set the rest.
struct Dimensions {
  std::optional<std::int64_t> m, n, k;
};

// The shape when every dimension is known; otherwise throws Error(InvalidArgument) naming the
// missing options.
Shape completeShape(const Dimensions& dims);

// One axis of a sweep: KEY=V1,V2,... or KEY=all.
struct SweepAxis {
  // "kernel", "size" (a value is S for M = N = K, or MxNxK), "m", "n", "k", or the name of a
  // kernel parameter such as "tile".
  std::string key;
  std::vector<std::string> values;  // as typed
  // Every kernel (the backend's), or every value each kernel allows for the parameter.
  bool all() const { return values == std::vector<std::string>{"all"}; }
};

// The axes of one sweep, each checked: a known key, values that parse, 'all' only alone and not
// for sizes, no key twice, size not with m, n or k, kernels that exist.
class Sweep {
 public:
  Sweep() = default;
  // Throws Error(InvalidArgument) naming the first problem.
  explicit Sweep(std::vector<SweepAxis> axes);
  // Each text as "KEY=V1,V2,..." or "KEY=all"; throws as the constructor does.
  static Sweep parse(const std::vector<std::string>& texts);

  const std::vector<SweepAxis>& axes() const { return axes_; }  // in the order given
  const SweepAxis* find(const std::string& key) const;
  // Whether an axis sweeps one of `kernel`'s parameters.
  bool sweepsParameterOf(const KernelInfo& kernel) const;

 private:
  std::vector<SweepAxis> axes_;
};

// What every run of a plan starts from.
struct Start {
  // The settings of every run (device, fill, seed, sampling, verify); without a kernel axis its
  // kernel is the one to run. Its parameters carry over to each kernel that has them, so a tile
  // chosen for one kernel does not break another. Its shape is not used: `dims` is.
  RunRequest base;
  Dimensions dims;
  std::string backend;  // kernel=all runs the kernels this backend implements
  // Per kernel id, parameters to start from instead of those carried over from `base`.
  std::map<std::string, Params> kernelParams;
};

// The kernels a plan runs, in order: the kernel axis's (kernel=all: the catalogue's that
// `backend` implements and that multiply `element`), else `base`'s alone; a user kernel is
// known by `base`'s source. Throws Error(InvalidArgument) for an unknown id or a kernel that does
// not multiply `element`.
std::vector<const KernelInfo*> plannedKernels(const Sweep& sweep, const KernelConfig& base,
                                              const std::string& backend,
                                              ElementType element = ElementType::F32);

// The most runs one plan may hold: a larger sweep is refused, with its count, before any run is
// built.
inline constexpr std::uint64_t kMaxRuns = 100000;

// Every run, resolved: the kernel outermost, then the other axes in the order given (the first
// outermost). A parameter axis runs a kernel without that parameter once, at its only
// configuration; listed values of a parameter that no planned kernel has are refused. Throws
// Error(InvalidArgument) for a refused configuration, a missing size or more than kMaxRuns runs.
std::vector<RunRequest> planRuns(const Sweep& sweep, const Start& start);

}  // namespace tilescope::plan
