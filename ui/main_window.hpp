#pragma once
// The main window: the control panel on the left, the charts above the results table in the
// middle, the diagrams on the right; the run queue's progress and time left in the status bar.
#include <QMainWindow>
#include <QStyle>

#include <functional>
#include <optional>

#include "autotune_run.hpp"
#include "chart_kind.hpp"
#include "lessons.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "servers.hpp"
#include "session.hpp"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QUndoStack;

namespace tilescope::ui {

class ChartPanel;
class KernelEditor;
class ControlPanel;
class HelpPanel;
class LessonBar;
class NoticeBar;
class ResultsView;

// The answer to "save the unsaved results first?".
enum class UnsavedAnswer { Save, Discard, Cancel };

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  app::RunController* controller() { return &controller_; }
  app::ResultsModel* results() { return &model_; }
  ControlPanel* controls() const { return controls_; }
  ChartPanel* charts() const { return charts_; }
  ResultsView* table() const { return table_; }
  NoticeBar* notice() const { return notice_; }

  // Queues what the control panel describes. When it cannot run, says why (notice and status
  // bar) and returns false.
  bool runChoices();
  // Queues the Kernel Editor's kernel with the control panel's backend, device, size,
  // measurement and sweep (app::planUserJobs); says why when it cannot, as runChoices does.
  bool runUserKernel(const UserKernelSource& kernel);
  void enqueue(const std::vector<app::RunJob>& jobs);
  void cancelRuns();
  // Queues every valid configuration of the chosen kernel at the chosen size; when they have
  // run, the fastest verified one is remembered for the device and chosen in the controls.
  // When it cannot start, says why (notice, status bar and `problem`) and returns false.
  // With `userKernel`, the Kernel Editor's kernel over its TS_PARAM values instead.
  bool autotune(QString* problem = nullptr,
                const std::optional<UserKernelSource>& userKernel = std::nullopt);
  // Queues a measurement of the chosen device's roofline ceilings and shows the roofline; when
  // they arrive they replace the device's earlier ceilings in the session. When it cannot start,
  // says why (notice, status bar and `problem`) and returns false.
  bool measureCeilings(QString* problem = nullptr);
  // The autotune queued or running, if any.
  const app::AutotuneRun* currentAutotune() const { return autotune_ ? &*autotune_ : nullptr; }

  // Replace the table with a session's results and choices; on failure nothing changes.
  bool openSession(const QString& path, QString* error);
  // What the last openSession left out (bad entries skipped), one line each; shown as a notice.
  const QStringList& sessionWarnings() const { return sessionWarnings_; }
  bool saveSession(const QString& path, QString* error);
  // Results as CSV or JSON, by the file's suffix.
  bool exportResults(const QString& path, QString* error);
  bool exportChart(app::ChartKind kind, const QString& path, QSize size, QString* error);
  // The whole window as PNG, its charts up to date, through the one file writer.
  bool saveScreenshot(const QString& path, QString* error);

  // Shows one diagram view ("matrix", "kstep", "block", "access"); false without diagrams.
  bool showDiagramView(const QString& view);
  // Writes the window's own diagram `view` (what it draws now: a trace, say) as PNG or SVG.
  bool exportCurrentDiagram(const QString& view, const QString& path, QString* error);

  // Geometry, dock layout and last choices from the settings file.
  void restoreSettings();
  // Scripted runs (--quit) leave the user's remembered settings alone.
  void setRemembersSettings(bool remember) { remembersSettings_ = remember; }
  app::Session currentSession() const;

  // Files people can trust. Results not yet saved are "unsaved"; before they would be dropped
  // (close, quit, open, a lesson) the unsaved prompt asks Save / Discard / Cancel. `what` says
  // what would drop them ("quitting"). Tests replace the dialogs with functions.
  using UnsavedPrompt = std::function<UnsavedAnswer(const QString& what)>;
  using SavePathPrompt = std::function<QString(const QString& suggested)>;
  void setUnsavedPrompt(UnsavedPrompt prompt) { unsavedPrompt_ = std::move(prompt); }
  void setSavePathPrompt(SavePathPrompt prompt) { savePathPrompt_ = std::move(prompt); }
  bool hasUnsavedResults() const { return isWindowModified(); }
  // True when the current results may be replaced: nothing unsaved, saved, or discarded.
  bool settleUnsavedResults(const QString& what);
  // A shipped sample opens read-only: Save asks for a new name and never writes into it.
  bool sessionReadOnly() const { return sessionReadOnly_; }
  QString sessionPath() const { return sessionPath_; }
  // Save Session as the menu does: under the session's own name, or asks for one.
  bool saveSessionInteractively(bool askForName) { return saveSessionDialog(askForName); }
  // Clear Results, undoable through Edit > Undo.
  void clearResults();
  QUndoStack* undoStack() const { return undoStack_; }
  // File > Open Sample: one action per shipped sample.
  QMenu* sampleMenu() const { return sampleMenu_; }

  // "What am I looking at?": the help topic F1 opens now (the diagram view or chart that has
  // the focus or the mouse, else the guide), and the panel that shows it.
  QString contextHelpTopic() const;
  bool showHelp(const QString& topic);
  HelpPanel* helpPanel() const { return helpPanel_; }

