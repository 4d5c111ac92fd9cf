#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QVBoxLayout>
#include <QWindow>
#include <utility>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "formatting.hpp"
#include "kernel_editor.hpp"
#include "lesson_bar.hpp"
#include "notice_bar.hpp"
#include "result_analysis.hpp"
#include "results_view.hpp"
#include "samples.hpp"
#include "server_dialog.hpp"
#include "settings.hpp"
#include "theme.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/counter_model.hpp"

#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_document.hpp"
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#endif

namespace tilescope::ui {
namespace {

const std::string kGeometryKey = "windowGeometry";
const std::string kStateKey = "windowState";
// Bump when the docks or toolbars change, so an old saved layout is not applied to a new one.
constexpr int kWindowStateVersion = 2;
constexpr QSize kFirstRunSize(1600, 1000);

// Window geometry and dock layout are kept base64-encoded in the settings file.
QByteArray rememberedBytes(const std::string& key) {
  const nlohmann::json value = app::rememberedSetting(key);
  return value.is_string()
             ? QByteArray::fromBase64(QByteArray::fromStdString(value.get<std::string>()))
             : QByteArray();
}

const QString kSessionFilter = QStringLiteral("TileScope session (*.json)");

QString formatDuration(double seconds) {
  const int whole = int(seconds + 0.5);
  if (whole < 60) return QObject::tr("%1 s").arg(whole);
  if (whole < 3600) return QObject::tr("%1 min %2 s").arg(whole / 60).arg(whole % 60);
  return QObject::tr("%1 h %2 min").arg(whole / 3600).arg(whole % 3600 / 60);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowIcon(QApplication::windowIcon());
  setObjectName(QStringLiteral("mainWindow"));
  createActions();
  createFileTrust();

  controls_ = new ControlPanel;
  controls_->setRunActions(runAction_, autotuneAction_, cancelAction_);
  charts_ = new ChartPanel(&model_);
  table_ = new ResultsView(&model_);
  notice_ = new NoticeBar;

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->setSpacing(4);
  layout->addWidget(notice_);
  lessonBar_ = new LessonBar;
  layout->addWidget(lessonBar_);
  layout->addWidget(charts_, 1);
  setCentralWidget(central);

  createDocks();
  createHelp();
  createMenus();
  createToolBar();
  createStatusBar();

  connect(&controller_, &app::RunController::backendsChanged, this, &MainWindow::onBackendsChanged);
  connect(&controller_, &app::RunController::busyChanged, this, &MainWindow::onBusyChanged);
  connect(&controller_, &app::RunController::progressChanged, this, &MainWindow::onProgress);
  connect(&controller_, &app::RunController::resultReady, this, &MainWindow::onResult);
  connect(&controller_, &app::RunController::ceilingsReady, this, &MainWindow::onCeilings);
  connect(&controller_, &app::RunController::traceReady, this, [this](const KernelTrace& trace) {
    QString error;
    if (!showTrace(trace, &error)) {
      showProblem(tr("The trace of %1 cannot be drawn: %2")
                      .arg(QString::fromStdString(trace.kernel.kernel), error));
      return;
    }
    statusBar()->showMessage(
        tr("Traced %1 on %2: the diagrams draw what it did")
            .arg(QString::fromStdString(trace.kernel.kernel), QString::fromStdString(trace.device)),
        8000);
  });
  connect(&controller_, &app::RunController::runFailed, this, &MainWindow::onRunFailed);
  connect(&controller_, &app::RunController::queueFinished, this, &MainWindow::onQueueFinished);
  connect(controls_, &ControlPanel::choicesChanged, this, &MainWindow::onChoicesChanged);

  resize(kFirstRunSize);
  onBusyChanged(false);
  onChoicesChanged();
  updateTitle();
}

MainWindow::~MainWindow() {
  controller_.shutdown();
}

QIcon MainWindow::themeIcon(const char* name, QStyle::StandardPixmap fallback) const {
  // Desktops without an icon theme (and Xvfb) still get an icon from the style.
  return QIcon::fromTheme(QString::fromLatin1(name), style()->standardIcon(fallback));
}

void MainWindow::createActions() {
  runAction_ =
      new QAction(themeIcon("media-playback-start", QStyle::SP_MediaPlay), tr("&Run"), this);
  runAction_->setObjectName(QStringLiteral("run"));
  runAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  runAction_->setStatusTip(
      tr("Run the chosen configuration or sweep (queued after any runs "
         "in progress)"));
  connect(runAction_, &QAction::triggered, this, &MainWindow::runChoices);

  autotuneAction_ = new QAction(themeIcon("system-run", QStyle::SP_FileDialogContentsView),
                                tr("&Autotune"), this);
  autotuneAction_->setObjectName(QStringLiteral("autotune"));
  autotuneAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
  autotuneAction_->setStatusTip(
      tr("Measure every valid configuration of the chosen kernel at the chosen size, then "
         "remember and choose the fastest verified one"));
  connect(autotuneAction_, &QAction::triggered, this, [this] { autotune(); });

  ceilingsAction_ = new QAction(themeIcon("utilities-system-monitor", QStyle::SP_ComputerIcon),
                                tr("&Measure Ceilings"), this);
  ceilingsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
  ceilingsAction_->setStatusTip(
      tr("Measure the chosen device's peak rates (FP32, and on a GPU the tensor types) and its "
         "memory bandwidth (a few seconds), and draw them on the roofline beside the datasheet"));
  connect(ceilingsAction_, &QAction::triggered, this, [this] { measureCeilings(); });

  cancelAction_ =
      new QAction(themeIcon("process-stop", QStyle::SP_BrowserStop), tr("&Cancel"), this);
  cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
  cancelAction_->setStatusTip(tr("Drop the queued runs; the current one stops after its launch"));
  connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancelRuns);

