// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Carries out a parsed command line on the main window: open, run, wait, export, and report an
// exit code, so `tilescope ... --run --export-chart out.png --quit` works without a display.
#include <QObject>

#include "command_line.hpp"

namespace tilescope::ui {

class MainWindow;

class CommandLineDriver : public QObject {
  Q_OBJECT

 public:
  CommandLineDriver(MainWindow* window, desktop::CommandLine commandLine,
                    QObject* parent = nullptr);

  // Begins; `finished` follows once everything asked for is done or has failed.
  void start();
  // A signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) asks to stop: the run in progress ends, what was
  // measured is exported, and `finished` reports 128 + the signal's number. Later calls do nothing.
  void interrupt(int signal);

 signals:
  // 0: all done; 1: a run or an export failed; 2: bad input (a session that will not open, a
  // backend that is unavailable); 128 + N: stopped by signal N.
  void finished(int exitCode);

 private:
  // --backend KIND@SERVER on a server the window does not have yet (cpu@gpu1 where gpu1 runs
  // cuda): added beside the configured ones.
  void useServer(const remote::ServerAddress& server);
  // Queues the runs, autotune, ceilings or trace asked for once the backends are known.
  void measure();
  void runWhenBackendsKnown();
  void exportAll();
  void report(const QString& message, int exitCode);
  void finish();

  MainWindow* window_;
  desktop::CommandLine line_;
  int exitCode_ = 0;
  int interruptSignal_ = 0;
  bool finished_ = false;
  bool serverStarted_ = false;  // the chosen run server was asked to start
  bool sawConnecting_ = false;  // and was seen starting: its next summary says how it went
};

}  // namespace tilescope::ui
