// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <istream>
#include <limits>
#include <ostream>
#include <system_error>

#include "io/json_fields.hpp"
#include "tilescope/counter_model.hpp"
#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::report {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorKind::InvalidArgument, message);
}

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

// The counters' JSON names, in the order they are written and read.
constexpr std::pair<const char*, double HardwareCounters::*> kCounterFields[] = {
    {"dram_read_bytes", &HardwareCounters::dramReadBytes},
    {"dram_write_bytes", &HardwareCounters::dramWriteBytes},
    {"l2_sectors_from_l1", &HardwareCounters::l2SectorsFromL1},
    {"global_load_requests", &HardwareCounters::globalLoadRequests},
    {"global_load_sectors", &HardwareCounters::globalLoadSectors},
    {"global_store_requests", &HardwareCounters::globalStoreRequests},
    {"global_store_sectors", &HardwareCounters::globalStoreSectors},
    {"shared_load_requests", &HardwareCounters::sharedLoadRequests},
    {"shared_load_wavefronts", &HardwareCounters::sharedLoadWavefronts},
    {"shared_store_requests", &HardwareCounters::sharedStoreRequests},
    {"shared_store_wavefronts", &HardwareCounters::sharedStoreWavefronts},
    {"shared_bank_conflicts", &HardwareCounters::sharedBankConflicts},
    {"achieved_occupancy", &HardwareCounters::achievedOccupancy},
};

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