  openAction_ = new QAction(themeIcon("document-open", QStyle::SP_DialogOpenButton),
                            tr("&Open Session\u2026"), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setStatusTip(tr("Open a saved session: its results, device facts and choices"));
  connect(openAction_, &QAction::triggered, this, &MainWindow::openSessionDialog);

  openTraceAction_ = new QAction(tr("Open &Trace…"), this);
  openTraceAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openTraceAction_->setStatusTip(
      tr("Draw a kernel as the GPU ran it, from a trace file (tilescope-bench --trace)"));
  connect(openTraceAction_, &QAction::triggered, this, &MainWindow::openTraceDialog);

  saveAction_ = new QAction(themeIcon("document-save", QStyle::SP_DialogSaveButton),
                            tr("&Save Session"), this);
  saveAction_->setShortcut(QKeySequence::Save);
  saveAction_->setStatusTip(tr("Save the results, device facts and choices as a session"));
  connect(saveAction_, &QAction::triggered, this, [this] { saveSessionDialog(false); });

  saveAsAction_ = new QAction(themeIcon("document-save-as", QStyle::SP_DialogSaveButton),
                              tr("Save Session &As\u2026"), this);
  saveAsAction_->setShortcut(QKeySequence::SaveAs);
  saveAsAction_->setStatusTip(tr("Save the session under a new name"));
  connect(saveAsAction_, &QAction::triggered, this, [this] { saveSessionDialog(true); });

  exportChartAction_ = new QAction(themeIcon("image-x-generic", QStyle::SP_FileIcon),
                                   tr("Export &Chart\u2026"), this);
  exportChartAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  exportChartAction_->setStatusTip(tr("Write the chart on show as PNG, PDF, SVG or JPG"));
  connect(exportChartAction_, &QAction::triggered, this, &MainWindow::exportChartDialog);

  exportResultsAction_ =
      new QAction(themeIcon("x-office-spreadsheet", QStyle::SP_FileDialogDetailedView),
                  tr("Export &Results\u2026"), this);
  exportResultsAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  exportResultsAction_->setStatusTip(tr("Write the results table as CSV or JSON"));
  connect(exportResultsAction_, &QAction::triggered, this, &MainWindow::exportResultsDialog);

  clearAction_ = new QAction(themeIcon("edit-clear", QStyle::SP_DialogResetButton),
                             tr("C&lear Results"), this);
  clearAction_->setStatusTip(tr("Remove every result from the table and the charts"));
  connect(clearAction_, &QAction::triggered, this, &MainWindow::clearResults);

  resetViewAction_ =
      new QAction(themeIcon("zoom-fit-best", QStyle::SP_BrowserReload), tr("&Fit Charts"), this);
  resetViewAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  resetViewAction_->setStatusTip(
      tr("Undo zoom and pan: fit every chart to its data "
         "(double-click a chart does the same)"));
  connect(resetViewAction_, &QAction::triggered, this, [this] { charts_->resetView(); });

  presentationAction_ = new QAction(themeIcon("view-fullscreen", QStyle::SP_TitleBarMaxButton),
                                    tr("&Presentation Mode"), this);
#ifdef TILESCOPE_HAVE_DIAGRAMS
  // F11 everywhere: Linux has no platform full-screen key.
  presentationAction_->setShortcuts(DiagramPanel::presentationShortcuts());
#else
  presentationAction_->setShortcuts(QList<QKeySequence>{QKeySequence(Qt::Key_F11)} +
                                    QKeySequence::keyBindings(QKeySequence::FullScreen));
#endif
  presentationAction_->setCheckable(true);
  presentationAction_->setStatusTip(tr("Full screen with large diagrams, for teaching"));
  connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentation);

  quitAction_ =
      new QAction(themeIcon("application-exit", QStyle::SP_DialogCloseButton), tr("&Quit"), this);
  quitAction_->setObjectName(QStringLiteral("quitAction"));
  // The platform's Quit key is empty on some platforms (Windows, offscreen): Ctrl+Q everywhere.
  quitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quitAction_->setStatusTip(tr("Stop any run and quit TileScope"));
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
#ifdef TILESCOPE_HAVE_DIAGRAMS
  auto* diagrams = new DiagramPanel(diagramsDock);
  connect(controls_, &ControlPanel::configurationChanged, diagrams,
          &DiagramPanel::setConfiguration);
  // Esc in the presentation window ends it without going through the action.
  connect(diagrams, &DiagramPanel::presentationModeChanged, this, [this](bool on) {
    const QSignalBlocker blocker(presentationAction_);
    presentationAction_->setChecked(on);
  });
  // Another block of a traced kernel is traced when it is selected.
  connect(diagrams->document(), &DiagramDocument::selectionChanged, this,
          &MainWindow::retraceSelectedBlock);
  // The access view sets the counted run of the drawn configuration beside the model.
  const auto shareCounted = [this, diagrams] {
    diagrams->document()->setCountedRuns(model_.results());
  };
  connect(&model_, &QAbstractItemModel::rowsInserted, diagrams, shareCounted);
  connect(&model_, &QAbstractItemModel::modelReset, diagrams, shareCounted);
  diagrams_ = diagrams;
#else
  auto* placeholder = new QLabel(
      tr("The thread-mapping diagrams are not part of this build of TileScope."), diagramsDock);
  placeholder->setAlignment(Qt::AlignCenter);
  placeholder->setWordWrap(true);
  placeholder->setMargin(24);
  diagrams_ = placeholder;
#endif
  diagrams_->setObjectName(QStringLiteral("diagrams"));
  // The diagrams scroll down rather than hold the window taller than a small screen (a 1280x720
  // projector at 150 %); they never scroll sideways, fitDocksTo() makes room for their width.
  auto* diagramsScroll = new QScrollArea(diagramsDock);
  diagramsScroll->setWidgetResizable(true);
  diagramsScroll->setFrameShape(QFrame::NoFrame);
  diagramsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  diagramsScroll->setWidget(diagrams_);
  diagramsScroll->setMinimumWidth(diagrams_->minimumSizeHint().width());
  diagramsDock->setWidget(diagramsScroll);
  addDockWidget(Qt::RightDockWidgetArea, diagramsDock);
  resizeDocks({controlsDock, diagramsDock}, {360, 460}, Qt::Horizontal);

