// SPDX-License-Identifier: GPL-3.0-or-later
#include "command_line_driver.hpp"

#include <QDir>
#include <cstdio>
#include <cstring>

#include "chart_panel.hpp"
#include "control_panel.hpp"
#include "diagram_host.hpp"
#include "kernel_editor.hpp"
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "servers.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/io/interrupt.hpp"
#include "trace_controller.hpp"

#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_panel.hpp"
#endif

namespace tilescope::ui {
namespace {

void printLine(std::FILE* stream, const QString& text) {
  std::fputs(qPrintable(text + QLatin1Char('\n')), stream);
  std::fflush(stream);
}

// "1 run", "3 runs": the runs a lost server holds.
QString runsText(int runs) {
  return runs == 1 ? QStringLiteral("1 run") : QStringLiteral("%1 runs").arg(runs);
}

}  // namespace

CommandLineDriver::CommandLineDriver(MainWindow* window, desktop::CommandLine commandLine,
                                     QObject* parent)
    : QObject(parent), window_(window), line_(std::move(commandLine)) {}

void CommandLineDriver::report(const QString& message, int exitCode) {
  printLine(stderr, QStringLiteral("tilescope: %1").arg(message));
  if (!line_.quit) window_->notice()->showProblem(message);
  exitCode_ = std::max(exitCode_, exitCode);
}

void CommandLineDriver::finish() {
  if (finished_) return;
  finished_ = true;
  emit finished(interruptSignal_ != 0 ? io::interruptedExitCode(interruptSignal_) : exitCode_);
}

void CommandLineDriver::interrupt(int signal) {
  if (interruptSignal_ != 0 || finished_) return;
  interruptSignal_ = signal;
  printLine(stderr,
            QStringLiteral("tilescope: interrupted (SIG%1): stopping after the current run; "
                           "what was measured is still exported")
                .arg(QString::fromLatin1(sigabbrev_np(signal))));
  desktop::RunController* controller = window_->controller();
  // A busy queue ends with queueFinished, which exports and finishes.
  if (controller->busy()) {
    controller->cancel();
    return;
  }
  exportAll();
  finish();
}

void CommandLineDriver::start() {
  if (line_.windowSize) window_->resize(*line_.windowSize);
  // A scripted run (--quit) shows no window: one to photograph is laid out, never put on screen.
  if (!line_.screenshot.isEmpty() && !window_->isVisible()) {
    window_->setAttribute(Qt::WA_DontShowOnScreen);
    window_->show();
  }
  if (!line_.openSession.isEmpty()) {
    QString error;
    if (!window_->sessions()->open(line_.openSession, &error)) {
      report(error, desktop::kBadArgumentsExitCode);
      finish();
      return;
    }
    for (const QString& warning : window_->sessions()->warnings())
      printLine(stderr, QStringLiteral("tilescope: warning: %1").arg(warning));
  }
  // A run (or a trace) uses the command line's choices; a session opened alone keeps its own.
  const bool measures = line_.run || line_.autotune || line_.measureCeilings || line_.trace;
  if (measures) window_->controls()->setChoices(line_.choices);
  if (measures || line_.chart) window_->charts()->showChart(line_.chartToExport());

  if (!line_.openTrace.isEmpty()) {
    QString error;
    if (!window_->traces()->open(line_.openTrace, &error)) {
      report(error, desktop::kBadArgumentsExitCode);
      finish();
      return;
    }
  }
  if (!line_.diagramView.isEmpty()) window_->diagrams()->showView(line_.diagramView);
  if (!line_.exportDiagram.isEmpty()) {
#ifdef TILESCOPE_HAVE_DIAGRAMS
    QString error;
    const KernelConfig kernel = resolve({line_.choices.kernel, line_.choices.params});
    const QString view = line_.diagramView.isEmpty() ? QStringLiteral("matrix") : line_.diagramView;
    // A trace is drawn from the window's own diagrams, where it was opened.
    const bool exported = line_.openTrace.isEmpty()
                              ? exportDiagram(view, kernel, line_.choices.shape,
                                              line_.choices.element, line_.exportDiagram, &error)
                              : window_->diagrams()->exportView(view, line_.exportDiagram, &error);
    if (exported) {
      printLine(stdout, QStringLiteral("tilescope: wrote %1").arg(line_.exportDiagram));
    } else {
      report(error, 1);
    }
#endif
  }

  if (!line_.kernelFile.isEmpty()) {
    QString error;
    if (!window_->openKernelFile(line_.kernelFile, &error)) {
      report(error, desktop::kBadArgumentsExitCode);
      finish();
      return;
    }
    // The exports and the screenshot wait for the compile, so they show its messages; so does
    // a trace.
    if (!measures || line_.trace) {
      connect(
          window_->kernelEditor(), &KernelEditor::compiled, this,
          [this] {
            if (line_.trace) {
              measure();
              return;
            }
            exportAll();
            finish();
          },
          Qt::SingleShotConnection);
      return;
    }
  }
  if (!measures) {
    exportAll();
    finish();
    return;
  }
  measure();
}

void CommandLineDriver::measure() {
  desktop::RunController* controller = window_->controller();
  if (line_.server) useServer(*line_.server);
  if (controller->backendsKnown()) {
    runWhenBackendsKnown();
  } else {
    connect(controller, &desktop::RunController::backendsChanged, this,
            &CommandLineDriver::runWhenBackendsKnown, Qt::SingleShotConnection);
  }
}

void CommandLineDriver::useServer(const remote::ServerAddress& server) {
  std::vector<remote::ServerAddress> servers =
      desktop::remoteBackends(desktop::loadServerSettings());
  const std::string id = remote::backendIdOf(server);
  const auto same = [&](const remote::ServerAddress& s) { return remote::backendIdOf(s) == id; };
  if (std::any_of(servers.begin(), servers.end(), same)) return;
  servers.push_back(server);
  window_->controller()->setServers(servers);
}

void CommandLineDriver::runWhenBackendsKnown() {
  if (finished_) return;
  desktop::RunController* controller = window_->controller();
  const desktop::BackendSummary* backend = controller->backend(line_.choices.backend);
  // A run server answers after the local backends, and one added by useServer after those; a
  // dormant one is started now.
  if (backend && backend->connecting) sawConnecting_ = true;
  if (backend && backend->dormant && !sawConnecting_ && !serverStarted_) {
    serverStarted_ = true;
    controller->connectServer(backend->id);
  }
  if ((!backend && line_.server) ||
      (backend && (backend->connecting || (backend->dormant && !sawConnecting_)))) {
    connect(controller, &desktop::RunController::backendsChanged, this,
            &CommandLineDriver::runWhenBackendsKnown, Qt::SingleShotConnection);
    return;
  }
  if (!backend || !backend->available()) {
    report(QStringLiteral("the %1 backend is unavailable: %2")
               .arg(QString::fromStdString(line_.choices.backend),
                    backend ? QString::fromStdString(*backend->unavailableReason)
                            : QStringLiteral("unknown backend")),
           desktop::kBadArgumentsExitCode);
    finish();
    return;
  }
  connect(controller, &desktop::RunController::runFailed, this,
          [this](const desktop::RunJob& job, const desktop::RunFailure& failure) {
            report(QStringLiteral("%1 failed: %2").arg(desktop::describe(job), failure.message), 1);
          });
  // A lost server holds its runs, and the window says so in its notice; a script reads stderr.
  // The reason names the server already.
  connect(controller, &desktop::RunController::serverLost, this,
          [](const QString& server, const QString& why, int waiting) {
            printLine(stderr, QStringLiteral("tilescope: %1; %2 held until %3 is back")
                                  .arg(why, runsText(waiting), server));
          });
  connect(controller, &desktop::RunController::serverBack, this,
          [](const QString& server, int waiting) {
            printLine(stderr, QStringLiteral("tilescope: %1 is back; the %2 held go on")
                                  .arg(server, runsText(waiting)));
          });
  connect(
      controller, &desktop::RunController::queueFinished, this,
      [this] {
        exportAll();
        finish();
      },
      Qt::SingleShotConnection);
  QString problem;
  if (line_.run) window_->queue()->enqueue(line_.jobs());
  bool queued = (!line_.autotune || window_->autotune(&problem)) &&
                (!line_.measureCeilings || window_->measureCeilings(&problem));
  if (queued && line_.trace) {
    // A refusal comes as the trace controller's problem, as does what the sanitizer found.
    desktop::TraceController* traces = window_->traces();
    const auto refused = connect(traces, &desktop::TraceController::problem, this,
                                 [&problem](const QString& why) { problem = why; });
    queued = window_->traceUserKernel(window_->kernelEditor()->kernel());
    disconnect(refused);
    if (queued)
      connect(traces, &desktop::TraceController::problem, this,
              [this](const QString& message) { report(message, 1); });
  }
  if (!queued) {
    disconnect(controller, nullptr, this, nullptr);
    controller->cancel();
    report(problem, desktop::kBadArgumentsExitCode);
    finish();
  }
}

void CommandLineDriver::exportAll() {
  const auto wrote = [](const QString& path) {
    printLine(stdout, QStringLiteral("tilescope: wrote %1").arg(QDir::toNativeSeparators(path)));
  };
  QString error;
  if (!line_.exportChart.isEmpty()) {
    if (window_->charts()->exportChart(line_.chartToExport(), line_.exportChart, line_.chartSize,
                                       &error)) {
      wrote(line_.exportChart);
    } else {
      report(error, 1);
    }
  }
  for (const QString& path : {line_.exportCsv, line_.exportJson}) {
    if (path.isEmpty()) continue;
    if (window_->sessions()->exportResults(path, &error)) {
      wrote(path);
    } else {
      report(error, 1);
    }
  }
  if (!line_.saveSession.isEmpty()) {
    if (window_->sessions()->save(line_.saveSession, &error)) {
      wrote(line_.saveSession);
    } else {
      report(error, 1);
    }
  }
  // Last, so the window shows what every step before it did.
  if (!line_.screenshot.isEmpty()) {
    if (window_->saveScreenshot(line_.screenshot, &error)) {
      wrote(line_.screenshot);
    } else {
      report(error, 1);
    }
  }
}

}  // namespace tilescope::ui
