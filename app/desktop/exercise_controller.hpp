// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab course's exercises in the app (docs/exercises.md): the built-in ones and the folders the
// user opened (remembered in the settings), each with the student's progress: the source as they
// left it, the hints revealed, and the last check's report. Progress lives in a folder per
// exercise under the app's data folder, written through the one file writer at every change, so
// it survives a restart and a crash. A check runs on the worker thread as a job of the run queue
// (JobKind::Check), on the backend the user chose; the hand-in is the last report as JSON.
#include <QObject>
#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "run_controller.hpp"
#include "tilescope/exercise/check.hpp"

namespace tilescope::desktop {

enum class ExerciseState { NotStarted, Failing, Passed };
// "not started", "failing", "passed".
QString describe(ExerciseState state);

class ExerciseController : public QObject {
  Q_OBJECT

 public:
  // What the student did with one exercise.
  struct Progress {
    ExerciseState state = ExerciseState::NotStarted;
    int hintsShown = 0;
    // The source as the student left it; empty until they changed the start.
    std::optional<std::string> source;
    std::optional<exercise::SubmissionReport> lastReport;
  };

  // Reads the built-in exercises, the folders remembered in the settings and every exercise's
  // progress under `dataFolder` (defaultDataFolder()). What cannot be read is said in
  // loadProblems() and left out (a folder) or started afresh (progress); nothing is deleted.
  explicit ExerciseController(RunController& runs, QString dataFolder = defaultDataFolder(),
                              QObject* parent = nullptr);

  // <app data>/exercises, e.g. ~/.local/share/TileScope/TileScope/exercises.
  static QString defaultDataFolder();
  const QString& dataFolder() const { return dataFolder_; }
  const QStringList& loadProblems() const { return loadProblems_; }
  // Scripted runs (--quit) leave the remembered folders and the current exercise alone.
  void setRemembersSettings(bool remember) { remembersSettings_ = remember; }

  int count() const { return int(exercises_.size()); }
  const exercise::Exercise& exercise(int index) const { return exercises_.at(index).exercise; }
  const Progress& progress(int index) const { return exercises_.at(index).progress; }
  // The exercise with this id, or -1.
  int indexOf(const std::string& id) const;
  // The exercise the panel shows, remembered between starts; -1 when there are none.
  int current() const { return current_; }
  void setCurrent(int index);

  // The student's source: the one they saved, else the exercise's start.
  std::string source(int index) const;
  // Keeps `source` as the student's (the editor calls it as they type). False, with why in
  // `error`, when it could not be written; the source is kept in memory all the same.
  bool saveSource(int index, const std::string& source, QString* error = nullptr);
  // Reveals the next hint; false when every hint is shown.
  bool revealHint(int index);
  // Back to the start: the saved source and the last report are discarded (the hints shown stay).
  bool reset(int index, QString* error = nullptr);

  // "3 of 8 passed".
  QString progressText() const;
  int passedCount() const;

  // Saves `source` and queues its check on `device` of `backend` (run servers included). False
  // with why (also as problem()) when it cannot start: an unavailable backend, a check already
  // queued.
  bool check(int index, const std::string& source, const std::string& backend, int device,
             QString* problem = nullptr);
  // The exercise whose check is queued or running, or -1.
  int checking() const { return checking_; }

  // Writes the last report of exercise `index` as the hand-in file (exercise::toJson): the source,
  // every check's figure and where it ran. False with why (nothing checked yet, a path that cannot
  // be written: the old file is untouched, the progress kept).
  bool exportHandIn(int index, const QString& path, QString* error);

  // Adds the exercise in `folder` (exercise::loadExercise) and remembers the folder; its index
  // in `index`. False with why: a folder that is no exercise, an id already in the list.
  bool openFolder(const QString& folder, QString* error, int* index = nullptr);

 signals:
  // The list changed (a folder was opened): every index may have moved.
  void listChanged();
  // The state, hints, source or last report of exercise `index` changed.
  void changed(int index);
  void currentChanged(int index);
  // A check began (queued) or ended (a report, a failure or a cancel).
  void checkingChanged(int index, bool checking);
  // A check's report arrived; progress(index).lastReport holds it too.
  void checked(int index, const tilescope::exercise::SubmissionReport& report);
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);

 private:
  struct Entry {
    exercise::Exercise exercise;
    Progress progress;
  };
  QString folderOf(int index) const;
  void load(const exercise::Exercise& exercise);
  // Writes the progress file (state and hints); says why it could not as a problem.
  bool saveProgress(int index, QString* error = nullptr);
  void onChecked(const exercise::SubmissionReport& report);
  void endCheck();
  void rememberFolders() const;

  RunController& runs_;
  QString dataFolder_;
  std::vector<Entry> exercises_;
  QStringList openedFolders_;
  QStringList loadProblems_;
  int current_ = -1;
  int checking_ = -1;
  bool remembersSettings_ = true;
  QString lastSaveError_;  // said once, not at every keystroke
  QString checkedStatus_;  // what the last check found, said when the queue ends
};

}  // namespace tilescope::desktop
