// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Exercises dock (View > Exercises, docs/exercises.md): the list with each exercise's state,
// the chosen one's task and checks, and what a student does with it: open it in the Kernel
// Editor, Check it (on Run Setup's backend), reveal the next hint, see the model solution (in a
// window of its own, never over their work), export the hand-in, start again. A failing check
// draws its picture: the check's trace in the memory-access view, at the warp and k-step that
// show the fault. What these do lives in desktop::ExerciseController.
#include <QPointer>
#include <QWidget>
#include <functional>
#include <string>

#include "exercise_controller.hpp"

class QDockWidget;
class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;
class QTimer;
class QTreeWidget;

namespace tilescope::ui {

class ControlPanel;
class DiagramHost;
class DockLayout;
class KernelEditor;
class MainWindow;

class ExercisePanel : public QWidget {
  Q_OBJECT

 public:
  // The student's source goes to and comes from `editor`; failing checks are drawn in
  // `diagrams`; checks run on `controls`' backend and device.
  ExercisePanel(desktop::ExerciseController& exercises, KernelEditor* editor, DiagramHost* diagrams,
                const ControlPanel* controls, QWidget* parent = nullptr);

  QTreeWidget* list() const { return list_; }
  QTableWidget* checks() const { return checks_; }
  QTextBrowser* text() const { return text_; }
  QLabel* progressLabel() const { return progress_; }
  QLabel* verdict() const { return verdict_; }
  // The model solution's window while open, else null.
  QWidget* solutionWindow() const { return solution_; }

  // Asks a yes-or-no question (the default: a message box); tests answer it themselves.
  using Confirm = std::function<bool(const QString& title, const QString& question)>;
  void setConfirm(Confirm confirm) { confirm_ = std::move(confirm); }

  // The buttons' work, without their file dialogs. Each acts on the current exercise and says
  // why it cannot in `problem` (and as problem()).
  // The student's source (saved, else the start) in the Kernel Editor; where the editor holds
  // a kernel changed since it was opened that is no exercise, asks first.
  bool openInEditor(QString* problem = nullptr);
  // Checks the Kernel Editor's source where it holds this exercise, else the saved one.
  bool check(QString* problem = nullptr);
  bool revealHint();
  // Asks first, then shows the model solution in a read-only window.
  bool showSolution();
  bool exportHandIn(const QString& path, QString* error);
  // Asks first, then puts the start back (in the editor too, where it holds this exercise).
  bool resetToStart();
  // Draws the picture of the check in row `row` of the checks table; false where it has none.
  bool showPicture(int row);
  // Whether the Kernel Editor holds the current exercise's source.
  bool editorHoldsCurrent() const;
  // Saves what the Kernel Editor holds of an exercise now (it is saved as the student types,
  // a moment later, and when the window closes).
  void saveWork();

 signals:
  // The Kernel Editor, or the diagrams beside it, should be in view.
  void editorWanted();
  void diagramsWanted();
  void status(const QString& message, int timeoutMs);
  void problem(const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void fillList();
  void showCurrent();
  void showChecks();
  void showVerdict();
  void updateButtons();
  void onChecked(int index, const exercise::SubmissionReport& report);
  void openFolderDialog();
  void exportDialog();
  bool refuse(const QString& message, QString* problem);
  const exercise::SubmissionReport* currentReport() const;

  desktop::ExerciseController& exercises_;
  KernelEditor* editor_;
  DiagramHost* diagrams_;
  const ControlPanel* controls_;
  Confirm confirm_;
  // The id of the exercise whose source the editor holds; empty for none.
  std::string editorExercise_;
  QTimer* autosave_;

  QLabel* progress_;
  QTreeWidget* list_;
  QLabel* title_;
  QTextBrowser* text_;
  QTableWidget* checks_;
  QLabel* verdict_;
  QLabel* where_;
  QPushButton *open_, *check_, *hint_, *solutionButton_, *export_, *reset_;
  QPointer<QWidget> solution_;
};

// Puts an ExercisePanel on `window`'s Kernel Editor, diagrams and Run Setup in a dock, a tab
// beside Run Setup, hidden until View > Exercises (Ctrl+Shift+X); its wishes for the editor and
// the diagrams go to `layout`.
ExercisePanel* addExerciseDock(MainWindow& window, desktop::ExerciseController& exercises,
                               DockLayout& layout);

}  // namespace tilescope::ui
