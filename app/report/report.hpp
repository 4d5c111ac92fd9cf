#pragma once
// Results as data: JSON (sessions, --format json), CSV and aligned text tables. No Qt, so the
// bench CLI and the desktop app write the same fields in the same order.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"

namespace tilescope::report {

// Format version written into every JSON document; readers refuse newer major versions.
inline constexpr int kFormatVersion = 1;

nlohmann::json toJson(const RunResult& result);
// Throws tilescope::Error(InvalidArgument) naming the missing or mistyped field.
RunResult resultFromJson(const nlohmann::json& json);

nlohmann::json toJson(const DeviceInfo& device);
DeviceInfo deviceFromJson(const nlohmann::json& json);

// The CSV columns, in order: backend, device, kernel, params, M, N, K, median_ms, min_ms,
// max_ms, gflops, rel_error, verified, reps, then h2d_ms, kernel_ms, d2h_ms, unsynced_host_ms,
// then the kernel's resources: registers, shared_bytes, local_bytes, threads_per_block,
// blocks_per_sm, occupancy (empty where not measured). readCsv also reads files that end at
// unsynced_host_ms (written before the resource columns existed).
std::vector<std::string> csvHeader();
std::vector<std::string> csvRow(const RunResult& result);
void writeCsv(std::ostream& out, const std::vector<RunResult>& results);
// Parses what writeCsv wrote; throws tilescope::Error(InvalidArgument) on malformed input.
std::vector<RunResult> readCsv(std::istream& in);

// A human-readable, column-aligned table of the same fields.
void writeTable(std::ostream& out, const std::vector<RunResult>& results);

}  // namespace tilescope::report
