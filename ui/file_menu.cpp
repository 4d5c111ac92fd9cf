// SPDX-License-Identifier: GPL-3.0-or-later
#include "file_menu.hpp"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

#include "chart_export_dialog.hpp"
#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "samples.hpp"
#include "session_controller.hpp"
#include "settings.hpp"
#include "theme.hpp"
#include "trace_controller.hpp"

namespace tilescope::ui {
namespace {

const QString kSessionFilter = QStringLiteral("TileScope session (*.json)");

// A path without a suffix takes the one of the filter chosen in the dialog: the suffix picks the
// format. Empty (a cancelled dialog) stays empty.
QString withFilterSuffix(QString path, const QString& filter) {
  if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
    path += QLatin1Char('.') + filter.section(QStringLiteral("*."), 1).chopped(1);
  return path;
}

}  // namespace

FileMenu::FileMenu(QWidget* window, desktop::SessionController& sessions,
                   desktop::TraceController& traces, ChartPanel* charts)
    : QObject(window), window_(window), sessions_(sessions), traces_(traces), charts_(charts) {
  open_ = makeAction(window_, "document-open", QStyle::SP_DialogOpenButton,
                     tr("&Open Session\u2026"), QKeySequence::Open,
                     tr("Open a saved session: its results, device facts and choices"));
  connect(open_, &QAction::triggered, this, &FileMenu::openSessionDialog);

  openTrace_ = new QAction(tr("Open &Trace…"), window_);
  openTrace_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  openTrace_->setStatusTip(
      tr("Draw a kernel as the GPU ran it, from a trace file (tilescope-bench --trace)"));
  connect(openTrace_, &QAction::triggered, this, &FileMenu::openTraceDialog);

  save_ =
      makeAction(window_, "document-save", QStyle::SP_DialogSaveButton, tr("&Save Session"),
                 QKeySequence::Save, tr("Save the results, device facts and choices as a session"));
  connect(save_, &QAction::triggered, this, [this] { sessions_.saveInteractively(false); });
  saveAs_ = makeAction(window_, "document-save-as", QStyle::SP_DialogSaveButton,
                       tr("Save Session &As\u2026"), QKeySequence::SaveAs,
                       tr("Save the session under a new name"));
  connect(saveAs_, &QAction::triggered, this, [this] { sessions_.saveInteractively(true); });
  // Save never writes into a sample: it becomes Save As, and the menu lists Save As once.
  connect(&sessions_, &desktop::SessionController::identityChanged, this, [this] {
    save_->setText(sessions_.readOnly() ? tr("&Save Session As\u2026") : tr("&Save Session"));
    saveAs_->setVisible(!sessions_.readOnly());
    save_->setShortcuts(sessions_.readOnly()
                            ? QList<QKeySequence>{QKeySequence::Save, QKeySequence::SaveAs}
                            : QList<QKeySequence>{QKeySequence::Save});
  });

  exportChart_ = makeAction(window_, "image-x-generic", QStyle::SP_FileIcon,
                            tr("Export &Chart\u2026"), QKeySequence(Qt::CTRL | Qt::Key_E),
                            tr("Write the chart on show as PNG, PDF, SVG or JPG"));
  connect(exportChart_, &QAction::triggered, this, &FileMenu::exportChartDialog);

  exportResults_ =
      makeAction(window_, "x-office-spreadsheet", QStyle::SP_FileDialogDetailedView,
                 tr("Export &Results\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                 tr("Write the results table as CSV or JSON"));
  connect(exportResults_, &QAction::triggered, this, &FileMenu::exportResultsDialog);

  samples_ = new QMenu(tr("Open &Sample"), window_);
  samples_->setStatusTip(tr("Open a session measured on a real GPU, shipped with TileScope"));
  fillSampleMenu();

  sessions_.setSavePathPrompt([this](const QString& suggested) {
    return QFileDialog::getSaveFileName(window_, tr("Save Session"), suggested, kSessionFilter);
  });
  sessions_.setUnsavedPrompt([this](const QString& what) {
    const auto button = QMessageBox::question(
        window_, tr("Unsaved results"),
        tr("The results of this session are not saved. Save them before %1?").arg(what),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return button == QMessageBox::Save      ? desktop::UnsavedAnswer::Save
           : button == QMessageBox::Discard ? desktop::UnsavedAnswer::Discard
                                            : desktop::UnsavedAnswer::Cancel;
  });
}

void FileMenu::fill(QMenu* file, QAction* quit) {
  file->addAction(open_);
  file->addAction(openTrace_);
  file->addMenu(samples_);
  recent_ = file->addMenu(tr("Open &Recent"));
  connect(recent_, &QMenu::aboutToShow, this, &FileMenu::fillRecentMenu);
  file->addAction(save_);
  file->addAction(saveAs_);
  file->addSeparator();
  QAction* overlay =
      file->addAction(tr("Open as O&verlay\u2026"), this, &FileMenu::openOverlayDialog);
  overlay->setStatusTip(
      tr("Lay another session's results over the charts, read-only, to compare two devices"));
  overlays_ = file->addMenu(tr("Remove O&verlay"));
  overlays_->setStatusTip(tr("Take a session laid over the charts off them"));
  connect(overlays_, &QMenu::aboutToShow, this, &FileMenu::fillOverlayMenu);
  file->addSeparator();
  file->addAction(exportChart_);
  file->addAction(exportResults_);
  file->addSeparator();
  file->addAction(quit);
}

void FileMenu::fillSampleMenu() {
  for (const QString& sample : desktop::shippedSamples()) {
    // Each entry says what the sample holds: its device and how many results.
    QString text = QFileInfo(sample).completeBaseName();
    if (const std::optional<desktop::Session> session =
            desktop::loadSessionOrSample(sample, nullptr);
        session && !session->results.empty()) {
      text += tr(" \u2014 %1, %2 results")
                  .arg(QString::fromStdString(session->results.front().device))
                  .arg(session->results.size());
    }
    QAction* open = samples_->addAction(text);
    open->setData(sample);
    open->setStatusTip(tr("Open the sample %1 (read-only: Save asks for a new name)")
                           .arg(QFileInfo(sample).fileName()));
    connect(open, &QAction::triggered, this,
            [this, sample] { sessions_.openInteractively(sample); });
  }
  if (samples_->isEmpty()) samples_->addAction(tr("No samples in this build"))->setEnabled(false);
}

void FileMenu::fillRecentMenu() {
  recent_->clear();
  const QStringList files = desktop::recentFiles();
  for (const QString& path : files) {
    QAction* open = recent_->addAction(QFileInfo(path).fileName());
    open->setStatusTip(path);
    connect(open, &QAction::triggered, this, [this, path] { sessions_.openInteractively(path); });
  }
  if (files.isEmpty()) recent_->addAction(tr("No recent sessions"))->setEnabled(false);
}

void FileMenu::fillOverlayMenu() {
  overlays_->clear();
  for (const QString& label : charts_->overlays())
    overlays_->addAction(label, this, [this, label] { charts_->removeOverlay(label); });
  if (overlays_->isEmpty()) {
    overlays_->addAction(tr("No overlays"))->setEnabled(false);
    return;
  }
  overlays_->addSeparator();
  overlays_->addAction(tr("Remove All"), this, [this] { charts_->clearOverlays(); });
}

void FileMenu::openSessionDialog() {
  const QString path = QFileDialog::getOpenFileName(
      window_, tr("Open Session"), desktop::lastFolder(desktop::Folder::Sessions), kSessionFilter);
  if (!path.isEmpty()) sessions_.openInteractively(path);
}

void FileMenu::openTraceDialog() {
  const QString path = QFileDialog::getOpenFileName(window_, tr("Open Trace"),
                                                    desktop::lastFolder(desktop::Folder::Sessions),
                                                    tr("TileScope trace (*.json)"));
  QString error;
  if (!path.isEmpty() && !traces_.open(path, &error)) emit fileError(error);
}

void FileMenu::openOverlayDialog() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Open as Overlay"),
                                   desktop::lastFolder(desktop::Folder::Sessions), kSessionFilter);
  if (path.isEmpty()) return;
  QString error;
  if (!sessions_.openOverlay(path, &error)) {
    emit fileError(error);
    return;
  }
  if (sessions_.remembersSettings()) desktop::rememberFolder(desktop::Folder::Sessions, path);
}

void FileMenu::exportChartDialog() {
  const desktop::ChartKind kind = charts_->currentChart();
  QString selected;
  const QString path = withFilterSuffix(
      QFileDialog::getSaveFileName(
          window_, tr("Export Chart"),
          desktop::lastFolder(desktop::Folder::Exports) +
              QStringLiteral("/tilescope-%1.png").arg(desktop::chartId(kind)),
          tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg);;JPEG image (*.jpg)"),
          &selected),
      selected);
  if (path.isEmpty()) return;
  // Its size, scale and text: what the chart will be read on.
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool raster = suffix == QLatin1String("png") || suffix == QLatin1String("jpg") ||
                      suffix == QLatin1String("jpeg");
  ChartExportDialog options(charts_->chart(kind)->size(), raster, window_);
  if (options.exec() != QDialog::Accepted) return;
  const ChartExportOptions chosen = options.options();
  ChartExportDialog::remember(chosen);
  QString error;
  if (!charts_->exportChart(kind, path, chosen.size, &error, chosen.scale, chosen.largeText)) {
    emit fileError(error);
    return;
  }
  desktop::rememberFolder(desktop::Folder::Exports, path);
  emit status(tr("Wrote %1").arg(path), 5000);
}

void FileMenu::exportResultsDialog() {
  QString selected;
  const QString path = withFilterSuffix(
      QFileDialog::getSaveFileName(
          window_, tr("Export Results"),
          desktop::lastFolder(desktop::Folder::Exports) + QStringLiteral("/tilescope.csv"),
          tr("CSV table (*.csv);;JSON (*.json)"), &selected),
      selected);
  if (path.isEmpty()) return;
  QString error;
  if (!sessions_.exportResults(path, &error)) {
    emit fileError(error);
    return;
  }
  desktop::rememberFolder(desktop::Folder::Exports, path);
  emit status(tr("Wrote %1").arg(path), 5000);
}

}  // namespace tilescope::ui
