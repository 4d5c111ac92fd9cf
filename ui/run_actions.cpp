// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_actions.hpp"

#include <QAction>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QProgressBar>
#include <QStatusBar>

#include "control_panel.hpp"
#include "lesson_controller.hpp"
#include "theme.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::ui {
RunActions::RunActions(QMainWindow* window)
    : QObject(window),
      run_(makeAction(window, "media-playback-start", QStyle::SP_MediaPlay, tr("&Run"),
                      QKeySequence(Qt::CTRL | Qt::Key_R),
                      tr("Run the chosen configuration or sweep (queued after any runs "
                         "in progress)"))),
      autotune_(makeAction(
          window, "system-run", QStyle::SP_FileDialogContentsView, tr("&Autotune"),
          QKeySequence(Qt::CTRL | Qt::Key_T),
          tr("Measure every valid configuration of the chosen kernel at the chosen size, then "
             "remember and choose the fastest verified one"))),
      ceilings_(makeAction(window, "utilities-system-monitor", QStyle::SP_ComputerIcon,
                           tr("&Measure Ceilings"), QKeySequence(Qt::CTRL | Qt::Key_M),
                           tr("Measure the chosen device's peak rates (FP32, and on a GPU the "
                              "tensor types) and its memory bandwidth (a few seconds), and draw "
                              "them on the roofline beside the datasheet"))),
      cancel_(makeAction(window, "process-stop", QStyle::SP_BrowserStop, tr("&Cancel"),
                         QKeySequence(Qt::Key_Escape),
                         tr("Drop the queued runs; the current one stops after its launch"))),
      progressText_(new QLabel(window)),
      progressBar_(new QProgressBar(window)),
      timeLeft_(new QLabel(window)) {
  run_->setObjectName(QStringLiteral("run"));
  autotune_->setObjectName(QStringLiteral("autotune"));
  progressBar_->setRange(0, 1000);
  progressBar_->setTextVisible(false);
  progressBar_->setMaximumWidth(220);
  window->statusBar()->addPermanentWidget(progressText_);
  window->statusBar()->addPermanentWidget(progressBar_);
  window->statusBar()->addPermanentWidget(timeLeft_);
}

void RunActions::fillMenu(QMenu* run, const desktop::LessonController& lessons) {
  run->addActions({run_, autotune_, ceilings_, cancel_});
  run->addSeparator();
  QMenu* menu = run->addMenu(tr("Seed &Lessons"));
  if (!lessons.loadError().isEmpty()) menu->addAction(lessons.loadError())->setEnabled(false);
  for (const desktop::Lesson& lesson : lessons.lessons()) {
    QAction* action = menu->addAction(lesson.title);
    action->setObjectName(QStringLiteral("lesson-") + QString::fromStdString(lesson.id));
    action->setStatusTip(lesson.tip + tr(" (a fresh session; runs at once)"));
    connect(action, &QAction::triggered, this, [this, id = lesson.id] { emit lessonChosen(id); });
  }
}

void RunActions::updateFor(const ControlPanel& controls) {
  QString problem;
  const bool runnable = !controls.plannedJobs(&problem).empty();
  run_->setEnabled(runnable);
  run_->setToolTip(runnable ? tr("Run (Ctrl+R)") : problem);
  // Autotune measures the chosen kernel at the chosen size, whatever the sweep: it follows the
  // rules of a single run of it (choices that cannot run cannot be tuned either) and needs a
  // parameter to tune.
  desktop::Choices single = controls.choices();
  single.sweep = desktop::SweepKind::Single;
  QString singleProblem;
  const bool singleRunnable = !controls.plannedJobs(single, &singleProblem).empty();
  const KernelInfo* kernel = findKernel(single.kernel);
  const bool tunable = kernel && !kernel->params.empty();
  autotune_->setEnabled(singleRunnable && tunable && !controls.deviceName().empty());
  autotune_->setToolTip(
      !singleRunnable ? singleProblem
      : !tunable ? tr("%1 has no parameters to tune").arg(QString::fromStdString(single.kernel))
                 : tr("Autotune (Ctrl+T)"));
  ceilings_->setEnabled(!controls.deviceName().empty());
}

void RunActions::setBusy(bool busy) {
  cancel_->setEnabled(busy);
  progressText_->setVisible(busy);
  progressBar_->setVisible(busy);
  timeLeft_->setVisible(busy);
  run_->setText(busy ? tr("&Queue") : tr("&Run"));
  if (busy) {
    progressBar_->setValue(0);
    timeLeft_->setText(tr("estimating\u2026"));
  }
}

void RunActions::showProgress(const QString& text, int permille, const QString& timeLeft) {
  progressBar_->setValue(permille);
  progressText_->setText(text);
  timeLeft_->setText(timeLeft);
}

}  // namespace tilescope::ui
