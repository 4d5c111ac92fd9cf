// SPDX-License-Identifier: GPL-3.0-or-later
// A trace as JSON: owners of C, loads and shared-memory words as arithmetic runs, so a trace of
// a regular mapping of 1024 x 1024 fits a few hundred kilobytes.
#include <algorithm>
#include <iterator>
#include <limits>

#include "tilescope/error.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::report {
namespace {

using nlohmann::json;

// [first, step, count, ...]: the longest runs of equal steps, greedily.
json intRuns(const std::vector<int>& values) {
  json out = json::array();
  for (std::size_t i = 0; i < values.size();) {
    const std::int64_t step = i + 1 < values.size() ? std::int64_t(values[i + 1]) - values[i] : 0;
    std::size_t end = i + 1;
    while (end < values.size() && std::int64_t(values[end]) - values[end - 1] == step) ++end;
    out.push_back(values[i]);
    out.push_back(step);
    out.push_back(end - i);
    i = end;
  }
  return out;
}

// [row, col, row step, col step, count, ...] of the loads' first elements.
json cellRuns(const std::vector<TracedLoad>& cells) {
  json out = json::array();
  for (std::size_t i = 0; i < cells.size();) {
    std::int64_t rowStep = 0, colStep = 0;
    if (i + 1 < cells.size()) {
      rowStep = cells[i + 1].row - cells[i].row;
      colStep = cells[i + 1].col - cells[i].col;
    }
    std::size_t end = i + 1;
    while (end < cells.size() && cells[end].row - cells[end - 1].row == rowStep &&
           cells[end].col - cells[end - 1].col == colStep)
      ++end;
    out.insert(out.end(), {json(cells[i].row), json(cells[i].col), json(rowStep), json(colStep),
                           json(end - i)});
    i = end;
  }
  return out;
}

std::int64_t wholeNumber(const json& value, const std::string& at) {
  if (!value.is_number_integer())
    io::refuseAt(at, io::shownValue(value) + " is not a whole number");
  return value.get<std::int64_t>();
}

// Expands runs, refusing more than `limit` values and values outside [low, high].
std::vector<int> intsFromRuns(const json& runs, const std::string& at, std::size_t limit,
                              std::int64_t low, std::int64_t high) {
  io::arrayAt(runs, at);
  if (runs.size() % 3 != 0) io::refuseAt(at, "runs come as [first, step, count] triples");
  std::vector<int> values;
  for (std::size_t r = 0; r < runs.size(); r += 3) {
    const std::string here = io::elementPath(at, r);
    const std::int64_t first = wholeNumber(runs[r], here);
    const std::int64_t step = wholeNumber(runs[r + 1], here);
    const std::int64_t count = wholeNumber(runs[r + 2], here);
    if (count < 1 || std::size_t(count) > limit - values.size())
      io::refuseAt(here, "a run of " + std::to_string(count) + " values: more than the " +
                             std::to_string(limit) + " there are");
    // Checked before the last value is computed, which could overflow otherwise.
    const std::int64_t span = high - low;
    if (first < low || first > high || (count > 1 && (step > span || step < -span)) ||
        first + step * (count - 1) < low || first + step * (count - 1) > high)
      io::refuseAt(here, "a value outside " + std::to_string(low) + ".." + std::to_string(high));
    for (std::int64_t n = 0; n < count; ++n) values.push_back(int(first + step * n));
  }
  return values;
}

std::vector<TracedLoad> cellsFromRuns(const json& runs, const std::string& at, std::size_t limit) {
  io::arrayAt(runs, at);
  if (runs.size() % 5 != 0) io::refuseAt(at, "runs come as [row, col, row step, col step, count]");
  std::vector<TracedLoad> cells;
  const std::int64_t bound = std::numeric_limits<std::int32_t>::max();
  for (std::size_t r = 0; r < runs.size(); r += 5) {
    const std::string here = io::elementPath(at, r);
    const std::int64_t row = wholeNumber(runs[r], here), col = wholeNumber(runs[r + 1], here);
    const std::int64_t rowStep = wholeNumber(runs[r + 2], here);
    const std::int64_t colStep = wholeNumber(runs[r + 3], here);
    const std::int64_t count = wholeNumber(runs[r + 4], here);
    if (count < 1 || std::size_t(count) > limit - cells.size())
      io::refuseAt(here, "a run of " + std::to_string(count) + " loads: more than the trace's " +
                             std::to_string(limit) + " left");
    // Each bounded before the last index is computed, which could overflow otherwise.
    for (const auto& [first, step] : {std::pair(row, rowStep), std::pair(col, colStep)}) {
      const auto outside = [&](std::int64_t v) { return v < -bound || v > bound; };
      if (outside(first) || outside(step) || outside(first + step * (count - 1)))
        io::refuseAt(here, "an index outside a matrix's range");
    }
    for (std::int64_t n = 0; n < count; ++n)
      cells.push_back({row + rowStep * n, col + colStep * n});
  }
  return cells;
}

json dimJson(Dim2 d) {
  return json::array({d.x, d.y});
}

Dim2 dimField(const json& object, const char* name, const std::string& path, int low, int high) {
  const std::string at = io::memberPath(path, name);
  const json& value = io::arrayAt(io::requiredField(object, name, path), at);
  if (value.size() != 2) io::refuseAt(at, io::shownValue(value) + " is not [x, y]");
  Dim2 d;
  for (const int axis : {0, 1}) {
    const std::int64_t v = wholeNumber(value[std::size_t(axis)], io::elementPath(at, axis));
    if (v < low || v > high)
      io::refuseAt(at, io::shownValue(value) + " is not within " + std::to_string(low) + ".." +
                           std::to_string(high));
    (axis == 0 ? d.x : d.y) = int(v);
  }
  return d;
}

// The most accesses a trace may hold, every thread's loads and shared words of both operands:
// what the CUDA backend records at most.
constexpr std::size_t kMaxTracedAccesses = std::size_t(1) << 24;
// Shared-memory word indices: an SM has at most 228 KiB.
constexpr std::int64_t kMaxSharedWord = (std::int64_t(228) << 10) / 4 - 1;

// Each access's width, per thread, as runs; null where every access is one element (or word)
// wide, as in every trace but those of vector accessors.
template <typename Access>
json widthsJson(const std::vector<std::vector<Access>>& perThread) {
  bool wide = false;
  json out = json::array();
  for (const auto& accesses : perThread) {
    std::vector<int> widths;
    for (const Access& access : accesses) {
      widths.push_back(access.width);
      wide = wide || access.width != 1;
    }
    out.push_back(intRuns(widths));
  }
  return wide ? out : json(nullptr);
}

// Sets the width of each access from `name`, runs per thread matching `perThread`; absent
// leaves every width 1. Loads reach 16 elements (16 bytes of FP8), words 4.
template <typename Access>
void widthsFromJson(const json& object, const char* name, const std::string& path,
                    std::vector<std::vector<Access>>& perThread, int widest) {
  const json* field = io::optionalField(object, name);
  if (!field) return;
  const std::string at = io::memberPath(path, name);
  io::arrayAt(*field, at);
  if (field->size() != perThread.size())
    io::refuseAt(at, "lists " + std::to_string(field->size()) + " threads' widths, the block has " +
                         std::to_string(perThread.size()));
  for (std::size_t t = 0; t < perThread.size(); ++t) {
    const std::string here = io::elementPath(at, t);
    const std::vector<int> widths = intsFromRuns((*field)[t], here, perThread[t].size(), 1, widest);
    if (widths.size() != perThread[t].size())
      io::refuseAt(here, std::to_string(widths.size()) + " widths for " +
                             std::to_string(perThread[t].size()) + " accesses");
    for (std::size_t n = 0; n < widths.size(); ++n) {
      if (!tracedWidth(widths[n]))
        io::refuseAt(here, widest == 16 ? "a width other than 1, 2, 4, 8 or 16"
                                        : "a width other than 1, 2 or 4");
      perThread[t][n].width = widths[n];
    }
  }
}

json wordRuns(const std::vector<TracedWord>& accesses) {
  std::vector<int> words;
  for (const TracedWord& access : accesses) words.push_back(access.word);
  return intRuns(words);
}

json sharedJson(const SharedTrace& tile) {
  json reads = json::array(), writes = json::array();
  for (const auto& words : tile.reads) reads.push_back(wordRuns(words));
  for (const auto& words : tile.writes) writes.push_back(wordRuns(words));
  json out = {{"reads", std::move(reads)}, {"writes", std::move(writes)}};
  if (json widths = widthsJson(tile.reads); !widths.is_null()) out["read_widths"] = widths;
  if (json widths = widthsJson(tile.writes); !widths.is_null()) out["write_widths"] = widths;
  if (tile.readsEveryK != 1) out["reads_every_k"] = tile.readsEveryK;
  return out;
}

// A tile's reads and writes, per thread; absent (a trace with no shared words) is empty.
SharedTrace sharedFromJson(const json& object, const char* name, const std::string& path,
                           int threads, std::size_t& total) {
  SharedTrace tile;
  const json* field = io::optionalField(object, name);
  if (!field) return tile;
  const std::string at = io::memberPath(path, name);
  io::objectAt(*field, at);
  for (const auto& [member, words] :
       {std::pair("reads", &tile.reads), std::pair("writes", &tile.writes)}) {
    const std::string here = io::memberPath(at, member);
    const json& list = io::arrayAt(io::requiredField(*field, member, at), here);
    if (list.size() != std::size_t(threads))
      io::refuseAt(here, "lists " + std::to_string(list.size()) +
                             " threads' words, the block has " + std::to_string(threads));
    for (std::size_t t = 0; t < list.size(); ++t) {
      words->emplace_back();
      for (const int word : intsFromRuns(list[t], io::elementPath(here, t),
                                         kMaxTracedAccesses - total, 0, kMaxSharedWord))
        words->back().push_back({word, 1});
      total += words->back().size();
    }
  }
  widthsFromJson(*field, "read_widths", at, tile.reads, 4);
  widthsFromJson(*field, "write_widths", at, tile.writes, 4);
  if (io::optionalField(*field, "reads_every_k"))
    tile.readsEveryK = int(io::integerField(*field, "reads_every_k", at, 1,
                                            std::numeric_limits<int>::max(), "values of k"));
  return tile;
}

// The sanitizer's findings (a trace on the CPU): its kinds by name.
constexpr std::pair<SanitizerFinding::Kind, const char*> kFindingKinds[] = {
    {SanitizerFinding::Kind::OutOfBounds, "out_of_bounds"},
    {SanitizerFinding::Kind::Race, "race"},
    {SanitizerFinding::Kind::DivergentBarrier, "divergent_barrier"},
    {SanitizerFinding::Kind::UnwrittenRead, "unwritten_read"}};
constexpr std::size_t kMaxFindings = 64;
constexpr std::size_t kMaxFindingBytes = 4096;

json sanitizerJson(const SanitizerReport& report) {
  json findings = json::array();
  for (const SanitizerFinding& finding : report.findings) {
    const auto* kind = std::find_if(std::begin(kFindingKinds), std::end(kFindingKinds),
                                    [&](const auto& k) { return k.first == finding.kind; });
    findings.push_back({{"kind", kind->second},
                        {"line", finding.line},
                        {"block", dimJson(finding.block)},
                        {"thread", dimJson(finding.thread)},
                        {"message", finding.message}});
  }
  return {{"total", report.total}, {"findings", std::move(findings)}};
}

SanitizerReport sanitizerFromJson(const json& object, const std::string& path, Dim2 grid,
                                  Dim2 block) {
  io::objectAt(object, path);
  SanitizerReport report;
  const std::string at = io::memberPath(path, "findings");
  const json& list = io::arrayAt(io::requiredField(object, "findings", path), at);
  if (list.size() > kMaxFindings)
    io::refuseAt(at, std::to_string(list.size()) + " findings: at most " +
                         std::to_string(kMaxFindings) + " are kept");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string here = io::elementPath(at, i);
    const json& item = io::objectAt(list[i], here);
    SanitizerFinding finding;
    const std::string kind = io::stringField(item, "kind", here);
    const auto* known = std::find_if(std::begin(kFindingKinds), std::end(kFindingKinds),
                                     [&](const auto& k) { return kind == k.second; });
    if (known == std::end(kFindingKinds))
      io::refuseAt(io::memberPath(here, "kind"),
                   io::shownValue(item.at("kind")) + " is no kind of finding this TileScope knows");
    finding.kind = known->first;
    finding.line =
        int(io::integerField(item, "line", here, 0, std::numeric_limits<int>::max(), "line"));
    finding.block = dimField(item, "block", here, 0, std::numeric_limits<int>::max());
    if (finding.block.x >= grid.x || finding.block.y >= grid.y)
      io::refuseAt(io::memberPath(here, "block"), "a block outside the grid");
    finding.thread = dimField(item, "thread", here, 0, 1023);
    if (finding.thread.x >= block.x || finding.thread.y >= block.y)
      io::refuseAt(io::memberPath(here, "thread"), "a thread outside the block");
    finding.message = io::stringField(item, "message", here);
    if (finding.message.size() > kMaxFindingBytes)
      io::refuseAt(io::memberPath(here, "message"), "longer than a finding's message may be");
    report.findings.push_back(std::move(finding));
  }
  report.total = int(io::integerField(object, "total", path, std::int64_t(list.size()),
                                      std::numeric_limits<int>::max(), "number of findings"));
  return report;
}
}  // namespace

