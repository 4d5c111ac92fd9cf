// SPDX-License-Identifier: GPL-3.0-or-later
#include "choices.hpp"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "tilescope/backend.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::desktop {
namespace {

constexpr const char* kSweepNames[] = {"single", "tile", "size", "kernel"};

// A number of type T, or nullopt: nlohmann's get<int>() of a fraction, or of a number past
// int's range, is undefined behaviour, so a settings file could crash the app.
template <typename T>
std::optional<T> numberOf(const nlohmann::json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value.is_boolean()) return value.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (value.is_number_unsigned()) {
      const auto number = value.get<std::uint64_t>();
      if (number <= std::uint64_t(std::numeric_limits<T>::max())) return T(number);
    } else if (value.is_number_integer()) {
      const auto number = value.get<std::int64_t>();
      if (number >= std::int64_t(std::numeric_limits<T>::min()) &&
          number <= std::int64_t(std::numeric_limits<T>::max()))
        return T(number);
    }
  } else if (value.is_number()) {
    return value.get<T>();
  }
  return std::nullopt;
}

// Reads `key` into `value` when present with a compatible type; otherwise leaves the default.
template <typename T>
void readField(const nlohmann::json& json, const char* key, T& value) {
  const auto found = json.find(key);
  if (found == json.end()) return;
  if constexpr (std::is_arithmetic_v<T>) {
    if (const auto number = numberOf<T>(*found)) value = *number;
  } else if constexpr (std::is_same_v<T, Params>) {
    // Every entry a whole number that fits an int, or none is taken.
    if (!found->is_object()) return;
    Params params;
    for (const auto& [name, entry] : found->items()) {
      const auto number = numberOf<int>(entry);
      if (!number) return;
      params[name] = *number;
    }
    value = std::move(params);
  } else {
    try {
      value = found->get<T>();
    } catch (const nlohmann::json::exception&) {
      // A field of the wrong type keeps its default (see choicesFromJson).
    }
  }
}

}  // namespace

nlohmann::json toJson(const Choices& choices) {
  nlohmann::json json = {
      {"backend", choices.backend},
      {"device", choices.device},
      {"kernel", choices.kernel},
      {"params", choices.params},
      {"m", choices.shape.m},
      {"n", choices.shape.n},
      {"k", choices.shape.k},
      {"element", toString(choices.element)},
      {"square", choices.square},
      {"budget_s", choices.budgetSeconds},
      {"verify", choices.verify},
      {"sweep", kSweepNames[int(choices.sweep)]},
      {"tiles", choices.tiles},
      {"sizes", choices.sizes},
      {"kernels", choices.kernels},
      {"counters", choices.counters},
      {"kernels_over_sizes", choices.kernelsOverSizes},
      {"all_devices", choices.allDevices},
  };
  json["reps"] = choices.fixedReps ? nlohmann::json(*choices.fixedReps) : nlohmann::json(nullptr);
  return json;
}

Choices choicesFromJson(const nlohmann::json& json) {
  Choices choices;
  if (!json.is_object()) return choices;
  readField(json, "backend", choices.backend);
  readField(json, "device", choices.device);
  readField(json, "kernel", choices.kernel);
  readField(json, "params", choices.params);
  readField(json, "m", choices.shape.m);
  readField(json, "n", choices.shape.n);
  readField(json, "k", choices.shape.k);
  std::string element;
  readField(json, "element", element);
  if (const auto type = parseElementType(element)) choices.element = *type;
  readField(json, "square", choices.square);
  readField(json, "budget_s", choices.budgetSeconds);
  readField(json, "verify", choices.verify);
  readField(json, "counters", choices.counters);
  readField(json, "tiles", choices.tiles);
  readField(json, "sizes", choices.sizes);
  readField(json, "kernels", choices.kernels);
  readField(json, "kernels_over_sizes", choices.kernelsOverSizes);
  readField(json, "all_devices", choices.allDevices);
  if (const auto reps = json.find("reps"); reps != json.end())
    choices.fixedReps = numberOf<int>(*reps);
  std::string sweep;
  readField(json, "sweep", sweep);
  for (int kind = 0; kind < int(std::size(kSweepNames)); ++kind) {
    if (sweep == kSweepNames[kind]) choices.sweep = SweepKind(kind);
  }
  return choices;
}

Choices withTuned(Choices choices, const plan::TunedEntry& entry) {
  if (choices.kernel == entry.kernel && choices.element == entry.element)
    choices.params = entry.params;
  return choices;
}

