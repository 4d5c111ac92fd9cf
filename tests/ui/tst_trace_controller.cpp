// SPDX-License-Identifier: GPL-3.0-or-later
// The trace controller without a window or diagrams: a trace file is drawn by whatever draws
// (here a recorder), what is not a trace is refused with why, another block of a trace on the CPU
// says where it could be traced, and the Kernel Editor's trace asks for the selected block of
// the kernel drawn.
#include <QtTest>

#include "run_controller.hpp"
#include "session.hpp"
#include "suite_helpers.hpp"
#include "trace_controller.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::kWaitMs;
const QString kNaiveTrace = QStringLiteral(TILESCOPE_TRACES_DIR "/naive-trace.json");

KernelTrace naiveTrace() {
  QString error;
  std::optional<KernelTrace> trace = loadTrace(kNaiveTrace, &error);
  if (!trace) qFatal("%s", qPrintable(error));
  return *trace;
}

}  // namespace

class TestTraceController : public QObject {
  Q_OBJECT

 private slots:
  void aTraceFileIsDrawn() {
    RunController runs;
    TraceController traces(runs);
    std::vector<KernelTrace> drawn;
    traces.setDrawer([&](const KernelTrace& trace, QString*) {
      drawn.push_back(trace);
      return true;
    });
    QSignalSpy status(&traces, &TraceController::status);
    QString error;
    QVERIFY2(traces.open(kNaiveTrace, &error), qPrintable(error));
    QCOMPARE(drawn.size(), std::size_t(1));
    QCOMPARE(drawn.front().kernel.kernel, std::string("user:naive"));
    QCOMPARE(status.back().front().toString(),
             QStringLiteral("Opened %1: user:naive traced on NVIDIA H200").arg(kNaiveTrace));
  }

  void whatCannotBeDrawnIsRefusedWithWhy() {
    RunController runs;
    TraceController traces(runs);
    QString error;
    // Without diagrams there is nothing to draw with.
    QVERIFY(!traces.open(kNaiveTrace, &error));
    QVERIFY2(error.contains(QStringLiteral("diagrams are not part of this build")),
             qPrintable(error));
    // The drawer's own refusal comes back as it is.
    traces.setDrawer([](const KernelTrace&, QString* why) {
      *why = QStringLiteral("inconsistent");
      return false;
    });
    QVERIFY(!traces.open(kNaiveTrace, &error));
    QCOMPARE(error, QStringLiteral("inconsistent"));
    // A file that is no trace never reaches the drawer.
    bool asked = false;
    traces.setDrawer([&](const KernelTrace&, QString*) { return asked = true; });
    QTemporaryDir dir;
    const QString notATrace = dir.filePath(QStringLiteral("session.json"));
    QFile file(notATrace);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"tilescope-session\", \"version\": 1}");
    file.close();
    QVERIFY(!traces.open(notATrace, &error));
    QVERIFY2(error.contains(QStringLiteral("session.json")), qPrintable(error));
    QVERIFY(!asked);
  }

  // Another block of a drawn trace is traced on the CPU too; the traced block itself, nothing
  // drawn, or a trace without its source ask for nothing.
  void anotherBlockIsTracedOnTheCpu() {
    RunController runs;
    TraceController traces(runs);
    QSignalSpy traced(&runs, &RunController::traceReady);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    QSignalSpy busy(&runs, &RunController::busyChanged);
    const KernelTrace trace = naiveTrace();
    Choices cpu;
    traces.retrace(&trace, {1, 1}, cpu);
    traces.retrace(nullptr, {2, 3}, cpu);
    KernelTrace sourceless = trace;
    sourceless.kernel.source.reset();
    traces.retrace(&sourceless, {2, 3}, cpu);
    QCOMPARE(busy.size(), 0);
    traces.retrace(&trace, {2, 3}, cpu);
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(traced.size(), 1);
    const auto back = traced.front().front().value<KernelTrace>();
    QCOMPARE(back.tracedBlock.x, 2);
    QCOMPARE(back.tracedBlock.y, 3);
    QVERIFY(back.sanitizer.clean());
  }

  void theEditorsTraceAsksForTheSelectedBlockOfTheKernelDrawn() {
    RunController runs;
    TraceController traces(runs);
    QSignalSpy traced(&runs, &RunController::traceReady);
    QSignalSpy finished(&runs, &RunController::queueFinished);
    const KernelTrace trace = naiveTrace();
    const UserKernelSource naive{"naive", *trace.kernel.source};
    Choices choices;
    choices.shape = {64, 64, 64};
    QVERIFY(traces.traceUserKernel(naive, choices, &trace, {2, 3}));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(traced.size(), 1);
    QCOMPARE(traced.back().front().value<KernelTrace>().tracedBlock.x, 2);
    QCOMPARE(traced.back().front().value<KernelTrace>().tracedBlock.y, 3);

    // Where the diagrams draw another kernel, block (0,0).
    KernelTrace other = trace;
    other.kernel.kernel = "user:other";
    QVERIFY(traces.traceUserKernel(naive, choices, &other, {2, 3}));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(traced.size(), 2);
    QCOMPARE(traced.back().front().value<KernelTrace>().tracedBlock.x, 0);
    QCOMPARE(traced.back().front().value<KernelTrace>().tracedBlock.y, 0);
  }
};

TILESCOPE_UI_SUITE(TestTraceController, Guiless)
#include "tst_trace_controller.moc"