nlohmann::json toJson(const KernelTrace& trace) {
  json params = json::object();
  for (const auto& [name, value] : trace.kernel.params) params[name] = value;
  json loadsA = json::array(), loadsB = json::array();
  for (const auto& loads : trace.loadsA) loadsA.push_back(cellRuns(loads));
  for (const auto& loads : trace.loadsB) loadsB.push_back(cellRuns(loads));
  json out = {{"kernel", trace.kernel.kernel},
              {"source", trace.kernel.source ? json(*trace.kernel.source) : json(nullptr)},
              {"params", std::move(params)},
              {"device", trace.device},
              {"m", trace.shape.m},
              {"n", trace.shape.n},
              {"k", trace.shape.k},
              {"element", toString(trace.element)},
              {"grid", dimJson(trace.grid)},
              {"block", dimJson(trace.block)},
              {"k_depth", trace.kDepth},
              {"traced_block", dimJson(trace.tracedBlock)},
              {"owner_block", intRuns(trace.ownerBlock)},
              {"owner_thread", intRuns(trace.ownerThread)},
              {"loads_a", std::move(loadsA)},
              {"loads_b", std::move(loadsB)},
              {"truncated", trace.truncated}};
  // Only a kernel that used the vector accessors has widths (older traces have none).
  if (json widths = widthsJson(trace.loadsA); !widths.is_null()) out["load_widths_a"] = widths;
  if (json widths = widthsJson(trace.loadsB); !widths.is_null()) out["load_widths_b"] = widths;
  if (trace.storeWidth != 1) out["store_width"] = trace.storeWidth;
  // Traces written before stores were recorded have none.
  if (!trace.stores.empty()) {
    json stores = json::array();
    for (const auto& perThread : trace.stores) stores.push_back(cellRuns(perThread));
    out["stores_c"] = std::move(stores);
    if (json widths = widthsJson(trace.stores); !widths.is_null()) out["store_widths"] = widths;
  }
  // Only a persistent kernel or one in clusters has these (older traces have none).
  if (trace.launchGrid) out["launch_grid"] = dimJson(*trace.launchGrid);
  if (trace.cluster.x != 1 || trace.cluster.y != 1) out["cluster"] = dimJson(trace.cluster);
  // Only a kernel that used the shared-memory accessors has them (older traces have none).
  if (!trace.sharedA.empty()) out["shared_a"] = sharedJson(trace.sharedA);
  if (!trace.sharedB.empty()) out["shared_b"] = sharedJson(trace.sharedB);
  // Only a trace in which the CPU backend's sanitizer found something has them.
  if (!trace.sanitizer.clean()) out["sanitizer"] = sanitizerJson(trace.sanitizer);
  return out;
}