// Shortest text that reads back to the same double ("nan" and "inf" included).
std::string formatNumber(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

std::string formatOptional(const std::optional<double>& value) {
  return value ? formatNumber(*value) : std::string();
}

// Fields that would break a CSV line are quoted, with inner quotes doubled (RFC 4180).
std::string quoteCsv(const std::string& text, bool always) {
  if (!always && text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

// One CSV record (which may span lines inside quotes); false at end of input.
bool readCsvRecord(std::istream& in, std::vector<std::string>& fields, int& line) {
  fields.clear();
  if (in.peek() == std::char_traits<char>::eof()) return false;
  ++line;
  const int firstLine = line;
  std::string current;
  bool quoted = false, afterQuote = false;
  for (int next = in.get();; next = in.get()) {
    if (next == std::char_traits<char>::eof()) {
      if (quoted) fail("CSV line " + std::to_string(firstLine) + ": unterminated quoted field");
      break;
    }
    const char c = char(next);
    if (quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          current += char(in.get());
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (c == '\n') ++line;
        current += c;
      }
      continue;
    }
    if (c == ',') {
      fields.push_back(std::move(current));
      current.clear();
      afterQuote = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && in.peek() == '\n') in.get();
      break;
    } else if (c == '"' && current.empty() && !afterQuote) {
      quoted = true;
    } else if (afterQuote) {
      fail("CSV line " + std::to_string(line) + ": text after a closing quote");
    } else {
      current += c;
    }
  }
  fields.push_back(std::move(current));
  return true;
}

// Reads the cells of one CSV row by column name, naming the line and column in every error.
class CsvRow {
 public:
  CsvRow(const std::vector<std::string>& header, const std::vector<std::string>& cells, int line)
      : header_(header), cells_(cells), line_(line) {}

  bool has(const char* column) const {
    return std::find(header_.begin(), header_.end(), column) != header_.end();
  }

  const std::string& text(const char* column) const {
    const auto it = std::find(header_.begin(), header_.end(), column);
    return cells_[std::size_t(it - header_.begin())];
  }

  std::int64_t integer(const char* column) const {
    const std::string& cell = text(column);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
      error(column, "'" + cell + "' is not an integer");
    return value;
  }

  double number(const char* column) const {
    const std::string& cell = text(column);
    double value = 0;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
      error(column, "'" + cell + "' is not a number");
    return value;
  }

  std::optional<double> optionalNumber(const char* column) const {
    if (text(column).empty()) return std::nullopt;
    return number(column);
  }

  bool boolean(const char* column) const {
    const std::string& cell = text(column);
    if (cell == "true") return true;
    if (cell == "false") return false;
    error(column, "'" + cell + "' is neither true nor false");
  }

  [[noreturn]] void error(const char* column, const std::string& problem) const {
    fail("CSV line " + std::to_string(line_) + ", column " + column + ": " + problem);
  }

 private:
  const std::vector<std::string>& header_;
  const std::vector<std::string>& cells_;
  int line_;
};

RunResult resultFromCsv(const CsvRow& row) {
  RunResult r;
  r.backend = row.text("backend");
  r.device = row.text("device");
  r.kernel.kernel = row.text("kernel");
  try {
    if (!row.text("params").empty()) r.kernel.params = parseParams(row.text("params"));
  } catch (const Error& e) {
    row.error("params", e.what());
  }
  r.shape = {row.integer("M"), row.integer("N"), row.integer("K")};
  r.stats.medianMs = row.number("median_ms");
  r.stats.minMs = row.number("min_ms");
  r.stats.maxMs = row.number("max_ms");
  r.stats.reps = int(row.integer("reps"));
  r.gflops = row.number("gflops");
  // CSV carries the relative error and the verdict; a run that was not verified has neither.
  const bool verified = row.boolean("verified");
  if (const auto relError = row.optionalNumber("rel_error")) {
    Verification v;
    v.relError = *relError;
    v.passed = verified;
    r.verification = v;
  } else if (verified) {
    row.error("verified", "true without a rel_error");
  }
  const auto h2d = row.optionalNumber("h2d_ms");
  const auto kernel = row.optionalNumber("kernel_ms");
  const auto d2h = row.optionalNumber("d2h_ms");
  if (h2d && kernel && d2h) {
    r.phases = Phases{*h2d, *kernel, *d2h};
  } else if (h2d || kernel || d2h) {
    row.error("h2d_ms", "the phases h2d_ms, kernel_ms and d2h_ms are all given or all empty");
  }
  r.unsyncedHostMs = row.optionalNumber("unsynced_host_ms");
  // Files written before the element column existed are fp32.
  if (row.has("element")) {
    if (const auto element = parseElementType(row.text("element")))
      r.element = *element;
    else
      row.error("element", "'" + row.text("element") + "' is not fp32, tf32, fp16 or bf16");
  }
  // Files written before the resource columns existed end at unsynced_host_ms.
  if (row.has("registers")) {
    const char* const columns[] = {"registers",         "shared_bytes",  "local_bytes",
                                   "threads_per_block", "blocks_per_sm", "occupancy"};
    const auto given = std::count_if(std::begin(columns), std::end(columns),
                                     [&](const char* column) { return !row.text(column).empty(); });
    if (given == std::ssize(columns)) {
      r.resources =
          KernelResources{int(row.integer("registers")),     row.integer("shared_bytes"),
                          row.integer("local_bytes"),        int(row.integer("threads_per_block")),
                          int(row.integer("blocks_per_sm")), row.number("occupancy")};
    } else if (given > 0) {
      row.error("registers",
                "the resource columns registers .. occupancy are all given or all empty");
    }
  }
  // Files written before the counter columns existed end at element.
  if (row.has("counters_unavailable")) {
    const auto given =
        std::count_if(std::begin(kCounterFields), std::end(kCounterFields),
                      [&](const auto& field) { return !row.text(field.first).empty(); });
    if (given == std::ssize(kCounterFields)) {
      HardwareCounters counters;
      for (const auto& [name, member] : kCounterFields) counters.*member = row.number(name);
      counters.tensorPipeUtilisation = row.optionalNumber("tensor_pipe_utilisation");
      counters.source = row.text("counters_source");
      r.counters = counters;
    } else if (given > 0) {
      row.error(kCounterFields[0].first,
                "the counter columns dram_read_bytes .. achieved_occupancy are all given or all "
                "empty");
    }
    if (!row.text("counters_unavailable").empty())
      r.countersUnavailable = row.text("counters_unavailable");
  }
  return r;
}

// A table cell never breaks its row.
std::string oneLine(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return text;
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return formatNumber(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// Four significant digits: 16.5, 0.4995, 2.75e+05.
std::string significant(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

std::string scientific(double value) {
  if (!std::isfinite(value)) return formatNumber(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2e", value);
  return buffer;
}

// Writes rows (the header first) in columns two spaces apart, padded to the widest cell;
// `alignLeft(column)` says which columns hold text rather than numbers.
void writeAligned(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                  const std::function<bool(std::size_t)>& alignLeft) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(widths[i] - row[i].size(), ' ');
      if (i) line += "  ";
      line += alignLeft(i) ? row[i] + pad : pad + row[i];
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
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

// The ceilings of every device, one row per ceiling, as the CSV and the table show them.
std::vector<std::pair<const DeviceCeilings*, const Ceiling*>> ceilingRows(
    const std::vector<DeviceCeilings>& ceilings) {
  std::vector<std::pair<const DeviceCeilings*, const Ceiling*>> rows;
  for (const DeviceCeilings& device : ceilings) {
    for (const Ceiling& ceiling : device.compute) rows.emplace_back(&device, &ceiling);
    rows.emplace_back(&device, &device.bandwidth);
  }
  return rows;
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
  if (!json.is_object() || tag == json.end() || *tag != format) {
    throw Error(ErrorKind::InvalidArgument,
                "this is not a TileScope file (no \"format\": \"" + format + "\")");
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

std::vector<std::string> csvHeader() {
  std::vector<std::string> header = {"backend",
                                     "device",
                                     "kernel",
                                     "params",
                                     "M",
                                     "N",
                                     "K",
                                     "median_ms",
                                     "min_ms",
                                     "max_ms",
                                     "gflops",
                                     "rel_error",
                                     "verified",
                                     "reps",
                                     "h2d_ms",
                                     "kernel_ms",
                                     "d2h_ms",
                                     "unsynced_host_ms",
                                     "registers",
                                     "shared_bytes",
                                     "local_bytes",
                                     "threads_per_block",
                                     "blocks_per_sm",
                                     "occupancy",
                                     "element"};
  for (const auto& [name, member] : kCounterFields) header.push_back(name);
  header.insert(header.end(),
                {"tensor_pipe_utilisation", "counters_source", "counters_unavailable"});
  return header;
}

std::vector<std::string> csvRow(const RunResult& r) {
  const auto phase = [&](double Phases::*member) {
    return r.phases ? formatNumber((*r.phases).*member) : std::string();
  };
  std::vector<std::string> row = {
      r.backend,
      r.device,
      r.kernel.kernel,
      formatParams(r.kernel),
      std::to_string(r.shape.m),
      std::to_string(r.shape.n),
      std::to_string(r.shape.k),
      formatNumber(r.stats.medianMs),
      formatNumber(r.stats.minMs),
      formatNumber(r.stats.maxMs),
      formatNumber(r.gflops),
      r.verification ? formatNumber(r.verification->relError) : std::string(),
      r.verified() ? "true" : "false",
      std::to_string(r.stats.reps),
      phase(&Phases::h2dMs),
      phase(&Phases::kernelMs),
      phase(&Phases::d2hMs),
      formatOptional(r.unsyncedHostMs),
      r.resources ? std::to_string(r.resources->registersPerThread) : std::string(),
      r.resources ? std::to_string(r.resources->sharedBytesPerBlock) : std::string(),
      r.resources ? std::to_string(r.resources->localBytesPerThread) : std::string(),
      r.resources ? std::to_string(r.resources->threadsPerBlock) : std::string(),
      r.resources ? std::to_string(r.resources->blocksPerSM) : std::string(),
      r.resources ? formatNumber(r.resources->occupancy) : std::string(),
      toString(r.element)};
  for (const auto& [name, member] : kCounterFields)
    row.push_back(r.counters ? formatNumber((*r.counters).*member) : std::string());
  row.push_back(r.counters ? formatOptional(r.counters->tensorPipeUtilisation) : std::string());
  row.push_back(r.counters ? r.counters->source : std::string());
  row.push_back(r.countersUnavailable.value_or(std::string()));
  return row;
}

void writeCsv(std::ostream& out, const std::vector<RunResult>& results) {
  const auto writeLine = [&](const std::vector<std::string>& cells, bool quoteParams) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      // The params column is always quoted: "BM=128,TM=8" holds commas, and quoting every
      // value keeps spreadsheet imports from reading "tile=16" differently from the rest.
      const bool always = quoteParams && i == 3;
      out << (i ? "," : "") << quoteCsv(cells[i], always);
    }
    out << '\n';
  };
  writeLine(csvHeader(), false);
  for (const RunResult& r : results) writeLine(csvRow(r), true);
}

std::vector<RunResult> readCsv(std::istream& in) {
  const std::vector<std::string> expected = csvHeader();
  std::vector<std::string> header, cells;
  int line = 0;
  if (!readCsvRecord(in, header, line)) fail("CSV input is empty: no header line");
  // Older files end earlier: before the resource columns (format version 1 as first written),
  // before the element column, or before the counters.
  constexpr std::size_t kColumnsWithoutResources = 18, kColumnsWithoutElement = 24,
                        kColumnsWithoutCounters = 25;
  const bool olderPrefix =
      (header.size() == kColumnsWithoutResources || header.size() == kColumnsWithoutElement ||
       header.size() == kColumnsWithoutCounters) &&
      std::equal(header.begin(), header.end(), expected.begin());
  if (header != expected && !olderPrefix) {
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (i >= header.size())
        fail("CSV header: column " + std::to_string(i + 1) + " '" + expected[i] + "' is missing");
      if (header[i] != expected[i])
        fail("CSV header: column " + std::to_string(i + 1) + " is '" + header[i] + "', expected '" +
             expected[i] + "'");
    }
    fail("CSV header: " + std::to_string(header.size()) + " columns, expected " +
         std::to_string(expected.size()));
  }
  std::vector<RunResult> results;
  while (readCsvRecord(in, cells, line)) {
    if (cells.size() == 1 && cells[0].empty()) continue;  // a blank line
    if (cells.size() != header.size()) {
      fail("CSV line " + std::to_string(line) + ": " + std::to_string(cells.size()) +
           " fields, expected " + std::to_string(header.size()));
    }
    results.push_back(resultFromCsv(CsvRow(header, cells, line)));
  }
  return results;
}

void writeTable(std::ostream& out, const std::vector<RunResult>& results) {
  const bool anyPhases = std::any_of(results.begin(), results.end(),
                                     [](const RunResult& r) { return r.phases.has_value(); });
  const bool anyUnsynced = std::any_of(results.begin(), results.end(), [](const RunResult& r) {
    return r.unsyncedHostMs.has_value();
  });
  const bool anyResources = std::any_of(results.begin(), results.end(),
                                        [](const RunResult& r) { return r.resources.has_value(); });
  const bool anyTyped = std::any_of(results.begin(), results.end(), [](const RunResult& r) {
    return r.element != ElementType::F32;
  });
  std::vector<std::string> header = {"backend", "device",    "kernel",    "params", "M",
                                     "N",       "K",         "median ms", "min ms", "max ms",
                                     "GFLOP/s", "rel error", "verified",  "reps"};
  if (anyTyped) header.insert(header.begin() + 4, "type");
  if (anyPhases) header.insert(header.end(), {"H2D ms", "kernel ms", "D2H ms"});
  if (anyUnsynced) header.push_back("unsynced host ms");
  if (anyResources)
    header.insert(header.end(), {"regs", "smem B", "local B", "threads", "blocks/SM", "occupancy"});
  const bool anyCounters = std::any_of(results.begin(), results.end(),
                                       [](const RunResult& r) { return r.counters.has_value(); });
  if (anyCounters)
    header.insert(header.end(), {"DRAM MB", "ld sectors/req", "st sectors/req",
                                 "smem wavefronts/req", "bank conflicts", "achieved occ"});

  std::vector<std::vector<std::string>> rows = {header};
  for (const RunResult& r : results) {
    std::vector<std::string> row = {r.backend,
                                    oneLine(r.device),
                                    r.kernel.kernel,
                                    r.kernel.params.empty() ? "-" : formatParams(r.kernel),
                                    std::to_string(r.shape.m),
                                    std::to_string(r.shape.n),
                                    std::to_string(r.shape.k),
                                    fixed(r.stats.medianMs, 3),
                                    fixed(r.stats.minMs, 3),
                                    fixed(r.stats.maxMs, 3),
                                    fixed(r.gflops, 1),
                                    r.verification ? scientific(r.verification->relError) : "-",
                                    r.verification ? (r.verified() ? "true" : "false") : "skipped",
                                    std::to_string(r.stats.reps)};
    if (anyTyped) row.insert(row.begin() + 4, toString(r.element));
    if (anyPhases) {
      for (double Phases::*member : {&Phases::h2dMs, &Phases::kernelMs, &Phases::d2hMs})
        row.push_back(r.phases ? fixed((*r.phases).*member, 3) : "-");
    }
    if (anyUnsynced) row.push_back(r.unsyncedHostMs ? fixed(*r.unsyncedHostMs, 3) : "-");
    if (anyResources) {
      if (const auto& k = r.resources) {
        row.insert(row.end(),
                   {std::to_string(k->registersPerThread), std::to_string(k->sharedBytesPerBlock),
                    std::to_string(k->localBytesPerThread), std::to_string(k->threadsPerBlock),
                    std::to_string(k->blocksPerSM), fixed(100 * k->occupancy, 1) + " %"});
      } else {
        row.insert(row.end(), 6, "-");
      }
    }
    if (anyCounters) {
      if (const auto& c = r.counters) {
        const auto ratio = [](double part, double whole) {
          return whole > 0 ? fixed(part / whole, 2) : std::string("-");
        };
        row.insert(row.end(),
                   {fixed((c->dramReadBytes + c->dramWriteBytes) / 1e6, 1),
                    ratio(c->globalLoadSectors, c->globalLoadRequests),
                    ratio(c->globalStoreSectors, c->globalStoreRequests),
                    ratio(c->sharedLoadWavefronts + c->sharedStoreWavefronts,
                          c->sharedLoadRequests + c->sharedStoreRequests),
                    fixed(c->sharedBankConflicts, 0), fixed(100 * c->achievedOccupancy, 1) + " %"});
      } else {
        row.insert(row.end(), 6, "-");
      }
    }
    rows.push_back(std::move(row));
  }

  // Text columns (backend .. params, and the type) align left, numbers right.
  const std::size_t textColumns = anyTyped ? 5 : 4;
  writeAligned(out, rows, [textColumns](std::size_t column) { return column < textColumns; });
  // Why a run asked for counters has none, each reason once.
  std::vector<std::string> reasons;
  for (const RunResult& r : results) {
    if (r.countersUnavailable &&
        std::find(reasons.begin(), reasons.end(), *r.countersUnavailable) == reasons.end())
      reasons.push_back(*r.countersUnavailable);
  }
  for (const std::string& reason : reasons) out << "counters: " << oneLine(reason) << '\n';
  // The counters beside the traffic model, run by run.
  for (const RunResult& r : results) {
    const std::vector<CounterComparison> compared = compareWithModel(r);
    if (compared.empty()) continue;
    out << '\n'
        << r.kernel.kernel << (r.kernel.params.empty() ? "" : " " + formatParams(r.kernel)) << ' '
        << r.shape.m << 'x' << r.shape.n << 'x' << r.shape.k << ' ' << toString(r.element)
        << ", model against hardware (" << oneLine(r.counters->source) << "):\n";
    std::vector<std::vector<std::string>> lines = {{"", "unit", "model", "measured", ""}};
    for (const CounterComparison& c : compared)
      lines.push_back({c.what, c.unit, significant(c.model), significant(c.measured),
                       c.agrees ? (c.why.empty() ? "agrees" : "agrees: " + c.why) : c.why});
    writeAligned(out, lines, [](std::size_t column) { return column < 2 || column == 4; });
  }
}

void writeCeilingsCsv(std::ostream& out, const std::vector<DeviceCeilings>& ceilings) {
  out << "backend,device,ceiling,unit,measured,datasheet,measured_over_datasheet,method\n";
  for (const auto& [device, ceiling] : ceilingRows(ceilings)) {
    const std::optional<double> fraction = ceiling->fractionOfDatasheet();
    out << quoteCsv(device->backend, false) << ',' << quoteCsv(device->device, false) << ','
        << quoteCsv(ceiling->name, false) << ',' << quoteCsv(ceiling->unit, false) << ','
        << formatNumber(ceiling->measured) << ',' << formatOptional(ceiling->datasheet) << ','
        << formatOptional(fraction) << ',' << quoteCsv(ceiling->method, false) << '\n';
  }
}

void writeCeilingsTable(std::ostream& out, const std::vector<DeviceCeilings>& ceilings) {
  std::vector<std::vector<std::string>> rows = {
      {"backend", "device", "ceiling", "measured", "datasheet", "of datasheet", "method"}};
  for (const auto& [device, ceiling] : ceilingRows(ceilings)) {
    const std::optional<double> fraction = ceiling->fractionOfDatasheet();
    rows.push_back({device->backend, oneLine(device->device), ceiling->name,
                    fixed(ceiling->measured, 1) + " " + ceiling->unit,
                    ceiling->datasheet ? fixed(*ceiling->datasheet, 1) + " " + ceiling->unit : "-",
                    fraction ? fixed(100 * *fraction, 1) + " %" : "-", oneLine(ceiling->method)});
  }
  // backend, device, ceiling and method are text; the figures align right.
  writeAligned(out, rows, [](std::size_t column) { return column < 3 || column == 6; });
}

}  // namespace tilescope::report
