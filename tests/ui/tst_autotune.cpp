// SPDX-License-Identifier: GPL-3.0-or-later
// Autotuning in the window on the CPU backend: one result per valid configuration, the fastest
// verified one remembered in tuned.json (under a temporary XDG_CONFIG_HOME) and chosen in the
// controls, the landscape chart with a bar per configuration; a cancel stops it and remembers
// nothing; a kernel chosen later starts from its remembered parameters.
#include <QComboBox>
#include <QLabel>
#include <QtTest>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "main_window.hpp"
#include "suite_helpers.hpp"
#include "tilescope/plan/autotune.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "tilescope/user_kernel.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::MainWindow;

namespace {

using test::kWaitMs;
// Small enough that every blocktile-1d configuration runs in a few seconds on one core.
constexpr int kSize = 32;

Choices tinyAutotune() {
  Choices choices;
  choices.kernel = "blocktile-1d";
  choices.shape = {kSize, kSize, kSize};
  choices.fixedReps = 1;
  return choices;
}

std::size_t plannedCount(const Choices& choices) {
  // The CPU backend's own refusals: what the app plans from the catalogue must match them.
  const std::unique_ptr<Backend> cpu = makeCpuBackend();
  return plan::planAutotune(choices.kernel, choices.shape, baseRequest(choices), cpu->id(),
                            [&cpu](const RunRequest& run) { return cpu->refusal(run); })
      .runs.size();
}

int landscapePoints(ui::ChartView* view) {
  int points = 0;
  for (int i = 0; i < view->plottableCount(); ++i) {
    points += view->plottable(i)->interface1D()->dataCount();
  }
  return points;
}

std::string cpuDevice() {
  return makeCpuBackend()->devices().front().name;
}

}  // namespace

class TestAutotune : public QObject {
  Q_OBJECT

  QTemporaryDir config_;

  QString tunedPath() const { return config_.filePath(QStringLiteral("tilescope/tuned.json")); }

 private slots:
  void initTestCase() {
    QVERIFY(config_.isValid());
    qputenv("XDG_CONFIG_HOME", config_.path().toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_autotune"));
  }

  // First, while nothing is remembered yet.
  // The Kernel Editor's kernel: every combination of its TS_PARAM values, fp32, each job
  // carrying the source; its results are collected under user:NAME. On the CPU the window says
  // where it can run instead.
  void aUserKernelTunesOverItsDeclaredValues() {
    const UserKernelSource mine{"mine",
                                "TS_PARAM(TILE, 16, 8, 16, 32)\nTS_PARAM(PAD, 0, 0, 1)\n"
                                "TS_LAUNCH(TILE, TILE, 1, 1, 0)\nTS_KERNEL {}\n"};
    Choices choices = tinyAutotune();
    choices.backend = "cuda";
    choices.element = ElementType::F16;  // the panel's type does not apply to a user kernel
    const AutotuneRun run(choices, "NVIDIA H200", mine);
    QCOMPARE(run.kernel(), std::string("user:mine"));
    QCOMPARE(run.element(), ElementType::F32);
    QCOMPARE(run.jobs().size(), std::size_t(6));
    for (const RunJob& job : run.jobs()) {
      QCOMPARE(job.backend, std::string("cuda"));
      QCOMPARE(job.request.kernel.source, std::optional<std::string>(mine.source));
      QCOMPARE(job.request.element, ElementType::F32);
    }
    QCOMPARE(run.jobs().back().request.kernel.params, (Params{{"TILE", 32}, {"PAD", 1}}));
  }

  void cancelStopsItAndRemembersNothing() {
    MainWindow window;
    window.setRemembersSettings(false);
    window.controls()->setChoices(tinyAutotune());
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    const std::size_t planned = plannedCount(tinyAutotune());
    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    connect(window.controller(), &RunController::resultReady, window.queue(),
            &tilescope::desktop::QueueController::cancel);
    QVERIFY(window.autotune());
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.first().first().value<QueueSummary>().cancelled);
    QVERIFY(window.results()->rowCount() >= 1);
    QVERIFY(std::size_t(window.results()->rowCount()) < planned);
    QCOMPARE(window.autotuner()->current(), nullptr);
    QVERIFY(!QFile::exists(tunedPath()));
  }