  // The user's own kernel: a tab behind the diagrams.
  auto* editorDock = new QDockWidget(tr("Kernel Editor"), this);
  editorDock->setObjectName(QStringLiteral("kernelEditorDock"));
  kernelEditor_ = new KernelEditor(editorDock);
  editorDock->setWidget(kernelEditor_);
  tabifyDockWidget(diagramsDock, editorDock);
  connect(kernelEditor_, &KernelEditor::runRequested, this, &MainWindow::runUserKernel);
  connect(kernelEditor_, &KernelEditor::traceRequested, this, &MainWindow::traceUserKernel);
  connect(kernelEditor_, &KernelEditor::autotuneRequested, this,
          [this](const UserKernelSource& kernel) { autotune(nullptr, kernel); });
  diagramsDock->raise();
  resizeDocks({resultsDock}, {260}, Qt::Vertical);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openAction_);
  file->addAction(openTraceAction_);
  file->addMenu(sampleMenu_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
  file->addAction(saveAction_);
  file->addAction(saveAsAction_);
  file->addSeparator();
  createOverlayMenu(file);
  file->addSeparator();
  file->addAction(exportChartAction_);
  file->addAction(exportResultsAction_);
  file->addSeparator();
  file->addAction(quitAction_);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(undoAction_);
  edit->addAction(redoAction_);
  edit->addSeparator();
  edit->addAction(table_->copyAction());
  edit->addAction(clearAction_);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(runAction_);
  run->addAction(autotuneAction_);
  run->addAction(ceilingsAction_);
  run->addAction(cancelAction_);
  run->addSeparator();
  createLessonMenu(run);

  createBackendMenu();

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) {
    QAction* toggle = dock->toggleViewAction();
    toggle->setStatusTip(tr("Show or hide the %1 panel").arg(dock->windowTitle()));
    view->addAction(toggle);
  }
  view->addSeparator();
  for (app::ChartKind kind : app::kAllCharts) {
    auto* show = view->addAction(charts_->tabText(int(kind)));
    show->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + int(kind))));
    show->setStatusTip(charts_->tabToolTip(int(kind)));
    connect(show, &QAction::triggered, this, [this, kind] { charts_->showChart(kind); });
  }
  view->addSeparator();
  view->addAction(resetViewAction_);
  view->addAction(presentationAction_);
  view->addMenu(createThemeMenu(this));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  addGuide(help);
  auto* about = help->addAction(tr("&About TileScope"), this, [this] {
    QMessageBox::about(
        this, tr("About TileScope"),
        tr("<h3>TileScope %1</h3><p>See and measure tiled matrix multiplication on GPUs and "
           "CPUs: run the seeds' kernels, watch the charts, and see in the diagrams which "
           "thread computes what.</p>")
            .arg(QApplication::applicationVersion()));
  });
  about->setStatusTip(tr("What TileScope is"));
  auto* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
  aboutQt->setStatusTip(tr("The Qt version TileScope uses"));
}

void MainWindow::createBackendMenu() {
  QMenu* backend = menuBar()->addMenu(tr("&Backend"));
  QAction* servers = backend->addAction(tr("GPU &Server\u2026"), this, &MainWindow::editServers);
  servers->setObjectName(QStringLiteral("gpuServersAction"));
  servers->setStatusTip(
      tr("Run on a GPU server over SSH or Slurm, or the local CUDA backend in a child process"));
}

