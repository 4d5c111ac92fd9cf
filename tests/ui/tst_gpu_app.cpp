// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop app on a real GPU (issue #11): a tile sweep through the window's run queue and
// worker thread, the charts filled from it, Cancel during a long run, the roofline from
// ceilings measured on the GPU, the same sweep and ceilings through the remote backend talking
// to a `tilescope-bench --serve` child, and last (it poisons the process) a sticky CUDA fault in
// the middle of a sweep. Skips without a usable CUDA device.
#include <QtTest>
#include <algorithm>

#include "autotune_run.hpp"
#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "diagram_document.hpp"
#include "main_window.hpp"
#include "run_controller.hpp"
#include "servers.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/user_kernel.hpp"

#ifdef TILESCOPE_HAVE_CUDA
#include <cuda_runtime.h>
namespace tilescope::test {
cudaError_t provokeIllegalAddress();  // tests/cuda/fault_kernel.cu
}
#endif

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::MainWindow;

namespace {

constexpr int kWaitMs = 120000;
const std::vector<int> kTiles = {1, 2, 4, 8, 16, 32};

RunJob job(const std::string& backend, const std::string& kernel, Params params, std::int64_t size,
           int reps) {
  RunJob made;
  made.backend = backend;
  made.request.kernel = {kernel, std::move(params)};
  made.request.shape = {size, size, size};
  made.request.sampling.fixedReps = reps;
  return made;
}

std::vector<RunJob> tileSweep(const std::string& backend) {
  std::vector<RunJob> jobs;
  for (int tile : kTiles) jobs.push_back(job(backend, "register-tiled", {{"tile", tile}}, 2048, 5));
  return jobs;
}

// `tilescope-bench --serve` from the build tree, or from beside this test in a bundle.
QString serverCommand() {
  const QString built = QStringLiteral(TILESCOPE_BENCH);
  return QFileInfo::exists(built) ? QStringLiteral("'%1' --serve").arg(built)
                                  : localServerCommand();
}

void logResult(const RunResult& result) {
  qInfo("%s on %s: %s %s %lldx%lldx%lld median %.3f ms, %.1f GFLOP/s, verified %d",
        result.backend.c_str(), result.device.c_str(), result.kernel.kernel.c_str(),
        formatParams(result.kernel).c_str(), (long long)result.shape.m, (long long)result.shape.n,
        (long long)result.shape.k, result.stats.medianMs, result.gflops, int(result.verified()));
}

void logCeilings(const DeviceCeilings& ceilings) {
  for (const Ceiling& compute : ceilings.compute)
    qInfo("%s ceiling on %s: %s %.1f %s", ceilings.backend.c_str(), ceilings.device.c_str(),
          compute.name.c_str(), compute.measured, compute.unit.c_str());
  qInfo("%s ceiling on %s: %s %.1f %s", ceilings.backend.c_str(), ceilings.device.c_str(),
        ceilings.bandwidth.name.c_str(), ceilings.bandwidth.measured,
        ceilings.bandwidth.unit.c_str());
}

// Runs `jobs` on `controller` to the end; the results that arrived, in order.
std::vector<RunResult> runAll(RunController& controller, const std::vector<RunJob>& jobs) {
  QSignalSpy results(&controller, &RunController::resultReady);
  QSignalSpy failures(&controller, &RunController::runFailed);
  QSignalSpy finished(&controller, &RunController::queueFinished);
  controller.enqueue(jobs);
  if (!finished.wait(kWaitMs)) return {};
  for (const QList<QVariant>& failure : failures)
    qWarning("failed: %s", qPrintable(failure.at(1).value<RunFailure>().message));
  std::vector<RunResult> arrived;
  for (const QList<QVariant>& result : results)
    arrived.push_back(result.front().value<RunResult>());
  return arrived;
}

void checkSweep(const std::vector<RunResult>& results, const std::string& backend) {
  QCOMPARE(results.size(), kTiles.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    logResult(results[i]);
    QCOMPARE(results[i].backend, backend);
    QCOMPARE(results[i].kernel.params.at("tile"), kTiles[i]);
    QVERIFY(results[i].verified());
    QVERIFY(results[i].gflops > 0);
  }
}

std::string cudaDeviceName() {
  const std::vector<DeviceInfo> devices = makeCudaBackend()->devices();
  return devices.empty() ? std::string() : devices.front().name;
}

}  // namespace