std::vector<std::string> repairChoices(Choices& choices) {
  const Choices defaults;
  std::vector<std::string> repaired;
  const auto note = [&](const std::string& key, const std::string& problem,
                        const std::string& used) {
    repaired.push_back(key + ": " + problem + "; using " + used);
  };
  const std::vector<std::string> backends = backendIds();
  if (std::find(backends.begin(), backends.end(), choices.backend) == backends.end()) {
    note("backend", quoteValue(choices.backend) + " is not a backend (cpu or cuda)",
         quoteValue(defaults.backend));
    choices.backend = defaults.backend;
  }
  if (choices.device < 0) {
    note("device", std::to_string(choices.device) + " is not a device index", "0");
    choices.device = defaults.device;
  }
  if (!findKernel(choices.kernel)) {
    note("kernel", quoteValue(choices.kernel) + " is not a known kernel",
         quoteValue(defaults.kernel));
    choices.kernel = defaults.kernel;
    choices.params = defaults.params;
  }
  if (const auto why = refusal({choices.kernel, choices.params})) {
    note("params", *why, "the kernel's defaults");
    choices.params.clear();
  }
  try {
    validateShape(choices.shape);
  } catch (const Error& error) {
    note("m, n, k", error.what(), "512 x 512 x 512");
    choices.shape = defaults.shape;
    choices.square = true;
  }
  if (choices.fixedReps && (*choices.fixedReps < 1 || *choices.fixedReps > kMaxFixedReps)) {
    note("reps", std::to_string(*choices.fixedReps) + " is not 1.." + std::to_string(kMaxFixedReps),
         "repetitions until the spread is small");
    choices.fixedReps.reset();
  }
  if (!std::isfinite(choices.budgetSeconds) || choices.budgetSeconds <= 0) {
    note("budget_s", "it is not a finite number above 0", "2 seconds");
    choices.budgetSeconds = defaults.budgetSeconds;
  }
  const auto unknown = [](const std::string& id) { return findKernel(id) == nullptr; };
  if (std::any_of(choices.kernels.begin(), choices.kernels.end(), unknown)) {
    note("kernels", "some are not known kernels", "the known ones");
    std::erase_if(choices.kernels, unknown);
  }
  return repaired;
}

namespace {

// The chosen type where a kernel multiplies it, else the kernel's default (its first type).
ElementType chosenOrDefault(const std::vector<ElementType>& types, ElementType chosen) {
  return std::find(types.begin(), types.end(), chosen) != types.end() ? chosen : types.front();
}

}  // namespace

ElementType elementFor(const Choices& choices) {
  const KernelInfo* info = findKernel(choices.kernel);
  return info ? chosenOrDefault(info->types, choices.element) : choices.element;
}

ElementType userElementFor(const Choices& choices, const UserKernelSource& kernel) {
  return chosenOrDefault(declaredTypes(kernel.source), choices.element);
}

RunRequest baseRequest(const Choices& choices) {
  RunRequest request;
  request.kernel = {choices.kernel, choices.params};
  request.shape = choices.shape;
  request.element = choices.element;
  request.device = choices.device;
  request.verify = choices.verify;
  request.collectCounters = choices.counters;
  request.sampling.budgetMs = choices.budgetSeconds * 1000.0;
  request.sampling.fixedReps = choices.fixedReps;
  return request;
}

plan::Sweep sweepAxes(const Choices& choices) {
  switch (choices.sweep) {
    case SweepKind::Single:
      return {};
    case SweepKind::Tile:
      return plan::Sweep::parse({"tile=" + (choices.tiles.empty() ? "all" : choices.tiles)});
    case SweepKind::Size:
      return plan::Sweep::parse({"size=" + choices.sizes});
    case SweepKind::Kernel:
      if (choices.kernels.empty()) {
        throw Error(ErrorKind::InvalidArgument, "pick at least one kernel to compare");
      }
      if (!choices.kernelsOverSizes) return plan::Sweep({{"kernel", choices.kernels}});
      return plan::Sweep({{"kernel", choices.kernels},
                          plan::Sweep::parse({"size=" + choices.sizes}).axes().front()});
  }
  return {};
}

