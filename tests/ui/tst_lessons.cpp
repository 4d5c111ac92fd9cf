// SPDX-License-Identifier: GPL-3.0-or-later
// Seed lessons that teach honestly and two sessions side by side: a lesson runs everything its
// name says in a fresh session (unsaved results offered for saving first), its text speaks of
// the backend in use, and on the CPU the matching H200 sample is laid over the charts as
// dashed series marked by session and device.
#include <QAction>
#include <QtTest>
#include <set>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "lesson_bar.hpp"
#include "lessons.hpp"
#include "main_window.hpp"
#include "samples.hpp"
#include "suite_helpers.hpp"
#include "test_results.hpp"
#include "tilescope/catalogue.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::desktop::UnsavedAnswer;
using tilescope::ui::MainWindow;

namespace {

using test::kWaitMs;

const Lesson& lesson(const std::vector<Lesson>& lessons, const std::string& id) {
  const Lesson* found = findLesson(lessons, id);
  if (!found) qFatal("no lesson %s", id.c_str());
  return *found;
}

std::set<std::string> kernelsOf(const std::vector<RunJob>& jobs) {
  std::set<std::string> kernels;
  for (const RunJob& job : jobs) kernels.insert(job.request.kernel.kernel);
  return kernels;
}

// The texts of the chart's labels (the roofline's roofs and slopes).
QStringList labelsOf(ui::ChartView* chart) {
  QStringList labels;
  for (int i = 0; i < chart->itemCount(); ++i) {
    // A label with no room on one line takes two: read as one.
    if (auto* text = qobject_cast<QCPItemText*>(chart->item(i)))
      labels << text->text().replace(QLatin1Char('\n'), QLatin1Char(' '));
  }
  return labels;
}

using test::legendSays;

// The names of a chart's series: lines against size, or bars for kernels at one size.
QStringList seriesNames(ui::ChartView* chart) {
  QStringList names;
  for (int i = 0; i < chart->plottableCount(); ++i) names << chart->plottable(i)->name();
  return names;
}

}  // namespace

class TestLessons : public QObject {
  Q_OBJECT

