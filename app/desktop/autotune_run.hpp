// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One autotune in the app: the jobs of every configuration of the chosen kernel at the chosen
// size that the backend accepts, the results they bring back, and at the end the fastest
// verified one, remembered for the device in the tuned.json tilescope-bench uses.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "choices.hpp"
#include "tilescope/plan/tuned_store.hpp"

namespace tilescope::desktop {

// What autotuning remembered in `store` for the choices' backend, kernel, type and size on
// `device` (still valid in the catalogue), or nullopt; a store that cannot be read puts its reason
// in `problem`.
std::optional<plan::TunedEntry> rememberedTuning(const Choices& choices, const std::string& device,
                                                 const std::string& store, QString* problem);

// For a kernel comparison: the parameters autotuning remembered for each compared kernel on the
// choices' backend, `device`, type and size; a kernel never tuned there is left out (it runs at
// its defaults).
std::map<std::string, Params> tunedForComparison(const Choices& choices, const std::string& device,
                                                 const std::string& store);

class AutotuneRun {
 public:
  // Plans every valid configuration of the chosen kernel on the chosen shape and measuring
  // settings, less what the catalogue refuses there; with `userKernel`, every combination of its
  // TS_PARAM values instead (fp32). Throws tilescope::Error when nothing can run.
  AutotuneRun(const Choices& choices, std::string device,
              const std::optional<UserKernelSource>& userKernel = {});

  const std::vector<RunJob>& jobs() const { return jobs_; }
  // Configurations refused on this shape (the serial work bound), each with its reason.
  const std::vector<std::string>& refused() const { return refused_; }
  const std::string& device() const { return device_; }
  const std::string& kernel() const { return kernel_; }
  ElementType element() const { return element_; }

  // Keeps `result` when it is a run of this autotune's kernel in its type at its shape on its
  // backend and device (any device of the backend for "All GPUs"), until there is one per job;
  // true when kept.
  bool collect(const RunResult& result);
  const std::vector<RunResult>& results() const { return results_; }
  bool complete() const { return results_.size() == jobs_.size(); }

  // The fastest verified result so far, or nullopt.
  std::optional<RunResult> best() const;
  // Remembers best() in `store` for this backend, device, kernel and type and saves it; the entry
  // remembered, or nullopt (nothing saved) when no run verified. Throws tilescope::Error.
  std::optional<plan::TunedEntry> remember(plan::TunedStore& store) const;

 private:
  std::string backend_, device_, kernel_;
  Shape shape_;
  ElementType element_;
  std::vector<RunJob> jobs_;
  std::vector<std::string> refused_;
  std::vector<RunResult> results_;
};

}  // namespace tilescope::desktop
