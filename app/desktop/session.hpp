// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A session: the results, the devices they were measured on, the choices that made them and the
// Kernel Editor's source, as one JSON document, so a session measured on a GPU machine opens on a
// laptop without one.
#include <QString>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "choices.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::desktop {

inline constexpr const char* kSessionFormat = "tilescope-session";
using report::kResultsFormat;
using report::MeasuredDevice;

struct Session {
  std::string created;  // ISO 8601, UTC
  std::vector<MeasuredDevice> devices;
  Choices choices;
  std::vector<RunResult> results;
  std::vector<DeviceCeilings> ceilings;          // the roofline's, one entry per backend and device
  std::optional<UserKernelSource> editorKernel;  // the Kernel Editor's kernel, when it had one
  // What opening it left out (not saved): one line per skipped entry, naming its JSON path.
  std::vector<std::string> warnings;
};

nlohmann::json toJson(const Session& session);
// Throws Error(InvalidArgument) for a document that is not a TileScope session or has a newer
// version; a malformed result, device or ceiling is skipped and described in `warnings`. A results
// document (tilescope-bench --format json, Export Results) opens as a session whose choices are its
// first result's configuration.
Session sessionFromJson(const nlohmann::json& json);

// Both return false with a message in `error` and change nothing on disk or in memory on failure.
bool saveSession(const QString& path, const Session& session, QString* error);
std::optional<Session> loadSession(const QString& path, QString* error);

// A trace file (tilescope-bench --trace), checked field by field; nullopt with why in `error`.
// (The Mapping drawn from it checks that its parts fit together.)
std::optional<KernelTrace> loadTrace(const QString& path, QString* error);

// Results alone, as CSV (the report columns) or as JSON {format, version, devices, results}.
bool exportResultsCsv(const QString& path, const std::vector<RunResult>& results, QString* error);
bool exportResultsJson(const QString& path, const report::ResultsDocument& document,
                       QString* error);

// Adds the devices of `extra` that `devices` does not list yet (same backend and name).
void mergeDevices(std::vector<MeasuredDevice>& devices, const std::vector<MeasuredDevice>& extra);

// Keeps `measured` in `ceilings`, in place of an earlier measurement of the same backend and
// device.
void rememberCeilings(std::vector<DeviceCeilings>& ceilings, const DeviceCeilings& measured);

}  // namespace tilescope::desktop
