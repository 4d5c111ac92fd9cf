#include "session.hpp"

#include <QDateTime>
#include <QDir>
#include <sstream>

#include "file_io.hpp"
#include "report/report.hpp"

namespace tilescope::app {
namespace {

nlohmann::json devicesToJson(const std::vector<MeasuredDevice>& devices) {
  nlohmann::json list = nlohmann::json::array();
  for (const MeasuredDevice& device : devices) {
    nlohmann::json entry = report::toJson(device.info);
    entry["backend"] = device.backend;
    list.push_back(entry);
  }
  return list;
}

std::vector<MeasuredDevice> devicesFromJson(const nlohmann::json& list) {
  if (!list.is_array()) throw Error(ErrorKind::InvalidArgument, "'devices' is not a list");
  std::vector<MeasuredDevice> devices;
  for (const nlohmann::json& entry : list) {
    if (!entry.is_object() || !entry.contains("backend") || !entry["backend"].is_string()) {
      throw Error(ErrorKind::InvalidArgument, "a device has no backend");
    }
    devices.push_back({entry["backend"].get<std::string>(), report::deviceFromJson(entry)});
  }
  return devices;
}

nlohmann::json resultsToJson(const std::vector<RunResult>& results) {
  nlohmann::json list = nlohmann::json::array();
  for (const RunResult& result : results) list.push_back(report::toJson(result));
  return list;
}

// Checks the format tag and version of a TileScope document before anything else is read.
void checkHeader(const nlohmann::json& json, const char* format) {
  const auto tag = json.is_object() ? json.find("format") : json.end();
  if (!json.is_object() || tag == json.end() || *tag != format) {
    throw Error(ErrorKind::InvalidArgument,
                std::string("this is not a TileScope file (no \"format\": \"") + format + "\")");
  }
  const auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer()) {
    throw Error(ErrorKind::InvalidArgument, "the file has no format version");
  }
  if (version->get<int>() > report::kFormatVersion) {
    throw Error(ErrorKind::InvalidArgument,
                "the file was written by a newer TileScope (format version " +
                    std::to_string(version->get<int>()) + ")");
  }
}

bool writeText(const QString& path, const std::string& text, QString* error) {
  return writeFileAtomically(path, QByteArray::fromStdString(text), error);
}

}  // namespace

nlohmann::json toJson(const Session& session) {
  return {
      {"format", kSessionFormat},           {"version", report::kFormatVersion},
      {"created", session.created},         {"devices", devicesToJson(session.devices)},
      {"choices", toJson(session.choices)}, {"results", resultsToJson(session.results)},
  };
}

Session sessionFromJson(const nlohmann::json& json) {
  checkHeader(json, kSessionFormat);
  Session session;
  if (const auto created = json.find("created"); created != json.end() && created->is_string()) {
    session.created = created->get<std::string>();
  }
  if (const auto devices = json.find("devices"); devices != json.end()) {
    session.devices = devicesFromJson(*devices);
  }
  if (const auto choices = json.find("choices"); choices != json.end()) {
    session.choices = choicesFromJson(*choices);
  }
  const auto results = json.find("results");
  if (results == json.end() || !results->is_array()) {
    throw Error(ErrorKind::InvalidArgument, "the session has no list of results");
  }
  for (const nlohmann::json& result : *results) {
    session.results.push_back(report::resultFromJson(result));
  }
  return session;
}

bool saveSession(const QString& path, const Session& session, QString* error) {
  return writeText(path, toJson(session).dump(2) + "\n", error);
}

std::optional<Session> loadSession(const QString& path, QString* error) {
  QByteArray bytes;
  if (!readWholeFile(path, &bytes, error)) return std::nullopt;
  const QString where = QDir::toNativeSeparators(path);
  try {
    return sessionFromJson(nlohmann::json::parse(bytes.toStdString()));
  } catch (const nlohmann::json::parse_error& parseError) {
    if (error) {
      *error = QStringLiteral("%1 is not valid JSON (byte %2)")
                   .arg(where)
                   .arg(qulonglong(parseError.byte));
    }
  } catch (const nlohmann::json::exception& jsonError) {
    if (error) *error = QStringLiteral("%1: %2").arg(where, QString::fromUtf8(jsonError.what()));
  } catch (const Error& formatError) {
    if (error) *error = QStringLiteral("%1: %2").arg(where, QString::fromUtf8(formatError.what()));
  }
  return std::nullopt;
}

bool exportResultsCsv(const QString& path, const std::vector<RunResult>& results, QString* error) {
  std::ostringstream csv;
  report::writeCsv(csv, results);
  return writeText(path, csv.str(), error);
}

bool exportResultsJson(const QString& path, const std::vector<MeasuredDevice>& devices,
                       const std::vector<RunResult>& results, QString* error) {
  const nlohmann::json json = {
      {"format", kResultsFormat},
      {"version", report::kFormatVersion},
      {"created", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()},
      {"devices", devicesToJson(devices)},
      {"results", resultsToJson(results)},
  };
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

}  // namespace tilescope::app
