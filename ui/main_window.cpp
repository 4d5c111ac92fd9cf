// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include "chart_panel.hpp"
#include "context_help.hpp"
#include "control_panel.hpp"
#include "diagram_host.hpp"
#include "dock_layout.hpp"
#include "exercise_panel.hpp"
#include "file_menu.hpp"
#include "kernel_editor.hpp"
#include "lesson_bar.hpp"
#include "notice_bar.hpp"
#include "qt_files.hpp"
#include "results_undo.hpp"
#include "results_view.hpp"
#include "run_actions.hpp"
#include "server_dialog.hpp"
#include "settings.hpp"
#include "theme.hpp"

namespace tilescope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowIcon(QApplication::windowIcon());
  setObjectName(QStringLiteral("mainWindow"));
  controls_ = new ControlPanel;
  charts_ = new ChartPanel(&model_);
  table_ = new ResultsView(&model_);
  notice_ = new NoticeBar;
  lessonBar_ = new LessonBar;
  runActions_ = new RunActions(this);
  undo_ = new ResultsUndo(this, model_, sessions_);
  createActions();
  fileMenu_ = new FileMenu(this, sessions_, traces_, charts_);
  dockLayout_ = new DockLayout(this);
  controls_->setRunActions(runActions_->run(), runActions_->autotune(), runActions_->cancel());

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->setSpacing(4);
  layout->addWidget(notice_);
  layout->addWidget(lessonBar_);
  layout->addWidget(charts_, 1);
  setCentralWidget(central);

  createDocks();
  help_ = new ContextHelp(this, charts_, diagrams_);
  createMenus();
  createToolBar();
  statusBar()->showMessage(tr("Looking for backends and devices\u2026"));
  connectControllers();

  resize(DockLayout::kFirstRunSize);
  runActions_->setBusy(false);
  runActions_->updateFor(*controls_);
}

MainWindow::~MainWindow() {
  runs_.shutdown();
}

