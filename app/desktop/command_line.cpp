#include "command_line.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <limits>

#include "io/file_io.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"

namespace tilescope::app {
namespace {

[[noreturn]] void refuse(const QString& message) {
  throw Error(ErrorKind::InvalidArgument, message.toStdString());
}

// The value of an option as the shared number parsers (plan/sweep.hpp) read it.
std::string valueOf(const QCommandLineParser& parser, const QCommandLineOption& option) {
  return parser.value(option).toStdString();
}

std::string optionName(const QCommandLineOption& option) {
  return "--" + option.names().front().toStdString();
}

QString quoted(const QString& value) {
  return QString::fromStdString(quoteValue(value.toStdString()));
}

// `option`'s WIDTHxHEIGHT value, each side within [kMinPixels, kMaxPixels].
QSize parsePixelSize(const QString& text, const std::string& option) {
  const QStringList parts = text.split(QLatin1Char('x'));
  if (parts.size() != 2) {
    refuse(QStringLiteral("%1 %2 is not WIDTHxHEIGHT, e.g. 1200x800")
               .arg(QString::fromStdString(option), quoted(text)));
  }
  constexpr int kMinPixels = 100, kMaxPixels = 10000;
  const auto side = [&](const QString& part) {
    return int(plan::parseIntegerIn(part.toStdString(), option, kMinPixels, kMaxPixels));
  };
  return {side(parts[0]), side(parts[1])};
}

void requireSuffix(const QString& path, const QString& option, const QStringList& suffixes) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (!suffixes.contains(suffix)) {
    refuse(QStringLiteral("--%1 %2: the file name must end in .%3")
               .arg(option, quoted(path), suffixes.join(QStringLiteral(", ."))));
  }
}

// When a sweep is one of the control panel's kinds, the window shows it that way too.
void showSweepInChoices(const plan::Sweep& sweep, Choices& choices) {
  choices.sweep = SweepKind::Single;
  if (sweep.axes().size() != 1) return;
  const plan::SweepAxis& axis = sweep.axes().front();
  std::string joined;
  for (const std::string& value : axis.values) joined += (joined.empty() ? "" : ",") + value;
  if (axis.key == "tile") {
    choices.sweep = SweepKind::Tile;
    choices.tiles = axis.all() ? std::string() : joined;
  } else if (axis.key == "size") {
    choices.sweep = SweepKind::Size;
    choices.sizes = joined;
  } else if (axis.key == "kernel") {
    choices.sweep = SweepKind::Kernel;
    choices.kernels = axis.values;
  }
}

}  // namespace

QStringList diagramViews() {
  return {QStringLiteral("matrix"), QStringLiteral("kstep"), QStringLiteral("block"),
          QStringLiteral("access"), QStringLiteral("timeline")};
}

ChartKind CommandLine::chartToExport() const {
  if (chart) return *chart;
  if (autotune) return ChartKind::Landscape;
  if (measureCeilings && !run) return ChartKind::Roofline;
  return sweep.find("tile") ? ChartKind::TileSweep : ChartKind::Rate;
}

std::vector<RunJob> CommandLine::jobs() const {
  return planJobs(choices, sweep);
}