class TestGpuApp : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (const auto why = makeCudaBackend()->unavailableReason())
      QSKIP(qPrintable(
          QStringLiteral("no usable CUDA device: %1").arg(QString::fromStdString(*why))));
    qInfo("CUDA device: %s", cudaDeviceName().c_str());
  }

  void aTileSweepOnTheGpuFillsTheCharts() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    const BackendSummary* cuda = window.controller()->backend("cuda");
    QVERIFY(cuda && cuda->available());
    const std::vector<RunResult> results = runAll(*window.controller(), tileSweep("cuda"));
    checkSweep(results, "cuda");
    QCOMPARE(results.front().device, cudaDeviceName());
    QCOMPARE(window.results()->rowCount(), int(kTiles.size()));

    window.charts()->refresh();
    ui::ChartView* tiles = window.charts()->chart(ChartKind::TileSweep);
    QVERIFY(!tiles->hasPlaceholder());
    QCOMPARE(tiles->graphCount(), 1);
    QCOMPARE(tiles->graph(0)->dataCount(), int(kTiles.size()));
    // The chart's y values are the measured medians, in the sweep's order.
    for (std::size_t i = 0; i < kTiles.size(); ++i) {
      const auto point = tiles->graph(0)->data()->at(int(i));
      QCOMPARE(point->key, double(kTiles[i]));
      QCOMPARE(point->value, results[i].stats.medianMs);
    }
    QVERIFY(!window.charts()->chart(ChartKind::Rate)->hasPlaceholder());
  }

  void cancelStopsALongGpuRun() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    RunController* controller = window.controller();
    QSignalSpy results(controller, &RunController::resultReady);
    QSignalSpy finished(controller, &RunController::queueFinished);
    // Minutes of repetitions: only Cancel ends it soon.
    controller->enqueue({job("cuda", "shared-tiled", {{"tile", 16}}, 256, 5),
                         job("cuda", "shared-tiled", {{"tile", 16}}, 4096, kMaxFixedReps)});
    QVERIFY(results.wait(kWaitMs));
    QSignalSpy progress(controller, &RunController::progressChanged);
    QVERIFY(progress.wait(kWaitMs));
    QTest::qWait(500);
    QElapsedTimer sinceCancel;
    sinceCancel.start();
    window.queue()->cancel();
    QVERIFY(finished.wait(kWaitMs));
    qInfo("the long run stopped %lld ms after Cancel", (long long)sinceCancel.elapsed());
    QVERIFY(sinceCancel.elapsed() < 10000);
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QCOMPARE(results.size(), 1);
    // The GPU is still usable.
    QCOMPARE(runAll(*controller, {job("cuda", "shared-tiled", {{"tile", 16}}, 256, 5)}).size(),
             std::size_t(1));
  }

  void theRooflineUsesCeilingsMeasuredOnTheGpu() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    Choices choices = window.controls()->choices();
    choices.backend = "cuda";
    choices.device = 0;
    window.controls()->setChoices(choices);
    runAll(*window.controller(), tileSweep("cuda"));
    QSignalSpy ready(window.controller(), &RunController::ceilingsReady);
    QVERIFY(window.measureCeilings());
    QVERIFY(ready.wait(kWaitMs));
    QCOMPARE(window.results()->ceilings().size(), std::size_t(1));
    const DeviceCeilings measured = window.results()->ceilings().front();
    logCeilings(measured);
    QCOMPARE(measured.backend, std::string("cuda"));
    QCOMPARE(measured.device, cudaDeviceName());
    for (const Ceiling& compute : measured.compute) QVERIFY(compute.measured > 0);
    QVERIFY(measured.bandwidth.measured > 0);

    window.charts()->showChart(ChartKind::Roofline);
    window.charts()->refresh();
    ui::ChartView* roofline = window.charts()->chart(ChartKind::Roofline);
    // Its roofs drawn as measured (solid; the legend says so), each label by its line.
    QVERIFY(std::ranges::any_of(roofline->legendEntries(), [](const ui::LegendEntry& entry) {
      return entry.members == QStringList{QStringLiteral("roofs as measured")};
    }));
    QStringList labels;
    for (int i = 0; i < roofline->itemCount(); ++i) {
      if (auto* text = qobject_cast<QCPItemText*>(roofline->item(i))) labels << text->text();
    }
    const QString joined = labels.join(QLatin1Char('|'));
    QVERIFY2(joined.contains(QStringLiteral("FP32 ")), qPrintable(joined));
    int points = 0;
    for (int i = 0; i < roofline->graphCount(); ++i) {
      if (roofline->graph(i)->lineStyle() == QCPGraph::lsNone)
        points += roofline->graph(i)->dataCount();
    }
    QCOMPARE(points, int(kTiles.size()));
  }

  void theSameSweepAndCeilingsThroughTheRunServer() {
    const std::string id = "cuda@gpu";
    RunController controller(nullptr, {{"gpu", serverCommand().toStdString(), "cuda"}});
    // A server starts when it is first used (issue #34).
    QTRY_VERIFY_WITH_TIMEOUT(controller.backendsKnown() && controller.backend(id), kWaitMs);
    controller.connectServer(id);
    QTRY_VERIFY_WITH_TIMEOUT(controller.backend(id)->available(), kWaitMs);
    const BackendSummary* remote = controller.backend(id);
    QCOMPARE(remote->devices.front().name, cudaDeviceName());
    QCOMPARE(remote->devices.front().facts.back().first, std::string("server"));
    const std::vector<RunResult> results = runAll(controller, tileSweep(id));
    checkSweep(results, id);

    QSignalSpy ready(&controller, &RunController::ceilingsReady);
    controller.enqueue({RunJob::ceilings(id, 0)});
    QVERIFY(ready.wait(kWaitMs));
    const auto ceilings = ready.front().front().value<DeviceCeilings>();
    logCeilings(ceilings);
    QCOMPARE(ceilings.backend, id);
    QVERIFY(ceilings.bandwidth.measured > 0);
  }

  // Last: the fault poisons this process's CUDA context for good.
  // Issue 14: the Kernel Editor's kernel runs in a child server, never in the window's process.
  // It verifies like a catalogue kernel; one that faults fails alone, and the next user kernel,
  // the in-process CUDA backend and every result carry on.
  void aUserKernelRunsInAChildAndItsFaultLeavesTheWindow() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    RunController* controller = window.controller();
    Choices choices = window.controls()->choices();
    choices.backend = "cuda";
    choices.kernel = "naive";
    choices.params = {{"tile", 16}};
    choices.shape = {512, 512, 512};
    choices.fixedReps = 3;
    choices.sweep = SweepKind::Single;
    window.controls()->setChoices(choices);
    const UserKernelSource naive{"my_naive", userKernelTemplate("naive")->source};
    const UserKernelSource faulting{"faulting",
                                    "TS_LAUNCH(32, 1, 1, 1, 0)\nTS_KERNEL { "
                                    "*reinterpret_cast<volatile float*>(16) = 1.0f; }\n"};
    QSignalSpy results(controller, &RunController::resultReady);
    QSignalSpy failures(controller, &RunController::runFailed);
    QVERIFY(window.runUserKernel(naive));
    QVERIFY(window.runUserKernel(faulting));
    QVERIFY(window.runUserKernel(naive));
    QVERIFY(window.runChoices());  // the catalogue's naive, in this process
    QTRY_COMPARE_WITH_TIMEOUT(int(results.size() + failures.size()), 4, kWaitMs);
    QCOMPARE(int(failures.size()), 1);
    const RunFailure fault = failures.front().at(1).value<RunFailure>();
    qInfo("the faulting kernel: %s", qPrintable(fault.message));
    QVERIFY2(fault.message.contains(QStringLiteral("illegal")), qPrintable(fault.message));
    QCOMPARE(int(results.size()), 3);
    for (const QList<QVariant>& arrived : results) {
      const RunResult result = arrived.front().value<RunResult>();
      logResult(result);
      QVERIFY(result.verified());
    }
    QCOMPARE(results.at(0).front().value<RunResult>().kernel.kernel, std::string("user:my_naive"));
    QCOMPARE(results.at(2).front().value<RunResult>().kernel.kernel, std::string("naive"));
    const BackendSummary* cuda = controller->backend("cuda");
    QVERIFY(cuda && cuda->available());
    QCOMPARE(window.results()->rowCount(), 3);

    // A kernel that never ends: Cancel stops its child (the launch cannot be interrupted), and
    // the next run of a user kernel starts a new child and verifies.
    const UserKernelSource endless{
        "endless",
        "TS_LAUNCH(32, 1, 1, 1, 0)\n"
        "TS_KERNEL { const long long start = clock64(); while (clock64() >= start) {} }\n"};
    QSignalSpy finished(controller, &RunController::queueFinished);
    QVERIFY(window.runUserKernel(endless));
    QSignalSpy progress(controller, &RunController::progressChanged);
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() > 0, kWaitMs);
    QTest::qWait(2000);
    QElapsedTimer sinceCancel;
    sinceCancel.start();
    window.queue()->cancel();
    QVERIFY(finished.wait(kWaitMs));
    qInfo("the endless kernel stopped %lld ms after Cancel", (long long)sinceCancel.elapsed());
    QVERIFY(sinceCancel.elapsed() < 30000);
    QVERIFY(finished.front().front().value<QueueSummary>().cancelled);
    QVERIFY(window.runUserKernel(naive));
    QTRY_COMPARE_WITH_TIMEOUT(window.results()->rowCount(), 4, kWaitMs);
    QVERIFY(window.results()->results().back().verified());
  }

  // The Kernel Editor's Trace: the launch runs in the child server, the trace comes back to the
  // window and the diagrams draw it, the template's trace drawing naive's pictures exactly.
  void aTracedUserKernelIsDrawnInTheDiagrams() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    Choices choices = window.controls()->choices();
    choices.backend = "cuda";
    choices.shape = {100, 70, 50};
    choices.sweep = SweepKind::Single;
    window.controls()->setChoices(choices);
    QSignalSpy traces(window.controller(), &RunController::traceReady);
    QVERIFY(window.traceUserKernel({"my_naive", userKernelTemplate("naive")->source}));
    QTRY_COMPARE_WITH_TIMEOUT(int(traces.size()), 1, kWaitMs);
    const KernelTrace trace = traces.front().front().value<KernelTrace>();
    qInfo("traced %s on %s: grid %d x %d", trace.kernel.kernel.c_str(), trace.device.c_str(),
          trace.grid.x, trace.grid.y);
    const Mapping naive({"naive", {{"tile", 16}}}, choices.shape);
    QCOMPARE(traceDifferences(Mapping(trace), naive), std::vector<std::string>{});
    auto* document = window.findChild<tilescope::ui::DiagramDocument*>();
    QVERIFY(document && document->mapping() && document->mapping()->trace());
    QVERIFY2(document->configurationLabel().endsWith(
                 QStringLiteral("traced on %1").arg(QString::fromStdString(trace.device))),
             qPrintable(document->configurationLabel()));
    QCOMPARE(document->selection().compareKernel, QStringLiteral("naive"));
    // Selecting another block traces it: the same kernel, size and parameters.
    QCOMPARE(trace.tracedBlock.x, 0);
    tilescope::ui::DiagramSelection selection = document->selection();
    selection.block = {2, 3};
    document->setSelection(selection);
    QTRY_COMPARE_WITH_TIMEOUT(int(traces.size()), 2, kWaitMs);
    const KernelTrace other = traces.back().front().value<KernelTrace>();
    QCOMPARE(other.tracedBlock.x, 2);
    QCOMPARE(other.tracedBlock.y, 3);
    QCOMPARE(other.kernel, trace.kernel);
    QCOMPARE(traceDifferences(Mapping(other), naive), std::vector<std::string>{});
    QTRY_VERIFY_WITH_TIMEOUT(document->mapping() && document->mapping()->trace() &&
                                 document->mapping()->trace()->tracedBlock.y == 3,
                             kWaitMs);
    QCOMPARE(document->selection().block.x, 2);
    QCOMPARE(traces.size(), 2);  // and no more
    // Two blocks chosen in a row: the second, chosen while the first was being traced, is
    // traced when the first's trace has arrived, and stays selected.
    selection = document->selection();
    selection.block = {1, 1};
    document->setSelection(selection);
    QVERIFY(window.controller()->busy());
    selection.block = {4, 6};
    document->setSelection(selection);
    QTRY_COMPARE_WITH_TIMEOUT(int(traces.size()), 4, kWaitMs);
    QCOMPARE(traces.at(2).front().value<KernelTrace>().tracedBlock.x, 1);
    const KernelTrace last = traces.at(3).front().value<KernelTrace>();
    QCOMPARE(last.tracedBlock.x, 4);
    QCOMPARE(last.tracedBlock.y, 6);
    QTRY_COMPARE_WITH_TIMEOUT(document->selection().block.y, 6, kWaitMs);
    QVERIFY(!window.controller()->busy());
  }

  // Issue #34: "All GPUs" spreads an autotune's configurations over every device of the machine,
  // one run per device at a time, and finds the same winner in less time. On a machine with one
  // GPU every run stays on it.
  void anAutotuneOnAllGpusUsesEveryDevice() {
    const std::vector<DeviceInfo> devices = makeCudaBackend()->devices();
    RunController controller(nullptr, {});
    QTRY_VERIFY_WITH_TIMEOUT(controller.backendsKnown(), kWaitMs);
    Choices choices;
    choices.backend = "cuda";
    choices.kernel = "pipelined";
    choices.shape = {4096, 4096, 4096};
    choices.budgetSeconds = 0.1;
    // The most devices the progress line showed at work at once.
    const auto tune = [&](bool allDevices, qint64* ms, int* busiest) {
      choices.allDevices = allDevices;
      AutotuneRun autotune(choices, devices.front().name);
      QSignalSpy progress(&controller, &RunController::progressChanged);
      QElapsedTimer clock;
      clock.start();
      for (const RunResult& result : runAll(controller, autotune.jobs()))
        if (!autotune.collect(result)) qWarning("not collected: %s", result.device.c_str());
      *ms = clock.elapsed();
      *busiest = 0;
      for (const QList<QVariant>& args : progress)
        *busiest = std::max(*busiest, int(args.front().value<QueueProgress>().onDevices.size()));
      return autotune;
    };
    qint64 oneMs = 0, allMs = 0;
    int oneBusiest = 0, allBusiest = 0;
    const AutotuneRun one = tune(false, &oneMs, &oneBusiest);
    const AutotuneRun all = tune(true, &allMs, &allBusiest);
    QVERIFY(one.complete());
    QVERIFY(all.complete());
    for (std::size_t i = 0; i < all.results().size(); ++i) {
      // In the order planned, whichever device ran each.
      QCOMPARE(all.results()[i].kernel.params, all.jobs()[i].request.kernel.params);
      QVERIFY(all.results()[i].verified());
    }
    QVERIFY(oneBusiest <= 1);
    if (devices.size() > 1) QCOMPARE(allBusiest, int(devices.size()));
    QVERIFY(one.best() && all.best());
    qInfo(
        "autotune of pipelined at 4096^3 (%zu configurations): %lld ms on one device, %lld ms "
        "on %zu (%.2fx); best on one %s %.1f GFLOP/s, on all %s %.1f GFLOP/s",
        all.jobs().size(), (long long)oneMs, (long long)allMs, devices.size(),
        double(oneMs) / double(std::max<qint64>(allMs, 1)),
        formatParams(one.best()->kernel).c_str(), one.best()->gflops,
        formatParams(all.best()->kernel).c_str(), all.best()->gflops);
    if (devices.size() > 1) QVERIFY(allMs < oneMs);
  }

  void aStickyFaultMidSweepKeepsTheWindowAndTheResults() {
#ifndef TILESCOPE_HAVE_CUDA
    QSKIP("built without CUDA");
#else
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    RunController* controller = window.controller();
    QSignalSpy results(controller, &RunController::resultReady);
    QSignalSpy failures(controller, &RunController::runFailed);
    QSignalSpy finished(controller, &RunController::queueFinished);
    std::vector<RunJob> sweep;
    for (int i = 0; i < 4; ++i)
      sweep.push_back(job("cuda", "shared-tiled", {{"tile", 16}}, 2048, 200));
    controller->enqueue(sweep);
    QVERIFY(results.wait(kWaitMs));
    const cudaError_t fault = test::provokeIllegalAddress();
    qInfo("provoked: %s", cudaGetErrorName(fault));
    QVERIFY(fault != cudaSuccess);
    QVERIFY(finished.wait(kWaitMs));

    const int measured = int(results.size());
    QVERIFY(measured >= 1 && measured < 4);
    QCOMPARE(int(failures.size()), 4 - measured);
    const RunFailure first = failures.front().at(1).value<RunFailure>();
    qInfo("the run in flight failed: %s", qPrintable(first.message));
    QCOMPARE(first.kind, std::optional<ErrorKind>(ErrorKind::DeviceLost));
    // The window is still there with every result measured before the fault.
    QCOMPARE(window.results()->rowCount(), measured);
    for (const RunResult& kept : window.results()->results()) QVERIFY(kept.verified());
    const BackendSummary* cuda = controller->backend("cuda");
    QVERIFY(cuda && !cuda->available());
    QVERIFY2(cuda->unavailableReason->find("restart TileScope") != std::string::npos,
             cuda->unavailableReason->c_str());
    // The CPU backend still runs.
    QCOMPARE(runAll(*controller, {job("cpu", "naive", {{"tile", 4}}, 32, 2)}).size(),
             std::size_t(1));
#endif
  }
};

QTEST_MAIN(TestGpuApp)
#include "tst_gpu_app.moc"