void MainWindow::editServers() {
  ServerDialog dialog(app::loadServerSettings(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  app::saveServerSettings(dialog.settings());
  controller_.setServers(app::remoteBackends(dialog.settings()));
  statusBar()->showMessage(tr("Connecting to the servers\u2026"));
}

void MainWindow::createToolBar() {
  QToolBar* tools = addToolBar(tr("Main"));
  tools->setObjectName(QStringLiteral("mainToolBar"));
  tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tools->setMovable(false);
  tools->addAction(runAction_);
  tools->addAction(autotuneAction_);
  tools->addAction(cancelAction_);
  tools->addSeparator();
  tools->addAction(openAction_);
  tools->addAction(saveAction_);
  tools->addSeparator();
  tools->addAction(exportChartAction_);
  tools->addAction(exportResultsAction_);
  tools->addSeparator();
  tools->addAction(resetViewAction_);
}

void MainWindow::createStatusBar() {
  progressText_ = new QLabel(this);
  progressBar_ = new QProgressBar(this);
  progressBar_->setRange(0, 1000);
  progressBar_->setTextVisible(false);
  progressBar_->setMaximumWidth(220);
  timeLeft_ = new QLabel(this);
  statusBar()->addPermanentWidget(progressText_);
  statusBar()->addPermanentWidget(progressBar_);
  statusBar()->addPermanentWidget(timeLeft_);
  statusBar()->showMessage(tr("Looking for backends and devices\u2026"));
}

void MainWindow::restoreSettings() {
  if (!restoreGeometry(rememberedBytes(kGeometryKey))) {
    resize(kFirstRunSize.boundedTo(screen()->availableSize() * 0.92));
  }
  restoreState(rememberedBytes(kStateKey), kWindowStateVersion);
  QStringList notices;
  controls_->setChoices(app::loadLastChoices(&notices));
  // The window opens whatever the settings hold; what was put back is said once.
  if (!notices.isEmpty()) showProblem(notices.join(QStringLiteral("; ")));
  if (savedTheme() != currentTheme()) applyTheme(savedTheme());
}

bool MainWindow::openKernelFile(const QString& path, QString* error) {
  if (!kernelEditor_->openFile(path, error)) return false;
  findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"))->raise();
  kernelEditor_->compile();
  return true;
}

void MainWindow::fitDocksTo(const QSize& available) {
  // Back on a screen wide enough for the layout this window had before it was fitted: restore it.
  if (!layoutBeforeFit_.isEmpty() && minimumBeforeFit_.width() <= available.width()) {
    restoreState(layoutBeforeFit_, kWindowStateVersion);
    layoutBeforeFit_.clear();
    return;
  }
  if (minimumSizeHint().width() <= available.width()) return;
  // Three columns are wider than the screen: the right column's docks (the diagrams, the kernel
  // editor) become tabs of the Run Setup column.
  auto* controlsDock = findChild<QDockWidget*>(QStringLiteral("controlsDock"));
  std::vector<QDockWidget*> right;
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    if (dockWidgetArea(dock) == Qt::RightDockWidgetArea && !dock->isFloating() &&
        dock->toggleViewAction()->isChecked())  // a tab behind another is shown, if not visible
      right.push_back(dock);
  if (right.empty()) return;
  layoutBeforeFit_ = saveState(kWindowStateVersion);
  minimumBeforeFit_ = minimumSizeHint();
  for (QDockWidget* dock : right) tabifyDockWidget(controlsDock, dock);
  controlsDock->raise();
  layout()->activate();  // the new, narrower minimum, before the window shrinks to the screen
  resize(size().boundedTo(available));
  statusBar()->showMessage(
      tr("The screen is too narrow for three columns: Diagrams and the Kernel Editor are tabs "
         "beside Run Setup"),
      10000);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // A window laid out only to be photographed (--screenshot) keeps the size it was given.
  if (testAttribute(Qt::WA_DontShowOnScreen)) return;
  fitDocksTo(screen()->availableSize());
  if (!followsScreen_) {
    followsScreen_ = true;
    connect(windowHandle(), &QWindow::screenChanged, this,
            [this](QScreen* screen) { fitDocksTo(screen->availableSize()); });
  }
}

void MainWindow::saveSettings() {
  if (!remembersSettings_) return;
  app::rememberSetting(kGeometryKey, saveGeometry().toBase64().toStdString());
  // A layout squeezed for a small screen is not the one to open with on the next, larger one.
  const QByteArray layout =
      layoutBeforeFit_.isEmpty() ? saveState(kWindowStateVersion) : layoutBeforeFit_;
  app::rememberSetting(kStateKey, layout.toBase64().toStdString());
  app::saveLastChoices(controls_->choices());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!settleUnsavedResults(tr("closing TileScope"))) {
    event->ignore();
    return;
  }
  saveSettings();
  // Cancel, stop the worker thread and wait for the launch in progress to end.
  controller_.shutdown();
  event->accept();
}

bool MainWindow::runChoices() {
  QString problem;
  const std::vector<app::RunJob> jobs = controls_->plannedJobs(&problem);
  if (jobs.empty()) {
    showProblem(problem);
    return false;
  }
  if (remembersSettings_) app::saveLastChoices(controls_->choices());
  showChartFor(controls_->choices().sweep);
  enqueue(jobs);
  return true;
}

bool MainWindow::runUserKernel(const UserKernelSource& kernel) {
  const app::Choices choices = controls_->choices();
  std::vector<app::RunJob> jobs;
  try {
    jobs = app::planUserJobs(choices, kernel);
  } catch (const Error& error) {
    showProblem(tr("Cannot run %1: %2")
                    .arg(QString::fromStdString(kernel.name), QString::fromUtf8(error.what())));
    return false;
  }
  showChartFor(choices.sweep);
  enqueue(jobs);
  return true;
}

bool MainWindow::traceUserKernel(const UserKernelSource& kernel) {
  const app::Choices choices = controls_->choices();
  TraceRequest request;
  try {
    const std::vector<app::RunJob> jobs = app::planUserJobs(choices, kernel);
    request.kernel = jobs.front().request.kernel;
    request.shape = jobs.front().request.shape;
    request.device = jobs.front().request.device;
    request.element = jobs.front().request.element;
  } catch (const Error& error) {
    showProblem(tr("Cannot trace %1: %2")
                    .arg(QString::fromStdString(kernel.name), QString::fromUtf8(error.what())));
    return false;
  }
  if (const auto why = traceRefusal(request)) {
    showProblem(tr("Cannot trace %1: %2")
                    .arg(QString::fromStdString(kernel.name), QString::fromStdString(*why)));
    return false;
  }
#ifdef TILESCOPE_HAVE_DIAGRAMS
  const DiagramDocument* document = static_cast<DiagramPanel*>(diagrams_)->document();
  if (const Mapping* shown = document->mapping();
      shown && shown->trace() && shown->config().kernel == request.kernel.kernel)
    request.block = document->selection().block;
#endif
  enqueue({app::RunJob::trace(choices.backend, request)});
  return true;
}

void MainWindow::retraceSelectedBlock() {
#ifdef TILESCOPE_HAVE_DIAGRAMS
  const DiagramDocument* document = static_cast<DiagramPanel*>(diagrams_)->document();
  const KernelTrace* trace = document->mapping() ? document->mapping()->trace() : nullptr;
  const Dim2 block = document->selection().block;
  // A trace file may come without its source: there is nothing to launch then.
  if (!trace || !trace->kernel.source ||
      (block.x == trace->tracedBlock.x && block.y == trace->tracedBlock.y))
    return;
  const app::Choices choices = controls_->choices();
  if (choices.backend == "cpu") {  // Backend::trace: only CUDA, here or on a server, traces
    statusBar()->showMessage(
        tr("Only block (%1,%2)'s accesses were traced: choose a CUDA GPU or a GPU server in Run "
           "Setup to trace block (%3,%4)")
            .arg(trace->tracedBlock.x)
            .arg(trace->tracedBlock.y)
            .arg(block.x)
            .arg(block.y));
    return;
  }
  if (controller_.busy()) {
    // A trace arriving selects its own block: this one is selected again when the queue ends.
    pendingRetrace_ = block;
    return;
  }
  if (lastRetrace_ && lastRetrace_->first == trace->kernel && lastRetrace_->second.x == block.x &&
      lastRetrace_->second.y == block.y)
    return;
  lastRetrace_ = std::pair(trace->kernel, block);
  const TraceRequest request{trace->kernel, trace->shape, choices.device, block, trace->element};
  if (const auto why = traceRefusal(request)) {
    showProblem(tr("Cannot trace block (%1,%2): %3")
                    .arg(block.x)
                    .arg(block.y)
                    .arg(QString::fromStdString(*why)));
    return;
  }
  enqueue({app::RunJob::trace(choices.backend, request)});
  statusBar()->showMessage(tr("Tracing block (%1,%2) of %3 on %4")
                               .arg(block.x)
                               .arg(block.y)
                               .arg(QString::fromStdString(trace->kernel.kernel),
                                    QString::fromStdString(choices.backend)));
#endif
}

void MainWindow::showChartFor(app::SweepKind sweep) {
  switch (sweep) {
    case app::SweepKind::Tile:
      charts_->showChart(app::ChartKind::TileSweep);
      break;
    case app::SweepKind::Size:
    case app::SweepKind::Kernel:
      charts_->showChart(app::ChartKind::Rate);
      break;
    case app::SweepKind::Single:
      break;
  }
}

void MainWindow::enqueue(const std::vector<app::RunJob>& jobs) {
  controller_.enqueue(jobs);
}

bool MainWindow::autotune(QString* problem, const std::optional<UserKernelSource>& userKernel) {
  const auto refuse = [&](const QString& message) {
    showProblem(message);
    if (problem) *problem = message;
    return false;
  };
  if (autotune_)
    return refuse(tr("An autotune is already queued: cancel it or wait for it to end"));
  const app::Choices choices = controls_->choices();
  const std::string device = controls_->deviceName();
  const app::BackendSummary* summary = controller_.backend(choices.backend);
  if (!summary || !summary->available() || device.empty())
    return refuse(tr("Autotune needs an available backend and device"));
  if (const auto why = summary->elementRefusal(
          userKernel ? app::userElementFor(choices, *userKernel) : choices.element))
    return refuse(tr("Cannot autotune: %1").arg(QString::fromStdString(*why)));
  try {
    // The remembered parameters are read first, so a damaged file is reported before the runs.
    [[maybe_unused]] const plan::TunedStore remembered(plan::TunedStore::defaultPath());
    // The backends live on the worker thread: plan with the catalogue's refusals; whatever the
    // backend still refuses fails that run alone, as in a sweep.
    autotune_.emplace(choices, device, userKernel);
  } catch (const Error& error) {
    return refuse(tr("Cannot autotune: %1").arg(QString::fromStdString(error.what())));
  }
  if (remembersSettings_) app::saveLastChoices(choices);
  charts_->showChart(app::ChartKind::Landscape);
  statusBar()->showMessage(tr("Autotuning %1: %2 configurations (%3 refused)")
                               .arg(QString::fromStdString(autotune_->kernel()))
                               .arg(autotune_->jobs().size())
                               .arg(autotune_->refused().size()));
  enqueue(autotune_->jobs());
  return true;
}

bool MainWindow::measureCeilings(QString* problem) {
  const app::Choices choices = controls_->choices();
  const app::BackendSummary* summary = controller_.backend(choices.backend);
  if (!summary || !summary->available() || controls_->deviceName().empty()) {
    const QString message = tr("Measuring ceilings needs an available backend and device");
    showProblem(message);
    if (problem) *problem = message;
    return false;
  }
  charts_->showChart(app::ChartKind::Roofline);
  statusBar()->showMessage(tr("Measuring the ceilings of %1 (%2)")
                               .arg(QString::fromStdString(controls_->deviceName()),
                                    QString::fromStdString(choices.backend)));
  enqueue({app::RunJob::ceilings(choices.backend, choices.device)});
  return true;
}

void MainWindow::finishAutotune(const app::QueueSummary& summary) {
  const app::AutotuneRun run = std::move(*autotune_);
  autotune_.reset();
  const QString kernel = QString::fromStdString(run.kernel());
  // A cancelled landscape is partial; failed runs (already shown) just drop out of it.
  if (summary.cancelled) {
    statusBar()->showMessage(tr("Autotune of %1 stopped after %2 of %3 configurations; nothing "
                                "remembered.")
                                 .arg(kernel)
                                 .arg(run.results().size())
                                 .arg(run.jobs().size()));
    return;
  }
  std::optional<plan::TunedEntry> entry;
  try {
    plan::TunedStore store(plan::TunedStore::defaultPath());
    entry = run.remember(store);
  } catch (const Error& error) {
    showProblem(tr("The autotune's best parameters could not be remembered: %1")
                    .arg(QString::fromStdString(error.what())));
    return;
  }
  if (!entry) {
    showProblem(tr("Autotune of %1: no configuration passed verification, so nothing was "
                   "remembered")
                    .arg(kernel));
    return;
  }
  app::Choices choices = controls_->choices();
  if (choices.kernel == entry->kernel && choices.element == entry->element) {
    choices.params = entry->params;
    controls_->setChoices(choices);
  }
  statusBar()->showMessage(
      tr("Autotune of %1: fastest verified %2 at %3 GFLOP/s of %4 configurations; remembered "
         "for %5")
          .arg(kernel, QString::fromStdString(formatParams({entry->kernel, entry->params})),
               app::formatRate(entry->gflops))
          .arg(run.results().size())
          .arg(QString::fromStdString(entry->device)));
}

void MainWindow::cancelRuns() {
  if (!controller_.busy()) return;
  controller_.cancel();
  statusBar()->showMessage(tr("Cancelling: the run in progress stops when its launch ends"));
}

void MainWindow::onBackendsChanged() {
  controls_->setBackends(controller_.backends());
  QStringList available;
  for (const app::BackendSummary& backend : controller_.backends()) {
    if (backend.available()) available << QString::fromStdString(backend.id);
  }
  statusBar()->showMessage(tr("Ready. Backends: %1").arg(available.join(QStringLiteral(", "))),
                           5000);
}

void MainWindow::onChoicesChanged() {
  QString problem;
  const bool runnable = !controls_->plannedJobs(&problem).empty();
  runAction_->setEnabled(runnable);
  runAction_->setToolTip(runnable ? tr("Run (Ctrl+R)") : problem);
  // Autotune follows Run's rules (choices that cannot run cannot be tuned either) and needs a
  // parameter to tune.
  const KernelInfo* kernel = findKernel(controls_->choices().kernel);
  const bool tunable = kernel && !kernel->params.empty();
  autotuneAction_->setEnabled(runnable && tunable && !controls_->deviceName().empty());
  autotuneAction_->setToolTip(!runnable ? problem
                              : !tunable
                                  ? tr("%1 has no parameters to tune")
                                        .arg(QString::fromStdString(controls_->choices().kernel))
                                  : tr("Autotune (Ctrl+T)"));
  ceilingsAction_->setEnabled(!controls_->deviceName().empty());
}

void MainWindow::onBusyChanged(bool busy) {
  cancelAction_->setEnabled(busy);
  progressText_->setVisible(busy);
  progressBar_->setVisible(busy);
  timeLeft_->setVisible(busy);
  runAction_->setText(busy ? tr("&Queue") : tr("&Run"));
  if (busy) {
    progressBar_->setValue(0);
    timeLeft_->setText(tr("estimating\u2026"));
  }
}

void MainWindow::onProgress(const app::QueueProgress& progress) {
  if (!controller_.busy()) return;
  progressBar_->setValue(int(progress.fraction * 1000));
  QString text =
      tr("Run %1 of %2: %3").arg(progress.position).arg(progress.total).arg(progress.current);
  if (!progress.stage.isEmpty()) text += QStringLiteral(" \u2014 ") + progress.stage;
  progressText_->setText(text);
  timeLeft_->setText(progress.secondsLeft < 0
                         ? tr("estimating\u2026")
                         : tr("about %1 left").arg(formatDuration(progress.secondsLeft)));
}

void MainWindow::onResult(const RunResult& result) {
  // Keep the facts of the device each result was measured on, for tooltips and sessions.
  std::vector<app::MeasuredDevice> devices = model_.devices();
  if (const app::BackendSummary* backend = controller_.backend(result.backend)) {
    std::vector<app::MeasuredDevice> measured;
    for (const DeviceInfo& device : backend->devices) {
      if (device.name == result.device) measured.push_back({result.backend, device});
    }
    app::mergeDevices(devices, measured);
  }
  model_.setDevices(devices);
  model_.append(result);
  if (autotune_) autotune_->collect(result);
  setWindowModified(true);
  // What the counters say against the model, for the status line at the end of the queue; the
  // table's tooltips keep it per run.
  const QString counted = QString::fromStdString(app::seriesName(result, false));
  if (result.countersUnavailable)
    countersNote_ = tr("%1: %2").arg(counted, QString::fromStdString(*result.countersUnavailable));
  else if (const std::string parted = partingSummary(result); !parted.empty())
    countersNote_ =
        tr("%1, counted against the model: %2").arg(counted, QString::fromStdString(parted));
  if (!result.verified() && result.verification) {
    showProblem(tr("%1 at %2 did not verify: relative error %3")
                    .arg(QString::fromStdString(app::seriesName(result, false)),
                         app::formatShape(result.shape))
                    .arg(result.verification->relError, 0, 'e', 2));
  }
}

void MainWindow::onCeilings(const DeviceCeilings& ceilings) {
  std::vector<DeviceCeilings> known = model_.ceilings();
  app::rememberCeilings(known, ceilings);
  model_.setCeilings(std::move(known));
  setWindowModified(true);
  QStringList figures;
  for (const Ceiling& ceiling : ceilings.compute) {
    figures << tr("%1 %2 GFLOP/s")
                   .arg(QString::fromStdString(ceiling.name), app::formatRate(ceiling.measured));
  }
  figures << tr("memory %1 GB/s").arg(ceilings.bandwidth.measured, 0, 'f', 1);
  statusBar()->showMessage(
      tr("Ceilings of %1: %2")
          .arg(QString::fromStdString(ceilings.device), figures.join(QStringLiteral(", "))));
}

void MainWindow::onRunFailed(const app::RunJob& job, const app::RunFailure& failure) {
  const QString kind =
      failure.kind ? QString::fromLatin1(toString(*failure.kind)) : tr("unexpected error");
  showProblem(tr("%1 failed (%2): %3").arg(app::describe(job), kind, failure.message));
}

void MainWindow::onQueueFinished(const app::QueueSummary& summary) {
  QString text = summary.cancelled ? tr("Cancelled after %1 runs").arg(summary.completed)
                                   : tr("Done: %1 runs").arg(summary.completed);
  if (summary.failed > 0) text += tr(", %1 failed").arg(summary.failed);
  text += tr(" in %1.").arg(formatDuration(summary.seconds));
  if (!countersNote_.isEmpty()) text += QLatin1Char(' ') + std::exchange(countersNote_, {});
  statusBar()->showMessage(text);
  if (autotune_) finishAutotune(summary);
#ifdef TILESCOPE_HAVE_DIAGRAMS
  if (const std::optional<Dim2> pending = std::exchange(pendingRetrace_, std::nullopt)) {
    DiagramDocument* document = static_cast<DiagramPanel*>(diagrams_)->document();
    DiagramSelection selection = document->selection();
    selection.block = *pending;
    document->setSelection(selection);  // traces it, unless that block is already drawn
    retraceSelectedBlock();             // where the selection stayed on it
  }
#endif
}

void MainWindow::showProblem(const QString& message) {
  notice_->showProblem(message);
  statusBar()->showMessage(message);
}

void MainWindow::fileError(const QString& message) {
  statusBar()->showMessage(message);
  QMessageBox::warning(this, tr("TileScope"), message);
}

app::Session MainWindow::currentSession() const {
  app::Session session;
  session.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  session.devices = model_.devices();
  std::vector<app::MeasuredDevice> current;
  for (const app::BackendSummary& backend : controller_.backends()) {
    for (const DeviceInfo& device : backend.devices) current.push_back({backend.id, device});
  }
  app::mergeDevices(session.devices, current);
  session.choices = controls_->choices();
  session.results = model_.results();
  session.ceilings = model_.ceilings();
  session.editorKernel = UserKernelSource{kernelEditor_->kernelName().toStdString(),
                                          kernelEditor_->editor()->toPlainText().toStdString()};
  return session;
}

bool MainWindow::openSession(const QString& path, QString* error) {
  std::optional<app::Session> session = app::loadSessionOrSample(path, error);
  if (!session) return false;
  sessionWarnings_.clear();
  for (const std::string& warning : session->warnings)
    sessionWarnings_ << QStringLiteral("%1: %2").arg(path, QString::fromStdString(warning));
  if (!sessionWarnings_.isEmpty()) {
    showProblem(sessionWarnings_.size() == 1 ? sessionWarnings_.front()
                                             : tr("%1 (and %2 more entries skipped)")
                                                   .arg(sessionWarnings_.front())
                                                   .arg(sessionWarnings_.size() - 1));
  }
  model_.setDevices(session->devices);
  model_.setResults(std::move(session->results));
  model_.setCeilings(std::move(session->ceilings));
  controls_->setChoices(session->choices);
  if (const auto& kernel = session->editorKernel)
    kernelEditor_->setKernel(QString::fromStdString(kernel->name),
                             QString::fromStdString(kernel->source));
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  sessionReadOnly_ = app::isShippedSample(path);
  undoStack_->clear();
  if (remembersSettings_) app::addRecentFile(sessionPath_);
  if (remembersSettings_ && !path.startsWith(QLatin1Char(':')))
    app::rememberFolder(app::Folder::Sessions, sessionPath_);
  setWindowModified(false);
  updateTitle();
  statusBar()->showMessage(tr("Opened %1: %2 results").arg(path).arg(model_.rowCount()), 5000);
  return true;
}

bool MainWindow::saveSession(const QString& path, QString* error) {
  if (app::isShippedSample(path)) {
    if (error) {
      *error = tr("%1 is a sample shipped with TileScope and stays as measured: save under "
                  "another name")
                   .arg(QDir::toNativeSeparators(path));
    }
    return false;
  }
  if (!app::saveSession(path, currentSession(), error)) return false;
  sessionPath_ = QFileInfo(path).absoluteFilePath();
  sessionReadOnly_ = false;
  if (remembersSettings_) app::addRecentFile(sessionPath_);
  setWindowModified(false);
  updateTitle();
  statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
  return true;
}

bool MainWindow::exportResults(const QString& path, QString* error) {
  if (QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0) {
    return app::exportResultsJson(
        path, {currentSession().devices, model_.results(), model_.ceilings()}, error);
  }
  return app::exportResultsCsv(path, model_.results(), error);
}

bool MainWindow::exportChart(app::ChartKind kind, const QString& path, QSize size, QString* error) {
  return charts_->exportChart(kind, path, size, error);
}

void MainWindow::openSessionDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Session"), app::lastFolder(app::Folder::Sessions), kSessionFilter);
  if (!path.isEmpty()) openRecent(path);
}

