// The TileScope desktop app. Without options it opens the window with the last choices; with
// --run ... --quit it measures and exports without showing it (see `tilescope --help`).
#include <QApplication>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "command_line.hpp"
#include "command_line_driver.hpp"
#include "control_panel.hpp"
#include "main_window.hpp"
#include "settings.hpp"

namespace {

#ifdef TILESCOPE_HAVE_DIAGRAMS
constexpr bool kDiagramsBuilt = true;
#else
constexpr bool kDiagramsBuilt = false;
#endif

bool hasArgument(int argc, char* argv[], std::initializer_list<const char*> names) {
  for (int i = 1; i < argc; ++i) {
    for (const char* name : names) {
      if (std::strcmp(argv[i], name) == 0) return true;
    }
  }
  return false;
}

// --help, --version and scripted runs (--quit) show no window, so they need no display: unless
// a platform was chosen, they use the offscreen one and work over ssh and in CI.
void preferOffscreenWithoutWindow(int argc, char* argv[]) {
  if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || hasArgument(argc, argv, {"-platform"})) {
    return;
  }
  if (hasArgument(argc, argv, {"--help", "-h", "-?", "--help-all", "--version", "-v", "--quit"})) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  preferOffscreenWithoutWindow(argc, argv);
  QApplication application(argc, argv);
  // Names first: QSettings and the standard paths depend on them.
  QApplication::setOrganizationName(QStringLiteral("TileScope"));
  QApplication::setOrganizationDomain(QStringLiteral("tilescope.github.io"));
  QApplication::setApplicationName(QStringLiteral("TileScope"));
  QApplication::setApplicationVersion(QStringLiteral(TILESCOPE_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("io.github.tilescope.TileScope"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tilescope.svg")));

  using namespace tilescope;
  const app::ParseOutcome outcome =
      app::parseCommandLine(QApplication::arguments(), app::loadLastChoices(), kDiagramsBuilt);
  if (!outcome.commandLine) {
    std::fputs(qPrintable(outcome.message + QLatin1Char('\n')),
               outcome.exitCode == 0 ? stdout : stderr);
    return outcome.exitCode;
  }
  const app::CommandLine& commandLine = *outcome.commandLine;

  ui::MainWindow window;
  window.setRemembersSettings(!commandLine.quit);
  window.restoreSettings();
  window.controls()->setChoices(commandLine.choices);

  ui::CommandLineDriver driver(&window, commandLine);
  if (commandLine.quit) {
    QObject::connect(&driver, &ui::CommandLineDriver::finished, &application,
                     [](int exitCode) { QCoreApplication::exit(exitCode); });
  } else {
    window.show();
  }
  QTimer::singleShot(0, &driver, &ui::CommandLineDriver::start);
  return QApplication::exec();
}
