// The command line: how options are parsed and refused, and the built binary end to end on the
// offscreen platform (run, export, save, reopen).
#include <QtTest>

#include <QImage>
#include <QXmlStreamReader>
#include <fstream>

#include "command_line.hpp"
#include "report/report.hpp"

using namespace tilescope;
using namespace tilescope::app;

namespace {

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

  // Runs the built binary with its own settings folder, so the user's are never touched.
  Finished runBinary(const QStringList& arguments) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir_.filePath(QStringLiteral("config")));
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
        parse({"--backend", "cpu", "--measure-ceilings", "--export-chart", "r.png", "--quit"});
    QVERIFY2(alone.commandLine, qPrintable(alone.message));
    QVERIFY(alone.commandLine->measureCeilings);
    QCOMPARE(alone.commandLine->chartToExport(), ChartKind::Roofline);
    // With runs, the runs pick the chart, as without the ceilings.
    const ParseOutcome withRun =
        parse({"--kernel", "naive", "--size", "32", "--run", "--measure-ceilings"});
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
    QTest::newRow("bad sweep") << QStringList{"--run", "--sweep", "tile"} << "tile";
    QTest::newRow("sweep without run") << QStringList{"--sweep", "tile=1,2"} << "--run";
    QTest::newRow("run and autotune") << QStringList{"--run", "--autotune"} << "--autotune";
    QTest::newRow("autotune and sweep")
        << QStringList{"--autotune", "--sweep", "tile=1,2"} << "--run";
    QTest::newRow("export without results") << QStringList{"--export-csv", "a.csv"} << "--run";
    QTest::newRow("chart format") << QStringList{"--run", "--export-chart", "a.gif"} << ".png";
    QTest::newRow("unknown chart") << QStringList{"--run", "--chart", "pie"} << "pie";
    QTest::newRow("bad chart size") << QStringList{"--run", "--chart-size", "10x"} << "chart-size";
    QTest::newRow("unknown view") << QStringList{"--view", "side"} << "side";
    QTest::newRow("no diagrams built") << QStringList{"--export-diagram", "d.png"} << "diagrams";
    QTest::newRow("two sessions") << QStringList{"a.json", "b.json"} << "one session";
    QTest::newRow("missing value") << QStringList{"--kernel"} << "kernel";
    QTest::newRow("unknown type") << QStringList{"--type", "fp8"} << "fp8";
    QTest::newRow("type the kernel does not multiply")
        << QStringList{"--kernel", "naive", "--type", "fp16"} << "'naive' multiplies fp32 only";
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

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_command_line.moc"
