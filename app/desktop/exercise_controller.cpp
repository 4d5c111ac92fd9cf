// SPDX-License-Identifier: GPL-3.0-or-later
#include "exercise_controller.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>

#include "qt_files.hpp"
#include "settings.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"

namespace tilescope::desktop {
namespace {

const std::string kFoldersKey = "exerciseFolders";
const std::string kCurrentKey = "exercise";
const QString kSourceFile = QStringLiteral("source.cu");
const QString kProgressFile = QStringLiteral("progress.json");
const QString kReportFile = QStringLiteral("last-check.json");
constexpr std::size_t kMaxProgressBytes = std::size_t(1) << 20;

// The whole file, or nullopt where there is none; throws Error naming the file.
std::optional<std::string> readIfThere(const QString& path, std::size_t maxBytes,
                                       const std::string& what) {
  return io::readFile(localPath(path), maxBytes, what, /*missingIsEmpty=*/true);
}

const char* stateName(ExerciseState state) {
  switch (state) {
    case ExerciseState::NotStarted:
      return "not started";
    case ExerciseState::Failing:
      return "failing";
    case ExerciseState::Passed:
      return "passed";
  }
  return "not started";
}

std::optional<ExerciseState> stateFromName(const std::string& name) {
  for (ExerciseState state :
       {ExerciseState::NotStarted, ExerciseState::Failing, ExerciseState::Passed})
    if (name == stateName(state)) return state;
  return std::nullopt;
}

}  // namespace

QString describe(ExerciseState state) {
  return QString::fromLatin1(stateName(state));
}

QString ExerciseController::defaultDataFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/exercises");
}

ExerciseController::ExerciseController(RunController& runs, QString dataFolder, QObject* parent)
    : QObject(parent), runs_(runs), dataFolder_(std::move(dataFolder)) {
  for (const exercise::Exercise& builtIn : exercise::builtInExercises()) load(builtIn);
  const nlohmann::json folders = rememberedSetting(kFoldersKey);
  if (folders.is_array())
    for (const nlohmann::json& folder : folders)
      if (folder.is_string()) openedFolders_ << QString::fromStdString(folder.get<std::string>());
  // A folder that is gone or broken now stays remembered: it may be a share not mounted yet.
  for (const QString& folder : QStringList(openedFolders_)) {
    QString error;
    if (!openFolder(folder, &error)) loadProblems_ << error;
  }
  const nlohmann::json current = rememberedSetting(kCurrentKey);
  current_ = current.is_string() ? indexOf(current.get<std::string>()) : -1;
  if (current_ < 0 && !exercises_.empty()) current_ = 0;
  connect(&runs_, &RunController::checkReady, this, &ExerciseController::onChecked);
  connect(&runs_, &RunController::runFailed, this, [this](const RunJob& job, const RunFailure&) {
    // The queue controller says why; the check has ended.
    if (job.kind == JobKind::Check) endCheck();
  });
  connect(&runs_, &RunController::queueFinished, this, [this] {
    // A cancelled check ends with the queue, without a report or a failure.
    endCheck();
    if (!checkedStatus_.isEmpty()) emit status(std::exchange(checkedStatus_, {}), 0);
  });
}

void ExerciseController::load(const exercise::Exercise& exercise) {
  Entry entry{exercise, {}};
  const int index = int(exercises_.size());
  exercises_.push_back(std::move(entry));
  Progress& progress = exercises_.back().progress;
  const QString folder = folderOf(index);
  const auto unreadable = [&](const Error& error) {
    loadProblems_ << QString::fromUtf8(error.what()) +
                         tr("; exercise %1 starts from what could be read")
                             .arg(QString::fromStdString(exercise.id));
  };
  try {
    progress.source =
        readIfThere(folder + QLatin1Char('/') + kSourceFile, kMaxUserSourceBytes, "the source");
  } catch (const Error& error) {
    unreadable(error);
  }
  try {
    if (const auto text = readIfThere(folder + QLatin1Char('/') + kProgressFile, kMaxProgressBytes,
                                      "the exercise's progress")) {
      const nlohmann::json json = io::parseJson(*text, "the exercise's progress");
      const auto field = [&](const char* name) {
        const auto found = json.is_object() ? json.find(name) : json.end();
        return found == json.end() ? nlohmann::json() : *found;
      };
      const nlohmann::json hints = field("hints"), state = field("state");
      if (field("format") != "tilescope-exercise-progress" || !hints.is_number_integer() ||
          !state.is_string() || !stateFromName(state.get<std::string>()))
        throw Error(ErrorKind::InvalidArgument,
                    localPath(folder + QLatin1Char('/') + kProgressFile) +
                        ": not the progress of an exercise (format, hints, state)");
      progress.hintsShown = std::clamp(hints.get<int>(), 0, int(exercise.hints.size()));
      progress.state = *stateFromName(state.get<std::string>());
    }
  } catch (const Error& error) {
    unreadable(error);
  }
  try {
    const QString path = folder + QLatin1Char('/') + kReportFile;
    if (const auto text = readIfThere(path, io::kMaxTraceFileBytes, "the last check")) {
      progress.lastReport = exercise::reportFromJson(io::parseJson(*text, "the last check"));
    }
  } catch (const Error& error) {
    unreadable(error);
  }
}

