// Seed lessons that teach honestly, and a second session laid over the charts: a lesson starts a
// fresh session, runs everything its name says, and on the CPU says which effects only a GPU
// shows while the matching H200 sample is drawn beside the live run.
#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QStatusBar>
#include <QUndoStack>

#include "chart_panel.hpp"
#include "control_panel.hpp"
#include "lesson_bar.hpp"
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "samples.hpp"
#include "settings.hpp"

namespace tilescope::ui {
namespace {

// "H200 sample" for a shipped sample, "mine (NVIDIA H100)" for another session: the marker the
// overlay's series carry, naming the session and its device.
QString overlayLabel(const QString& path, const app::Session& session) {
  QString device =
      session.results.empty() ? QString() : QString::fromStdString(session.results.front().device);
  if (app::isShippedSample(path)) {
    device.remove(QStringLiteral("NVIDIA "));
    return QObject::tr("%1 sample").arg(device.isEmpty() ? QObject::tr("shipped") : device);
  }
  const QString name = QFileInfo(path).completeBaseName();
  return device.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, device);
}

}  // namespace

void MainWindow::createLessonMenu(QMenu* run) {
  QMenu* menu = run->addMenu(tr("Seed &Lessons"));
  try {
    lessons_ = app::seedLessons();
  } catch (const Error& error) {
    menu->addAction(QString::fromStdString(error.what()))->setEnabled(false);
    return;
  }
  for (const app::Lesson& lesson : lessons_) {
    QAction* action = menu->addAction(lesson.title);
    action->setObjectName(QStringLiteral("lesson-") + QString::fromStdString(lesson.id));
    action->setStatusTip(lesson.tip + tr(" (a fresh session; runs at once)"));
    connect(action, &QAction::triggered, this, [this, id = lesson.id] { startLesson(id); });
  }
}

void MainWindow::createOverlayMenu(QMenu* file) {
  QAction* open =
      file->addAction(tr("Open as O&verlay\u2026"), this, &MainWindow::openOverlayDialog);
  open->setStatusTip(
      tr("Lay another session's results over the charts, read-only, to compare two devices"));
  overlayMenu_ = file->addMenu(tr("Remove O&verlay"));
  overlayMenu_->setStatusTip(tr("Take a session laid over the charts off them"));
  connect(overlayMenu_, &QMenu::aboutToShow, this, [this] {
    overlayMenu_->clear();
    for (const QString& label : charts_->overlays()) {
      overlayMenu_->addAction(label, this, [this, label] { charts_->removeOverlay(label); });
    }
    if (overlayMenu_->isEmpty()) {
      overlayMenu_->addAction(tr("No overlays"))->setEnabled(false);
      return;
    }
    overlayMenu_->addSeparator();
    overlayMenu_->addAction(tr("Remove All"), this, [this] { charts_->clearOverlays(); });
  });
}

bool MainWindow::openOverlay(const QString& path, QString* error) {
  std::optional<app::Session> session = app::loadSessionOrSample(path, error);
  if (!session) return false;
  const QString label = overlayLabel(path, *session);
  const std::size_t count = session->results.size();
  charts_->addOverlay(label, std::move(session->results), std::move(session->ceilings));
  statusBar()->showMessage(
      tr("Laid %1 results of %2 over the charts, marked \u201c%3\u201d (File > Remove Overlay)")
          .arg(count)
          .arg(QFileInfo(path).fileName(), label),
      8000);
  return true;
}

void MainWindow::openOverlayDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open as Overlay"),
                                                    app::lastFolder(app::Folder::Sessions),
                                                    tr("TileScope session (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!openOverlay(path, &error)) {
    fileError(error);
    return;
  }
  if (remembersSettings_) app::rememberFolder(app::Folder::Sessions, path);
}

bool MainWindow::startLesson(const std::string& id, QString* problem) {
  const auto refuse = [&](const QString& message) {
    showProblem(message);
    if (problem) *problem = message;
    return false;
  };
  const app::Lesson* lesson = app::findLesson(lessons_, id);
  if (!lesson) return refuse(tr("No lesson called %1").arg(QString::fromStdString(id)));
  // Its results would land in the lesson's fresh session.
  if (controller_.busy())
    return refuse(
        tr("Runs are in progress: cancel them (Esc) or let them end, then start the "
           "lesson"));
  const app::Choices choices = app::lessonChoices(*lesson, controls_->choices());
  std::vector<app::RunJob> jobs;
  try {
    jobs = app::lessonJobs(*lesson, choices);
  } catch (const Error& error) {
    return refuse(tr("Cannot start the lesson: %1").arg(QString::fromStdString(error.what())));
  }
  if (!settleUnsavedResults(tr("starting the lesson"))) {
    if (problem) *problem = tr("cancelled");
    return false;
  }
  // A fresh session: the lesson's results alone, nothing to undo into, no overlay of before.
  model_.clear();
  undoStack_->clear();
  charts_->clearOverlays();
  notice_->dismiss();
  sessionPath_.clear();
  sessionReadOnly_ = false;
  setWindowModified(false);
  updateTitle();
  controls_->setChoices(choices);
  lessonBar_->showLesson(lesson->title, app::lessonText(*lesson, choices.backend));
  // On the CPU the GPU's side of the lesson comes from the sample measured on an H200.
  if (app::onTheCpu(choices.backend) && !lesson->sample.isEmpty()) {
    QString error;
    if (!openOverlay(app::shippedSample(lesson->sample), &error)) showProblem(error);
  }
  if (remembersSettings_) app::saveLastChoices(choices);
  showChartFor(choices.sweep);
  enqueue(jobs);
  return true;
}

}  // namespace tilescope::ui
