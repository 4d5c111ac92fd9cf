// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Clear Results, undoable: Edit > Undo puts the cleared results back in front of any that
// arrived since. A session opened or started afresh leaves nothing to undo into.
#include <QObject>

class QAction;
class QUndoStack;

namespace tilescope::desktop {
class ResultsModel;
class SessionController;
}  // namespace tilescope::desktop

namespace tilescope::ui {

class ResultsUndo : public QObject {
  Q_OBJECT

 public:
  // The actions belong to `window`.
  ResultsUndo(QWidget* window, desktop::ResultsModel& model, desktop::SessionController& sessions);

  QAction* undoAction() const { return undo_; }
  QAction* redoAction() const { return redo_; }
  QAction* clearAction() const { return clear_; }
  QUndoStack* stack() const { return stack_; }
  // Clears the results (when there are any), undoably.
  void clearResults();

 signals:
  // "Cleared 12 results: Edit > Undo (Ctrl+Z) brings them back".
  void cleared(const QString& message);

 private:
  desktop::ResultsModel& model_;
  desktop::SessionController& sessions_;
  QUndoStack* stack_;
  QAction* undo_;
  QAction* redo_;
  QAction* clear_;
};

}  // namespace tilescope::ui
