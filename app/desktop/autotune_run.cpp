// SPDX-License-Identifier: GPL-3.0-or-later
#include "autotune_run.hpp"

#include "tilescope/plan/autotune.hpp"

namespace tilescope::desktop {

AutotuneRun::AutotuneRun(const Choices& choices, std::string device,
                         const std::optional<UserKernelSource>& userKernel)
    : backend_(choices.backend),
      device_(std::move(device)),
      kernel_(userKernel ? userKernelId(userKernel->name) : choices.kernel),
      shape_(choices.shape),
      element_(userKernel ? userElementFor(choices, *userKernel) : choices.element) {
  RunRequest base = baseRequest(choices);
  base.element = element_;
  if (userKernel) base.kernel = {kernel_, {}, userKernel->source};
  plan::AutotunePlan planned =
      plan::planAutotune(kernel_, shape_, base, backend_, plan::catalogueRefusal(backend_));
  for (RunRequest& run : planned.runs) {
    RunJob job{backend_, std::move(run)};
    job.anyDevice = choices.allDevices;
    jobs_.push_back(std::move(job));
  }
  refused_ = std::move(planned.refused);
}

bool AutotuneRun::collect(const RunResult& result) {
  // Spread over every device of the backend, a run may come from any of them.
  const bool spread = !jobs_.empty() && jobs_.front().anyDevice;
  const bool ours = !complete() && result.backend == backend_ &&
                    (spread || result.device == device_) && result.kernel.kernel == kernel_ &&
                    result.element == element_ && result.shape == shape_;
  if (ours) results_.push_back(result);
  return ours;
}

std::optional<RunResult> AutotuneRun::best() const {
  return plan::fastestVerified(results_);
}

std::optional<plan::TunedEntry> AutotuneRun::remember(plan::TunedStore& store) const {
  const std::optional<RunResult> fastest = best();
  if (!fastest) return std::nullopt;
  const plan::TunedEntry entry{backend_, device_,         kernel_, fastest->kernel.params,
                               shape_,   fastest->gflops, element_};
  store.remember(entry);
  store.save();
  return entry;
}

std::optional<plan::TunedEntry> rememberedTuning(const Choices& choices, const std::string& device,
                                                 const std::string& store, QString* problem) {
  if (device.empty()) return std::nullopt;
  try {
    std::optional<plan::TunedEntry> entry = plan::TunedStore(store).find(
        choices.backend, device, choices.kernel, choices.element, choices.shape);
    // Parameters remembered before the catalogue changed may no longer be valid.
    if (entry && refusal({entry->kernel, entry->params})) return std::nullopt;
    return entry;
  } catch (const Error& error) {
    if (problem) *problem = QString::fromStdString(error.what());
    return std::nullopt;
  }
}

std::map<std::string, Params> tunedForComparison(const Choices& choices, const std::string& device,
                                                 const std::string& store) {
  std::map<std::string, Params> tuned;
  for (const std::string& kernel : choices.kernels) {
    Choices one = choices;
    one.kernel = kernel;
    one.element = elementFor(one);
    if (const auto entry = rememberedTuning(one, device, store, nullptr))
      tuned[kernel] = entry->params;
  }
  return tuned;
}

}  // namespace tilescope::desktop