QString ExerciseController::folderOf(int index) const {
  return dataFolder_ + QLatin1Char('/') + QString::fromStdString(exercise(index).id);
}

int ExerciseController::indexOf(const std::string& id) const {
  for (int i = 0; i < count(); ++i)
    if (exercises_[i].exercise.id == id) return i;
  return -1;
}

void ExerciseController::setCurrent(int index) {
  if (index < 0 || index >= count() || index == current_) return;
  current_ = index;
  if (remembersSettings_) rememberSetting(kCurrentKey, exercise(index).id);
  emit currentChanged(index);
}

std::string ExerciseController::source(int index) const {
  const Progress& p = progress(index);
  return p.source ? *p.source : exercise(index).start;
}

bool ExerciseController::saveSource(int index, const std::string& source, QString* error) {
  Progress& p = exercises_.at(index).progress;
  // The start unchanged is not the student's work yet.
  if (source == (p.source ? *p.source : exercise(index).start)) return true;
  p.source = source;
  QString why;
  const bool saved = QDir().mkpath(folderOf(index)) &&
                     writeFileAtomically(folderOf(index) + QLatin1Char('/') + kSourceFile,
                                         QByteArray::fromStdString(source), &why);
  if (!saved) {
    if (why.isEmpty()) why = tr("Cannot create the folder %1").arg(folderOf(index));
    why += tr("; your source of %1 stays in the Kernel Editor: save it there (Save...)")
               .arg(QString::fromStdString(exercise(index).id));
    if (error) *error = why;
    if (why != lastSaveError_) emit problem(why);
    lastSaveError_ = why;
    return false;
  }
  lastSaveError_.clear();
  emit changed(index);
  return true;
}

bool ExerciseController::saveProgress(int index, QString* error) {
  const Progress& p = progress(index);
  const nlohmann::json json = {{"format", "tilescope-exercise-progress"},
                               {"version", 1},
                               {"state", stateName(p.state)},
                               {"hints", p.hintsShown}};
  QString why;
  if (QDir().mkpath(folderOf(index)) &&
      writeFileAtomically(folderOf(index) + QLatin1Char('/') + kProgressFile,
                          QByteArray::fromStdString(json.dump(2) + "\n"), &why))
    return true;
  if (why.isEmpty()) why = tr("Cannot create the folder %1").arg(folderOf(index));
  if (error) *error = why;
  emit problem(why);
  return false;
}

bool ExerciseController::revealHint(int index) {
  Progress& p = exercises_.at(index).progress;
  if (p.hintsShown >= int(exercise(index).hints.size())) return false;
  ++p.hintsShown;
  saveProgress(index);
  emit changed(index);
  return true;
}

bool ExerciseController::reset(int index, QString* error) {
  Progress& p = exercises_.at(index).progress;
  for (const QString& file : {kSourceFile, kReportFile}) {
    const QString path = folderOf(index) + QLatin1Char('/') + file;
    if (QFileInfo::exists(path) && !QFile::remove(path)) {
      const QString why = tr("Cannot remove %1; exercise %2 is as it was")
                              .arg(path, QString::fromStdString(exercise(index).id));
      if (error) *error = why;
      emit problem(why);
      return false;
    }
  }
  p.source.reset();
  p.lastReport.reset();
  p.state = ExerciseState::NotStarted;
  const bool saved = saveProgress(index, error);
  emit changed(index);
  return saved;
}

int ExerciseController::passedCount() const {
  return int(std::count_if(exercises_.begin(), exercises_.end(), [](const Entry& e) {
    return e.progress.state == ExerciseState::Passed;
  }));
}

QString ExerciseController::progressText() const {
  return tr("%1 of %2 passed").arg(passedCount()).arg(count());
}

bool ExerciseController::check(int index, const std::string& source, const std::string& backend,
                               int device, QString* problem) {
  const QString id = QString::fromStdString(exercise(index).id);
  const auto refuse = [&](const QString& why) {
    const QString message = tr("Cannot check %1: %2").arg(id, why);
    if (problem) *problem = message;
    emit this->problem(message);
    return false;
  };
  if (checking_ >= 0)
    return refuse(
        tr("the check of %1 is not done yet").arg(QString::fromStdString(exercise(checking_).id)));
  if (const BackendSummary* summary = runs_.backend(backend); summary && !summary->available())
    return refuse(QString::fromStdString(*summary->unavailableReason));
  saveSource(index, source);
  checking_ = index;
  emit checkingChanged(index, true);
  const bool waits = runs_.busy();
  runs_.enqueue({RunJob::check(backend, device, exercise(index), source)});
  emit status(waits ? tr("Checking %1 on %2 after the runs in the queue")
                          .arg(id)
                          .arg(QString::fromStdString(backend))
                    : tr("Checking %1 on %2\u2026").arg(id, QString::fromStdString(backend)),
              0);
  return true;
}

