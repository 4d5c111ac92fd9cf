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

#include "tilescope/error.hpp"

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

const json& field(const json& object, const char* name, const std::string& where) {
  if (!object.is_object()) fail(where + " is not a JSON object");
  const auto it = object.find(name);
  if (it == object.end()) fail(where + " has no field '" + name + "'");
  return *it;
}

double numberField(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value.is_number()) fail(where + "." + name + " is not a number");
  return value.get<double>();
}

std::int64_t integerField(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (!value.is_number_integer()) fail(where + "." + name + " is not an integer");
  return value.get<std::int64_t>();
}

std::string stringField(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (!value.is_string()) fail(where + "." + name + " is not a string");
  return value.get<std::string>();
}

bool boolField(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (!value.is_boolean()) fail(where + "." + name + " is not true or false");
  return value.get<bool>();
}

// Optional members are written as null; a reader also accepts them missing.
const json* optionalObject(const json& object, const char* name, const std::string& where) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  if (!it->is_object()) fail(where + "." + name + " is not a JSON object or null");
  return &*it;
}

void checkFormatVersion(const json& object, const std::string& where) {
  const std::int64_t version = integerField(object, "format_version", where);
  if (version > kFormatVersion) {
    fail(where + " has format_version " + std::to_string(version) + "; this build reads up to " +
         std::to_string(kFormatVersion));
  }
}

json toJson(const Verification& v) {
  return {{"rel_error", finiteOrNull(v.relError)},
          {"normalized_error", finiteOrNull(v.normalizedError)},
          {"max_abs_error", finiteOrNull(v.maxAbsError)},
          {"non_finite", v.nonFinite},
          {"tolerance", v.tolerance},
          {"passed", v.passed}};
}