void MainWindow::createActions() {
  connect(runActions_->run(), &QAction::triggered, this, &MainWindow::runChoices);
  connect(runActions_->autotune(), &QAction::triggered, this, [this] { autotune(); });
  connect(runActions_->ceilings(), &QAction::triggered, this, [this] { measureCeilings(); });
  connect(runActions_->cancel(), &QAction::triggered, &queue_, &desktop::QueueController::cancel);
  connect(runActions_, &RunActions::lessonChosen, this,
          [this](const std::string& id) { startLesson(id); });

  resetViewAction_ = makeAction(this, "zoom-fit-best", QStyle::SP_BrowserReload, tr("&Fit Charts"),
                                QKeySequence(Qt::CTRL | Qt::Key_0),
                                tr("Undo zoom and pan: fit every chart to its data "
                                   "(double-click a chart does the same)"));
  connect(resetViewAction_, &QAction::triggered, this, [this] { charts_->resetView(); });

  presentationAction_ = makeAction(
      this, "view-fullscreen", QStyle::SP_TitleBarMaxButton, tr("&Presentation Mode"), {},
      tr("Full screen with large text, for teaching: the chart clicked last, else "
         "the diagrams"));
  // F11 everywhere: Linux has no platform full-screen key.
  presentationAction_->setShortcuts(DiagramHost::presentationShortcuts());
  presentationAction_->setCheckable(true);
  connect(presentationAction_, &QAction::toggled, this, [this](bool on) {
    // A chart with the focus (clicked) presents in a full-screen window of its own; else the
    // diagrams do; without them, the window does.
    if (on ? charts_->chartHasFocus() : charts_->presentationMode()) {
      charts_->setPresentationMode(on);
      return;
    }
    if (diagrams_->setPresentation(on)) return;
    on ? showFullScreen() : showNormal();
  });

  // The platform's Quit key is empty on some platforms (Windows, offscreen): Ctrl+Q everywhere.
  quitAction_ =
      makeAction(this, "application-exit", QStyle::SP_DialogCloseButton, tr("&Quit"),
                 QKeySequence(Qt::CTRL | Qt::Key_Q), tr("Stop any run and quit TileScope"));
  quitAction_->setObjectName(QStringLiteral("quitAction"));
  connect(quitAction_, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createDocks() {
  auto* controlsDock = new QDockWidget(tr("Run Setup"), this);
  controlsDock->setObjectName(QStringLiteral("controlsDock"));
  controlsDock->setWidget(controls_);
  addDockWidget(Qt::LeftDockWidgetArea, controlsDock);

  // The controls run the full height; the table spans the charts and the diagrams (it has many
  // columns).
  auto* resultsDock = new QDockWidget(tr("Results"), this);
  resultsDock->setObjectName(QStringLiteral("resultsDock"));
  resultsDock->setWidget(table_);
  setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  addDockWidget(Qt::BottomDockWidgetArea, resultsDock);

  auto* diagramsDock = new QDockWidget(tr("Diagrams"), this);
  diagramsDock->setObjectName(QStringLiteral("diagramsDock"));
  diagrams_ = new DiagramHost(*controls_, model_, diagramsDock);
  diagramsDock->setWidget(diagrams_);
  addDockWidget(Qt::RightDockWidgetArea, diagramsDock);
  resizeDocks({controlsDock, diagramsDock}, {360, 460}, Qt::Horizontal);

  // The user's own kernel: a tab behind the diagrams.
  auto* editorDock = new QDockWidget(tr("Kernel Editor"), this);
  editorDock->setObjectName(QStringLiteral("kernelEditorDock"));
  kernelEditor_ = new KernelEditor(editorDock);
  editorDock->setWidget(kernelEditor_);
  tabifyDockWidget(diagramsDock, editorDock);
  diagramsDock->raise();
  resizeDocks({resultsDock}, {260}, Qt::Vertical);
  exercisePanel_ = addExerciseDock(*this, exercises_, *dockLayout_);
}

void MainWindow::createMenus() {
  fileMenu_->fill(menuBar()->addMenu(tr("&File")), quitAction_);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addActions({undo_->undoAction(), undo_->redoAction()});
  edit->addSeparator();
  edit->addActions({table_->copyAction(), undo_->clearAction()});

  runActions_->fillMenu(menuBar()->addMenu(tr("&Run")), lessons_);

  QMenu* backend = menuBar()->addMenu(tr("&Backend"));
  QAction* servers = backend->addAction(tr("GPU &Server\u2026"), this, &MainWindow::editServers);
  servers->setObjectName(QStringLiteral("gpuServersAction"));
  servers->setStatusTip(
      tr("Run on a GPU server over SSH or Slurm, or the local CUDA backend in a child process"));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) {
    QAction* toggle = dock->toggleViewAction();
    toggle->setStatusTip(tr("Show or hide the %1 panel").arg(dock->windowTitle()));
    view->addAction(toggle);
  }
  view->addSeparator();
  for (desktop::ChartKind kind : desktop::kAllCharts) {
    auto* show = view->addAction(charts_->tabText(int(kind)));
    show->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + int(kind))));
    show->setStatusTip(charts_->tabToolTip(int(kind)));
    connect(show, &QAction::triggered, this, [this, kind] { charts_->showChart(kind); });
  }
  view->addSeparator();
  view->addActions({resetViewAction_, presentationAction_});
  view->addMenu(createThemeMenu(this));

  help_->fillMenu(menuBar()->addMenu(tr("&Help")));
}

