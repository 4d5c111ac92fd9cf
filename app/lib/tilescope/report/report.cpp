// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/report/report.hpp"

#include <cmath>
#include <limits>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/quote.hpp"
#include "tilescope/report/report_shared.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::report {

namespace {

using nlohmann::json;

// JSON has no NaN or infinity; a non-finite measurement (an unwritten output) is stored as null.
json finiteOrNull(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

using io::Sign;

// The number of a field the writers store with finiteOrNull.
double measuredField(const json& object, const char* name, const std::string& path) {
  return io::numberField(object, name, path, Sign::NonNegative, /*nullable=*/true);
}

int intField(const json& object, const char* name, const std::string& path,
             const std::string& meaning, int minimum = 0) {
  return int(
      io::integerField(object, name, path, minimum, std::numeric_limits<int>::max(), meaning));
}

const json& objectField(const json& object, const char* name, const std::string& path) {
  return io::objectAt(io::requiredField(object, name, path), io::memberPath(path, name));
}

// Reads each entry of `list` with `read`; with `warnings`, an entry that fails is left out and
// described there, otherwise the first failure throws.
template <typename Read>
auto readEntries(const json& list, const std::string& path, std::vector<std::string>* warnings,
                 const char* entryName, Read read) {
  io::arrayAt(list, path);
  std::vector<decltype(read(list, path))> entries;
  for (std::size_t i = 0; i < list.size(); ++i) {
    try {
      entries.push_back(read(list[i], io::elementPath(path, i)));
    } catch (const Error& error) {
      if (!warnings) throw;
      warnings->push_back(std::string(error.what()) + "; that " + entryName + " is skipped");
    }
  }
  return entries;
}

json toJson(const Verification& v) {
  return {{"rel_error", finiteOrNull(v.relError)},
          {"normalized_error", finiteOrNull(v.normalizedError)},
          {"max_abs_error", finiteOrNull(v.maxAbsError)},
          {"non_finite", v.nonFinite},
          {"tolerance", v.tolerance},
          {"passed", v.passed}};
}

Verification verificationFromJson(const json& object, const std::string& path) {
  Verification v;
  v.relError = measuredField(object, "rel_error", path);
  v.normalizedError = measuredField(object, "normalized_error", path);
  v.maxAbsError = measuredField(object, "max_abs_error", path);
  v.nonFinite = io::integerField(object, "non_finite", path, 0,
                                 std::numeric_limits<std::int64_t>::max(), "count");
  v.tolerance = io::numberField(object, "tolerance", path, Sign::NonNegative);
  v.passed = io::booleanField(object, "passed", path);
  return v;
}

json toJson(const HardwareCounters& counters) {
  json out = json::object();
  for (const auto& [name, member] : kCounterFields) out[name] = counters.*member;
  out["tensor_pipe_utilisation"] =
      counters.tensorPipeUtilisation ? json(*counters.tensorPipeUtilisation) : json(nullptr);
  out["source"] = counters.source;
  return out;
}

HardwareCounters countersFromJson(const json& object, const std::string& path) {
  HardwareCounters counters;
  for (const auto& [name, member] : kCounterFields)
    counters.*member = io::numberField(object, name, path, Sign::NonNegative);
  if (io::optionalField(object, "tensor_pipe_utilisation"))
    counters.tensorPipeUtilisation =
        io::numberField(object, "tensor_pipe_utilisation", path, Sign::NonNegative);
  counters.source = io::stringField(object, "source", path);
  return counters;
}

json toJson(const Ceiling& ceiling) {
  return {{"name", ceiling.name},
          {"unit", ceiling.unit},
          {"measured", finiteOrNull(ceiling.measured)},
          {"datasheet", ceiling.datasheet ? json(*ceiling.datasheet) : json(nullptr)},
          {"method", ceiling.method}};
}

Ceiling ceilingFromJson(const json& object, const std::string& path) {
  Ceiling ceiling;
  ceiling.name = io::stringField(object, "name", path);
  ceiling.unit = io::stringField(object, "unit", path);
  ceiling.measured = io::numberField(object, "measured", path, Sign::Positive, /*nullable=*/true);
  if (io::optionalField(object, "datasheet"))
    ceiling.datasheet = io::numberField(object, "datasheet", path, Sign::Positive);
  ceiling.method = io::stringField(object, "method", path);
  return ceiling;
}

}  // namespace

nlohmann::json ceilingsToJson(const std::vector<DeviceCeilings>& ceilings) {
  json list = json::array();
  for (const DeviceCeilings& device : ceilings) {
    json compute = json::array();
    for (const Ceiling& ceiling : device.compute) compute.push_back(toJson(ceiling));
    list.push_back({{"backend", device.backend},
                    {"device", device.device},
                    {"compute", std::move(compute)},
                    {"bandwidth", toJson(device.bandwidth)}});
  }
  return list;
}

std::vector<DeviceCeilings> ceilingsFromJson(const nlohmann::json& json, const std::string& path,
                                             std::vector<std::string>* warnings) {
  return readEntries(
      json, path, warnings, "device's ceilings",
      [](const nlohmann::json& entry, const std::string& at) {
        DeviceCeilings device;
        device.backend = io::stringField(entry, "backend", at);
        device.device = io::stringField(entry, "device", at);
        const std::string computePath = io::memberPath(at, "compute");
        const nlohmann::json& compute =
            io::arrayAt(io::requiredField(entry, "compute", at), computePath);
        for (std::size_t i = 0; i < compute.size(); ++i)
          device.compute.push_back(ceilingFromJson(compute[i], io::elementPath(computePath, i)));
        device.bandwidth =
            ceilingFromJson(objectField(entry, "bandwidth", at), io::memberPath(at, "bandwidth"));
        return device;
      });
}

nlohmann::json toJson(const RunResult& result) {
  json params = json::object();
  for (const auto& [name, value] : result.kernel.params) params[name] = value;
  json out = {{"format_version", kFormatVersion},
              {"backend", result.backend},
              {"device", result.device},
              {"kernel", result.kernel.kernel},
              {"params", std::move(params)},
              {"m", result.shape.m},
              {"n", result.shape.n},
              {"k", result.shape.k},
              {"element", toString(result.element)},
              {"stats",
               {{"median_ms", result.stats.medianMs},
                {"min_ms", result.stats.minMs},
                {"max_ms", result.stats.maxMs},
                {"spread", finiteOrNull(result.stats.spread)},
                {"reps", result.stats.reps}}},
              {"gflops", finiteOrNull(result.gflops)},
              // Derived from verification; written for readers that want one flag.
              {"verified", result.verified()},
              {"verification", nullptr},
              {"phases", nullptr},
              {"unsynced_host_ms", nullptr},
              {"resources", nullptr},
              {"counters", nullptr},
              {"counters_unavailable", nullptr}};
  if (result.verification) out["verification"] = toJson(*result.verification);
  if (result.phases) {
    out["phases"] = {{"h2d_ms", result.phases->h2dMs},
                     {"kernel_ms", result.phases->kernelMs},
                     {"d2h_ms", result.phases->d2hMs}};
  }
  if (result.unsyncedHostMs) out["unsynced_host_ms"] = *result.unsyncedHostMs;
  if (const auto& k = result.resources) {
    out["resources"] = {
        {"registers", k->registersPerThread},    {"shared_bytes", k->sharedBytesPerBlock},
        {"local_bytes", k->localBytesPerThread}, {"threads_per_block", k->threadsPerBlock},
        {"blocks_per_sm", k->blocksPerSM},       {"occupancy", k->occupancy}};
  }
  if (result.counters) out["counters"] = toJson(*result.counters);
  if (result.countersUnavailable) out["counters_unavailable"] = *result.countersUnavailable;
  // A user kernel's result keeps the source it measured.
  if (result.kernel.source) out["source"] = *result.kernel.source;
  return out;
}

RunResult resultFromJson(const nlohmann::json& json, const std::string& path) {
  io::objectAt(json, path);
  io::versionField(json, "format_version", path, kFormatVersion);
  RunResult r;
  r.backend = io::stringField(json, "backend", path);
  r.device = io::stringField(json, "device", path);
  r.kernel.kernel = io::stringField(json, "kernel", path);
  const std::string paramsPath = io::memberPath(path, "params");
  const nlohmann::json& params = objectField(json, "params", path);
  for (const auto& [name, value] : params.items()) {
    r.kernel.params[name] =
        int(io::integerField(params, name.c_str(), paramsPath, std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::max(), "parameter value"));
  }
  r.shape = {io::sizeField(json, "m", path), io::sizeField(json, "n", path),
             io::sizeField(json, "k", path)};
  // Results written before element types existed are fp32.
  if (json.contains("element")) r.element = io::elementTypeField(json, "element", path);
  const std::string statsPath = io::memberPath(path, "stats");
  const nlohmann::json& stats = objectField(json, "stats", path);
  r.stats.medianMs = io::numberField(stats, "median_ms", statsPath, Sign::Positive);
  r.stats.minMs = io::numberField(stats, "min_ms", statsPath, Sign::Positive);
  r.stats.maxMs = io::numberField(stats, "max_ms", statsPath, Sign::Positive);
  r.stats.spread = measuredField(stats, "spread", statsPath);
  r.stats.reps = intField(stats, "reps", statsPath, "repetition count", 1);
  r.gflops = io::numberField(json, "gflops", path, Sign::Positive, /*nullable=*/true);
  if (const nlohmann::json* v = io::optionalField(json, "verification")) {
    const std::string at = io::memberPath(path, "verification");
    r.verification = verificationFromJson(io::objectAt(*v, at), at);
  }
  if (const nlohmann::json* p = io::optionalField(json, "phases")) {
    const std::string at = io::memberPath(path, "phases");
    io::objectAt(*p, at);
    r.phases = Phases{io::numberField(*p, "h2d_ms", at, Sign::NonNegative),
                      io::numberField(*p, "kernel_ms", at, Sign::NonNegative),
                      io::numberField(*p, "d2h_ms", at, Sign::NonNegative)};
  }
  if (io::optionalField(json, "unsynced_host_ms"))
    r.unsyncedHostMs = io::numberField(json, "unsynced_host_ms", path, Sign::NonNegative);
  if (const nlohmann::json* k = io::optionalField(json, "resources")) {
    const std::string at = io::memberPath(path, "resources");
    io::objectAt(*k, at);
    const auto bytes = [&](const char* name) {
      return io::integerField(*k, name, at, 0, std::numeric_limits<std::int64_t>::max(),
                              "byte count");
    };
    r.resources = KernelResources{intField(*k, "registers", at, "register count"),
                                  bytes("shared_bytes"),
                                  bytes("local_bytes"),
                                  intField(*k, "threads_per_block", at, "thread count"),
                                  intField(*k, "blocks_per_sm", at, "block count"),
                                  io::numberField(*k, "occupancy", at, Sign::NonNegative)};
  }
  if (const nlohmann::json* c = io::optionalField(json, "counters")) {
    const std::string at = io::memberPath(path, "counters");
    r.counters = countersFromJson(io::objectAt(*c, at), at);
  }
  if (io::optionalField(json, "counters_unavailable"))
    r.countersUnavailable = io::stringField(json, "counters_unavailable", path);
  if (io::optionalField(json, "source")) r.kernel.source = io::stringField(json, "source", path);
  // A catalogue kernel's parameters are values it runs with: a hand-edited tile of -5 or 0 would
  // otherwise be drawn and exported as if measured. (A kernel this build does not know keeps its
  // numbers; a user kernel's are its own source's.)
  if (!r.kernel.source && findKernel(r.kernel.kernel))
    if (const std::optional<std::string> why = refusal(r.kernel)) io::refuseAt(paramsPath, *why);
  return r;
}

nlohmann::json toJson(const RunRequest& request) {
  json params = json::object();
  for (const auto& [name, value] : request.kernel.params) params[name] = value;
  return {{"kernel", request.kernel.kernel},
          {"source", request.kernel.source ? json(*request.kernel.source) : json(nullptr)},
          {"params", std::move(params)},
          {"m", request.shape.m},
          {"n", request.shape.n},
          {"k", request.shape.k},
          {"element", toString(request.element)},
          {"device", request.device},
          {"fill", request.fill == Fill::Integer ? "integer" : "random"},
          {"seed", request.seed},
          {"reps", request.sampling.fixedReps ? json(*request.sampling.fixedReps) : json(nullptr)},
          {"budget_ms", request.sampling.budgetMs},
          {"verify", request.verify},
          {"allow_long_runs", request.allowLongRuns},
          {"counters", request.collectCounters}};
}

RunRequest requestFromJson(const nlohmann::json& json) {
  const std::string where = "request";
  io::objectAt(json, where);
  // A misspelt member would silently run the default: refuse it, as the command line does.
  static const char* const kMembers[] = {
      "kernel",  "source",          "params",  "m",    "n",    "k",
      "element", "device",          "fill",    "seed", "reps", "budget_ms",
      "verify",  "allow_long_runs", "counters"};
  for (const auto& item : json.items()) {
    const std::string& name = item.key();
    if (std::none_of(std::begin(kMembers), std::end(kMembers),
                     [&](const char* member) { return name == member; }))
      fail("the request has an unknown member " + quoteValue(name));
  }
  RunRequest request;
  request.kernel.kernel = io::stringField(json, "kernel", where);
  if (io::optionalField(json, "source")) {
    request.kernel.source = io::stringField(json, "source", where);
    if (request.kernel.source->size() > kMaxUserSourceBytes)
      io::refuseAt("request.source", std::to_string(request.kernel.source->size()) +
                                         " bytes is more than a kernel's source may have (" +
                                         std::to_string(kMaxUserSourceBytes) + ")");
  }
  if (const nlohmann::json* params = io::optionalField(json, "params")) {
    const std::string at = io::memberPath(where, "params");
    io::objectAt(*params, at);
    for (const auto& [name, value] : params->items())
      request.kernel.params[name] =
          int(io::integerField(*params, name.c_str(), at, std::numeric_limits<int>::min(),
                               std::numeric_limits<int>::max(), "parameter value"));
  }
  const auto dimension = [&](const char* name) {
    return io::integerField(json, name, where, 1, kMaxDimension, "size");
  };
  request.shape = {dimension("m"), dimension("n"), dimension("k")};
  if (io::optionalField(json, "element"))
    request.element = io::elementTypeField(json, "element", where);
  if (io::optionalField(json, "device"))
    request.device = intField(json, "device", where, "device index");
  if (io::optionalField(json, "fill")) {
    const std::string fill = io::stringField(json, "fill", where);
    if (fill != "random" && fill != "integer")
      io::refuseAt("request.fill", quoteValue(fill) + " is neither random nor integer");
    request.fill = fill == "integer" ? Fill::Integer : Fill::Random;
  }
  if (io::optionalField(json, "seed"))
    request.seed = std::uint64_t(
        io::integerField(json, "seed", where, 0, std::numeric_limits<std::int64_t>::max(), "seed"));
  if (io::optionalField(json, "reps"))
    request.sampling.fixedReps = intField(json, "reps", where, "repetition count", 1);
  if (request.sampling.fixedReps && *request.sampling.fixedReps > kMaxFixedReps)
    io::refuseAt("request.reps", std::to_string(*request.sampling.fixedReps) +
                                     " is not a valid repetition count (a whole number from 1 "
                                     "to " +
                                     std::to_string(kMaxFixedReps) + ")");
  if (io::optionalField(json, "budget_ms"))
    request.sampling.budgetMs = io::numberField(json, "budget_ms", where, Sign::Positive);
  if (io::optionalField(json, "verify")) request.verify = io::booleanField(json, "verify", where);
  if (io::optionalField(json, "allow_long_runs"))
    request.allowLongRuns = io::booleanField(json, "allow_long_runs", where);
  if (io::optionalField(json, "counters"))
    request.collectCounters = io::booleanField(json, "counters", where);
  return request;
}

nlohmann::json toJson(const DeviceInfo& device) {
  json facts = json::array();
  for (const auto& [name, value] : device.facts)
    facts.push_back({{"name", name}, {"value", value}});
  return {{"format_version", kFormatVersion},
          {"index", device.index},
          {"name", device.name},
          {"facts", std::move(facts)}};
}

DeviceInfo deviceFromJson(const nlohmann::json& json, const std::string& path) {
  io::objectAt(json, path);
  io::versionField(json, "format_version", path, kFormatVersion);
  DeviceInfo device;
  device.index = intField(json, "index", path, "device index");
  device.name = io::stringField(json, "name", path);
  const std::string factsPath = io::memberPath(path, "facts");
  const nlohmann::json& facts = io::arrayAt(io::requiredField(json, "facts", path), factsPath);
  for (std::size_t i = 0; i < facts.size(); ++i) {
    const std::string at = io::elementPath(factsPath, i);
    device.facts.emplace_back(io::stringField(facts[i], "name", at),
                              io::stringField(facts[i], "value", at));
  }
  return device;
}

nlohmann::json devicesToJson(const std::vector<MeasuredDevice>& devices) {
  nlohmann::json list = nlohmann::json::array();
  for (const MeasuredDevice& device : devices) {
    nlohmann::json entry = toJson(device.info);
    entry["backend"] = device.backend;
    list.push_back(entry);
  }
  return list;
}

std::vector<MeasuredDevice> devicesFromJson(const nlohmann::json& json, const std::string& path,
                                            std::vector<std::string>* warnings) {
  return readEntries(
      json, path, warnings, "device", [](const nlohmann::json& entry, const std::string& at) {
        return MeasuredDevice{io::stringField(entry, "backend", at), deviceFromJson(entry, at)};
      });
}

void checkHeader(const nlohmann::json& json, const std::string& format) {
  const auto tag = json.is_object() ? json.find("format") : json.end();
  if (!json.is_object() || tag == json.end() || (tag->is_string() && *tag != format)) {
    throw Error(ErrorKind::InvalidArgument,
                "this is not a TileScope file (no \"format\": \"" + format + "\")");
  }
  if (*tag != format) {  // a number, null, a list, an object or a boolean
    throw Error(ErrorKind::InvalidArgument, "this is not a TileScope file (\"format\" is " +
                                                io::shownValue(*tag) + ", not \"" + format + "\")");
  }
  io::versionField(json, "version", "", kFormatVersion);
}

std::vector<RunResult> resultsFromJson(const nlohmann::json& json, const std::string& path,
                                       std::vector<std::string>* warnings) {
  // Read strictly first where every entry might be bad: a file whose results are all broken is
  // refused with the first problem rather than opened empty.
  const std::size_t warningsBefore = warnings ? warnings->size() : 0;
  std::vector<RunResult> results = readEntries(
      json, path, warnings, "result",
      [](const nlohmann::json& entry, const std::string& at) { return resultFromJson(entry, at); });
  if (results.empty() && !json.empty() && warnings) {
    std::string problem = (*warnings)[warningsBefore];
    problem.erase(problem.rfind("; that result is skipped"));
    warnings->resize(warningsBefore);
    throw Error(ErrorKind::InvalidArgument, problem + " (and no result can be read)");
  }
  return results;
}

nlohmann::json toJson(const ResultsDocument& document, const std::string& created,
                      const std::string& generator) {
  nlohmann::json results = nlohmann::json::array();
  for (const RunResult& result : document.results) results.push_back(toJson(result));
  nlohmann::json out = {{"format", kResultsFormat},
                        {"version", kFormatVersion},
                        {"created", created},
                        {"generator", generator},
                        {"devices", devicesToJson(document.devices)},
                        {"results", std::move(results)}};
  if (!document.ceilings.empty()) out["ceilings"] = ceilingsToJson(document.ceilings);
  return out;
}

ResultsDocument resultsDocumentFromJson(const nlohmann::json& json) {
  checkHeader(json, kResultsFormat);
  ResultsDocument document;
  if (json.contains("devices"))
    document.devices = devicesFromJson(json["devices"], "devices", &document.warnings);
  document.results =
      resultsFromJson(io::requiredField(json, "results", ""), "results", &document.warnings);
  if (json.contains("ceilings"))
    document.ceilings = ceilingsFromJson(json["ceilings"], "ceilings", &document.warnings);
  return document;
}
}  // namespace tilescope::report
