// SPDX-License-Identifier: GPL-3.0-or-later
// The TileScope desktop app. Without options it opens the window with the last choices; with
// --run ... --quit it measures and exports without showing it (see `tilescope --help`).
#include <fcntl.h>
#include <unistd.h>

#include <QApplication>
#include <QIcon>
#include <QSocketNotifier>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "command_line.hpp"
#include "command_line_driver.hpp"
#include "control_panel.hpp"
#include "main_window.hpp"
#include "servers.hpp"
#include "settings.hpp"
#include "tilescope/compile/compile_child.hpp"
#include "tilescope/io/interrupt.hpp"

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

// A scripted run (--quit) stops on SIGINT, SIGTERM, SIGHUP or SIGQUIT after the current run and
// exports what was measured: the handler writes a byte to a pipe the event loop watches.
void stopOnSignals(tilescope::ui::CommandLineDriver& driver) {
  int wakeUp[2];
  if (::pipe2(wakeUp, O_CLOEXEC | O_NONBLOCK) != 0) return;
  tilescope::io::installInterruptHandlers(nullptr, wakeUp[1]);
  auto* notifier = new QSocketNotifier(wakeUp[0], QSocketNotifier::Read, &driver);
  QObject::connect(notifier, &QSocketNotifier::activated, &driver, [&driver, wakeUp] {
    char byte = 0;
    while (::read(wakeUp[0], &byte, 1) > 0) {
    }
    driver.interrupt(tilescope::io::interruptSignal());
  });
}

}  // namespace

int main(int argc, char* argv[]) {
  preferOffscreenWithoutWindow(argc, argv);
  QApplication application(argc, argv);
  // Names first: the settings file and the standard paths depend on them.
  QApplication::setOrganizationName(QStringLiteral("TileScope"));
  QApplication::setOrganizationDomain(QStringLiteral("tilescope.github.io"));
  QApplication::setApplicationName(QStringLiteral("TileScope"));
  QApplication::setApplicationVersion(QStringLiteral(TILESCOPE_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("io.github.tilescope.TileScope"));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tilescope.svg")));

  using namespace tilescope;
  QStringList notices;
  const desktop::Choices remembered = desktop::loadLastChoices(&notices);
  const desktop::ServerSettings servers = desktop::loadServerSettings();
  notices << servers.problems;
  for (const QString& notice : notices)
    std::fputs(qPrintable(QStringLiteral("tilescope: notice: %1\n").arg(notice)), stderr);
  const desktop::ParseOutcome outcome = desktop::parseCommandLine(
      QApplication::arguments(), remembered, kDiagramsBuilt, servers.servers);
  for (const QString& note : outcome.notes)
    std::fputs(qPrintable(QStringLiteral("tilescope: %1\n").arg(note)), stderr);
  if (!outcome.commandLine) {
    std::fputs(qPrintable(outcome.message + QLatin1Char('\n')),
               outcome.exitCode == 0 ? stdout : stderr);
    return outcome.exitCode;
  }
  const desktop::CommandLine& commandLine = *outcome.commandLine;
  // The Kernel Editor's compiles (and any run in this process) in a child with limits: a source
  // that makes the compiler hang or exhaust memory costs a message, not the window.
  compile::isolateCompiles(desktop::benchProgram().toStdString(), compile::limitsFromEnvironment());

  ui::MainWindow window;
  window.setRemembersSettings(!commandLine.quit);
  window.restoreSettings();
  window.controls()->setChoices(commandLine.choices);

  ui::CommandLineDriver driver(&window, commandLine);
  if (commandLine.quit) {
    QObject::connect(&driver, &ui::CommandLineDriver::finished, &application,
                     [](int exitCode) { QCoreApplication::exit(exitCode); });
    stopOnSignals(driver);
  } else {
    window.show();
  }
  QTimer::singleShot(0, &driver, &ui::CommandLineDriver::start);
  return QApplication::exec();
}