void ExerciseController::onChecked(const exercise::SubmissionReport& report) {
  const int index = indexOf(report.exercise);
  if (index < 0) return;
  Progress& p = exercises_[index].progress;
  p.lastReport = report;
  p.state = report.passed() ? ExerciseState::Passed : ExerciseState::Failing;
  // The report is the progress: kept beside the source, read back at the next start.
  QString why;
  if (!QDir().mkpath(folderOf(index)) ||
      !writeFileAtomically(folderOf(index) + QLatin1Char('/') + kReportFile,
                           QByteArray::fromStdString(exercise::toJson(report).dump(1) + "\n"),
                           &why))
    emit problem(why.isEmpty() ? tr("Cannot create the folder %1").arg(folderOf(index)) : why);
  saveProgress(index);
  // Said when the queue has ended, after the queue's own words.
  const QString id = QString::fromStdString(report.exercise);
  const exercise::CheckResult* failure = report.firstFailure();
  checkedStatus_ = !report.compiled  ? tr("%1 does not compile").arg(id)
                   : report.passed() ? tr("%1 passed: %2").arg(id, progressText())
                   : failure
                       ? tr("%1: %2 failed").arg(id, QString::fromStdString(failure->spec.title()))
                       : tr("%1 is not done: %2").arg(id, QString::fromStdString(report.error));
  const int checkedIndex = checking_;
  checking_ = -1;
  emit changed(index);
  emit checked(index, report);
  if (checkedIndex >= 0) emit checkingChanged(checkedIndex, false);
}

void ExerciseController::endCheck() {
  if (checking_ < 0) return;
  const int index = std::exchange(checking_, -1);
  emit checkingChanged(index, false);
}

bool ExerciseController::exportHandIn(int index, const QString& path, QString* error) {
  const Progress& p = progress(index);
  if (!p.lastReport) {
    if (error)
      *error = tr("Nothing to hand in for %1 yet: check it first")
                   .arg(QString::fromStdString(exercise(index).id));
    return false;
  }
  return writeFileAtomically(
      path, QByteArray::fromStdString(exercise::toJson(*p.lastReport).dump(2) + "\n"), error);
}

bool ExerciseController::openFolder(const QString& folder, QString* error, int* index) {
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  exercise::Exercise opened;
  try {
    opened = exercise::loadExercise(localPath(absolute));
  } catch (const Error& failure) {
    if (error)
      *error =
          tr("Cannot open the exercise in %1: %2").arg(absolute, QString::fromUtf8(failure.what()));
    return false;
  }
  if (const int known = indexOf(opened.id); known >= 0) {
    if (exercise(known).origin == opened.origin) {  // the same folder again
      if (index) *index = known;
      return true;
    }
    if (error)
      *error = tr("Cannot open the exercise in %1: the list has an exercise called %2 already "
                  "(%3); rename its folder")
                   .arg(absolute, QString::fromStdString(opened.id),
                        QString::fromStdString(exercise(known).origin));
    return false;
  }
  load(opened);
  // In the order of their ids, the built-in ones' numbers among them.
  Entry added = std::move(exercises_.back());
  exercises_.pop_back();
  const std::string currentId = current_ >= 0 ? exercise(current_).id : std::string();
  const std::string checkingId = checking_ >= 0 ? exercise(checking_).id : std::string();
  const auto at = std::upper_bound(
      exercises_.begin(), exercises_.end(), added.exercise.id,
      [](const std::string& id, const Entry& entry) { return id < entry.exercise.id; });
  const int added_at = int(at - exercises_.begin());
  exercises_.insert(at, std::move(added));
  current_ = currentId.empty() ? added_at : indexOf(currentId);
  checking_ = checkingId.empty() ? -1 : indexOf(checkingId);
  if (!openedFolders_.contains(absolute)) {
    openedFolders_ << absolute;
    rememberFolders();
  }
  if (index) *index = added_at;
  emit listChanged();
  if (currentId.empty()) emit currentChanged(current_);
  return true;
}

void ExerciseController::rememberFolders() const {
  if (!remembersSettings_) return;
  nlohmann::json folders = nlohmann::json::array();
  for (const QString& folder : openedFolders_) folders.push_back(folder.toStdString());
  rememberSetting(kFoldersKey, std::move(folders));
}

}  // namespace tilescope::desktop
