// SPDX-License-Identifier: GPL-3.0-or-later
// Results and ceilings as CSV (written and read back) and as aligned text tables.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <istream>
#include <ostream>
#include <system_error>

#include "tilescope/counter_model.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/report/report_shared.hpp"

namespace tilescope::report {

namespace {

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
      row.error("element", "'" + row.text("element") + "' is not " + elementTypeNames());
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
