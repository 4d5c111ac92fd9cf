// SPDX-License-Identifier: GPL-3.0-or-later
// The command line: how options are parsed and refused, and the built binary end to end on the
// offscreen platform (run, export, save, reopen).
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <QtTest>

#include <QImage>
#include <QXmlStreamReader>
#include <fstream>

#include "command_line.hpp"
#include "suite_helpers.hpp"
#include "tilescope/cli/options.hpp"
#include "tilescope/report/report.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

// "m=1,2,...,1000": a sweep axis of a thousand values.
QString thousandValues(const char* key) {
  QStringList values;
  for (int value = 1; value <= 1000; ++value) values << QString::number(value);
  return QStringLiteral("%1=%2").arg(QLatin1String(key), values.join(QLatin1Char(',')));
}

using test::writeText;

struct Finished {
  int exitCode = -1;
  QString out, err;
};

}  // namespace

class TestCommandLine : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  ParseOutcome parse(QStringList arguments) {
    arguments.prepend(QStringLiteral("tilescope"));
    return parseCommandLine(arguments, Choices{}, false);
  }

  // Runs the built binary with its own settings folder (`configHome`, else one the suite's
  // binary runs share), so the user's are never touched.
  Finished runBinary(const QStringList& arguments, const QString& configHome = {}) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                       configHome.isEmpty() ? dir_.filePath(QStringLiteral("config")) : configHome);
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(dir_.path());
    process.start(QStringLiteral(TILESCOPE_BINARY), arguments);
    if (!process.waitForFinished(120000)) {
      process.kill();
      process.waitForFinished();
      return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromLocal8Bit(process.readAllStandardOutput()),
            QString::fromLocal8Bit(process.readAllStandardError())};
  }

 private slots:
  void optionsSetTheChoices() {
    const ParseOutcome outcome = parse({"--backend", "cpu",
                                        "--kernel",  "register-tiled",
                                        "--tile",    "4",
                                        "--m",       "100",
                                        "--n",       "50",
                                        "--k",       "30",
                                        "--reps",    "3",
                                        "--run",     "--export-chart",
                                        "a.svg",     "--export-csv",
                                        "a.csv",     "--quit"});
    QVERIFY2(outcome.commandLine, qPrintable(outcome.message));
    const CommandLine& line = *outcome.commandLine;
    QCOMPARE(line.choices.kernel, std::string("register-tiled"));
    QCOMPARE(line.choices.params.at("tile"), 4);
    QCOMPARE(line.choices.shape, (Shape{100, 50, 30}));
    QVERIFY(!line.choices.square);
    QCOMPARE(line.choices.fixedReps, std::optional<int>(3));
    QVERIFY(line.run && line.quit);
    QCOMPARE(line.chartToExport(), ChartKind::Rate);
    QCOMPARE(line.jobs().size(), std::size_t(1));
    QVERIFY(!line.choices.counters);
    QVERIFY(!line.jobs().front().request.collectCounters);

    const ParseOutcome kernelFile = parse({"--kernel-file", "mine.cu", "--quit"});
    QVERIFY2(kernelFile.commandLine, qPrintable(kernelFile.message));
    QCOMPARE(kernelFile.commandLine->kernelFile, QStringLiteral("mine.cu"));

    const ParseOutcome counted = parse({"--kernel", "naive", "--counters", "--run", "--quit"});
    QVERIFY2(counted.commandLine, qPrintable(counted.message));
    QVERIFY(counted.commandLine->choices.counters);
    QVERIFY(counted.commandLine->jobs().front().request.collectCounters);
  }

  // --type picks the element type; without it a kernel runs in its own default type.
  void typeIsChosenOrTheKernelsDefault() {
    const ParseOutcome typed =
        parse({"--backend", "cuda", "--kernel", "tensor-mma", "--type", "bf16", "--run"});
    QVERIFY2(typed.commandLine, qPrintable(typed.message));
    QCOMPARE(typed.commandLine->choices.element, ElementType::BF16);
    QCOMPARE(typed.commandLine->jobs().front().request.element, ElementType::BF16);
    const ParseOutcome untyped = parse({"--kernel", "tensor-mma"});
    QVERIFY2(untyped.commandLine, qPrintable(untyped.message));
    QCOMPARE(untyped.commandLine->choices.element, ElementType::F16);
    // A kernel sweep checks the type against every kernel it lists, not the chosen one.
    const ParseOutcome compared = parse(
        {"--backend", "cuda", "--type", "fp16", "--sweep", "kernel=tensor-mma,library", "--run"});
    QVERIFY2(compared.commandLine, qPrintable(compared.message));
    QCOMPARE(compared.commandLine->jobs().size(), std::size_t(2));
    QCOMPARE(compared.commandLine->jobs().back().request.element, ElementType::F16);
  }

  void sweepsExpandAndPickTheirChart() {
    const ParseOutcome outcome = parse({"--kernel", "shared-tiled", "--size", "64", "--sweep",
                                        "tile=1,2,4", "--sweep", "size=32,64", "--run"});
    QVERIFY2(outcome.commandLine, qPrintable(outcome.message));
    QCOMPARE(outcome.commandLine->jobs().size(), std::size_t(6));
    QCOMPARE(outcome.commandLine->chartToExport(), ChartKind::TileSweep);
    const ParseOutcome single = parse({"--sweep", "tile=all", "--kernel", "naive", "--run"});
    QCOMPARE(single.commandLine->choices.sweep, SweepKind::Tile);
    QCOMPARE(single.commandLine->choices.tiles, std::string());
  }

  void autotuneExportsItsLandscape() {
    const ParseOutcome outcome = parse({"--kernel", "blocktile-1d", "--size", "32", "--autotune"});
    QVERIFY2(outcome.commandLine, qPrintable(outcome.message));
    QVERIFY(outcome.commandLine->autotune);
    QVERIFY(!outcome.commandLine->run);
    QCOMPARE(outcome.commandLine->chartToExport(), ChartKind::Landscape);
  }

  void measureCeilingsExportsTheRoofline() {
    const ParseOutcome alone =
        parse({"--backend", "cpu", "--ceilings", "--export-chart", "r.png", "--quit"});
    QVERIFY2(alone.commandLine, qPrintable(alone.message));
    QVERIFY(alone.commandLine->measureCeilings);
    QCOMPARE(alone.commandLine->chartToExport(), ChartKind::Roofline);
    // With runs, the runs pick the chart, as without the ceilings.
    const ParseOutcome withRun =
        parse({"--kernel", "naive", "--size", "32", "--run", "--ceilings"});
    QVERIFY2(withRun.commandLine, qPrintable(withRun.message));
    QCOMPARE(withRun.commandLine->chartToExport(), ChartKind::Rate);
  }

  void helpAndVersionExitZero() {
    const ParseOutcome help = parse({"--help"});
    QVERIFY(!help.commandLine);
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.message.contains(QStringLiteral("--export-chart")));
    QCOMPARE(parse({"--version"}).exitCode, 0);
  }

  void badArgumentsExitTwoWithAMessage_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown option") << QStringList{"--colour", "red"} << "colour";
    QTest::newRow("unknown backend") << QStringList{"--backend", "tpu"} << "tpu";
    QTest::newRow("unknown kernel") << QStringList{"--kernel", "fastest"} << "fastest";
    QTest::newRow("refused tile") << QStringList{"--kernel", "register-tiled", "--tile", "7"}
                                  << "7";
    QTest::newRow("tile of library")
        << QStringList{"--kernel", "library", "--tile", "8"} << "no tile";
    QTest::newRow("zero size") << QStringList{"--size", "0"} << "size";
    QTest::newRow("negative m") << QStringList{"--m", "-4"} << "-4";
    QTest::newRow("size not a number") << QStringList{"--size", "big"} << "big";
    QTest::newRow("huge size") << QStringList{"--size", "99999999"} << "99999999";
    QTest::newRow("zero reps") << QStringList{"--reps", "0"} << "reps";
    QTest::newRow("bad budget") << QStringList{"--budget", "-1"} << "budget";
    QTest::newRow("reps and budget") << QStringList{"--reps", "3", "--budget", "1"} << "conflict";
    QTest::newRow("bad budget-ms") << QStringList{"--budget-ms", "0"} << "--budget-ms";
    QTest::newRow("reps and budget-ms")
        << QStringList{"--reps", "3", "--budget-ms", "1"} << "--reps and --budget-ms conflict";
    QTest::newRow("budget in both spellings")
        << QStringList{"--budget", "1", "--budget-ms", "1000"} << "give one of them";
    QTest::newRow("backend at no server")
        << QStringList{"--backend", "cuda@nosuchserver"}
        << "no run server named 'nosuchserver' (none is configured";
    QTest::newRow("bad sweep") << QStringList{"--run", "--sweep", "tile"} << "tile";
    QTest::newRow("sweep without run") << QStringList{"--sweep", "tile=1,2"} << "--run";
    QTest::newRow("run and autotune") << QStringList{"--run", "--autotune"} << "--autotune";
    QTest::newRow("autotune and sweep")
        << QStringList{"--autotune", "--sweep", "tile=1,2"} << "--run";
    QTest::newRow("export without results") << QStringList{"--export-csv", "a.csv"} << "--run";
    QTest::newRow("chart format") << QStringList{"--run", "--export-chart", "a.gif"} << ".png";
    QTest::newRow("unknown chart") << QStringList{"--run", "--chart", "pie"} << "pie";
    QTest::newRow("bad chart size") << QStringList{"--run", "--chart-size", "10x"} << "chart-size";
    QTest::newRow("screenshot format") << QStringList{"--screenshot", "shot.jpg"} << ".png";
    QTest::newRow("screenshot in a missing folder")
        << QStringList{"--screenshot", "/nonexistent-folder/shot.png"}
        << "cannot write screenshot '/nonexistent-folder/shot.png': ";
    QTest::newRow("screenshot onto a device")
        << QStringList{"--screenshot", "/dev/null.png/x.png"} << "cannot write screenshot";
    QTest::newRow("bad window size")
        << QStringList{"--window-size", "20x20"} << "--window-size = 20 is out of range";
    QTest::newRow("no diagrams built") << QStringList{"--export-diagram", "d.png"} << "diagrams";
    QTest::newRow("trace without diagrams")
        << QStringList{"--kernel-file", "mine.cu", "--trace"} << "no diagrams to draw a trace in";
    QTest::newRow("two sessions") << QStringList{"a.json", "b.json"} << "one session";
    QTest::newRow("missing value") << QStringList{"--kernel"} << "kernel";
    QTest::newRow("unknown type") << QStringList{"--type", "fp8"} << "fp8";
    QTest::newRow("type the kernel does not multiply")
        << QStringList{"--kernel", "naive", "--type", "fp16"} << "'naive' multiplies fp32 only";
    // Issue #12: numbers are never truncated to int, infinities are not a budget.
    QTest::newRow("device past int")
        << QStringList{"--device", "4294967296"}
        << "--device = 4294967296 is out of range: a whole number from 0 to 2147483647";
    QTest::newRow("reps past int")
        << QStringList{"--reps", "4294967297"} << "--reps = 4294967297 is out of range";
    QTest::newRow("tile past int")
        << QStringList{"--kernel", "shared-tiled", "--tile", "4294967312"}
        << "--tile = 4294967312 is out of range";
    QTest::newRow("infinite budget") << QStringList{"--budget", "inf"}
                                     << "--budget = 'inf' is out of range: a finite number above 0";
    QTest::newRow("empty param") << QStringList{"--kernel", "shared-tiled", "--param", ""}
                                 << "--param: no parameters given";
    QTest::newRow("param with a trailing comma")
        << QStringList{"--kernel", "shared-tiled", "--param", "tile=8,"}
        << "--param: empty parameter in 'tile=8,'";
    QTest::newRow("param past int")
        << QStringList{"--kernel", "shared-tiled", "--param", "tile=2147483648"}
        << "parameter 'tile' = '2147483648' is out of range";
    QTest::newRow("control characters are shown escaped")
        << QStringList{"--kernel", QStringLiteral("naive\x1b[31m")}
        << "unknown kernel 'naive\\x1b[31m'";
    QTest::newRow("a long value is quoted short")
        << QStringList{"--kernel", QString(100000, QLatin1Char('k'))} << "(100000 characters)";
    QTest::newRow("a sweep too large to build")
        << QStringList{"--run",
                       "--sweep",
                       thousandValues("m"),
                       "--sweep",
                       thousandValues("n"),
                       "--sweep",
                       thousandValues("k")}
        << "the sweep has 1000000000 runs, more than the 100000";
    QTest::newRow("type a compared kernel does not multiply")
        << QStringList{"--type", "bf16", "--sweep", "kernel=naive,library", "--run"}
        << "'naive' multiplies fp32 only";
  }

  void badArgumentsExitTwoWithAMessage() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const ParseOutcome outcome = parse(arguments);
    QVERIFY(!outcome.commandLine);
    QCOMPARE(outcome.exitCode, kBadArgumentsExitCode);
    QVERIFY2(outcome.message.contains(expected), qPrintable(outcome.message));
    // One line of bounded length, whatever was typed (then the --help hint).
    QCOMPARE(outcome.message.count(QLatin1Char('\n')), 1);
    QVERIFY2(outcome.message.size() < 1000, qPrintable(outcome.message.left(1000)));
  }

  // Every option the table gives the app is one its parser takes, listed in --help.
  void everyOptionOfTheTableIsAccepted() {
    const QString help = parse({"--help"}).message;
    for (const cli::OptionSpec* option : cli::optionsOf(cli::Program::App)) {
      const QString name = QString::fromUtf8(option->name.data(), qsizetype(option->name.size()));
      QStringList arguments{QStringLiteral("--") + name};
      if (!option->isFlag()) arguments << QStringLiteral("1");
      const ParseOutcome outcome = parse(arguments);
      QVERIFY2(!outcome.message.contains(QStringLiteral("Unknown option")), qPrintable(name));
      QVERIFY2(!outcome.message.contains(QStringLiteral("Missing value")), qPrintable(name));
      // Qt lists a one-letter option as -m, and takes --m as well.
      const QString listed = name.size() == 1 ? QStringLiteral("-%1 <").arg(name) : "--" + name;
      QVERIFY2(help.contains(listed), qPrintable(name));
    }
    QVERIFY(parse({"--via", "ssh gpu1"}).message.contains(QStringLiteral("Unknown option")));
    // The table's help of --chart and --view names every chart and view the parser takes.
    const std::string chartHelp(cli::option("chart", cli::Program::App).help);
    for (const QString& id : chartIds())
      QVERIFY2(chartHelp.find(id.toStdString()) != std::string::npos, qPrintable(id));
    const std::string viewHelp(cli::option("view", cli::Program::App).help);
    for (const QString& view : diagramViews())
      QVERIFY2(viewHelp.find(view.toStdString()) != std::string::npos, qPrintable(view));
  }

  // --budget SECONDS and --measure-ceilings still work, as --budget-ms and --ceilings, and say so.
  void deprecatedSpellingsMeanTheSameWithANote() {
    const ParseOutcome seconds = parse({"--budget", "2"});
    const ParseOutcome milliseconds = parse({"--budget-ms", "2000"});
    QVERIFY2(seconds.commandLine, qPrintable(seconds.message));
    QVERIFY2(milliseconds.commandLine, qPrintable(milliseconds.message));
    QCOMPARE(seconds.commandLine->choices.budgetSeconds, 2.0);
    QCOMPARE(milliseconds.commandLine->choices.budgetSeconds, 2.0);
    QCOMPARE(seconds.notes, QStringList{"--budget is now --budget-ms (milliseconds)"});
    QVERIFY(milliseconds.notes.isEmpty());
    QCOMPARE(parse({"--budget-ms", "250"}).commandLine->choices.budgetSeconds, 0.25);

    const ParseOutcome measure = parse({"--backend", "cpu", "--measure-ceilings"});
    const ParseOutcome ceilings = parse({"--backend", "cpu", "--ceilings"});
    QVERIFY(measure.commandLine && measure.commandLine->measureCeilings);
    QVERIFY(ceilings.commandLine && ceilings.commandLine->measureCeilings);
    QCOMPARE(measure.notes, QStringList{"--measure-ceilings is now --ceilings"});
    QVERIFY(ceilings.notes.isEmpty());
  }

  // --backend KIND@SERVER: a configured run server, running KIND; an unknown one is refused by
  // name.
  void backendAtAConfiguredServer() {
    const std::vector<remote::ServerAddress> servers = {
        {"gpu1", "ssh gpu1 tilescope-bench --serve", "cuda"}};
    const QStringList program{QStringLiteral("tilescope")};
    const ParseOutcome cpu =
        parseCommandLine(program + QStringList{"--backend", "cpu@gpu1"}, Choices{}, false, servers);
    QVERIFY2(cpu.commandLine, qPrintable(cpu.message));
    QCOMPARE(cpu.commandLine->choices.backend, std::string("cpu@gpu1"));
    QVERIFY(cpu.commandLine->server);
    QCOMPARE(cpu.commandLine->server->command, servers[0].command);
    QCOMPARE(cpu.commandLine->server->backend, std::string("cpu"));
    const ParseOutcome cuda = parseCommandLine(program + QStringList{"--backend", "cuda@gpu1"},
                                               Choices{}, false, servers);
    QVERIFY2(cuda.commandLine, qPrintable(cuda.message));
    QCOMPARE(cuda.commandLine->choices.backend, std::string("cuda@gpu1"));
    QVERIFY(!parse({"--backend", "cpu"}).commandLine->server);

    const ParseOutcome unknown = parseCommandLine(
        program + QStringList{"--backend", "cuda@nosuchserver"}, Choices{}, false, servers);
    QVERIFY(!unknown.commandLine);
    QCOMPARE(unknown.exitCode, kBadArgumentsExitCode);
    QCOMPARE(unknown.message,
             QStringLiteral("tilescope: --backend 'cuda@nosuchserver': no run server named "
                            "'nosuchserver' (configured: gpu1; add one in tilescope: Backend > "
                            "GPU Server...)\nTry 'tilescope --help'."));
  }

  // The binary runs on a server of its settings under a backend the server was not configured
  // with (cpu@here, here runs cuda), and says that --budget is now --budget-ms.
  void binaryRunsOnAConfiguredServer() {
    const QString config = dir_.filePath(QStringLiteral("server-config"));
    QVERIFY(QDir().mkpath(config + QStringLiteral("/TileScope")));
    const nlohmann::json settings = {
        {"servers",
         {{{"name", "here"},
           {"command", std::string("'") + TILESCOPE_BENCH + "' --serve"},
           {"backend", "cuda"}}}}};
    writeText(config + QStringLiteral("/TileScope/TileScope.json"), settings.dump().c_str());
    const Finished run =
        runBinary({"-platform", "offscreen", "--backend", "cpu@here", "--kernel", "naive", "--size",
                   "16", "--budget", "0.05", "--run", "--export-csv", "server.csv", "--quit"},
                  config);
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("tilescope: --budget is now --budget-ms "
                                             "(milliseconds)\n")),
             qPrintable(run.err));
    std::ifstream csv(dir_.filePath(QStringLiteral("server.csv")).toStdString());
    const std::vector<RunResult> rows = report::readCsv(csv);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].backend, std::string("cpu@here"));
    QVERIFY(rows[0].verified());
  }

  // A configured server that never answers costs a local headless run nothing (it is never
  // started); one that cannot start is named with its own reason, at once.
  void binaryIsNotHeldUpByServersAndSaysWhyOneFails() {
    const QString config = dir_.filePath(QStringLiteral("broken-servers"));
    QVERIFY(QDir().mkpath(config + QStringLiteral("/TileScope")));
    const nlohmann::json settings = {
        {"servers",
         {{{"name", "silent"}, {"command", "sleep 600"}, {"backend", "cpu"}},
          {{"name", "down"},
           {"command", "echo 'ssh: connect to host gpu9 port 22: No route to host' >&2; exit 3"},
           {"backend", "cpu"}}}}};
    writeText(config + QStringLiteral("/TileScope/TileScope.json"), settings.dump().c_str());
    QElapsedTimer clock;
    clock.start();
    const Finished local = runBinary({"-platform", "offscreen", "--backend", "cpu", "--kernel",
                                      "naive", "--size", "16", "--reps", "2", "--run", "--quit"},
                                     config);
    QVERIFY2(local.exitCode == 0, qPrintable(local.err));
    QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));

    const Finished down = runBinary({"-platform", "offscreen", "--backend", "cpu@down", "--kernel",
                                     "naive", "--size", "16", "--run", "--quit"},
                                    config);
    QCOMPARE(down.exitCode, int(kBadArgumentsExitCode));
    QVERIFY2(down.err.contains(QStringLiteral("status 3")), qPrintable(down.err));
    QVERIFY2(down.err.contains(QStringLiteral("No route to host")), qPrintable(down.err));
    QVERIFY2(!down.err.contains(QStringLiteral("connecting to the server")), qPrintable(down.err));
  }

  // A server lost mid-sweep holds its runs: the headless binary says why on stderr, says when it
  // is back, and exports every result.
  void binarySaysWhenAServerIsLostAndBack() {
    const QString config = dir_.filePath(QStringLiteral("flaky-server"));
    QVERIFY(QDir().mkpath(config + QStringLiteral("/TileScope")));
    // The first server is killed as the sweep's first run reaches it.
    const std::string command =
        std::string("exec python3 '") + TILESCOPE_SERVER_KILLED_IN_FIRST_RUN + "' '" +
        TILESCOPE_BENCH + "' '" + dir_.filePath(QStringLiteral("flaky-once")).toStdString() + "'";
    const nlohmann::json settings = {
        {"servers", {{{"name", "flaky"}, {"command", command}, {"backend", "cpu"}}}}};
    writeText(config + QStringLiteral("/TileScope/TileScope.json"), settings.dump().c_str());
    const Finished run = runBinary({"-platform", "offscreen", "--backend", "cpu@flaky", "--kernel",
                                    "naive", "--tile", "8", "--sweep", "size=128,136,144", "--reps",
                                    "3", "--run", "--export-csv", "flaky.csv", "--quit"},
                                   config);
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("tilescope: server flaky: the connection was lost: "
                                             "the server was killed by signal 9")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral(" runs held until flaky is back\n")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("tilescope: flaky is back; the ")),
             qPrintable(run.err));
    std::ifstream csv(dir_.filePath(QStringLiteral("flaky.csv")).toStdString());
    const std::vector<RunResult> rows = report::readCsv(csv);
    QCOMPARE(rows.size(), std::size_t(3));
    for (const RunResult& row : rows) QVERIFY(row.verified());
  }

  void binaryRunsExportsAndQuits() {
    const Finished run = runBinary({"-platform",    "offscreen",
                                    "--backend",    "cpu",
                                    "--kernel",     "shared-tiled",
                                    "--tile",       "16",
                                    "--size",       "64",
                                    "--reps",       "2",
                                    "--run",        "--export-chart",
                                    "out.png",      "--export-csv",
                                    "out.csv",      "--export-json",
                                    "out.json",     "--save-session",
                                    "session.json", "--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QImage chart(dir_.filePath(QStringLiteral("out.png")));
    QVERIFY(!chart.isNull());
    QCOMPARE(chart.size(), QSize(1200, 800));
    std::ifstream csv(dir_.filePath(QStringLiteral("out.csv")).toStdString());
    const std::vector<RunResult> rows = report::readCsv(csv);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].kernel.kernel, std::string("shared-tiled"));
    QCOMPARE(rows[0].kernel.params.at("tile"), 16);
    QCOMPARE(rows[0].shape, (Shape{64, 64, 64}));
    QVERIFY(rows[0].verified());
    QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("out.json"))));

    // The saved session opens again and exports the same results, as SVG this time.
    const Finished reopen =
        runBinary({"--open", "session.json", "--chart", "time", "--export-chart", "again.svg",
                   "--export-csv", "again.csv", "--quit"});
    QVERIFY2(reopen.exitCode == 0, qPrintable(reopen.err));
    QFile svg(dir_.filePath(QStringLiteral("again.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    while (!xml.atEnd()) xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    std::ifstream again(dir_.filePath(QStringLiteral("again.csv")).toStdString());
    QCOMPARE(report::readCsv(again).front().stats.medianMs, rows[0].stats.medianMs);
  }

  // A trace file (recorded on an H200) is drawn and exported; a file that is no trace is
  // refused with its reason, exit status 2.
  void binaryOpensATraceAndExportsItsDiagram() {
    const QString trace = QStringLiteral(TILESCOPE_TRACES_DIR "/naive_swapped-trace.json");
    const Finished run = runBinary({"-platform", "offscreen", "--open-trace", trace, "--view",
                                    "access", "--export-diagram", "traced.png", "--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QCOMPARE(QImage(dir_.filePath(QStringLiteral("traced.png"))).size(), QSize(1400, 900));

    const QString session = QStringLiteral(TILESCOPE_SESSIONS_DIR "/h200-ladder.json");
    const Finished refused =
        runBinary({"-platform", "offscreen", "--open-trace", session, "--quit"});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral(
                 "this is not a TileScope file (no \"format\": \"tilescope-trace\")")),
             qPrintable(refused.err));

    QVERIFY(!parse({"--open-trace", "t.json"}).commandLine);  // this parse has no diagrams
    const ParseOutcome withDiagrams = parseCommandLine(
        {QStringLiteral("tilescope"), QStringLiteral("--open-trace"), QStringLiteral("t.json")},
        Choices{}, true);
    QVERIFY2(withDiagrams.commandLine, qPrintable(withDiagrams.message));
    QCOMPARE(withDiagrams.commandLine->openTrace, QStringLiteral("t.json"));
  }

  // --trace traces the --kernel-file kernel once it compiled, on the command line's backend and
  // size; the sanitizer's findings (a missing barrier) say what was found, exit status 1.
  void binaryTracesTheKernelFile() {
    const auto withDiagrams = [](QStringList arguments) {
      arguments.prepend(QStringLiteral("tilescope"));
      return parseCommandLine(arguments, Choices{}, true);
    };
    const ParseOutcome traced =
        withDiagrams({"--backend", "cpu", "--size", "32", "--kernel-file", "mine.cu", "--trace"});
    QVERIFY2(traced.commandLine, qPrintable(traced.message));
    QVERIFY(traced.commandLine->trace);
    QCOMPARE(traced.commandLine->kernelFile, QStringLiteral("mine.cu"));
    QVERIFY(!parse({"--kernel-file", "mine.cu"}).commandLine->trace);
    const ParseOutcome alone = withDiagrams({"--trace"});
    QVERIFY(!alone.commandLine);
    QVERIFY2(alone.message.contains(QStringLiteral("--trace traces the --kernel-file kernel")),
             qPrintable(alone.message));
    const ParseOutcome withRun = withDiagrams({"--kernel-file", "mine.cu", "--trace", "--run"});
    QVERIFY(!withRun.commandLine);
    QVERIFY2(withRun.message.contains(QStringLiteral("give one of them")),
             qPrintable(withRun.message));

    // shared-tiled with its first barrier left out: a race where the tiles are written.
    writeText(dir_.filePath(QStringLiteral("racy.cu")), R"cu(// shared-tiled, one barrier short
TS_PARAM(TILE, 8, 8)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KERNEL {
  __shared__ float a[TILE][TILE];
  __shared__ float b[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < p.K; k0 += TILE) {
    a[ty][tx] = i < p.M && k0 + tx < p.K ? ts::loadA(p, i, k0 + tx) : 0.0f;
    b[ty][tx] = k0 + ty < p.K && j < p.N ? ts::loadB(p, k0 + ty, j) : 0.0f;
    for (int kk = 0; kk < TILE; ++kk) sum += a[ty][kk] * b[kk][tx];
    __syncthreads();
  }
  if (i < p.M && j < p.N) ts::storeC(p, i, j, sum);
}
)cu");
    const Finished run =
        runBinary({"-platform", "offscreen", "--backend", "cpu", "--m", "8", "--n", "8", "--k",
                   "16", "--kernel-file", "racy.cu", "--trace", "--quit"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("tilescope: The sanitizer found a race at line ")),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("in user:racy")), qPrintable(run.err));
  }

  // The window after a scripted sweep: a real PNG of the window's size, through the one writer.
  void binaryTakesAScreenshotOfTheWindow() {
    const Finished run = runBinary({"--kernel", "register-tiled", "--size", "32", "--reps", "2",
                                    "--sweep", "tile=1,2,4", "--run", "--window-size", "1280x720",
                                    "--screenshot", "shot.png", "--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.out.contains(QStringLiteral("wrote shot.png")), qPrintable(run.out));
    QFile file(dir_.filePath(QStringLiteral("shot.png")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(8), QByteArray("\x89PNG\r\n\x1a\n"));
    const QImage shot(file.fileName(), "PNG");
    QCOMPARE(shot.size(), QSize(1280, 720));
    // A drawn window, not an empty buffer: many colours, from the panels, text and chart.
    QSet<QRgb> colours;
    for (int y = 0; y < shot.height(); y += 4) {
      for (int x = 0; x < shot.width(); x += 4) colours.insert(shot.pixel(x, y));
    }
    QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
  }

  // Refused before anything runs, with the reason, and exit code 2.
  void binaryRefusesAnUnwritableScreenshot() {
    const QString path = dir_.filePath(QStringLiteral("missing/shot.png"));
    const Finished run = runBinary({"--kernel", "naive", "--size", "16", "--reps", "1", "--run",
                                    "--export-csv", "before.csv", "--screenshot", path, "--quit"});
    QCOMPARE(run.exitCode, kBadArgumentsExitCode);
    QVERIFY2(run.err.contains(QStringLiteral("cannot write screenshot '%1': ").arg(path)),
             qPrintable(run.err));
    QVERIFY2(run.err.contains(QStringLiteral("does not exist")), qPrintable(run.err));
    QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("before.csv"))));
  }

  void binarySweepsLikeTheBench() {
    const Finished run = runBinary({"--kernel", "register-tiled", "--size", "32", "--reps", "2",
                                    "--sweep", "tile=1,2,4", "--run", "--export-csv", "sweep.csv",
                                    "--export-chart", "sweep.pdf", "--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    std::ifstream csv(dir_.filePath(QStringLiteral("sweep.csv")).toStdString());
    QCOMPARE(report::readCsv(csv).size(), std::size_t(3));
    QFile pdf(dir_.filePath(QStringLiteral("sweep.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
  }

  // Every valid configuration once, the landscape exported, the best remembered in the
  // settings folder's tuned.json.
  void binaryAutotunesAndRemembersTheBest() {
    const Finished run =
        runBinary({"--kernel", "blocktile-1d", "--size", "32", "--reps", "1", "--autotune",
                   "--export-csv", "tuned.csv", "--export-chart", "landscape.png", "--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    std::ifstream csv(dir_.filePath(QStringLiteral("tuned.csv")).toStdString());
    const std::vector<RunResult> rows = report::readCsv(csv);
    QCOMPARE(rows.size(), validConfigurations(kernelInfo("blocktile-1d")).size());
    QVERIFY(!QImage(dir_.filePath(QStringLiteral("landscape.png"))).isNull());
    QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("config/tilescope/tuned.json"))));
  }

  // Issue #12: the scripted mode died on SIGINT or SIGTERM and exported nothing.
  void binaryStopsOnASignalAndExportsWhatWasMeasured_data() {
    QTest::addColumn<QList<int>>("sent");
    QTest::newRow("SIGINT") << QList<int>{SIGINT};
    QTest::newRow("SIGTERM") << QList<int>{SIGTERM};
    QTest::newRow("SIGINT twice") << QList<int>{SIGINT, SIGINT};
  }

  void binaryStopsOnASignalAndExportsWhatWasMeasured() {
    QFETCH(QList<int>, sent);
    QStringList sizes;
    for (int i = 0; i < 2000; ++i) sizes << QStringLiteral("128");
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir_.filePath(QStringLiteral("config")));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(dir_.path());
    const QString csv = dir_.filePath(QStringLiteral("stopped.csv"));
    QFile::remove(csv);
    process.start(QStringLiteral(TILESCOPE_BINARY),
                  {"--kernel", "naive", "--reps", "3", "--sweep",
                   QStringLiteral("size=") + sizes.join(QLatin1Char(',')), "--run", "--export-csv",
                   csv, "--quit"});
    QVERIFY(process.waitForStarted());
    const pid_t pid = pid_t(process.processId());
    QVERIFY(pid > 0);
    QTest::qWait(5000);
    for (int signal : sent) {
      // Never kill(0, ...): that would signal this test's whole process group.
      if (process.state() == QProcess::Running) ::kill(pid, signal);
      QTest::qWait(50);
    }
    // It may have finished already, while the test waited between signals.
    QVERIFY(process.state() == QProcess::NotRunning || process.waitForFinished(60000));
    const QString err = QString::fromLocal8Bit(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 128 + sent.front());
    QVERIFY2(err.contains(QStringLiteral("interrupted")), qPrintable(err));
    std::ifstream in(csv.toStdString());
    const std::vector<RunResult> rows = report::readCsv(in);
    QVERIFY(rows.size() >= 1 && rows.size() < 2000);
    QCOMPARE(QDir(dir_.path()).entryList({QStringLiteral("stopped.csv*")}, QDir::Files).size(), 1);
  }

  // Issue #12: bad remembered choices made even the plain window exit 2.
  void binaryOpensWithUnusableSettingsAndNamesThem() {
    const QString settings = dir_.filePath(QStringLiteral("config/TileScope/TileScope.json"));
    QDir().mkpath(QFileInfo(settings).path());
    writeText(settings, R"({"choices": {"m": -5, "kernel": "bogus", "params": {"tile": 1000}}})");
    const Finished run = runBinary({"--quit"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QVERIFY2(run.err.contains(settings) && run.err.contains(QStringLiteral("key choices")) &&
                 run.err.contains(QStringLiteral("'bogus' is not a known kernel")),
             qPrintable(run.err));

    // A damaged settings file, or a FIFO in its place, is named and the app starts anyway.
    writeText(settings, "{\"choices\": ");
    const Finished damaged = runBinary({"--quit"});
    QVERIFY2(damaged.exitCode == 0, qPrintable(damaged.err));
    QVERIFY2(
        damaged.err.contains(settings) && damaged.err.contains(QStringLiteral("not valid JSON")),
        qPrintable(damaged.err));
    QFile::remove(settings);
    QCOMPARE(::mkfifo(QFile::encodeName(settings).constData(), 0600), 0);
    const Finished fifo = runBinary({"--quit"});
    QVERIFY2(fifo.exitCode == 0, qPrintable(fifo.err));
    QVERIFY2(fifo.err.contains(settings) && fifo.err.contains(QStringLiteral("FIFO")),
             qPrintable(fifo.err));
    QFile::remove(settings);
  }

  // Issue #12: --open /dev/zero aborted with bad_alloc; a full disk said "wrote FILE".
  void binaryRefusesDevicesAndReportsAFullDisk() {
    const Finished zero = runBinary({"--open", "/dev/zero", "--quit"});
    QCOMPARE(zero.exitCode, kBadArgumentsExitCode);
    QVERIFY2(zero.err.contains(QStringLiteral("it is a character device")), qPrintable(zero.err));

    QTemporaryDir full;
    if (::mount("tmpfs", QFile::encodeName(full.path()).constData(), "tmpfs", 0, "size=4k") != 0)
      QSKIP("cannot mount a small tmpfs here");
    const QString csv = full.filePath(QStringLiteral("out.csv"));
    const Finished run = runBinary({"--kernel", "naive", "--sweep",
                                    "size=16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,16,"
                                    "16,16,16,16,16,16,16,16,16,16,16,16,16",
                                    "--reps", "1", "--run", "--export-csv", csv, "--quit"});
    const bool exists = QFile::exists(csv);
    ::umount2(QFile::encodeName(full.path()).constData(), MNT_DETACH);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QStringLiteral("No space left on device")), qPrintable(run.err));
    QVERIFY2(!run.out.contains(QStringLiteral("wrote")), qPrintable(run.out));
    QVERIFY(!exists);
  }

  // Issue #12: --autotune --quit with a damaged tuned.json exited 0 and said nothing.
  void binaryAutotuneReportsADamagedTunedFile() {
    const QString tuned = dir_.filePath(QStringLiteral("config/tilescope/tuned.json"));
    QDir().mkpath(QFileInfo(tuned).path());
    QFile file(tuned);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{ not json");
    file.close();
    const Finished run = runBinary(
        {"--kernel", "blocktile-1d", "--size", "32", "--reps", "1", "--autotune", "--quit"});
    QFile::remove(tuned);
    QCOMPARE(run.exitCode, kBadArgumentsExitCode);
    QVERIFY2(run.err.contains(QStringLiteral("tuned.json': it is not valid JSON")),
             qPrintable(run.err));
  }

  void binaryRefusesBadInputWithExitCodeTwo() {
    const Finished badSize = runBinary({"--size", "0", "--run", "--quit"});
    QCOMPARE(badSize.exitCode, kBadArgumentsExitCode);
    QVERIFY(badSize.err.contains(QStringLiteral("size")));
    const Finished help = runBinary({"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("--sweep")));

    if (makeCudaBackend()->unavailableReason()) {
      const Finished cuda = runBinary({"--backend", "cuda", "--size", "32", "--run", "--quit"});
      QCOMPARE(cuda.exitCode, kBadArgumentsExitCode);
      QVERIFY2(cuda.err.contains(QStringLiteral("unavailable")), qPrintable(cuda.err));
    }

    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.json"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{ this is not a session");
    file.close();
    const Finished open = runBinary({"--open", corrupt, "--export-csv", "x.csv", "--quit"});
    QCOMPARE(open.exitCode, kBadArgumentsExitCode);
    QVERIFY(open.err.contains(QStringLiteral("not valid JSON")));
    QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("x.csv"))));
  }
};

TILESCOPE_UI_SUITE(TestCommandLine, Guiless)
#include "tst_command_line.moc"