void MainWindow::openTraceDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open Trace"), app::lastFolder(app::Folder::Sessions),
                                   tr("TileScope trace (*.json)"));
  QString error;
  if (!path.isEmpty() && !openTrace(path, &error)) fileError(error);
}

bool MainWindow::openTrace(const QString& path, QString* error) {
  std::optional<KernelTrace> trace = app::loadTrace(path, error);
  if (!trace || !showTrace(*trace, error)) return false;
  statusBar()->showMessage(tr("Opened %1: %2 traced on %3")
                               .arg(path, QString::fromStdString(trace->kernel.kernel),
                                    QString::fromStdString(trace->device)),
                           5000);
  return true;
}

bool MainWindow::showTrace(const KernelTrace& trace, QString* error) {
#ifdef TILESCOPE_HAVE_DIAGRAMS
  DiagramDocument* document = static_cast<DiagramPanel*>(diagrams_)->document();
  document->setTrace(trace);
  if (!document->mapping()) {
    if (error) *error = document->unavailableReason();
    return false;
  }
  findChild<QDockWidget*>(QStringLiteral("diagramsDock"))->raise();
  return true;
#else
  (void)trace;
  if (error) *error = tr("the thread-mapping diagrams are not part of this build of TileScope");
  return false;
#endif
}