void MainWindow::editServers() {
  ServerDialog dialog(desktop::loadServerSettings(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  desktop::saveServerSettings(dialog.settings());
  runs_.setServers(desktop::remoteBackends(dialog.settings()));
  statusBar()->showMessage(tr("Connecting to the servers\u2026"));
}

void MainWindow::startChosenServer() {
  // A run server starts when its backend is chosen; once per choice, so a server that cannot
  // start is not started again and again as its summary comes back.
  const std::string chosen = controls_->choices().backend;
  if (chosen == serverAsked_) return;
  const desktop::BackendSummary* summary = runs_.backend(chosen);
  if (!summary) return;
  serverAsked_ = chosen;
  if (summary->dormant) runs_.connectServer(chosen);
}

void MainWindow::createToolBar() {
  QToolBar* tools = addToolBar(tr("Main"));
  tools->setObjectName(QStringLiteral("mainToolBar"));
  tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tools->setMovable(false);
  tools->addActions({runActions_->run(), runActions_->autotune(), runActions_->cancel()});
  tools->addSeparator();
  tools->addActions({fileMenu_->openAction(), fileMenu_->saveAction()});
  tools->addSeparator();
  tools->addActions({fileMenu_->exportChartAction(), fileMenu_->exportResultsAction()});
  tools->addSeparator();
  tools->addAction(resetViewAction_);
}

void MainWindow::connectControllers() {
  // The controllers say what happened in the status bar and what went wrong in the notice.
  using Session = desktop::SessionController;
  report(&queue_, &ceilings_, &autotune_, &traces_, &sessions_, &exercises_, exercisePanel_);
  connect(&sessions_, &Session::fileError, this, &MainWindow::fileError);
  connect(&lessons_, &desktop::LessonController::problem, this, &MainWindow::showProblem);
  connect(fileMenu_, &FileMenu::status, this, &MainWindow::showStatus);
  connect(fileMenu_, &FileMenu::fileError, this, &MainWindow::fileError);

  connect(&runs_, &desktop::RunController::backendsChanged, this, [this] {
    controls_->setBackends(runs_.backends());
    startChosenServer();
  });
  // Said after what the same event says ("Ready. Backends: ...", "Opened ..."), and kept until
  // the next message.
  connect(
      controls_, &ControlPanel::readied, this,
      [this](const QString& changes) {
        showStatus(tr("Run Setup changed so that it can run here: %1.").arg(changes), 0);
      },
      Qt::QueuedConnection);
  connect(&runs_, &desktop::RunController::busyChanged, runActions_, &RunActions::setBusy);
  connect(&queue_, &desktop::QueueController::progressShown, runActions_,
          &RunActions::showProgress);
  connect(&queue_, &desktop::QueueController::problemSolved, notice_, &NoticeBar::resolve);
  connect(controls_, &ControlPanel::choicesChanged, this, [this] {
    runActions_->updateFor(*controls_);
    startChosenServer();
  });

  connect(&sessions_, &Session::modifiedChanged, this, &QWidget::setWindowModified);
  const auto showTitle = [this] {
    setWindowTitle(QStringLiteral("%1[*] \u2014 TileScope").arg(sessions_.displayName()));
  };
  connect(&sessions_, &Session::identityChanged, this, showTitle);
  showTitle();
  sessions_.setWidgetState([this](desktop::Session& session) {
    session.choices = controls_->choices();
    session.editorKernel = kernelEditor_->kernel();
  });
  connect(&sessions_, &Session::opened, this,
          [this](const desktop::Choices& choices, const std::optional<UserKernelSource>& kernel) {
            // A session replaces a lesson: its text and its sample laid over the charts go.
            lessonBar_->hide();
            charts_->clearOverlays();
            controls_->setChoices(choices);
            // A GPU's session opened where its backend or type cannot run.
            controls_->makeReady();
            if (kernel && kernelEditor_->settleUnsaved(tr("opening the session's kernel")))
              kernelEditor_->setKernel(QString::fromStdString(kernel->name),
                                       QString::fromStdString(kernel->source));
          });
  connect(undo_, &ResultsUndo::cleared, this, [this](const QString& message) {
    notice_->dismiss();
    statusBar()->showMessage(message);
  });
  connect(&sessions_, &Session::startedFresh, this, [this] {
    charts_->clearOverlays();
    notice_->dismiss();
  });
  connect(&sessions_, &Session::overlayOpened, charts_, &ChartPanel::addOverlay);

  connect(&autotune_, &desktop::AutotuneController::started, this, [this] {
    if (remembersSettings_) desktop::saveLastChoices(controls_->choices());
    charts_->showChart(desktop::ChartKind::Landscape);
  });
  connect(&autotune_, &desktop::AutotuneController::tuned, this, [this](const plan::TunedEntry& e) {
    controls_->setChoices(desktop::withTuned(controls_->choices(), e));
  });
  connect(&ceilings_, &desktop::CeilingsController::started, this,
          [this] { charts_->showChart(desktop::ChartKind::Roofline); });
  connect(&lessons_, &desktop::LessonController::started, this,
          [this](const QString& title, const QString& text, const desktop::Choices& choices) {
            controls_->setChoices(choices);
            lessonBar_->showLesson(title, text);
            beginRuns(choices);
          });

  diagrams_->drawTracesOf(traces_, *controls_);
  // Esc in the presentation window ends it without going through the action.
  const auto presenting = [this](bool on) {
    const QSignalBlocker blocker(presentationAction_);
    presentationAction_->setChecked(on);
  };
  connect(diagrams_, &DiagramHost::presentationModeChanged, this, presenting);
  connect(charts_, &ChartPanel::presentationModeChanged, this, presenting);
  connect(kernelEditor_, &KernelEditor::runRequested, this, &MainWindow::runUserKernel);
  // Cancel stops the editor's compile too (a run from the editor starts one beside it).
  connect(runActions_->cancel(), &QAction::triggered, kernelEditor_, &KernelEditor::cancelCompile);
  connect(kernelEditor_, &KernelEditor::traceRequested, this, &MainWindow::traceUserKernel);
  connect(&traces_, &desktop::TraceController::drawn, this, [this](const KernelTrace& trace) {
    kernelEditor_->showSanitizer(trace);
    // The marked lines in view beside the warp at fault.
    if (!kernelEditor_->editor()->findings().empty()) dockLayout_->showEditorBesideDiagrams();
  });
  connect(kernelEditor_, &KernelEditor::autotuneRequested, this,
          [this](const UserKernelSource& kernel) { autotune(nullptr, kernel); });
}

QMenu* MainWindow::sampleMenu() const {
  return fileMenu_->sampleMenu();
}

void MainWindow::setRemembersSettings(bool remember) {
  remembersSettings_ = remember;
  sessions_.setRemembersSettings(remember);
  exercises_.setRemembersSettings(remember);
}

bool MainWindow::runChoices() {
  QString problem;
  const std::vector<desktop::RunJob> jobs = controls_->plannedJobs(&problem);
  if (jobs.empty()) {
    showProblem(problem);
    return false;
  }
  beginRuns(controls_->choices());
  queue_.enqueue(jobs);
  return true;
}

bool MainWindow::runUserKernel(const UserKernelSource& kernel) {
  const desktop::Choices choices = controls_->choices();
  if (!queue_.runUserKernel(choices, kernel)) return false;
  if (const auto chart = desktop::chartForSweep(choices.sweep)) charts_->showChart(*chart);
  return true;
}

bool MainWindow::traceUserKernel(const UserKernelSource& kernel) {
  return traces_.traceUserKernel(kernel, controls_->choices(), diagrams_->drawnTrace(),
                                 diagrams_->selectedBlock());
}

bool MainWindow::autotune(QString* problem, const std::optional<UserKernelSource>& userKernel) {
  return autotune_.start(controls_->choices(), controls_->deviceName(), userKernel, problem);
}

bool MainWindow::measureCeilings(QString* problem) {
  return ceilings_.measure(controls_->choices(), controls_->deviceName(), problem);
}

bool MainWindow::startLesson(const std::string& id, QString* problem) {
  return lessons_.start(id, controls_->choices(), problem);
}

void MainWindow::beginRuns(const desktop::Choices& choices) {
  if (remembersSettings_) desktop::saveLastChoices(choices);
  if (const auto chart = desktop::chartForSweep(choices.sweep)) charts_->showChart(*chart);
}

void MainWindow::showStatus(const QString& message, int timeoutMs) {
  statusBar()->showMessage(message, timeoutMs);
}

void MainWindow::showProblem(const QString& message) {
  notice_->showProblem(message);
  statusBar()->showMessage(message);
}

void MainWindow::fileError(const QString& message) {
  statusBar()->showMessage(message);
  QMessageBox::warning(this, tr("TileScope"), message);
}

bool MainWindow::openKernelFile(const QString& path, QString* error) {
  if (!kernelEditor_->openFile(path, error)) return false;
  findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"))->raise();
  kernelEditor_->compile();
  return true;
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
  charts_->refresh();
  // The charts replot on a queued event, and one may then grow for its legend (its tab scrolls,
  // a few events later): let them draw and settle before the window is grabbed.
  for (int round = 0; round < 4; ++round) QCoreApplication::processEvents();
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!grab().save(&buffer, "PNG")) {
    *error = tr("cannot write screenshot '%1': the window could not be encoded as PNG").arg(path);
    return false;
  }
  return desktop::writeFileAtomically(path, png, error);
}

void MainWindow::restoreSettings() {
  dockLayout_->restore();
  QStringList notices;
  controls_->setChoices(desktop::loadLastChoices(&notices));
  if (const std::optional<QString> setAside = desktop::takeSetAsideNotice();
      setAside && !notices.contains(*setAside))
    notices << *setAside;
  notices << desktop::loadServerSettings().problems << exercises_.loadProblems();
  // The window opens whatever the settings hold; what was put back is said once.
  if (!notices.isEmpty()) showProblem(notices.join(QStringLiteral("; ")));
  if (savedTheme() != currentTheme()) applyTheme(savedTheme());
}

void MainWindow::fitDocksTo(const QSize& available) {
  dockLayout_->fitTo(available);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // A window laid out only to be photographed (--screenshot) keeps the size it was given.
  if (!testAttribute(Qt::WA_DontShowOnScreen)) dockLayout_->fitToScreen();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!kernelEditor_->settleUnsaved(tr("closing TileScope")) ||
      !sessions_.settleUnsaved(tr("closing TileScope"))) {
    event->ignore();
    return;
  }
  if (remembersSettings_) {
    dockLayout_->save();
    // Only a backend usable now is remembered: the next start must be able to run.
    desktop::Choices remembered = controls_->choices();
    desktop::readyChoices(remembered, runs_.backends());
    desktop::saveLastChoices(remembered);
  }
  // Cancel, stop the worker thread and wait for the launch in progress to end.
  runs_.shutdown();
  event->accept();
}

}  // namespace tilescope::ui
