// The window's promises about files: shipped samples open read-only, results are never dropped
// without asking, and Clear Results can be undone.
#include <QAction>
#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoCommand>
#include <QUndoStack>

#include "chart_panel.hpp"
#include "file_io.hpp"
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "samples.hpp"
#include "settings.hpp"

namespace tilescope::ui {
namespace {

// Clears the results; undo puts them back in front of any that arrived since. Cleared, an
// untitled session has nothing left to save, while a session from a file now differs from it.
class ClearResultsCommand : public QUndoCommand {
 public:
  ClearResultsCommand(app::ResultsModel* model, QWidget* window, bool fromFile)
      : QUndoCommand(QObject::tr("Clear Results")),
        model_(model),
        window_(window),
        fromFile_(fromFile),
        wasModified_(window->isWindowModified()) {}

  void redo() override {
    cleared_ = model_->results();
    model_->clear();
    window_->setWindowModified(fromFile_);
  }
  void undo() override {
    const bool arrivedSince = model_->rowCount() > 0;
    std::vector<RunResult> restored = cleared_;
    restored.insert(restored.end(), model_->results().begin(), model_->results().end());
    model_->setResults(std::move(restored));
    window_->setWindowModified(wasModified_ || arrivedSince);
  }

 private:
  app::ResultsModel* model_;
  QWidget* window_;
  bool fromFile_;
  bool wasModified_;
  std::vector<RunResult> cleared_;
};

}  // namespace

void MainWindow::createFileTrust() {
  undoStack_ = new QUndoStack(this);
  undoAction_ = undoStack_->createUndoAction(this, tr("&Undo"));
  undoAction_->setShortcut(QKeySequence::Undo);
  undoAction_->setStatusTip(tr("Undo the last change to the results (Clear Results)"));
  redoAction_ = undoStack_->createRedoAction(this, tr("&Redo"));
  redoAction_->setShortcut(QKeySequence::Redo);
  redoAction_->setStatusTip(tr("Redo the change just undone"));

  sampleMenu_ = new QMenu(tr("Open &Sample"), this);
  sampleMenu_->setStatusTip(tr("Open a session measured on a real GPU, shipped with TileScope"));
  fillSampleMenu();
}

void MainWindow::fillSampleMenu() {
  for (const QString& sample : app::shippedSamples()) {
    // Each entry says what the sample holds: its device and how many results.
    QString text = QFileInfo(sample).completeBaseName();
    if (const std::optional<app::Session> session = app::loadSessionOrSample(sample, nullptr);
        session && !session->results.empty()) {
      text += tr(" \u2014 %1, %2 results")
                  .arg(QString::fromStdString(session->results.front().device))
                  .arg(session->results.size());
    }
    QAction* open = sampleMenu_->addAction(text);
    open->setData(sample);
    open->setStatusTip(tr("Open the sample %1 (read-only: Save asks for a new name)")
                           .arg(QFileInfo(sample).fileName()));
    connect(open, &QAction::triggered, this, [this, sample] { openRecent(sample); });
  }
  if (sampleMenu_->isEmpty())
    sampleMenu_->addAction(tr("No samples in this build"))->setEnabled(false);
}

bool MainWindow::settleUnsavedResults(const QString& what) {
  if (!hasUnsavedResults()) return true;
  UnsavedAnswer answer = UnsavedAnswer::Cancel;
  if (unsavedPrompt_) {
    answer = unsavedPrompt_(what);
  } else {
    const auto button = QMessageBox::question(
        this, tr("Unsaved results"),
        tr("The results of this session are not saved. Save them before %1?").arg(what),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    answer = button == QMessageBox::Save      ? UnsavedAnswer::Save
             : button == QMessageBox::Discard ? UnsavedAnswer::Discard
                                              : UnsavedAnswer::Cancel;
  }
  switch (answer) {
    case UnsavedAnswer::Save:
      return saveSessionDialog(false);
    case UnsavedAnswer::Discard:
      return true;
    case UnsavedAnswer::Cancel:
      return false;
  }
  return false;
}

QString MainWindow::askSavePath(const QString& suggested) {
  if (savePathPrompt_) return savePathPrompt_(suggested);
  return QFileDialog::getSaveFileName(this, tr("Save Session"), suggested,
                                      tr("TileScope session (*.json)"));
}

void MainWindow::clearResults() {
  if (model_.rowCount() == 0) return;
  const int count = model_.rowCount();
  undoStack_->push(new ClearResultsCommand(&model_, this, !sessionPath_.isEmpty()));
  notice_->dismiss();
  statusBar()->showMessage(tr("Cleared %1 results: Edit > Undo (%2) brings them back")
                               .arg(count)
                               .arg(undoAction_->shortcut().toString(QKeySequence::NativeText)));
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
  charts_->refresh();
  // The charts replot on a queued event; let them draw before the window is grabbed.
  QCoreApplication::processEvents();
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!grab().save(&buffer, "PNG")) {
    *error = tr("cannot write screenshot '%1': the window could not be encoded as PNG").arg(path);
    return false;
  }
  return app::writeFileAtomically(path, png, error);
}

}  // namespace tilescope::ui