void MainWindow::openRecent(const QString& path) {
  if (!settleUnsavedResults(tr("opening %1").arg(QFileInfo(path).fileName()))) return;
  QString error;
  if (!openSession(path, &error)) {
    if (!QFileInfo::exists(path) && remembersSettings_) app::removeRecentFile(path);
    fileError(error);
  }
}

bool MainWindow::saveSessionDialog(bool askForName) {
  QString path = sessionPath_;
  // A read-only sample is saved as a new file, never over itself.
  if (askForName || path.isEmpty() || sessionReadOnly_) {
    const QString folder = app::lastFolder(app::Folder::Sessions);
    const QString suggested = path.isEmpty() ? folder + QStringLiteral("/tilescope-session.json")
                              : sessionReadOnly_
                                  ? folder + QLatin1Char('/') + QFileInfo(path).fileName()
                                  : path;
    path = askSavePath(suggested);
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
  }
  QString error;
  if (!saveSession(path, &error)) {
    fileError(error);
    return false;
  }
  if (remembersSettings_) app::rememberFolder(app::Folder::Sessions, path);
  return true;
}

void MainWindow::exportChartDialog() {
  const app::ChartKind kind = charts_->currentChart();
  QString selected;
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export Chart"),
      app::lastFolder(app::Folder::Exports) +
          QStringLiteral("/tilescope-%1.png").arg(app::chartId(kind)),
      tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg);;JPEG image (*.jpg)"),
      &selected);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) {
    // The suffix picks the format: take it from the chosen filter.
    path += QLatin1Char('.') + selected.section(QStringLiteral("*."), 1).chopped(1);
  }
  QString error;
  const QSize size = charts_->chart(kind)->size().expandedTo(QSize(800, 500));
  if (!exportChart(kind, path, size, &error)) {
    fileError(error);
    return;
  }
  app::rememberFolder(app::Folder::Exports, path);
  statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::exportResultsDialog() {
  QString selected;
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export Results"),
      app::lastFolder(app::Folder::Exports) + QStringLiteral("/tilescope.csv"),
      tr("CSV table (*.csv);;JSON (*.json)"), &selected);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) {
    path += QLatin1Char('.') + selected.section(QStringLiteral("*."), 1).chopped(1);
  }
  QString error;
  if (!exportResults(path, &error)) {
    fileError(error);
    return;
  }
  app::rememberFolder(app::Folder::Exports, path);
  statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = app::recentFiles();
  for (const QString& path : files) {
    QAction* open = recentMenu_->addAction(QFileInfo(path).fileName());
    open->setStatusTip(path);
    connect(open, &QAction::triggered, this, [this, path] { openRecent(path); });
  }
  if (files.isEmpty()) recentMenu_->addAction(tr("No recent sessions"))->setEnabled(false);
}

