// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run, Autotune, Measure Ceilings and Cancel, enabled as the control panel's choices allow, and
// the run queue's progress and time left in the status bar while it is busy.
#include <QObject>
#include <string>

class QAction;
class QLabel;
class QMainWindow;
class QMenu;
class QProgressBar;

namespace tilescope::desktop {
class LessonController;
}  // namespace tilescope::desktop

namespace tilescope::ui {

class ControlPanel;

class RunActions : public QObject {
  Q_OBJECT

 public:
  // The actions belong to `window`; the progress sits in its status bar.
  explicit RunActions(QMainWindow* window);

  QAction* run() const { return run_; }
  QAction* autotune() const { return autotune_; }
  QAction* ceilings() const { return ceilings_; }
  QAction* cancel() const { return cancel_; }

  // The Run menu: the four actions, then Seed Lessons (a lesson's action says lessonChosen()).
  void fillMenu(QMenu* run, const desktop::LessonController& lessons);
  // Enables what the choices can do, and says in the tooltips why not.
  void updateFor(const ControlPanel& controls);
  // While busy, Run queues and Cancel is on; the progress shows.
  void setBusy(bool busy);
  void showProgress(const QString& text, int permille, const QString& timeLeft);

 signals:
  void lessonChosen(const std::string& id);

 private:
  QAction* run_;
  QAction* autotune_;
  QAction* ceilings_;
  QAction* cancel_;
  QLabel* progressText_;
  QProgressBar* progressBar_;
  QLabel* timeLeft_;
};

}  // namespace tilescope::ui
