// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The `tilescope` command line, for demos and scripts: pick, run, export, quit. Parsing is
// separate from acting on it, so the rules are testable without a window.
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "chart_kind.hpp"
#include "choices.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::desktop {

struct CommandLine {
  Choices choices;
  plan::Sweep sweep;  // from --sweep, in order; no axis for a single run
  bool run = false;
  bool autotune = false;  // every valid configuration of the chosen kernel, instead of --run
  bool measureCeilings =
      false;  // --ceilings: the chosen device's roofline ceilings, after any runs
  bool quit = false;
  // --backend KIND@SERVER: the configured server SERVER running its KIND backend, which the
  // window may not have yet (a server configured for cuda, asked for cpu).
  std::optional<remote::ServerAddress> server;
  QString openSession;
  QString kernelFile;  // a .cu file for the Kernel Editor, compiled once opened
  bool trace = false;  // --trace: a traced launch of kernelFile's kernel once it compiled
  QString openTrace;   // a trace file the diagrams draw (and --export-diagram writes)
  QString saveSession;
  QString exportChart;
  std::optional<ChartKind> chart;  // nullopt: the one that fits the run (see chartToExport)
  QSize chartSize{1200, 800};
  QString exportCsv, exportJson;
  QString diagramView;  // empty: the window's current view, "matrix" for --export-diagram
  QString exportDiagram;
  QString screenshot;               // the main window as PNG, after every other step
  std::optional<QSize> windowSize;  // nullopt: the remembered or first-run size

  // The chart --export-chart writes: --chart, else the landscape for --autotune, the roofline
  // for --measure-ceilings without --run, the tile sweep for a tile sweep, GFLOP/s otherwise.
  ChartKind chartToExport() const;
  // The jobs --run queues. Throws Error(InvalidArgument).
  std::vector<RunJob> jobs() const;
};

// What parsing decided: run with `commandLine`, or stop at once with `exitCode` after printing
// `message` (to stdout for --help and --version, to stderr otherwise).
struct ParseOutcome {
  std::optional<CommandLine> commandLine{};
  int exitCode = 0;
  QString message;
  // One line each for stderr, for a deprecated spelling: "--budget is now --budget-ms
  // (milliseconds)".
  QStringList notes{};
};

inline constexpr int kBadArgumentsExitCode = 2;

// `arguments` as QCoreApplication::arguments() gives them (Qt's own options already removed);
// `remembered` supplies every choice the command line does not set. Diagram options are refused
// unless `diagramsBuilt`. `servers` are the configured run servers --backend KIND@SERVER names.
// The options, their names and help come from the option table (cli/options.hpp).
ParseOutcome parseCommandLine(const QStringList& arguments, const Choices& remembered,
                              bool diagramsBuilt,
                              const std::vector<remote::ServerAddress>& servers = {});

// The diagram views --view accepts.
QStringList diagramViews();

}  // namespace tilescope::desktop