void MainWindow::updateTitle() {
  QString name =
      sessionPath_.isEmpty() ? tr("Untitled session") : QFileInfo(sessionPath_).fileName();
  if (sessionReadOnly_) name += tr(" (read-only sample)");
  setWindowTitle(QStringLiteral("%1[*] \u2014 TileScope").arg(name));
  // Save never writes into a sample: it becomes Save As.
  saveAction_->setText(sessionReadOnly_ ? tr("&Save Session As\u2026") : tr("&Save Session"));
}

void MainWindow::setPresentation(bool on) {
#ifdef TILESCOPE_HAVE_DIAGRAMS
  // The diagram panel presents in a full-screen window of its own.
  static_cast<DiagramPanel*>(diagrams_)->setPresentationMode(on);
#else
  if (on) {
    showFullScreen();
  } else {
    showNormal();
  }
#endif
}

bool MainWindow::showDiagramView(const QString& view) {
#ifdef TILESCOPE_HAVE_DIAGRAMS
  return static_cast<DiagramPanel*>(diagrams_)->setCurrentView(view);
#else
  Q_UNUSED(view);
  return false;
#endif
}

bool MainWindow::exportCurrentDiagram(const QString& view, const QString& path, QString* error) {
#ifdef TILESCOPE_HAVE_DIAGRAMS
  auto* panel = static_cast<DiagramPanel*>(diagrams_);
  if (!panel->setCurrentView(view)) {
    if (error) *error = tr("unknown view '%1'").arg(view);
    return false;
  }
  return saveDiagram(*panel->currentView(), path, kExportSize, error);
#else
  Q_UNUSED(view);
  Q_UNUSED(path);
  if (error) *error = tr("this build of TileScope has no diagrams");
  return false;
#endif
}

}  // namespace tilescope::ui