  std::vector<Lesson> lessons_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_lessons"));
    lessons_ = seedLessons();
    QCOMPARE(int(lessons_.size()), 5);
  }

  // "Every kernel against size" runs every kernel of the backend at every size, not only the
  // chosen one.
  void everyKernelAgainstSizeRunsEveryKernel() {
    Choices current;
    current.kernel = "shared-tiled";
    const Lesson& everyKernel = lesson(lessons_, "every-kernel");
    const Choices choices = lessonChoices(everyKernel, current);
    const std::vector<RunJob> jobs = lessonJobs(everyKernel, choices);
    std::set<std::string> expected;
    for (const KernelInfo& info : catalogue()) {
      const bool onCpu =
          std::find(info.backends.begin(), info.backends.end(), "cpu") != info.backends.end();
      if (onCpu && !elementRefusal(info, choices.element)) expected.insert(info.id);
    }
    QVERIFY(expected.size() > 5);
    QCOMPARE(kernelsOf(jobs), expected);
    std::map<std::string, std::set<std::int64_t>> sizes;
    for (const RunJob& job : jobs) sizes[job.request.kernel.kernel].insert(job.request.shape.m);
    // On the CPU at sizes it runs in seconds; on a GPU at 128..1024.
    for (const auto& [kernel, measured] : sizes)
      QCOMPARE(measured, (std::set<std::int64_t>{64, 128, 256}));
    QCOMPARE(jobs.size(), expected.size() * 3);
    // Its many runs are timed for 0.1 s each, so that a lecture waits seconds, not minutes.
    for (const RunJob& job : jobs) QCOMPARE(job.request.sampling.budgetMs, 100.0);
    Choices onGpu = current;
    onGpu.backend = "cuda";
    std::set<std::int64_t> gpuSizes;
    for (const RunJob& job : lessonJobs(everyKernel, lessonChoices(everyKernel, onGpu)))
      gpuSizes.insert(job.request.shape.m);
    QCOMPARE(gpuSizes, (std::set<std::int64_t>{128, 256, 512, 1024}));
  }

  // Every lesson runs the kernels and tiles its title names.
  void eachLessonRunsWhatItNames() {
    const Choices current;
    const auto jobsOf = [&](const char* id) {
      const Lesson& chosen = lesson(lessons_, id);
      return lessonJobs(chosen, lessonChoices(chosen, current));
    };
    QCOMPARE(kernelsOf(jobsOf("seed-002")),
             (std::set<std::string>{"naive", "shared-tiled", "library"}));
    QCOMPARE(kernelsOf(jobsOf("coalescing")),
             (std::set<std::string>{"row-per-thread", "naive", "shared-a", "shared-tiled"}));
    std::set<int> sharedTiles;
    for (const RunJob& job : jobsOf("shared-tiles")) {
      QCOMPARE(job.request.kernel.kernel, std::string("shared-tiled"));
      sharedTiles.insert(job.request.kernel.params.at("tile"));
    }
    QCOMPARE(sharedTiles, (std::set<int>{1, 2, 4, 8, 16, 32}));
    std::set<int> registerTiles;
    for (const RunJob& job : jobsOf("register-tiles"))
      registerTiles.insert(job.request.kernel.params.at("tile"));
    const ParamSpec* tile = findKernel("register-tiled")->param("tile");
    QCOMPARE(registerTiles, std::set<int>(tile->allowed.begin(), tile->allowed.end()));
    QVERIFY(registerTiles.count(64));
  }

  // On the CPU a lesson says which effects are GPU effects and names the sample beside it; on
  // a GPU backend it does not.
  void lessonTextDependsOnTheBackend() {
    for (const Lesson& each : lessons_) {
      const QString cpu = lessonText(each, "cpu");
      const QString cuda = lessonText(each, "cuda");
      QVERIFY2(cpu != cuda, each.id.c_str());
      QVERIFY(cpu.startsWith(each.text));
      QCOMPARE(cuda, each.text);
      // A run server's backends speak as the backend they stand for.
      QCOMPARE(lessonText(each, "cpu@laptop"), cpu);
      QCOMPARE(lessonText(each, "cuda@gpu1"), cuda);
      QVERIFY2(!each.gpuEffects.isEmpty(), each.id.c_str());
      QVERIFY(cpu.contains(QStringLiteral("This run is on the CPU. ") + each.gpuEffects));
      QVERIFY(!cuda.contains(each.gpuEffects));
      if (!each.sample.isEmpty()) {
        QVERIFY2(!shippedSample(each.sample).isEmpty(), qPrintable(each.sample));
        QVERIFY(cpu.contains(each.sample));
      }
    }
    QVERIFY(
        lessonText(lesson(lessons_, "register-tiles"), "cpu").contains(QStringLiteral("cliff")));
    QVERIFY(lessonText(lesson(lessons_, "coalescing"), "cpu")
                .contains(QStringLiteral("Uncoalesced slower than naive is a GPU effect")));
  }

  // A sample laid over the charts: its series are marked "· H200 sample", dashed, and stay out
  // of the session; removing it takes them away.
  void anOverlayIsMarkedReadOnlyAndRemovable() {
    MainWindow window;
    window.setRemembersSettings(false);
    emit window.controller()->resultReady(test::madeUpResult("naive", {{"tile", 16}}, 256, 5.0));
    window.sessions()->setModified(false);
    QString error;
    QVERIFY2(
        window.sessions()->openOverlay(shippedSample(QStringLiteral("h200-ladder.json")), &error),
        qPrintable(error));
    QCOMPARE(window.charts()->overlays(), QStringList{QStringLiteral("H200 sample")});
    window.charts()->refresh();
    ui::ChartView* rate = window.charts()->chart(ChartKind::Rate);
    const QStringList names = seriesNames(rate);
    QVERIFY2(names.contains(QStringLiteral("naive tile=16")), qPrintable(names.join('|')));
    QVERIFY2(names.contains(QStringLiteral("naive tile=16 \u00b7 H200 sample")),
             qPrintable(names.join('|')));
    QVERIFY(names.contains(QStringLiteral("library \u00b7 H200 sample")));
    for (int i = 0; i < rate->graphCount(); ++i) {
      const bool overlaid = rate->graph(i)->name().endsWith(QStringLiteral("H200 sample"));
      QCOMPARE(rate->graph(i)->pen().style(), overlaid ? Qt::DashLine : Qt::SolidLine);
    }
    // On the roofline the sample's points are marked and bring the H200's datasheet roofs.
    window.charts()->showChart(ChartKind::Roofline);
    window.charts()->refresh();
    ui::ChartView* roofline = window.charts()->chart(ChartKind::Roofline);
    const QStringList points = seriesNames(roofline);
    QVERIFY2(points.contains(QStringLiteral("naive")), qPrintable(points.join('|')));
    QVERIFY2(points.contains(QStringLiteral("naive \u00b7 H200 sample")),
             qPrintable(points.join('|')));
    QVERIFY2(!points.contains(QStringLiteral("naive (cpu: Test CPU)")),
             qPrintable(points.join('|')));
    QStringList roofLabels = labelsOf(roofline);
    QVERIFY2(roofLabels.contains(QStringLiteral("FP32 66.9 TFLOP/s")),
             qPrintable(roofLabels.join('|')));
    QVERIFY(legendSays(roofline, QStringLiteral("roofs from the datasheet")));
    // Read-only: the overlay is not part of the session, and changes nothing to save.
    QCOMPARE(window.results()->rowCount(), 1);
    QCOMPARE(int(window.sessions()->current().results.size()), 1);
    QVERIFY(!window.sessions()->modified());

    window.charts()->removeOverlay(QStringLiteral("H200 sample"));
    window.charts()->refresh();
    QCOMPARE(seriesNames(rate), QStringList{QStringLiteral("naive tile=16")});
  }

  // A sample that holds its device's measured ceilings brings them, not the datasheet's guess.
  void anOverlaysRooflineUsesItsMeasuredCeilings() {
    MainWindow window;
    window.setRemembersSettings(false);
    emit window.controller()->resultReady(test::madeUpResult("naive", {{"tile", 16}}, 256, 5.0));
    QString error;
    QVERIFY2(
        window.sessions()->openOverlay(shippedSample(QStringLiteral("h200-roofline.json")), &error),
        qPrintable(error));
    window.charts()->showChart(ChartKind::Roofline);
    window.charts()->refresh();
    ui::ChartView* roofline = window.charts()->chart(ChartKind::Roofline);
    QStringList roofLabels = labelsOf(roofline);
    // The sample's own measurement (51.1 TFLOP/s FP32, 4.21 TB/s), solid, beside the datasheet:
    // one label says both.
    QVERIFY2(roofLabels.contains(QStringLiteral("FP32 51.1 of 66.9 TFLOP/s")),
             qPrintable(roofLabels.join('|')));
    QVERIFY2(roofLabels.contains(QStringLiteral("memory 4.21 of 4.80 TB/s")),
             qPrintable(roofLabels.join('|')));
    QVERIFY(legendSays(roofline, QStringLiteral("roofs as measured")));
    QVERIFY(legendSays(roofline, QStringLiteral("roofs from the datasheet")));
    int solidLines = 0;
    for (int i = 0; i < roofline->graphCount(); ++i) {
      QCPGraph* graph = roofline->graph(i);
      if (graph->lineStyle() != QCPGraph::lsNone && graph->pen().style() == Qt::SolidLine)
        ++solidLines;
    }
    QVERIFY2(solidLines >= 2, qPrintable(QString::number(solidLines)));
    // The sample's ceilings stay the sample's: the session has measured none.
    QVERIFY(window.sessions()->current().ceilings.empty());
    window.charts()->removeOverlay(QStringLiteral("H200 sample"));
    window.charts()->refresh();
    QVERIFY(!legendSays(roofline, QStringLiteral("roofs as measured")));
    roofLabels = labelsOf(roofline);
    // The sample's measured roofs go with it.
    QVERIFY2(!roofLabels.join('|').contains(QStringLiteral("51.1")),
             qPrintable(roofLabels.join('|')));
  }

  void anotherSessionAsOverlayNamesItsFileAndDevice() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("laptop.json"));
    Session session;
    session.results = {test::madeUpResult("naive", {{"tile", 16}}, 256, 5.0)};
    QString error;
    QVERIFY2(saveSession(path, session, &error), qPrintable(error));
    MainWindow window;
    QVERIFY2(window.sessions()->openOverlay(path, &error), qPrintable(error));
    QCOMPARE(window.charts()->overlays(), QStringList{QStringLiteral("laptop (Test CPU)")});
    window.charts()->refresh();
    QCOMPARE(seriesNames(window.charts()->chart(ChartKind::Time)),
             QStringList{QStringLiteral("naive tile=16 \u00b7 laptop (Test CPU)")});
  }

  // Starting a lesson with unsaved results asks first; Cancel keeps them, Discard starts a fresh
  // session that runs every job of the lesson beside the H200 sample, with the CPU's text.
  void aLessonStartsFreshAfterAsking() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    QStringList asked;
    UnsavedAnswer answer = UnsavedAnswer::Cancel;
    window.sessions()->setUnsavedPrompt([&](const QString& what) {
      asked << what;
      return answer;
    });
    emit window.controller()->resultReady(test::madeUpResult("naive", {}, 64, 2.0));
    QVERIFY(window.sessions()->modified());

    QVERIFY(!window.startLesson("seed-002"));
    QCOMPARE(asked.size(), 1);
    QVERIFY(asked.front().contains(QStringLiteral("lesson")));
    QCOMPARE(window.results()->rowCount(), 1);
    QVERIFY(!window.controller()->busy());

    answer = UnsavedAnswer::Discard;
    Choices quick = window.controls()->choices();
    quick.fixedReps = 1;
    window.controls()->setChoices(quick);
    QSignalSpy progress(window.controller(), &RunController::progressChanged);
    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    QVERIFY(window.startLesson("seed-002"));
    QCOMPARE(asked.size(), 2);
    QCOMPARE(window.results()->rowCount(), 0);
    QVERIFY(!window.sessions()->modified());
    QVERIFY(window.controller()->busy());
    const Lesson& seed002 = lesson(lessons_, "seed-002");
    const Choices lessonRun = window.controls()->choices();
    QCOMPARE(window.lessonBar()->text(),
             lessonText(seed002, "cpu") + QStringLiteral("\n\n") +
                 lessonPlanText(seed002, lessonRun, lessonJobs(seed002, lessonRun)));
    QCOMPARE(lessonRun.shape, (Shape{256, 256, 256}));
    QVERIFY(window.lessonBar()->isVisibleTo(&window));
    QCOMPARE(window.charts()->overlays(), QStringList{QStringLiteral("H200 sample")});
    QCOMPARE(window.controls()->choices().kernels,
             (std::vector<std::string>{"naive", "shared-tiled", "library"}));
    // All three runs are queued (the test stops after one).
    QVERIFY(progress.wait(kWaitMs));
    QCOMPARE(progress.front().front().value<QueueProgress>().total, 3);
    window.queue()->cancel();
    QVERIFY(finished.wait(kWaitMs));
  }

  // On the CPU a lesson runs at sizes a CPU ends in seconds, and says how long it takes and
  // how to run the GPU's size; on a GPU it keeps the GPU's size (issue #35).
  void onTheCpuALessonRunsAtACpuSize() {
    const Lesson& tiles = lesson(lessons_, "register-tiles");
    Choices cpu;
    Choices cuda;
    cuda.backend = "cuda";
    QCOMPARE(lessonChoices(tiles, cuda).shape, (Shape{1024, 1024, 1024}));
    const Choices onCpu = lessonChoices(tiles, cpu);
    QCOMPARE(onCpu.shape, (Shape{256, 256, 256}));
    const std::vector<RunJob> jobs = lessonJobs(tiles, onCpu);
    const std::size_t tileCount = findKernel("register-tiled")->param("tile")->allowed.size();
    QCOMPARE(jobs.size(), tileCount);
    const QString plan = lessonPlanText(tiles, onCpu, jobs);
    const int seconds = int(double(tileCount) * (onCpu.budgetSeconds + 0.5) + 0.5);
    QVERIFY2(plan.startsWith(QStringLiteral("%1 runs of up to 2 s each on cpu: about %2 s.")
                                 .arg(tileCount)
                                 .arg(seconds)),
             qPrintable(plan));
    QVERIFY2(plan.contains(QStringLiteral("256\u00b3")), qPrintable(plan));
    QVERIFY(!lessonPlanText(tiles, lessonChoices(tiles, cuda), jobs)
                 .contains(QStringLiteral("On the CPU")));
    // Every lesson on the CPU: no size past 512 (the GPU's 1024 took minutes there).
    for (const Lesson& each : lessons_) {
      const Choices chosen = lessonChoices(each, cpu);
      for (const RunJob& job : lessonJobs(each, chosen))
        QVERIFY2(job.request.shape.m <= 512 && job.request.shape.k <= 512, each.id.c_str());
    }
  }

  // Opening a session ends a lesson: its text and the sample laid over the charts go.
  void openingASessionEndsTheLesson() {
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.lessonBar()->showLesson(QStringLiteral("A lesson"), QStringLiteral("Its text"));
    QString error;
    QVERIFY2(
        window.sessions()->openOverlay(shippedSample(QStringLiteral("h200-ladder.json")), &error),
        qPrintable(error));
    QCOMPARE(window.charts()->overlays(), QStringList{QStringLiteral("H200 sample")});
    QVERIFY2(window.sessions()->open(shippedSample(QStringLiteral("h200-coalescing.json")), &error),
             qPrintable(error));
    QVERIFY(!window.lessonBar()->isVisible());
    QVERIFY(window.charts()->overlays().isEmpty());
  }

  void everyLessonIsInTheRunMenu() {
    MainWindow window;
    for (const Lesson& each : lessons_) {
      auto* action =
          window.findChild<QAction*>(QStringLiteral("lesson-") + QString::fromStdString(each.id));
      QVERIFY2(action, each.id.c_str());
      QCOMPARE(action->text(), each.title);
    }
  }
};

TILESCOPE_UI_SUITE(TestLessons, Gui)
#include "tst_lessons.moc"