  void measuresEveryConfigurationAndRemembersTheFastestVerified() {
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    window.controls()->setChoices(tinyAutotune());
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    const std::size_t planned = plannedCount(tinyAutotune());
    QVERIFY(planned > 1);
    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    QVERIFY(window.autotune());
    QCOMPARE(window.autotuner()->current()->jobs().size(), planned);
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(window.autotuner()->current(), nullptr);

    // One result per valid configuration, each a different one.
    const std::vector<RunResult>& results = window.results()->results();
    QCOMPARE(results.size(), planned);
    const std::vector<KernelConfig> valid = validConfigurations(kernelInfo("blocktile-1d"));
    for (const RunResult& result : results) {
      QVERIFY(std::find(valid.begin(), valid.end(), result.kernel) != valid.end());
      QCOMPARE(std::count_if(results.begin(), results.end(),
                             [&](const RunResult& other) { return other.kernel == result.kernel; }),
               1);
    }

    // The fastest verified one: remembered for this device and chosen in the controls.
    const std::optional<RunResult> best = plan::fastestVerified(results);
    QVERIFY(best);
    for (const RunResult& result : results) {
      if (result.verified()) QVERIFY(result.gflops <= best->gflops);
    }
    QVERIFY(QFile::exists(tunedPath()));
    const plan::TunedStore store(tunedPath().toStdString());
    const std::optional<plan::TunedEntry> entry =
        store.find("cpu", cpuDevice(), "blocktile-1d", ElementType::F32, {kSize, kSize, kSize});
    QVERIFY(entry);
    QCOMPARE(entry->params, best->kernel.params);
    QCOMPARE(entry->shape, (Shape{kSize, kSize, kSize}));
    QCOMPARE(entry->gflops, best->gflops);
    QCOMPARE(resolve({"blocktile-1d", window.controls()->choices().params}), best->kernel);
    const auto* note = window.controls()->findChild<QLabel*>(QStringLiteral("tunedNote"));
    QVERIFY(note->text().startsWith(QStringLiteral("Tuned on ")));
    QVERIFY2(note->text().contains(QStringLiteral("(in use)")), qPrintable(note->text()));

    // The landscape: a bar per configuration, the best one on its own.
    QCOMPARE(window.charts()->currentChart(), ChartKind::Landscape);
    ui::ChartView* landscape = window.charts()->chart(ChartKind::Landscape);
    QTRY_COMPARE(landscapePoints(landscape), int(planned));
    QVERIFY(!landscape->hasPlaceholder());
    bool bestShown = false;
    for (int i = 0; i < landscape->plottableCount(); ++i) {
      QCPAbstractPlottable* bars = landscape->plottable(i);
      if (bars->name() != QStringLiteral("fastest verified")) continue;
      QCOMPARE(bars->interface1D()->dataCount(), 1);
      QCOMPARE(bars->interface1D()->dataMainKey(0), 1.0);  // fastest first
      QCOMPARE(bars->interface1D()->dataMainValue(0), best->gflops);
      bestShown = true;
    }
    QVERIFY(bestShown);
  }

  // Whatever the autotune above found, parameters other than the defaults are remembered here,
  // so starting from them cannot pass by chance.
  void aChosenKernelStartsFromItsRememberedParameters() {
    const KernelConfig defaults = resolve({"blocktile-1d", {}});
    const std::vector<KernelConfig> valid = validConfigurations(kernelInfo("blocktile-1d"));
    const auto other = std::find_if(valid.begin(), valid.end(),
                                    [&](const KernelConfig& config) { return config != defaults; });
    QVERIFY(other != valid.end());
    plan::TunedStore store(tunedPath().toStdString());
    store.remember({"cpu", cpuDevice(), "blocktile-1d", other->params, {kSize, kSize, kSize}, 1.5});
    store.save();

    MainWindow window;
    window.setRemembersSettings(false);
    Choices choices = tinyAutotune();
    choices.kernel = "naive";
    window.controls()->setChoices(choices);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    auto* kernel = window.controls()->findChild<QComboBox*>(QStringLiteral("kernel"));
    QVERIFY(kernel);
    kernel->setCurrentIndex(kernel->findData(QStringLiteral("blocktile-1d")));
    QCOMPARE(window.controls()->choices().params, other->params);
    const auto* note = window.controls()->findChild<QLabel*>(QStringLiteral("tunedNote"));
    QVERIFY2(
        note->text().startsWith(
            QStringLiteral("Tuned on %1 at 32\u00b3").arg(QString::fromStdString(cpuDevice()))),
        qPrintable(note->text()));
    QVERIFY2(note->text().contains(QStringLiteral("(in use)")), qPrintable(note->text()));
  }
};

TILESCOPE_UI_SUITE(TestAutotune, Gui)
#include "tst_autotune.moc"
