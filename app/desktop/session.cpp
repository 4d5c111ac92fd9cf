// SPDX-License-Identifier: GPL-3.0-or-later
#include "session.hpp"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <algorithm>
#include <sstream>

#include "qt_files.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::desktop {
namespace {

nlohmann::json resultsToJson(const std::vector<RunResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const RunResult& result : results) list.push_back(report::toJson(result));
  return list;
}

bool writeText(const QString& path, const std::string& text, QString* error) {
  return writeFileAtomically(path, QByteArray::fromStdString(text), error);
}

}  // namespace

nlohmann::json toJson(const Session& session) {
  nlohmann::json json = {
      {"format", kSessionFormat},
      {"version", report::kFormatVersion},
      {"created", session.created},
      {"devices", report::devicesToJson(session.devices)},
      {"choices", toJson(session.choices)},
      {"results", resultsToJson(session.results)},
      {"ceilings", report::ceilingsToJson(session.ceilings)},
  };
  if (const auto& kernel = session.editorKernel)
    json["kernel_editor"] = {{"name", kernel->name}, {"source", kernel->source}};
  return json;
}

Session sessionFromJson(const nlohmann::json& json) {
  // Compared as JSON: a "format" of another type (a number, null, a list) is not this format.
  if (json.is_object() && json.contains("format") && json["format"] == kResultsFormat) {
    report::ResultsDocument document = report::resultsDocumentFromJson(json);
    Session session;
    session.devices = std::move(document.devices);
    session.results = std::move(document.results);
    session.ceilings = std::move(document.ceilings);
    session.warnings = std::move(document.warnings);
    // No choices were saved: start from the first result's configuration.
    if (!session.results.empty()) {
      const RunResult& first = session.results.front();
      session.choices.backend = first.backend;
      session.choices.kernel = first.kernel.kernel;
      session.choices.params = first.kernel.params;
      session.choices.shape = first.shape;
      session.choices.element = first.element;
      session.choices.square = first.shape.m == first.shape.n && first.shape.n == first.shape.k;
    }
    return session;
  }
  report::checkHeader(json, kSessionFormat);
  Session session;
  if (const auto created = json.find("created"); created != json.end() && created->is_string()) {
    session.created = created->get<std::string>();
  }
  if (json.contains("devices"))
    session.devices = report::devicesFromJson(json["devices"], "devices", &session.warnings);
  if (const auto choices = json.find("choices"); choices != json.end()) {
    session.choices = choicesFromJson(*choices);
    for (const std::string& repaired : repairChoices(session.choices))
      session.warnings.push_back("choices." + repaired);
  }
  session.results =
      report::resultsFromJson(io::requiredField(json, "results", ""), "results", &session.warnings);
  // Sessions saved before the roofline have no ceilings.
  if (json.contains("ceilings"))
    session.ceilings = report::ceilingsFromJson(json["ceilings"], "ceilings", &session.warnings);
  // The Kernel Editor's source; a malformed one is left out and said, the rest opens.
  if (const nlohmann::json* kernel = io::optionalField(json, "kernel_editor")) {
    try {
      io::objectAt(*kernel, "kernel_editor");
      session.editorKernel = UserKernelSource{io::stringField(*kernel, "name", "kernel_editor"),
                                              io::stringField(*kernel, "source", "kernel_editor")};
    } catch (const Error& error) {
      session.warnings.push_back(std::string(error.what()) + "; the editor's kernel is left out");
    }
  }
  return session;
}

bool saveSession(const QString& path, const Session& session, QString* error) {
  return writeText(path, toJson(session).dump(2) + "\n", error);
}

std::optional<Session> loadSession(const QString& path, QString* error) {
  QByteArray bytes;
  if (!readWholeFile(path, io::kMaxSessionBytes, &bytes, error)) return std::nullopt;
  const QString where = QDir::toNativeSeparators(path);
  try {
    return sessionFromJson(
        io::parseJson(std::string_view(bytes.constData(), std::size_t(bytes.size())), "the file"));
  } catch (const Error& formatError) {
    if (error) *error = QStringLiteral("%1: %2").arg(where, QString::fromUtf8(formatError.what()));
  }
  return std::nullopt;
}

std::optional<KernelTrace> loadTrace(const QString& path, QString* error) {
  QByteArray bytes;
  if (!readWholeFile(path, io::kMaxTraceFileBytes, &bytes, error)) return std::nullopt;
  try {
    return report::traceDocumentFromJson(
        io::parseJson(std::string_view(bytes.constData(), std::size_t(bytes.size())), "the file"));
  } catch (const Error& formatError) {
    if (error)
      *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path),
                                            QString::fromUtf8(formatError.what()));
  }
  return std::nullopt;
}

bool exportResultsCsv(const QString& path, const std::vector<RunResult>& results, QString* error) {
  std::ostringstream csv;
  report::writeCsv(csv, results);
  return writeText(path, csv.str(), error);
}

bool exportResultsJson(const QString& path, const report::ResultsDocument& document,
                       QString* error) {
  const nlohmann::json json =
      report::toJson(document, QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString(),
                     "tilescope " + QCoreApplication::applicationVersion().toStdString());
  return writeText(path, json.dump(2) + "\n", error);
}

void mergeDevices(std::vector<MeasuredDevice>& devices, const std::vector<MeasuredDevice>& extra) {
  for (const MeasuredDevice& candidate : extra) {
    bool known = false;
    for (const MeasuredDevice& device : devices) {
      known =
          known || (device.backend == candidate.backend && device.info.name == candidate.info.name);
    }
    if (!known) devices.push_back(candidate);
  }
}

void rememberCeilings(std::vector<DeviceCeilings>& ceilings, const DeviceCeilings& measured) {
  const auto earlier =
      std::find_if(ceilings.begin(), ceilings.end(), [&](const DeviceCeilings& known) {
        return known.backend == measured.backend && known.device == measured.device;
      });
  if (earlier != ceilings.end()) {
    *earlier = measured;
  } else {
    ceilings.push_back(measured);
  }
}

}  // namespace tilescope::desktop