ParseOutcome parseCommandLine(const QStringList& arguments, const Choices& remembered,
                              bool diagramsBuilt) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "See and measure tiled matrix multiplication. Without options the window opens with the "
      "last choices; with --run ... --quit it measures and exports without showing a window."));
  const QCommandLineOption helpOption = parser.addHelpOption();
  const QCommandLineOption versionOption = parser.addVersionOption();
  const QCommandLineOption backendOption(
      QStringLiteral("backend"), QStringLiteral("Backend: cpu or cuda."), QStringLiteral("id"));
  const QCommandLineOption deviceOption(QStringLiteral("device"),
                                        QStringLiteral("Device index on the backend."),
                                        QStringLiteral("n"));
  const QCommandLineOption kernelOption(QStringLiteral("kernel"),
                                        QStringLiteral("Kernel id (see tilescope-bench --list)."),
                                        QStringLiteral("id"));
  const QCommandLineOption tileOption(QStringLiteral("tile"),
                                      QStringLiteral("Tile size of a single-tile kernel."),
                                      QStringLiteral("t"));
  const QCommandLineOption paramOption(QStringLiteral("param"),
                                       QStringLiteral("Named kernel parameters, e.g. BM=64,TM=8."),
                                       QStringLiteral("k=v,..."));
  const QCommandLineOption typeOption(
      QStringLiteral("type"),
      QStringLiteral("Element type of A and B: fp32, or tf32, fp16, bf16 for the tensor cores (C "
                     "and the accumulation stay fp32). Default: the kernel's first type."),
      QStringLiteral("type"));
  const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("M = N = K = s."),
                                      QStringLiteral("s"));
  const QCommandLineOption mOption(QStringLiteral("m"), QStringLiteral("Rows of A and C."),
                                   QStringLiteral("m"));
  const QCommandLineOption nOption(QStringLiteral("n"), QStringLiteral("Columns of B and C."),
                                   QStringLiteral("n"));
  const QCommandLineOption kOption(
      QStringLiteral("k"), QStringLiteral("Columns of A and rows of B."), QStringLiteral("k"));
  const QCommandLineOption repsOption(QStringLiteral("reps"),
                                      QStringLiteral("Exactly this many timed repetitions."),
                                      QStringLiteral("r"));
  const QCommandLineOption budgetOption(
      QStringLiteral("budget"),
      QStringLiteral("Time budget per run in seconds when repetitions are adaptive."),
      QStringLiteral("seconds"));
  const QCommandLineOption noVerifyOption(QStringLiteral("no-verify"),
                                          QStringLiteral("Skip the check against the reference."));
  const QCommandLineOption countersOption(
      QStringLiteral("counters"),
      QStringLiteral("Also read the GPU's hardware counters: the profiler replays each kernel "
                     "once after the timed runs (CUDA backend)."));
  const QCommandLineOption sweepOption(
      QStringLiteral("sweep"),
      QStringLiteral("Sweep an axis: tile=1,2,4 (or tile=all), size=256,512, kernel=naive,library "
                     "or any kernel parameter. Repeat to combine axes."),
      QStringLiteral("axis=v,..."));
  const QCommandLineOption runOption(QStringLiteral("run"),
                                     QStringLiteral("Run the chosen configuration or sweep."));
  const QCommandLineOption autotuneOption(
      QStringLiteral("autotune"),
      QStringLiteral("Run every valid configuration of the chosen kernel at the chosen size and "
                     "remember the fastest verified one for the device."));
  const QCommandLineOption ceilingsOption(
      QStringLiteral("measure-ceilings"),
      QStringLiteral("Measure the chosen device's roofline ceilings (after any runs)."));
  const QCommandLineOption openOption(
      QStringLiteral("open"), QStringLiteral("Open a session file."), QStringLiteral("file"));
  const QCommandLineOption saveOption(QStringLiteral("save-session"),
                                      QStringLiteral("Save the session after the runs."),
                                      QStringLiteral("file"));
  const QCommandLineOption exportChartOption(
      QStringLiteral("export-chart"),
      QStringLiteral("Write a chart; the format follows the suffix: .png .pdf .svg .jpg."),
      QStringLiteral("file"));
  const QCommandLineOption chartOption(
      QStringLiteral("chart"),
      QStringLiteral("Which chart --export-chart writes: %1 (default: tile for a tile sweep, "
                     "else gflops).")
          .arg(chartIds().join(QStringLiteral(", "))),
      QStringLiteral("id"));
  const QCommandLineOption chartSizeOption(
      QStringLiteral("chart-size"), QStringLiteral("Exported chart size in pixels (1200x800)."),
      QStringLiteral("wxh"));
  const QCommandLineOption csvOption(QStringLiteral("export-csv"),
                                     QStringLiteral("Write the results as CSV."),
                                     QStringLiteral("file"));
  const QCommandLineOption jsonOption(QStringLiteral("export-json"),
                                      QStringLiteral("Write the results as JSON."),
                                      QStringLiteral("file"));
  const QCommandLineOption viewOption(QStringLiteral("view"),
                                      QStringLiteral("Diagram for --export-diagram: %1.")
                                          .arg(diagramViews().join(QLatin1Char('|'))),
                                      QStringLiteral("view"));
  const QCommandLineOption diagramOption(
      QStringLiteral("export-diagram"),
      QStringLiteral("Write the chosen kernel's diagram (.png or .svg)."), QStringLiteral("file"));
  const QCommandLineOption screenshotOption(
      QStringLiteral("screenshot"),
      QStringLiteral("Write the main window as PNG once the runs and exports are done."),
      QStringLiteral("file"));
  const QCommandLineOption kernelFileOption(
      QStringLiteral("kernel-file"),
      QStringLiteral("Open a kernel (.cu) in the Kernel Editor and compile it."),
      QStringLiteral("file"));
  const QCommandLineOption traceOption(
      QStringLiteral("open-trace"),
      QStringLiteral("Draw a trace file (tilescope-bench --trace) in the diagrams; "
                     "--export-diagram then writes the traced kernel's."),
      QStringLiteral("file"));
  const QCommandLineOption windowSizeOption(
      QStringLiteral("window-size"),
      QStringLiteral("The window's size in pixels, e.g. 1920x1080 (default: the last one)."),
      QStringLiteral("wxh"));
  const QCommandLineOption quitOption(
      QStringLiteral("quit"),
      QStringLiteral("Quit once the runs and exports are done, without showing the window."));
  parser.addOptions({backendOption,    deviceOption,     kernelOption,      tileOption,
                     paramOption,      typeOption,       sizeOption,        mOption,
                     nOption,          kOption,          repsOption,        budgetOption,
                     noVerifyOption,   countersOption,   sweepOption,       runOption,
                     openOption,       saveOption,       exportChartOption, chartOption,
                     chartSizeOption,  csvOption,        jsonOption,        viewOption,
                     diagramOption,    quitOption,       autotuneOption,    ceilingsOption,
                     screenshotOption, windowSizeOption, kernelFileOption,  traceOption});
  parser.addPositionalArgument(QStringLiteral("session"),
                               QStringLiteral("A session file to open (as --open)."),
                               QStringLiteral("[session.json]"));

  const auto fail = [](const QString& message) {
    return ParseOutcome{std::nullopt, kBadArgumentsExitCode,
                        QStringLiteral("tilescope: %1\nTry 'tilescope --help'.").arg(message)};
  };
  if (!parser.parse(arguments)) return fail(parser.errorText());
  if (parser.isSet(helpOption)) return {std::nullopt, 0, parser.helpText()};
  if (parser.isSet(versionOption)) {
    return {std::nullopt, 0,
            QStringLiteral("%1 %2").arg(QCoreApplication::applicationName(),
                                        QCoreApplication::applicationVersion())};
  }

  CommandLine line;
  line.choices = remembered;
  Choices& choices = line.choices;
  try {
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) refuse(QStringLiteral("at most one session file can be opened"));
    if (!positional.isEmpty() && parser.isSet(openOption)) {
      refuse(QStringLiteral("give the session file either with --open or alone, not both"));
    }
    line.openSession = positional.isEmpty() ? parser.value(openOption) : positional.front();
    line.run = parser.isSet(runOption);
    line.autotune = parser.isSet(autotuneOption);
    if (line.run && line.autotune) refuse(QStringLiteral("--run and --autotune: give one of them"));
    line.measureCeilings = parser.isSet(ceilingsOption);
    line.quit = parser.isSet(quitOption);

    if (parser.isSet(backendOption)) {
      const std::string id = parser.value(backendOption).toStdString();
      const std::vector<std::string> known = backendIds();
      if (std::find(known.begin(), known.end(), id) == known.end()) {
        refuse(QStringLiteral("--backend: unknown backend %1 (cpu or cuda)")
                   .arg(quoted(parser.value(backendOption))));
      }
      choices.backend = id;
    }
    if (parser.isSet(deviceOption)) {
      choices.device = int(plan::parseIntegerIn(valueOf(parser, deviceOption), "--device", 0,
                                                std::numeric_limits<int>::max()));
    }
    if (parser.isSet(kernelOption)) {
      choices.kernel = parser.value(kernelOption).toStdString();
      choices.params.clear();  // the remembered kernel's parameters need not apply
    }
    const KernelInfo& kernel = kernelInfo(choices.kernel);
    if (parser.isSet(tileOption)) {
      if (!kernel.param("tile")) {
        refuse(QStringLiteral("kernel %1 has no tile parameter")
                   .arg(QString::fromStdString(kernel.id)));
      }
      choices.params["tile"] = plan::parseParameterValue(valueOf(parser, tileOption), "--tile");
    }
    if (parser.isSet(paramOption)) {
      for (const auto& [name, value] :
           plan::parseParamsOption(valueOf(parser, paramOption), "--param"))
        choices.params[name] = value;
    }
    if (const auto reason = refusal({choices.kernel, choices.params})) {
      refuse(QString::fromStdString(*reason));
    }
    if (parser.isSet(typeOption)) {
      const std::optional<ElementType> type =
          parseElementType(parser.value(typeOption).toStdString());
      if (!type) {
        refuse(QStringLiteral("--type %1 is not fp32, tf32, fp16 or bf16")
                   .arg(quoted(parser.value(typeOption))));
      }
      choices.element = *type;
    } else {
      // A remembered type the kernel does not multiply gives way to the kernel's default.
      choices.element = elementFor(choices);
    }

    if (parser.isSet(sizeOption)) {
      const std::int64_t size = plan::parseDimension(valueOf(parser, sizeOption), "--size");
      choices.shape = {size, size, size};
    }
    for (const auto& [option, dimension] : {std::pair{&mOption, &choices.shape.m},
                                            {&nOption, &choices.shape.n},
                                            {&kOption, &choices.shape.k}}) {
      if (parser.isSet(*option))
        *dimension = plan::parseDimension(valueOf(parser, *option), optionName(*option));
    }
    validateShape(choices.shape);
    choices.square = choices.shape.m == choices.shape.n && choices.shape.n == choices.shape.k;

    if (parser.isSet(repsOption)) {
      choices.fixedReps =
          int(plan::parseIntegerIn(valueOf(parser, repsOption), "--reps", 1, kMaxFixedReps));
    }
    if (parser.isSet(budgetOption)) {
      if (parser.isSet(repsOption)) {
        refuse(QStringLiteral("--reps and --budget conflict: a fixed count or a time budget"));
      }
      choices.budgetSeconds = plan::parsePositiveNumber(valueOf(parser, budgetOption), "--budget");
      choices.fixedReps.reset();
    }
    if (parser.isSet(noVerifyOption)) choices.verify = false;
    if (parser.isSet(countersOption)) choices.counters = true;

    std::vector<std::string> sweeps;
    for (const QString& text : parser.values(sweepOption)) sweeps.push_back(text.toStdString());
    line.sweep = plan::Sweep::parse(sweeps);
    // A kernel sweep checks the type against each of its kernels when it is planned.
    if (!line.sweep.find("kernel")) {
      if (const auto why = elementRefusal(kernel, choices.element))
        refuse(QString::fromStdString(*why));
    }
    if (line.run) {
      // Only --sweep says what a scripted run sweeps, never a remembered choice.
      showSweepInChoices(line.sweep, choices);
      line.jobs();  // refuses a bad sweep now, before any window or run
    } else if (!line.sweep.axes().empty()) {
      refuse(QStringLiteral("--sweep needs --run"));
    }

    const bool haveResults =
        line.run || line.autotune || line.measureCeilings || !line.openSession.isEmpty();
    const auto needResults = [&](const QCommandLineOption& option) {
      if (parser.isSet(option) && !haveResults) {
        refuse(QStringLiteral("--%1 needs --run, --autotune, --measure-ceilings or a session to "
                              "open")
                   .arg(option.names().front()));
      }
    };
    needResults(exportChartOption);
    needResults(csvOption);
    needResults(jsonOption);
    needResults(saveOption);
    line.exportChart = parser.value(exportChartOption);
    if (!line.exportChart.isEmpty()) {
      requireSuffix(line.exportChart, QStringLiteral("export-chart"),
                    {QStringLiteral("png"), QStringLiteral("pdf"), QStringLiteral("svg"),
                     QStringLiteral("jpg"), QStringLiteral("jpeg")});
    }
    if (parser.isSet(chartOption)) {
      line.chart = chartFromId(parser.value(chartOption));
      if (!line.chart) {
        refuse(QStringLiteral("--chart: unknown chart %1 (one of %2)")
                   .arg(quoted(parser.value(chartOption)), chartIds().join(QStringLiteral(", "))));
      }
    }
    if (parser.isSet(chartSizeOption))
      line.chartSize = parsePixelSize(parser.value(chartSizeOption), "--chart-size");
    line.exportCsv = parser.value(csvOption);
    if (!line.exportCsv.isEmpty()) requireSuffix(line.exportCsv, "export-csv", {"csv"});
    line.exportJson = parser.value(jsonOption);
    if (!line.exportJson.isEmpty()) requireSuffix(line.exportJson, "export-json", {"json"});
    line.saveSession = parser.value(saveOption);
    if (!line.saveSession.isEmpty()) requireSuffix(line.saveSession, "save-session", {"json"});

    if (parser.isSet(viewOption)) {
      line.diagramView = parser.value(viewOption);
      if (!diagramViews().contains(line.diagramView)) {
        refuse(QStringLiteral("--view: unknown view %1 (one of %2)")
                   .arg(quoted(line.diagramView), diagramViews().join(QStringLiteral(", "))));
      }
    }
    line.exportDiagram = parser.value(diagramOption);
    if (!line.exportDiagram.isEmpty()) {
      if (!diagramsBuilt) refuse(QStringLiteral("this build of TileScope has no diagrams"));
      requireSuffix(line.exportDiagram, QStringLiteral("export-diagram"),
                    {QStringLiteral("png"), QStringLiteral("svg")});
    }
    line.screenshot = parser.value(screenshotOption);
    line.kernelFile = parser.value(kernelFileOption);
    line.openTrace = parser.value(traceOption);
    if (!line.openTrace.isEmpty() && !diagramsBuilt)
      refuse(QStringLiteral("this build of TileScope has no diagrams to draw a trace in"));
    if (!line.screenshot.isEmpty()) {
      requireSuffix(line.screenshot, QStringLiteral("screenshot"), {QStringLiteral("png")});
      // An unwritable path is refused now, not after the runs it would follow.
      io::FileWriter(line.screenshot.toStdString(), "screenshot");
    }
    if (parser.isSet(windowSizeOption))
      line.windowSize = parsePixelSize(parser.value(windowSizeOption), "--window-size");
  } catch (const Error& error) {
    return fail(QString::fromStdString(error.what()));
  }
  return {line, 0, QString()};
}

}  // namespace tilescope::app
