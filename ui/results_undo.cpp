// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_undo.hpp"

#include <QAction>
#include <QUndoCommand>
#include <QUndoStack>

#include "results_model.hpp"
#include "session_controller.hpp"
#include "theme.hpp"

namespace tilescope::ui {
namespace {

// Clears the results; undo puts them back in front of any that arrived since. Cleared, an
// untitled session has nothing left to save, while a session from a file now differs from it.
class ClearResultsCommand : public QUndoCommand {
 public:
  ClearResultsCommand(desktop::ResultsModel& model, desktop::SessionController& sessions)
      : QUndoCommand(QObject::tr("Clear Results")),
        model_(model),
        sessions_(sessions),
        fromFile_(!sessions.path().isEmpty()),
        wasModified_(sessions.modified()) {}

  void redo() override {
    cleared_ = model_.results();
    model_.clear();
    sessions_.setModified(fromFile_);
  }
  void undo() override {
    const bool arrivedSince = model_.rowCount() > 0;
    std::vector<RunResult> restored = cleared_;
    restored.insert(restored.end(), model_.results().begin(), model_.results().end());
    model_.setResults(std::move(restored));
    sessions_.setModified(wasModified_ || arrivedSince);
  }

 private:
  desktop::ResultsModel& model_;
  desktop::SessionController& sessions_;
  bool fromFile_;
  bool wasModified_;
  std::vector<RunResult> cleared_;
};

}  // namespace

ResultsUndo::ResultsUndo(QWidget* window, desktop::ResultsModel& model,
                         desktop::SessionController& sessions)
    : QObject(window),
      model_(model),
      sessions_(sessions),
      stack_(new QUndoStack(this)),
      undo_(stack_->createUndoAction(window, tr("&Undo"))),
      redo_(stack_->createRedoAction(window, tr("&Redo"))),
      clear_(makeAction(window, "edit-clear", QStyle::SP_DialogResetButton, tr("C&lear Results"),
                        {}, tr("Remove every result from the table and the charts"))) {
  undo_->setShortcut(QKeySequence::Undo);
  undo_->setStatusTip(tr("Undo the last change to the results (Clear Results)"));
  redo_->setShortcut(QKeySequence::Redo);
  redo_->setStatusTip(tr("Redo the change just undone"));
  connect(clear_, &QAction::triggered, this, &ResultsUndo::clearResults);
  connect(&sessions_, &desktop::SessionController::replaced, stack_, &QUndoStack::clear);
}

void ResultsUndo::clearResults() {
  const int count = model_.rowCount();
  if (count == 0) return;
  stack_->push(new ClearResultsCommand(model_, sessions_));
  emit cleared(tr("Cleared %1 results: Edit > Undo (%2) brings them back")
                   .arg(count)
                   .arg(undo_->shortcut().toString(QKeySequence::NativeText)));
}

}  // namespace tilescope::ui
