#include "choices.hpp"

#include "tilescope/catalogue.hpp"

namespace tilescope::app {
namespace {

constexpr const char* kSweepNames[] = {"single", "tile", "size", "kernel"};

// Reads `key` into `value` when present with a compatible type; otherwise leaves the default.
template <typename T>
void readField(const nlohmann::json& json, const char* key, T& value) {
  const auto found = json.find(key);
  if (found == json.end()) return;
  try {
    value = found->get<T>();
  } catch (const nlohmann::json::exception&) {
    // A field of the wrong type keeps its default (see choicesFromJson).
  }
}

}  // namespace

nlohmann::json toJson(const Choices& choices) {
  nlohmann::json json = {
      {"backend", choices.backend}, {"device", choices.device},
      {"kernel", choices.kernel},   {"params", choices.params},
      {"m", choices.shape.m},       {"n", choices.shape.n},
      {"k", choices.shape.k},       {"element", toString(choices.element)},
      {"square", choices.square},   {"budget_s", choices.budgetSeconds},
      {"verify", choices.verify},   {"sweep", kSweepNames[int(choices.sweep)]},
      {"tiles", choices.tiles},     {"sizes", choices.sizes},
      {"kernels", choices.kernels},
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
  readField(json, "tiles", choices.tiles);
  readField(json, "sizes", choices.sizes);
  readField(json, "kernels", choices.kernels);
  if (const auto reps = json.find("reps"); reps != json.end() && reps->is_number_integer()) {
    choices.fixedReps = reps->get<int>();
  }
  std::string sweep;
  readField(json, "sweep", sweep);
  for (int kind = 0; kind < int(std::size(kSweepNames)); ++kind) {
    if (sweep == kSweepNames[kind]) choices.sweep = SweepKind(kind);
  }
  return choices;
}

ElementType elementFor(const Choices& choices) {
  const KernelInfo* info = findKernel(choices.kernel);
  if (!info || !elementRefusal(*info, choices.element)) return choices.element;
  return info->types.front();
}

RunRequest baseRequest(const Choices& choices) {
  RunRequest request;
  request.kernel = {choices.kernel, choices.params};
  request.shape = choices.shape;
  request.element = choices.element;
  request.device = choices.device;
  request.verify = choices.verify;
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
      return plan::Sweep({{"kernel", choices.kernels}});
  }
  return {};
}

std::vector<RunJob> planJobs(const Choices& choices, const plan::Sweep& sweep) {
  const RunRequest base = baseRequest(choices);
  const plan::Start start{base, {base.shape.m, base.shape.n, base.shape.k}, choices.backend, {}};
  std::vector<RunJob> jobs;
  for (const RunRequest& request : plan::planRuns(sweep, start)) {
    jobs.push_back({choices.backend, request});
  }
  return jobs;
}

}  // namespace tilescope::app
