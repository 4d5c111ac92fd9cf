// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything the user picks in the control panel, as one value: remembered in the settings file,
// stored in sessions, set from the command line, and turned into the runs it asks for.
#include <QStringList>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_job.hpp"
#include "tilescope/plan/sweep.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::desktop {

enum class SweepKind {
  Single,  // one run of the chosen configuration
  Tile,    // every listed tile of the chosen kernel (seed 004's tables)
  Size,    // the chosen configuration at every listed size
  Kernel,  // every listed kernel at the chosen size
};

struct Choices {
  std::string backend = "cpu";
  int device = 0;
  std::string kernel = "shared-tiled";
  Params params;  // of the chosen kernel; missing ones take their defaults
  Shape shape{512, 512, 512};
  ElementType element = ElementType::F32;  // of A and B
  bool square = true;                      // M, N and K move together
  std::optional<int> fixedReps;  // nullopt: repeat until the spread is small or the budget ends
  double budgetSeconds = 2.0;
  bool verify = true;
  bool counters = false;  // replay each kernel under the GPU's profiler for hardware counters
  SweepKind sweep = SweepKind::Single;
  std::string tiles;  // empty: every valid tile
  std::string sizes = "128,256,512,1024";
  std::vector<std::string> kernels = {"naive", "shared-a", "shared-tiled", "register-tiled",
                                      "library"};
  bool kernelsOverSizes = false;  // a kernel comparison at each of `sizes`, not at `shape`
  // "All GPUs": a sweep's and an autotune's runs are spread over every device of the backend,
  // one run per device at a time (RunJob::anyDevice); a single run stays on `device`.
  bool allDevices = false;
};

nlohmann::json toJson(const Choices& choices);
// Lenient: a missing or mistyped field keeps its default, so old settings never block a start.
Choices choicesFromJson(const nlohmann::json& json);
// Puts back the default of every choice that cannot be used (an unknown backend or kernel,
// refused parameters, a size, repetition count or budget out of range) and says which, one line
// each: "kernel: 'bogus' is not a known kernel; using 'shared-tiled'".
std::vector<std::string> repairChoices(Choices& choices);
// `choices` with the parameters autotune found, where its kernel and type are the entry's.
Choices withTuned(Choices choices, const plan::TunedEntry& entry);

// The type the chosen kernel runs in: the chosen one where the kernel multiplies it, else the
// kernel's default (its first type); the chosen one for an unknown kernel.
ElementType elementFor(const Choices& choices);
// The type a user kernel runs in: the chosen one where its TS_TYPES lists it, else its default.
ElementType userElementFor(const Choices& choices, const UserKernelSource& kernel);

// The single request the choices describe (before any sweep).
RunRequest baseRequest(const Choices& choices);
// The axes of the chosen sweep (none for a single run). Throws Error(InvalidArgument).
plan::Sweep sweepAxes(const Choices& choices);
// The jobs of `sweep` over the base request, on the chosen backend; `source` makes the chosen
// kernel a user kernel. Throws Error(InvalidArgument).
// A comparison runs each catalogue kernel at its own parameters: those in `kernelParams`
// (autotune's best), else its defaults, never the chosen kernel's.
std::vector<RunJob> planJobs(const Choices& choices, const plan::Sweep& sweep,
                             const std::optional<std::string>& source = {},
                             const std::map<std::string, Params>& kernelParams = {});
// The Kernel Editor's kernel at `params` (missing ones: its TS_PARAM defaults) with the chosen
// backend, device, shape, measurement and sweep: a tile sweep runs every value of its first
// parameter, a kernel sweep runs it before the chosen kernels, fp32 always. Throws
// Error(InvalidArgument).
// Why `backends` cannot run `jobs` (all on one backend): unknown or unavailable, a type it
// multiplies with no kernel, a kernel it does not implement, a size past its work limit; nullopt
// when they can run.
std::optional<QString> backendRefusal(const std::vector<BackendSummary>& backends,
                                      const std::vector<RunJob>& jobs);
std::vector<RunJob> planUserJobs(const Choices& choices, const UserKernelSource& kernel,
                                 const Params& params = {});
// Makes `choices` runnable on `backends` as they are now, and says each change in a sentence:
// an unknown or unavailable backend becomes the first available one (device 0), a kernel that
// backend does not implement becomes the library kernel, and a type it does not multiply becomes
// one the kernel and the backend both do. A run server still connecting, or not started (it
// starts when chosen), is left as chosen.
QStringList readyChoices(Choices& choices, const std::vector<BackendSummary>& backends);

}  // namespace tilescope::desktop