KernelTrace traceFromJson(const nlohmann::json& json, const std::string& path) {
  io::objectAt(json, path);
  KernelTrace trace;
  trace.kernel.kernel = io::stringField(json, "kernel", path);
  if (const auto* source = io::optionalField(json, "source")) {
    trace.kernel.source = io::stringField(json, "source", path);
    if (source->get<std::string>().size() > kMaxUserSourceBytes)
      io::refuseAt(io::memberPath(path, "source"), "longer than a kernel's source may be");
  }
  const std::string paramsPath = io::memberPath(path, "params");
  const nlohmann::json& params = io::objectAt(io::requiredField(json, "params", path), paramsPath);
  for (const auto& [name, value] : params.items())
    trace.kernel.params[name] =
        int(io::integerField(params, name.c_str(), paramsPath, std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::max(), "parameter value"));
  trace.device = io::stringField(json, "device", path);
  trace.shape = {io::sizeField(json, "m", path), io::sizeField(json, "n", path),
                 io::sizeField(json, "k", path)};
  // Traces written before element types came to the editor are fp32.
  if (io::optionalField(json, "element"))
    trace.element = io::elementTypeField(json, "element", path);
  const std::int64_t elements = trace.shape.m * trace.shape.n;
  if (elements > kMaxTracedElements)
    io::refuseAt(path, "a trace of " + std::to_string(elements) + " elements of C: at most " +
                           std::to_string(kMaxTracedElements) + " are traced");
  trace.grid = dimField(json, "grid", path, 1, std::numeric_limits<int>::max());
  trace.block = dimField(json, "block", path, 1, 1024);
  if (io::optionalField(json, "launch_grid"))
    trace.launchGrid = dimField(json, "launch_grid", path, 1, std::numeric_limits<int>::max());
  if (io::optionalField(json, "cluster")) trace.cluster = dimField(json, "cluster", path, 1, 8);
  trace.kDepth = int(
      io::integerField(json, "k_depth", path, 1, std::numeric_limits<int>::max(), "k-step depth"));
  trace.tracedBlock = dimField(json, "traced_block", path, 0, std::numeric_limits<int>::max());
  const std::int64_t blocks = std::int64_t(trace.grid.x) * trace.grid.y;
  const int threads = trace.block.x * trace.block.y;
  trace.ownerBlock =
      intsFromRuns(io::requiredField(json, "owner_block", path),
                   io::memberPath(path, "owner_block"), std::size_t(elements), -1, blocks - 1);
  trace.ownerThread =
      intsFromRuns(io::requiredField(json, "owner_thread", path),
                   io::memberPath(path, "owner_thread"), std::size_t(elements), -1, threads - 1);
  // Each thread's cells, as runs; all of them together no more than the CUDA backend records.
  std::size_t total = 0;
  const auto perThread = [&](const char* name, const char* what,
                             std::vector<std::vector<TracedLoad>>& cells) {
    const std::string at = io::memberPath(path, name);
    const nlohmann::json& list = io::arrayAt(io::requiredField(json, name, path), at);
    if (list.size() != std::size_t(threads))
      io::refuseAt(at, "lists " + std::to_string(list.size()) + " threads' " + what +
                           ", the block has " + std::to_string(threads));
    for (std::size_t t = 0; t < list.size(); ++t) {
      cells.push_back(cellsFromRuns(list[t], io::elementPath(at, t), kMaxTracedAccesses - total));
      total += cells.back().size();
    }
  };
  perThread("loads_a", "loads", trace.loadsA);
  perThread("loads_b", "loads", trace.loadsB);
  // Traces written before stores were recorded have none.
  if (io::optionalField(json, "stores_c")) perThread("stores_c", "stores", trace.stores);
  widthsFromJson(json, "load_widths_a", path, trace.loadsA, 16);
  widthsFromJson(json, "load_widths_b", path, trace.loadsB, 16);
  widthsFromJson(json, "store_widths", path, trace.stores, 4);
  if (io::optionalField(json, "store_width")) {
    trace.storeWidth = int(io::integerField(json, "store_width", path, 1, 4, "store width"));
    if (!tracedWidth(trace.storeWidth))
      io::refuseAt(io::memberPath(path, "store_width"), "a width other than 1, 2 or 4");
  }
  trace.sharedA = sharedFromJson(json, "shared_a", path, threads, total);
  trace.sharedB = sharedFromJson(json, "shared_b", path, threads, total);
  trace.truncated = io::booleanField(json, "truncated", path);
  if (const nlohmann::json* found = io::optionalField(json, "sanitizer"))
    trace.sanitizer = sanitizerFromJson(*found, io::memberPath(path, "sanitizer"),
                                        trace.launchGrid.value_or(trace.grid), trace.block);
  return trace;
}

nlohmann::json traceDocumentToJson(const KernelTrace& trace, const std::string& created,
                                   const std::string& generator) {
  return {{"format", kTraceFormat},
          {"version", kFormatVersion},
          {"created", created},
          {"generator", generator},
          {"trace", toJson(trace)}};
}

KernelTrace traceDocumentFromJson(const nlohmann::json& json) {
  checkHeader(json, kTraceFormat);
  return traceFromJson(io::requiredField(json, "trace", ""), "trace");
}

}  // namespace tilescope::report
