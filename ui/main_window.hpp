// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The main window: the control panel on the left, the charts above the results table in the
// middle, the diagrams on the right; the run queue's progress and time left in the status bar.
// It holds the menus, actions and docks; what they do lives in the controllers (app/desktop),
// which it wires to the widgets and whose texts it shows.
#include <QMainWindow>
#include <optional>

#include "autotune_controller.hpp"
#include "ceilings_controller.hpp"
#include "chart_kind.hpp"
#include "exercise_controller.hpp"
#include "lesson_controller.hpp"
#include "queue_controller.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "servers.hpp"
#include "session_controller.hpp"
#include "trace_controller.hpp"

class QAction;
class QMenu;

namespace tilescope::ui {

class ChartPanel;
class ContextHelp;
class ControlPanel;
class DiagramHost;
class DockLayout;
class ExercisePanel;
class FileMenu;
class KernelEditor;
class LessonBar;
class NoticeBar;
class ResultsUndo;
class ResultsView;
class RunActions;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  desktop::RunController* controller() { return &runs_; }
  desktop::ResultsModel* results() { return &model_; }
  desktop::SessionController* sessions() { return &sessions_; }
  desktop::QueueController* queue() { return &queue_; }
  desktop::AutotuneController* autotuner() { return &autotune_; }
  desktop::TraceController* traces() { return &traces_; }
  desktop::ExerciseController* exercises() { return &exercises_; }
  ControlPanel* controls() const { return controls_; }
  ChartPanel* charts() const { return charts_; }
  ResultsView* table() const { return table_; }
  NoticeBar* notice() const { return notice_; }
  KernelEditor* kernelEditor() const { return kernelEditor_; }
  LessonBar* lessonBar() const { return lessonBar_; }
  DiagramHost* diagrams() const { return diagrams_; }
  ExercisePanel* exercisePanel() const { return exercisePanel_; }
  ContextHelp* help() const { return help_; }
  ResultsUndo* undo() const { return undo_; }
  // File > Open Sample: one action per shipped sample.
  QMenu* sampleMenu() const;

  // Run, Run > Autotune, Run > Measure Ceilings and a seed lesson, with the control panel's
  // choices (an autotune with `userKernel`: the Kernel Editor's kernel over its TS_PARAM values).
  // When they cannot start, they say why (notice, status bar and `problem`) and return false.
  bool runChoices();
  bool autotune(QString* problem = nullptr,
                const std::optional<UserKernelSource>& userKernel = std::nullopt);
  bool measureCeilings(QString* problem = nullptr);
  bool startLesson(const std::string& id, QString* problem = nullptr);
  // The Kernel Editor's Run and Trace, with Run Setup's backend, device, size and sweep.
  bool runUserKernel(const UserKernelSource& kernel);
  bool traceUserKernel(const UserKernelSource& kernel);
  // Shows the Kernel Editor with the kernel in `path` and compiles it; false (and why in `error`)
  // when the file cannot be read.
  bool openKernelFile(const QString& path, QString* error);
  // The whole window as PNG, its charts up to date, through the one file writer.
  bool saveScreenshot(const QString& path, QString* error);

  // Geometry, dock layout and last choices from the settings file.
  void restoreSettings();
  // Scripted runs (--quit) leave the user's remembered settings alone.
  void setRemembersSettings(bool remember);
  // Where the window's docks side by side are wider than `available` (a screen), makes the
  // Diagrams dock a tab of the Run Setup column so the window fits; on a screen wide enough for
  // the layout it had before, puts that back.
  void fitDocksTo(const QSize& available);

 protected:
  void closeEvent(QCloseEvent* event) override;
  // Fits the docks to the screen the window opens on, and to any screen it moves to.
  void showEvent(QShowEvent* event) override;

 private:
  void createActions();
  void createDocks();
  void createMenus();
  void createToolBar();
  void connectControllers();
  void editServers();
  // Shows the chart of the sweep and remembers the choices, as every start of runs does.
  void beginRuns(const desktop::Choices& choices);
  // Shows each controller's status() in the status bar and its problem() in the notice.
  template <typename... Controllers>
  void report(Controllers*... controllers) {
    (connect(controllers, &Controllers::status, this, &MainWindow::showStatus), ...);
    (connect(controllers, &Controllers::problem, this, &MainWindow::showProblem), ...);
  }
  void showStatus(const QString& message, int timeoutMs);
  void showProblem(const QString& message);
  void fileError(const QString& message);
  // Starts the run server of the chosen backend (RunController::connectServer).
  void startChosenServer();

  desktop::ResultsModel model_;
  // Declared after the model: destroyed first, so its thread stops before the model goes.
  desktop::RunController runs_{nullptr, desktop::remoteBackends(desktop::loadServerSettings())};
  // In this order: each reacts to a result or the queue's end after the one before it.
  desktop::QueueController queue_{runs_, model_};
  desktop::CeilingsController ceilings_{runs_, model_};
  desktop::AutotuneController autotune_{runs_, plan::TunedStore::defaultPath()};
  desktop::TraceController traces_{runs_};
  desktop::SessionController sessions_{model_, runs_};
  desktop::LessonController lessons_{sessions_, queue_, runs_};
  desktop::ExerciseController exercises_{runs_};

  ControlPanel* controls_ = nullptr;
  ChartPanel* charts_ = nullptr;
  ResultsView* table_ = nullptr;
  NoticeBar* notice_ = nullptr;
  DiagramHost* diagrams_ = nullptr;
  KernelEditor* kernelEditor_ = nullptr;
  ExercisePanel* exercisePanel_ = nullptr;
  LessonBar* lessonBar_ = nullptr;
  ContextHelp* help_ = nullptr;
  FileMenu* fileMenu_ = nullptr;
  ResultsUndo* undo_ = nullptr;
  RunActions* runActions_ = nullptr;
  DockLayout* dockLayout_ = nullptr;
  bool remembersSettings_ = true;
  std::string serverAsked_;  // the backend startChosenServer last saw chosen

  QAction* resetViewAction_ = nullptr;
  QAction* presentationAction_ = nullptr;
  QAction* quitAction_ = nullptr;
};

}  // namespace tilescope::ui
