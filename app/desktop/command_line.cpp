// SPDX-License-Identifier: GPL-3.0-or-later
#include "command_line.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <algorithm>
#include <limits>

#include "tilescope/catalogue.hpp"
#include "tilescope/cli/options.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/quote.hpp"
#include "tilescope/remote/server_list.hpp"

namespace tilescope::desktop {
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

QString text(std::string_view value) {
  return QString::fromUtf8(value.data(), qsizetype(value.size()));
}

// The table's option `name` as Qt declares it.
QCommandLineOption tableOption(std::string_view name) {
  const cli::OptionSpec& spec = cli::option(name, cli::Program::App);
  QStringList names{text(spec.name)};
  if (!spec.shortName.empty()) names.prepend(text(spec.shortName));
  if (spec.isFlag()) return QCommandLineOption(names, text(spec.help));
  return QCommandLineOption(names, text(spec.help), text(spec.valueName));
}

const cli::DeprecatedAlias& deprecatedSpelling(std::string_view name) {
  return cli::option(name, cli::Program::App).aliases.front();
}

// The old spelling of the table's option `name`, left out of --help.
QCommandLineOption deprecatedOption(std::string_view name) {
  const cli::DeprecatedAlias& alias = deprecatedSpelling(name);
  const QString note = text(cli::deprecationNote(cli::option(name, cli::Program::App), alias));
  QCommandLineOption option =
      alias.valueName.empty() ? QCommandLineOption(text(alias.name), note)
                              : QCommandLineOption(text(alias.name), note, text(alias.valueName));
  option.setFlags(QCommandLineOption::HiddenFromHelp);
  return option;
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
                              bool diagramsBuilt,
                              const std::vector<remote::ServerAddress>& servers) {
  QCommandLineParser parser;
  parser.setApplicationDescription(text(cli::programSpec(cli::Program::App).description));
  const QCommandLineOption helpOption = parser.addHelpOption();
  const QCommandLineOption versionOption = parser.addVersionOption();
  const QCommandLineOption backendOption = tableOption("backend");
  const QCommandLineOption deviceOption = tableOption("device");
  const QCommandLineOption kernelOption = tableOption("kernel");
  const QCommandLineOption tileOption = tableOption("tile");
  const QCommandLineOption paramOption = tableOption("param");
  const QCommandLineOption typeOption = tableOption("type");
  const QCommandLineOption sizeOption = tableOption("size");
  const QCommandLineOption mOption = tableOption("m");
  const QCommandLineOption nOption = tableOption("n");
  const QCommandLineOption kOption = tableOption("k");
  const QCommandLineOption repsOption = tableOption("reps");
  const QCommandLineOption budgetOption = tableOption("budget-ms");
  const QCommandLineOption budgetSecondsOption = deprecatedOption("budget-ms");
  const QCommandLineOption noVerifyOption = tableOption("no-verify");
  const QCommandLineOption countersOption = tableOption("counters");
  const QCommandLineOption sweepOption = tableOption("sweep");
  const QCommandLineOption runOption = tableOption("run");
  const QCommandLineOption autotuneOption = tableOption("autotune");
  const QCommandLineOption ceilingsOption = tableOption("ceilings");
  const QCommandLineOption measureCeilingsOption = deprecatedOption("ceilings");
  const QCommandLineOption openOption = tableOption("open");
  const QCommandLineOption saveOption = tableOption("save-session");
  const QCommandLineOption exportChartOption = tableOption("export-chart");
  const QCommandLineOption chartOption = tableOption("chart");
  const QCommandLineOption chartSizeOption = tableOption("chart-size");
  const QCommandLineOption csvOption = tableOption("export-csv");
  const QCommandLineOption jsonOption = tableOption("export-json");
  const QCommandLineOption viewOption = tableOption("view");
  const QCommandLineOption diagramOption = tableOption("export-diagram");
  const QCommandLineOption screenshotOption = tableOption("screenshot");
  const QCommandLineOption kernelFileOption = tableOption("kernel-file");
  const QCommandLineOption traceOption = tableOption("open-trace");
  const QCommandLineOption traceKernelOption = tableOption("trace");
  const QCommandLineOption windowSizeOption = tableOption("window-size");
  const QCommandLineOption quitOption = tableOption("quit");
  parser.addOptions({backendOption,
                     deviceOption,
                     kernelOption,
                     tileOption,
                     paramOption,
                     typeOption,
                     sizeOption,
                     mOption,
                     nOption,
                     kOption,
                     repsOption,
                     budgetOption,
                     budgetSecondsOption,
                     noVerifyOption,
                     countersOption,
                     sweepOption,
                     runOption,
                     openOption,
                     saveOption,
                     exportChartOption,
                     chartOption,
                     chartSizeOption,
                     csvOption,
                     jsonOption,
                     viewOption,
                     diagramOption,
                     quitOption,
                     autotuneOption,
                     ceilingsOption,
                     screenshotOption,
                     measureCeilingsOption,
                     windowSizeOption,
                     kernelFileOption,
                     traceKernelOption,
                     traceOption});
  parser.addPositionalArgument(QStringLiteral("session"),
                               QStringLiteral("A session file to open (as --open)."),
                               QStringLiteral("[session.json]"));

  const auto fail = [](const QString& message) {
    return ParseOutcome{
        .exitCode = kBadArgumentsExitCode,
        .message = QStringLiteral("tilescope: %1\nTry 'tilescope --help'.").arg(message)};
  };
  if (!parser.parse(arguments)) return fail(parser.errorText());
  if (parser.isSet(helpOption))
    return {.message =
                parser.helpText() + QLatin1Char('\n') + text(cli::helpFooter(cli::Program::App))};
  if (parser.isSet(versionOption)) {
    return {.message = QStringLiteral("%1 %2").arg(QCoreApplication::applicationName(),
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
    line.measureCeilings = parser.isSet(ceilingsOption) || parser.isSet(measureCeilingsOption);
    line.quit = parser.isSet(quitOption);

    if (parser.isSet(backendOption)) {
      const std::string id = parser.value(backendOption).toStdString();
      const std::vector<std::string> known = backendIds();
      line.server = remote::serverBackend(id, servers);
      if (!line.server && std::find(known.begin(), known.end(), id) == known.end()) {
        refuse(QStringLiteral("--backend: unknown backend %1 (cpu or cuda, or KIND@SERVER)")
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
        refuse(
            QStringLiteral("--type %1 is not %2")
                .arg(quoted(parser.value(typeOption)), QString::fromStdString(elementTypeNames())));
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
    if (parser.isSet(budgetOption) && parser.isSet(budgetSecondsOption))
      refuse(QStringLiteral("--budget is --budget-ms in seconds: give one of them"));
    for (const QCommandLineOption* budget : {&budgetOption, &budgetSecondsOption}) {
      if (!parser.isSet(*budget)) continue;
      if (parser.isSet(repsOption)) {
        refuse(QStringLiteral("--reps and %1 conflict: a fixed count or a time budget")
                   .arg(QString::fromStdString(optionName(*budget))));
      }
      const double milliseconds =
          plan::parsePositiveNumber(valueOf(parser, *budget), optionName(*budget)) *
          (budget == &budgetOption ? 1.0 : deprecatedSpelling("budget-ms").scale);
      choices.budgetSeconds = milliseconds / 1000.0;
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
        refuse(QStringLiteral("--%1 needs --run, --autotune, --ceilings or a session to open")
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
    line.trace = parser.isSet(traceKernelOption);
    if ((!line.openTrace.isEmpty() || line.trace) && !diagramsBuilt)
      refuse(QStringLiteral("this build of TileScope has no diagrams to draw a trace in"));
    if (line.trace && line.kernelFile.isEmpty())
      refuse(QStringLiteral("--trace traces the --kernel-file kernel: give one"));
    if (line.trace && (line.run || line.autotune || line.measureCeilings))
      refuse(QStringLiteral("--trace with --run, --autotune or --ceilings: give one of them"));
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
  QStringList notes;
  for (const auto& [option, name] :
       {std::pair{&budgetSecondsOption, "budget-ms"}, {&measureCeilingsOption, "ceilings"}}) {
    if (parser.isSet(*option))
      notes << text(
          cli::deprecationNote(cli::option(name, cli::Program::App), deprecatedSpelling(name)));
  }
  return {line, 0, QString(), notes};
}

}  // namespace tilescope::desktop
