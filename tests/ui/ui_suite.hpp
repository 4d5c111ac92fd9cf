// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The QtTest suites of this folder share one executable, tst_ui: each file registers its test
// class under the file's name (TILESCOPE_UI_SUITE in place of QTEST_MAIN), and
// `tst_ui tst_NAME [QtTest options]` runs that suite alone, as its own executable did. One
// executable is linked and scanned by moc once, where eighteen were.
#include <QObject>
#include <functional>
#include <memory>

namespace tilescope::test {

// The application a suite runs in: QApplication (QTEST_MAIN) or QCoreApplication
// (QTEST_GUILESS_MAIN).
enum class SuiteApp { Gui, Guiless };

// Registers the suite of source file `file` (its name without folder and extension); always true.
bool registerUiSuite(const char* file, SuiteApp app,
                     std::function<std::unique_ptr<QObject>()> makeTest);

}  // namespace tilescope::test

// The flag is named after the class, so that the suites can share a unity build's file.
#define TILESCOPE_UI_SUITE(TestClass, app)                                           \
  static const bool TestClass##Registered =                                          \
      ::tilescope::test::registerUiSuite(__FILE__, ::tilescope::test::SuiteApp::app, \
                                         [] { return std::unique_ptr<QObject>(new TestClass); });