Verification verificationFromJson(const json& object, const std::string& where) {
  Verification v;
  v.relError = numberField(object, "rel_error", where);
  v.normalizedError = numberField(object, "normalized_error", where);
  v.maxAbsError = numberField(object, "max_abs_error", where);
  v.nonFinite = integerField(object, "non_finite", where);
  v.tolerance = numberField(object, "tolerance", where);
  v.passed = boolField(object, "passed", where);
  return v;
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

Ceiling ceilingFromJson(const json& object, const std::string& where) {
  Ceiling ceiling;
  ceiling.name = stringField(object, "name", where);
  ceiling.unit = stringField(object, "unit", where);
  ceiling.measured = numberField(object, "measured", where);
  if (const auto it = object.find("datasheet"); it != object.end() && !it->is_null())
    ceiling.datasheet = numberField(object, "datasheet", where);
  ceiling.method = stringField(object, "method", where);
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

ElementType elementField(const std::string& text, const std::string& where) {
  if (const auto element = parseElementType(text)) return *element;
  fail(where + " '" + text + "' is not an element type (fp32, tf32, fp16 or bf16)");
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

std::vector<DeviceCeilings> ceilingsFromJson(const nlohmann::json& json) {
  if (!json.is_array()) fail("'ceilings' is not a list");
  std::vector<DeviceCeilings> list;
  for (const nlohmann::json& entry : json) {
    const std::string where = "ceilings[" + std::to_string(list.size()) + "]";
    DeviceCeilings device;
    device.backend = stringField(entry, "backend", where);
    device.device = stringField(entry, "device", where);
    const nlohmann::json& compute = field(entry, "compute", where);
    if (!compute.is_array()) fail(where + ".compute is not a list");
    for (const nlohmann::json& ceiling : compute)
      device.compute.push_back(ceilingFromJson(ceiling, where + ".compute[]"));
    device.bandwidth = ceilingFromJson(field(entry, "bandwidth", where), where + ".bandwidth");
    list.push_back(std::move(device));
  }
  return list;
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
              {"resources", nullptr}};
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
  return out;
}

RunResult resultFromJson(const nlohmann::json& json) {
  const std::string where = "result";
  checkFormatVersion(json, where);
  RunResult r;
  r.backend = stringField(json, "backend", where);
  r.device = stringField(json, "device", where);
  r.kernel.kernel = stringField(json, "kernel", where);
  const nlohmann::json& params = field(json, "params", where);
  if (!params.is_object()) fail("result.params is not a JSON object");
  for (const auto& [name, value] : params.items()) {
    if (!value.is_number_integer()) fail("result.params." + name + " is not an integer");
    r.kernel.params[name] = value.get<int>();
  }
  r.shape = {integerField(json, "m", where), integerField(json, "n", where),
             integerField(json, "k", where)};
  // Results written before element types existed are fp32.
  if (const auto element = json.find("element"); element != json.end())
    r.element = elementField(stringField(json, "element", where), "result.element");
  const nlohmann::json& stats = field(json, "stats", where);
  r.stats.medianMs = numberField(stats, "median_ms", "result.stats");
  r.stats.minMs = numberField(stats, "min_ms", "result.stats");
  r.stats.maxMs = numberField(stats, "max_ms", "result.stats");
  r.stats.spread = numberField(stats, "spread", "result.stats");
  r.stats.reps = int(integerField(stats, "reps", "result.stats"));
  r.gflops = numberField(json, "gflops", where);
  if (const nlohmann::json* v = optionalObject(json, "verification", where))
    r.verification = verificationFromJson(*v, "result.verification");
  if (const nlohmann::json* p = optionalObject(json, "phases", where)) {
    r.phases = Phases{numberField(*p, "h2d_ms", "result.phases"),
                      numberField(*p, "kernel_ms", "result.phases"),
                      numberField(*p, "d2h_ms", "result.phases")};
  }
  if (const auto it = json.find("unsynced_host_ms"); it != json.end() && !it->is_null()) {
    r.unsyncedHostMs = numberField(json, "unsynced_host_ms", where);
  }
  if (const nlohmann::json* k = optionalObject(json, "resources", where)) {
    const std::string at = "result.resources";
    r.resources = KernelResources{
        int(integerField(*k, "registers", at)),     integerField(*k, "shared_bytes", at),
        integerField(*k, "local_bytes", at),        int(integerField(*k, "threads_per_block", at)),
        int(integerField(*k, "blocks_per_sm", at)), numberField(*k, "occupancy", at)};
  }
  return r;
}

namespace {

// An integer field in [low, high]; a float, an integer beyond 64 bits or one out of range is
// refused with the range, as the command line refuses --reps 0.
std::int64_t boundedInteger(const json& value, const std::string& what, std::int64_t low,
                            std::int64_t high) {
  const std::string range = std::to_string(low) + ".." + std::to_string(high);
  if (!value.is_number_integer()) fail(what + " is not an integer");
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(high))
    fail(what + " is out of range " + range);
  const std::int64_t number = value.get<std::int64_t>();
  if (number < low || number > high)
    fail(what + " = " + std::to_string(number) + " is out of range " + range);
  return number;
}

}  // namespace

nlohmann::json toJson(const RunRequest& request) {
  json params = json::object();
  for (const auto& [name, value] : request.kernel.params) params[name] = value;
  return {{"kernel", request.kernel.kernel},
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
          {"allow_long_runs", request.allowLongRuns}};
}

RunRequest requestFromJson(const nlohmann::json& json) {
  const std::string where = "request";
  if (!json.is_object()) fail("the request is not a JSON object");
  // A misspelt member would silently run the default: refuse it, as the command line does.
  static const char* const kMembers[] = {
      "kernel", "params", "m",    "n",         "k",      "element",        "device",
      "fill",   "seed",   "reps", "budget_ms", "verify", "allow_long_runs"};
  for (const auto& [name, value] : json.items()) {
    if (std::none_of(std::begin(kMembers), std::end(kMembers),
                     [&](const char* member) { return name == member; }))
      fail("the request has an unknown member '" + name + "'");
  }
  RunRequest request;
  request.kernel.kernel = stringField(json, "kernel", where);
  if (const auto params = json.find("params"); params != json.end() && !params->is_null()) {
    if (!params->is_object()) fail("request.params is not a JSON object");
    for (const auto& [name, value] : params->items())
      request.kernel.params[name] =
          int(boundedInteger(value, "request.params." + name, std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::max()));
  }
  const auto dimension = [&](const char* name) {
    return boundedInteger(field(json, name, where), where + "." + name, 1, kMaxDimension);
  };
  request.shape = {dimension("m"), dimension("n"), dimension("k")};
  const auto optional = [&](const char* name) -> const nlohmann::json* {
    const auto it = json.find(name);
    return it == json.end() || it->is_null() ? nullptr : &*it;
  };
  if (optional("element"))
    request.element = elementField(stringField(json, "element", where), "request.element");
  if (const nlohmann::json* device = optional("device"))
    request.device =
        int(boundedInteger(*device, "request.device", 0, std::numeric_limits<int>::max()));
  if (optional("fill")) {
    const std::string fill = stringField(json, "fill", where);
    if (fill != "random" && fill != "integer")
      fail("request.fill '" + fill + "' is neither random nor integer");
    request.fill = fill == "integer" ? Fill::Integer : Fill::Random;
  }
  if (const nlohmann::json* seed = optional("seed"))
    request.seed = std::uint64_t(
        boundedInteger(*seed, "request.seed", 0, std::numeric_limits<std::int64_t>::max()));
  if (const nlohmann::json* reps = optional("reps"))
    request.sampling.fixedReps = int(boundedInteger(*reps, "request.reps", 1, kMaxFixedReps));
  if (optional("budget_ms")) {
    const double budget = numberField(json, "budget_ms", where);
    if (!std::isfinite(budget) || budget <= 0) fail("request.budget_ms must be above 0");
    request.sampling.budgetMs = budget;
  }
  if (optional("verify")) request.verify = boolField(json, "verify", where);
  if (optional("allow_long_runs"))
    request.allowLongRuns = boolField(json, "allow_long_runs", where);
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

DeviceInfo deviceFromJson(const nlohmann::json& json) {
  const std::string where = "device";
  checkFormatVersion(json, where);
  DeviceInfo device;
  device.index = int(integerField(json, "index", where));
  device.name = stringField(json, "name", where);
  const nlohmann::json& facts = field(json, "facts", where);
  if (!facts.is_array()) fail("device.facts is not a JSON array");
  for (const nlohmann::json& fact : facts) {
    device.facts.emplace_back(stringField(fact, "name", "device.facts[]"),
                              stringField(fact, "value", "device.facts[]"));
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

std::vector<MeasuredDevice> devicesFromJson(const nlohmann::json& json) {
  if (!json.is_array()) throw Error(ErrorKind::InvalidArgument, "'devices' is not a list");
  std::vector<MeasuredDevice> devices;
  for (const nlohmann::json& entry : json) {
    if (!entry.is_object() || !entry.contains("backend") || !entry["backend"].is_string())
      throw Error(ErrorKind::InvalidArgument, "a device has no backend");
    devices.push_back({entry["backend"].get<std::string>(), deviceFromJson(entry)});
  }
  return devices;
}

void checkHeader(const nlohmann::json& json, const std::string& format) {
  const auto tag = json.is_object() ? json.find("format") : json.end();
  if (!json.is_object() || tag == json.end() || *tag != format) {
    throw Error(ErrorKind::InvalidArgument,
                "this is not a TileScope file (no \"format\": \"" + format + "\")");
  }
  const auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer())
    throw Error(ErrorKind::InvalidArgument, "the file has no format version");
  if (version->get<int>() > kFormatVersion) {
    throw Error(ErrorKind::InvalidArgument,
                "the file was written by a newer TileScope (format version " +
                    std::to_string(version->get<int>()) + ")");
  }
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
  if (const auto devices = json.find("devices"); devices != json.end())
    document.devices = devicesFromJson(*devices);
  const auto results = json.find("results");
  if (results == json.end() || !results->is_array())
    throw Error(ErrorKind::InvalidArgument, "the file has no list of results");
  for (const nlohmann::json& result : *results) document.results.push_back(resultFromJson(result));
  if (const auto ceilings = json.find("ceilings"); ceilings != json.end())
    document.ceilings = ceilingsFromJson(*ceilings);
  return document;
}

std::vector<std::string> csvHeader() {
  return {"backend",
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
}

std::vector<std::string> csvRow(const RunResult& r) {
  const auto phase = [&](double Phases::*member) {
    return r.phases ? formatNumber((*r.phases).*member) : std::string();
  };
  return {r.backend,
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
  // Older files end earlier: before the resource columns (format version 1 as first written) or
  // before the element column.
  constexpr std::size_t kColumnsWithoutResources = 18, kColumnsWithoutElement = 24;
  const bool olderPrefix =
      (header.size() == kColumnsWithoutResources || header.size() == kColumnsWithoutElement) &&
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
    rows.push_back(std::move(row));
  }

  // Text columns (backend .. params, and the type) align left, numbers right.
  const std::size_t textColumns = anyTyped ? 5 : 4;
  writeAligned(out, rows, [textColumns](std::size_t column) { return column < textColumns; });
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
