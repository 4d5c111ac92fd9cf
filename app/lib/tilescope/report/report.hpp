// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Results as data: JSON (sessions, --format json), CSV and aligned text tables. No Qt, so the
// bench CLI and the desktop app write the same fields in the same order.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::report {

// Format version written into every JSON document; readers refuse newer major versions.
inline constexpr int kFormatVersion = 1;

// The readers below check every field's type and range (sizes 1..2^31-1, repetitions at least 1,
// finite positive times and rates, known versions) and throw tilescope::Error(InvalidArgument)
// naming the field by its JSON path under `path`: "results[3].m: -256 is not a valid size ...".
// Those that read a list take `warnings`: when given, an entry that fails is left out and its
// problem added there (unless every entry of a non-empty results list fails: that throws); without
// it the first problem throws.

nlohmann::json toJson(const RunResult& result);
RunResult resultFromJson(const nlohmann::json& json, const std::string& path = "result");
std::vector<RunResult> resultsFromJson(const nlohmann::json& json, const std::string& path,
                                       std::vector<std::string>* warnings);

// A run request as the results document spells a result's kernel, params, m, n, k and element,
// plus how to run it: {kernel, params, m, n, k, element, device, fill, seed, reps (or null),
// budget_ms, verify, allow_long_runs}. Written by remote clients, read by tilescope-bench --serve.
nlohmann::json toJson(const RunRequest& request);
// Checks every field as tilescope-bench checks its options (sizes 1..kMaxDimension, reps
// 1..kMaxFixedReps, a budget above 0, a seed from 0); fields other than kernel, m, n and k may be
// left out for their defaults. Throws tilescope::Error(InvalidArgument) naming the field.
RunRequest requestFromJson(const nlohmann::json& json);

nlohmann::json toJson(const DeviceInfo& device);
DeviceInfo deviceFromJson(const nlohmann::json& json, const std::string& path = "device");

// The CSV columns, in order: backend, device, kernel, params, M, N, K, median_ms, min_ms,
// max_ms, gflops, rel_error, verified, reps, then h2d_ms, kernel_ms, d2h_ms, unsynced_host_ms,
// then the kernel's resources: registers, shared_bytes, local_bytes, threads_per_block,
// blocks_per_sm, occupancy (empty where not measured), then element (fp32, tf32, fp16, bf16, e4m3,
// e5m2). readCsv also reads files that end at unsynced_host_ms (written before the resource columns
// existed) or at occupancy (before the element column), as fp32 results.
std::vector<std::string> csvHeader();
std::vector<std::string> csvRow(const RunResult& result);
void writeCsv(std::ostream& out, const std::vector<RunResult>& results);
// Parses what writeCsv wrote; throws tilescope::Error(InvalidArgument) on malformed input.
std::vector<RunResult> readCsv(std::istream& in);

// A results document, as tilescope-bench --format json and the app's "Export Results" write it
// and the app opens like a session: {format: "tilescope-results", version, created, generator,
// devices: [{backend, name, facts}], results: [...]}.
inline constexpr const char* kResultsFormat = "tilescope-results";

struct MeasuredDevice {
  std::string backend;
  DeviceInfo info;
};

struct ResultsDocument {
  std::vector<MeasuredDevice> devices;
  std::vector<RunResult> results;
  // The roofline ceilings measured on the devices (tilescope-bench --ceilings, Measure
  // Ceilings); written only when there are some, and absent from older documents.
  std::vector<DeviceCeilings> ceilings;
  // What reading left out (not written): one line per skipped entry, naming its JSON path.
  std::vector<std::string> warnings = {};
};

nlohmann::json devicesToJson(const std::vector<MeasuredDevice>& devices);
std::vector<MeasuredDevice> devicesFromJson(const nlohmann::json& json,
                                            const std::string& path = "devices",
                                            std::vector<std::string>* warnings = nullptr);

// A list of device ceilings: [{backend, device, compute: [ceiling...], bandwidth: ceiling}], each
// ceiling {name, unit, measured, datasheet (or null), method}.
nlohmann::json ceilingsToJson(const std::vector<DeviceCeilings>& ceilings);
std::vector<DeviceCeilings> ceilingsFromJson(const nlohmann::json& json,
                                             const std::string& path = "ceilings",
                                             std::vector<std::string>* warnings = nullptr);

// Throws tilescope::Error(InvalidArgument) unless `json` is an object tagged `format` with a
// version this build reads.
void checkHeader(const nlohmann::json& json, const std::string& format);

nlohmann::json toJson(const ResultsDocument& document, const std::string& created,
                      const std::string& generator);
// Throws tilescope::Error(InvalidArgument) for a bad header or results list; bad entries of the
// lists are skipped and described in the document's warnings.
ResultsDocument resultsDocumentFromJson(const nlohmann::json& json);

// A user kernel's trace (user_kernel.hpp), as the run server's "trace" reply and a trace file
// carry it: {kernel, source, params, device, m, n, k, grid, block, k_depth, traced_block,
// owner_block, owner_thread, loads_a, loads_b, truncated}, and where the kernel used them
// shared_a and shared_b ({reads, writes}: each thread's words). A list of integers is stored as
// arithmetic runs, so a regular mapping takes a few numbers per row of C: owner_* is [first,
// step, count, ...]; each thread's loads are [row, col, row step, col step, count, ...]. Vector
// accesses add their widths, per thread as runs: load_widths_a and _b, read_widths and
// write_widths in shared_*, and store_width (absent: every access one element wide). element
// (absent: fp32) is the type of A and B; reads_every_k in shared_* (absent: 1) the values of k
// one pass of fragment reads covers.
nlohmann::json toJson(const KernelTrace& trace);
// Checks every field's type and range (the Mapping built from it checks the rest); throws
// tilescope::Error(InvalidArgument) naming the JSON path.
KernelTrace traceFromJson(const nlohmann::json& json, const std::string& path = "trace");

// A trace file, as tilescope-bench --trace writes it and the app opens it: {format:
// "tilescope-trace", version, created, generator, trace}.
inline constexpr const char* kTraceFormat = "tilescope-trace";
nlohmann::json traceDocumentToJson(const KernelTrace& trace, const std::string& created,
                                   const std::string& generator);
KernelTrace traceDocumentFromJson(const nlohmann::json& json);

// A human-readable, column-aligned table of the same fields.
void writeTable(std::ostream& out, const std::vector<RunResult>& results);

// Ceilings, one row each: backend, device, ceiling, unit, measured, datasheet,
// measured/datasheet (empty where the datasheet is unknown), method.
void writeCeilingsCsv(std::ostream& out, const std::vector<DeviceCeilings>& ceilings);
// The same as an aligned table, measured beside the datasheet and their ratio in percent.
void writeCeilingsTable(std::ostream& out, const std::vector<DeviceCeilings>& ceilings);

}  // namespace tilescope::report
