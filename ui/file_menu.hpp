// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The File menu: sessions (open, samples, recent, save), traces, overlays and exports, with the
// dialogs they ask through. What they do lives in the session and trace controllers.
#include <QObject>

class QAction;
class QMenu;
class QWidget;

namespace tilescope::desktop {
class SessionController;
class TraceController;
}  // namespace tilescope::desktop

namespace tilescope::ui {

class ChartPanel;

class FileMenu : public QObject {
  Q_OBJECT

 public:
  // Also lends `sessions` the dialogs that ask where to save and whether to save first.
  FileMenu(QWidget* window, desktop::SessionController& sessions, desktop::TraceController& traces,
           ChartPanel* charts);

  // Fills the File menu, `quit` last.
  void fill(QMenu* file, QAction* quit);
  QAction* openAction() const { return open_; }
  QAction* saveAction() const { return save_; }
  QAction* exportChartAction() const { return exportChart_; }
  QAction* exportResultsAction() const { return exportResults_; }
  // File > Open Sample: one action per shipped sample.
  QMenu* sampleMenu() const { return samples_; }

 signals:
  void status(const QString& message, int timeoutMs);
  void fileError(const QString& message);

 private:
  void fillSampleMenu();
  void fillRecentMenu();
  void fillOverlayMenu();
  void openSessionDialog();
  void openTraceDialog();
  void openOverlayDialog();
  void exportChartDialog();
  void exportResultsDialog();

  QWidget* window_;
  desktop::SessionController& sessions_;
  desktop::TraceController& traces_;
  ChartPanel* charts_;
  QAction* open_ = nullptr;
  QAction* openTrace_ = nullptr;
  QAction* save_ = nullptr;
  QAction* saveAs_ = nullptr;
  QAction* exportChart_ = nullptr;
  QAction* exportResults_ = nullptr;
  QMenu* samples_ = nullptr;
  QMenu* recent_ = nullptr;
  QMenu* overlays_ = nullptr;
};

}  // namespace tilescope::ui