  // Two sessions side by side: lays another session's results over the charts, read-only and
  // marked by session and device ("H200 sample"); they stay out of this session. On failure
  // returns false with the reason in `error`.
  bool openOverlay(const QString& path, QString* error);
  // Starts a seed lesson (app::seedLessons) in a fresh session, after offering to save unsaved
  // results: it runs everything it names and shows its text for the backend in use; on the CPU
  // the matching H200 sample is laid over the charts. False when refused (the reason in
  // `problem`) or cancelled.
  bool startLesson(const std::string& id, QString* problem = nullptr);
  LessonBar* lessonBar() const { return lessonBar_; }
  KernelEditor* kernelEditor() const { return kernelEditor_; }
  // Shows the Kernel Editor with the kernel in `path` and compiles it; false (and why in `error`)
  // when the file cannot be read.
  bool openKernelFile(const QString& path, QString* error);
  // Draws a trace file (tilescope-bench --trace) in the diagrams and shows them; false (and why
  // in `error`) for a file that is no trace, or an inconsistent one.
  bool openTrace(const QString& path, QString* error);
  // The diagrams draw `trace` (from a file, or the Kernel Editor's Trace); false with why.
  bool showTrace(const KernelTrace& trace, QString* error);
  // Queues a traced launch of the Kernel Editor's kernel at Run Setup's backend, device, size
  // and parameters; the block traced is the diagrams' selected one where they show this kernel,
  // else (0,0). False (with the reason shown) when it cannot be traced.
  bool traceUserKernel(const UserKernelSource& kernel);
  // Where the diagrams draw a trace and another block than the traced one is selected: traces
  // that block (the trace's source, size and parameters) on Run Setup's backend and device, now
  // or when the queue ends; says why not on a backend that cannot trace. A block whose trace
  // failed is not asked for again until another is selected.
  void retraceSelectedBlock();

  // Where the window's docks side by side are wider than `available` (a screen), makes the
  // Diagrams dock a tab of the Run Setup column so the window fits; on a screen wide enough for
  // the layout it had before, puts that back.
  void fitDocksTo(const QSize& available);

 protected:
  void closeEvent(QCloseEvent* event) override;
  // Fits the docks to the screen the window opens on, and to any screen it moves to.
  void showEvent(QShowEvent* event) override;

 private:
  QIcon themeIcon(const char* name, QStyle::StandardPixmap fallback) const;
  void createActions();
  void createMenus();
  // Backend > GPU Server...: the run servers and the isolated CUDA backend.
  void createBackendMenu();
  void editServers();
  void createToolBar();
  void createDocks();
  void createStatusBar();
  // The chart that shows a sweep of this kind.
  void showChartFor(app::SweepKind sweep);

  void onBackendsChanged();
  void onBusyChanged(bool busy);
  void onProgress(const app::QueueProgress& progress);
  void onResult(const RunResult& result);
  void onCeilings(const DeviceCeilings& ceilings);
  void onRunFailed(const app::RunJob& job, const app::RunFailure& failure);
  void onQueueFinished(const app::QueueSummary& summary);
  void onChoicesChanged();
  void finishAutotune(const app::QueueSummary& summary);

  void openSessionDialog();
  void openTraceDialog();
  void openRecent(const QString& path);
  bool saveSessionDialog(bool askForName);
  void exportChartDialog();
  void exportResultsDialog();
  void updateRecentMenu();
  void updateTitle();
  void showProblem(const QString& message);
  void fileError(const QString& message);
  void saveSettings();
  void setPresentation(bool on);
  // main_window_files.cpp: read-only samples, the unsaved prompt, undo, Open Sample.
  void createFileTrust();
  void fillSampleMenu();
  QString askSavePath(const QString& suggested);
  // main_window_help.cpp: the ? buttons, F1 and Help > Guide.
  void createHelp();
  void addGuide(QMenu* help);
  // main_window_lessons.cpp: seed lessons and overlays.
  void createLessonMenu(QMenu* run);
  void createOverlayMenu(QMenu* file);
  void openOverlayDialog();

  app::ResultsModel model_;
  // Declared after the model: destroyed first, so its thread stops before the model goes.
  app::RunController controller_{nullptr, app::remoteBackends(app::loadServerSettings())};
  ControlPanel* controls_ = nullptr;
  ChartPanel* charts_ = nullptr;
  ResultsView* table_ = nullptr;
  NoticeBar* notice_ = nullptr;
  QWidget* diagrams_ = nullptr;
  KernelEditor* kernelEditor_ = nullptr;
  // The kernel and block retraceSelectedBlock() last queued.
  std::optional<std::pair<KernelConfig, Dim2>> lastRetrace_;
  // The block selected while the queue was busy, traced when it ends.
  std::optional<Dim2> pendingRetrace_;
  bool followsScreen_ = false;
  // The last run's counters against the model (or why it has none), said when the queue ends.
  QString countersNote_;
  // The dock layout before fitDocksTo() squeezed it, and the minimum size it needed.
  QByteArray layoutBeforeFit_;
  QSize minimumBeforeFit_;
  QLabel* progressText_ = nullptr;
  QProgressBar* progressBar_ = nullptr;
  QLabel* timeLeft_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* sampleMenu_ = nullptr;
  QUndoStack* undoStack_ = nullptr;
  HelpPanel* helpPanel_ = nullptr;
  LessonBar* lessonBar_ = nullptr;
  QMenu* overlayMenu_ = nullptr;
  std::vector<app::Lesson> lessons_;
  UnsavedPrompt unsavedPrompt_;
  SavePathPrompt savePathPrompt_;

  QAction* runAction_ = nullptr;
  QAction* autotuneAction_ = nullptr;
  QAction* ceilingsAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* openTraceAction_ = nullptr;
  QAction* saveAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
  QAction* exportChartAction_ = nullptr;
  QAction* exportResultsAction_ = nullptr;
  QAction* clearAction_ = nullptr;
  QAction* resetViewAction_ = nullptr;
  QAction* presentationAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;

  std::optional<app::AutotuneRun> autotune_;
  QString sessionPath_;
  QStringList sessionWarnings_;
  bool sessionReadOnly_ = false;
  bool remembersSettings_ = true;
};

}  // namespace tilescope::ui
