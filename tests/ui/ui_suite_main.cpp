// SPDX-License-Identifier: GPL-3.0-or-later
// tst_ui's main: runs the suite its first argument names, in the application that suite asks for,
// with the remaining arguments for QtTest (what QTEST_MAIN and QTEST_GUILESS_MAIN do).
#include <QApplication>
#include <QtTest>
#include <cstdio>
#include <string>
#include <vector>

#include "ui_suite.hpp"

namespace tilescope::test {
namespace {

struct UiSuite {
  std::string name;
  SuiteApp app;
  std::function<std::unique_ptr<QObject>()> makeTest;
};

std::vector<UiSuite>& suites() {
  static std::vector<UiSuite> registered;
  return registered;
}

}  // namespace

bool registerUiSuite(const char* file, SuiteApp app,
                     std::function<std::unique_ptr<QObject>()> makeTest) {
  std::string name(file);
  name = name.substr(name.find_last_of('/') + 1);
  name = name.substr(0, name.find_last_of('.'));
  suites().push_back({name, app, std::move(makeTest)});
  return true;
}

}  // namespace tilescope::test

int main(int argc, char** argv) {
  using namespace tilescope::test;
  const UiSuite* suite = nullptr;
  for (const UiSuite& registered : suites())
    if (argc >= 2 && registered.name == argv[1]) suite = &registered;
  if (!suite) {
    std::fprintf(stderr, "usage: %s SUITE [QtTest options], where SUITE is one of:\n", argv[0]);
    for (const UiSuite& registered : suites())
      std::fprintf(stderr, "  %s\n", registered.name.c_str());
    return 2;
  }
  // The arguments without the suite's name, for Qt and QtTest.
  std::vector<char*> arguments{argv[0]};
  for (int i = 2; i < argc; ++i) arguments.push_back(argv[i]);
  int count = int(arguments.size());
  arguments.push_back(nullptr);
  std::unique_ptr<QCoreApplication> app;
  if (suite->app == SuiteApp::Gui) {
    app = std::make_unique<QApplication>(count, arguments.data());
    app->setAttribute(Qt::AA_Use96Dpi, true);
  } else {
    app = std::make_unique<QCoreApplication>(count, arguments.data());
  }
  QTEST_SET_MAIN_SOURCE_PATH
  const std::unique_ptr<QObject> test = suite->makeTest();
  return QTest::qExec(test.get(), count, arguments.data());
}