std::vector<RunJob> planJobs(const Choices& choices, const plan::Sweep& sweep,
                             const std::optional<std::string>& source,
                             const std::map<std::string, Params>& kernelParams) {
  RunRequest base = baseRequest(choices);
  base.kernel.source = source;
  plan::Start start{
      base, {base.shape.m, base.shape.n, base.shape.k}, choices.backend, kernelParams};
  if (const plan::SweepAxis* kernels = sweep.find("kernel")) {
    const auto ownDefaults = [&](const std::string& id) {
      if (!isUserKernelId(id)) start.kernelParams.try_emplace(id);
    };
    if (kernels->all())
      for (const KernelInfo& info : catalogue()) ownDefaults(info.id);
    else
      for (const std::string& id : kernels->values) ownDefaults(id);
  }
  std::vector<RunJob> jobs;
  const bool spread = choices.allDevices && !sweep.axes().empty();
  for (const RunRequest& request : plan::planRuns(sweep, start)) {
    RunJob job{choices.backend, request};
    job.anyDevice = spread;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<RunJob> planUserJobs(const Choices& choices, const UserKernelSource& kernel,
                                 const Params& params) {
  Choices mine = choices;
  mine.kernel = userKernelId(kernel.name);
  mine.params = params;
  mine.element = userElementFor(choices, kernel);
  const KernelInfo& info = kernelInfo(KernelConfig{mine.kernel, {}, kernel.source});
  plan::Sweep sweep;
  switch (choices.sweep) {
    case SweepKind::Single:
      break;
    case SweepKind::Size:
      sweep = sweepAxes(mine);
      break;
    case SweepKind::Tile:
      if (!info.params.empty()) {
        mine.params.erase(info.params.front().name);
        sweep = plan::Sweep({{info.params.front().name, {"all"}}});
      }
      break;
    case SweepKind::Kernel: {
      std::vector<std::string> kernels = {mine.kernel};
      kernels.insert(kernels.end(), choices.kernels.begin(), choices.kernels.end());
      sweep = plan::Sweep({{"kernel", kernels}});
      break;
    }
  }
  return planJobs(mine, sweep, kernel.source);
}

QStringList readyChoices(Choices& choices, const std::vector<BackendSummary>& backends) {
  const auto text = [](const std::string& value) { return QString::fromStdString(value); };
  const auto byId = [&](const std::string& id) {
    const auto found = std::find_if(backends.begin(), backends.end(),
                                    [&](const BackendSummary& s) { return s.id == id; });
    return found == backends.end() ? nullptr : &*found;
  };
  QStringList changes;
  const BackendSummary* backend = byId(choices.backend);
  if (backend && (backend->connecting || backend->dormant)) return changes;
  if (!backend || !backend->available()) {
    const auto usable = std::find_if(backends.begin(), backends.end(),
                                     [](const BackendSummary& s) { return s.available(); });
    if (usable == backends.end()) return changes;
    changes << (backend ? QObject::tr("the %1 backend is unavailable (%2): using %3")
                              .arg(text(choices.backend), text(*backend->unavailableReason),
                                   text(usable->id))
                        : QObject::tr("there is no %1 backend: using %2")
                              .arg(text(choices.backend), text(usable->id)));
    choices.backend = usable->id;
    choices.device = 0;
    backend = &*usable;
  }
  const KernelInfo* kernel = findKernel(choices.kernel);
  if (kernel && !implements(*kernel, backend->id)) {
    const KernelInfo& library = kernelInfo("library");
    changes << QObject::tr("%1 does not run on %2: using %3")
                   .arg(text(kernel->id), text(backend->id), text(library.id));
    choices.kernel = library.id;
    choices.params.clear();
    kernel = &library;
  }
  if (!kernel || !backend->elementRefusal(elementFor(choices))) return changes;
  const auto runs = std::find_if(kernel->types.begin(), kernel->types.end(),
                                 [&](ElementType t) { return !backend->elementRefusal(t); });
  if (runs == kernel->types.end()) return changes;
  changes << QObject::tr("%1 does not multiply %2: using %3")
                 .arg(text(backend->id), QLatin1String(toString(elementFor(choices))),
                      QLatin1String(toString(*runs)));
  choices.element = *runs;
  return changes;
}

std::optional<QString> backendRefusal(const std::vector<BackendSummary>& backends,
                                      const std::vector<RunJob>& jobs) {
  const auto text = [](const std::string& value) { return QString::fromStdString(value); };
  if (jobs.empty()) return QObject::tr("Nothing to run");
  const std::string& id = jobs.front().backend;
  const auto summary = std::find_if(backends.begin(), backends.end(),
                                    [&](const BackendSummary& s) { return s.id == id; });
  if (summary == backends.end()) return QObject::tr("Unknown backend %1").arg(text(id));
  if (!summary->available()) {
    return QObject::tr("The %1 backend is unavailable: %2")
        .arg(text(id), text(*summary->unavailableReason));
  }
  for (const RunJob& job : jobs) {
    if (const auto why = summary->elementRefusal(job.request.element)) return text(*why);
    const KernelInfo& info = kernelInfo(job.request.kernel.kernel);
    if (!implements(info, id)) {
      return QObject::tr("%1 is not implemented on the %2 backend")
          .arg(text(info.displayName), text(id));
    }
    if (const auto why = workLimitRefusal(info, id, job.request.shape)) return text(*why);
  }
  return std::nullopt;
}

}  // namespace tilescope::desktop
