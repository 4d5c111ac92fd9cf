// SPDX-License-Identifier: GPL-3.0-or-later
#include "session_controller.hpp"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include "samples.hpp"
#include "settings.hpp"

namespace tilescope::desktop {
namespace {

// "H200 sample" for a shipped sample, "mine (NVIDIA H100)" for another session: the marker the
// overlay's series carry, naming the session and its device.
QString overlayLabel(const QString& path, const Session& session) {
  QString device =
      session.results.empty() ? QString() : QString::fromStdString(session.results.front().device);
  if (isShippedSample(path)) {
    device.remove(QStringLiteral("NVIDIA "));
    return QObject::tr("%1 sample").arg(device.isEmpty() ? QObject::tr("shipped") : device);
  }
  const QString name = QFileInfo(path).completeBaseName();
  return device.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, device);
}

}  // namespace

SessionController::SessionController(ResultsModel& model, const RunController& runs,
                                     QObject* parent)
    : QObject(parent), model_(model), runs_(runs) {
  // What joins the model (a result, a device's ceilings) is unsaved until the session is saved.
  connect(&model_, &QAbstractItemModel::rowsInserted, this, [this] { setModified(true); });
  connect(&model_, &ResultsModel::ceilingsChanged, this, [this] { setModified(true); });
}

Session SessionController::current() const {
  Session session;
  session.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  session.devices = model_.devices();
  std::vector<MeasuredDevice> found;
  for (const BackendSummary& backend : runs_.backends()) {
    for (const DeviceInfo& device : backend.devices) found.push_back({backend.id, device});
  }
  mergeDevices(session.devices, found);
  session.results = model_.results();
  session.ceilings = model_.ceilings();
  if (widgetState_) widgetState_(session);
  return session;
}

bool SessionController::open(const QString& path, QString* error) {
  std::optional<Session> session = loadSessionOrSample(path, error);
  if (!session) return false;
  warnings_.clear();
  for (const std::string& warning : session->warnings)
    warnings_ << QStringLiteral("%1: %2").arg(path, QString::fromStdString(warning));
  if (!warnings_.isEmpty()) {
    emit problem(warnings_.size() == 1 ? warnings_.front()
                                       : tr("%1 (and %2 more entries skipped)")
                                             .arg(warnings_.front())
                                             .arg(warnings_.size() - 1));
  }
  model_.setDevices(session->devices);
  model_.setResults(std::move(session->results));
  model_.setCeilings(std::move(session->ceilings));
  emit opened(session->choices, session->editorKernel);
  setIdentity(QFileInfo(path).absoluteFilePath(), isShippedSample(path));
  emit replaced();
  if (remembersSettings_) addRecentFile(path_);
  if (remembersSettings_ && !path.startsWith(QLatin1Char(':')))
    rememberFolder(Folder::Sessions, path_);
  setModified(false);
  emit status(tr("Opened %1: %2 results").arg(path).arg(model_.rowCount()), 5000);
  return true;
}

bool SessionController::save(const QString& path, QString* error) {
  if (isShippedSample(path)) {
    if (error) {
      *error = tr("%1 is a sample shipped with TileScope and stays as measured: save under "
                  "another name")
                   .arg(QDir::toNativeSeparators(path));
    }
    return false;
  }
  if (!saveSession(path, current(), error)) return false;
  setIdentity(QFileInfo(path).absoluteFilePath(), false);
  if (remembersSettings_) addRecentFile(path_);
  setModified(false);
  emit status(tr("Saved %1").arg(path), 5000);
  return true;
}

bool SessionController::saveInteractively(bool askForName) {
  QString path = path_;
  // A read-only sample is saved as a new file, never over itself.
  if (askForName || path.isEmpty() || readOnly_) {
    const QString folder = lastFolder(Folder::Sessions);
    const QString suggested = path.isEmpty() ? folder + QStringLiteral("/tilescope-session.json")
                              : readOnly_ ? folder + QLatin1Char('/') + QFileInfo(path).fileName()
                                          : path;
    path = savePathPrompt_ ? savePathPrompt_(suggested) : QString();
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
  }
  QString error;
  if (!save(path, &error)) {
    emit fileError(error);
    return false;
  }
  if (remembersSettings_) rememberFolder(Folder::Sessions, path);
  return true;
}

void SessionController::openInteractively(const QString& path) {
  if (!settleUnsaved(tr("opening %1").arg(QFileInfo(path).fileName()))) return;
  QString error;
  if (!open(path, &error)) {
    if (!QFileInfo::exists(path) && remembersSettings_) removeRecentFile(path);
    emit fileError(error);
  }
}

bool SessionController::settleUnsaved(const QString& what) {
  if (!modified_) return true;
  switch (unsavedPrompt_ ? unsavedPrompt_(what) : UnsavedAnswer::Cancel) {
    case UnsavedAnswer::Save:
      return saveInteractively(false);
    case UnsavedAnswer::Discard:
      return true;
    case UnsavedAnswer::Cancel:
      return false;
  }
  return false;
}

bool SessionController::exportResults(const QString& path, QString* error) const {
  if (QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0) {
    return exportResultsJson(path, {current().devices, model_.results(), model_.ceilings()}, error);
  }
  return exportResultsCsv(path, model_.results(), error);
}

bool SessionController::openOverlay(const QString& path, QString* error) {
  std::optional<Session> session = loadSessionOrSample(path, error);
  if (!session) return false;
  const QString label = overlayLabel(path, *session);
  emit overlayOpened(label, session->results, session->ceilings);
  emit status(
      tr("Laid %1 results of %2 over the charts, marked \u201c%3\u201d (File > Remove Overlay)")
          .arg(session->results.size())
          .arg(QFileInfo(path).fileName(), label),
      8000);
  return true;
}

void SessionController::startFresh() {
  model_.clear();
  setIdentity({}, false);
  emit replaced();
  emit startedFresh();
  setModified(false);
}

void SessionController::setModified(bool modified) {
  if (modified_ == modified) return;
  modified_ = modified;
  emit modifiedChanged(modified);
}

QString SessionController::displayName() const {
  QString name = path_.isEmpty() ? tr("Untitled session") : QFileInfo(path_).fileName();
  if (readOnly_) name += tr(" (read-only sample)");
  return name;
}

void SessionController::setIdentity(const QString& path, bool readOnly) {
  path_ = path;
  readOnly_ = readOnly;
  emit identityChanged();
}

}  // namespace tilescope::desktop
