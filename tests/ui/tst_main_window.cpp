// SPDX-License-Identifier: GPL-3.0-or-later
// The window end to end on the CPU backend: a run lands in the chart and the table, a sweep
// adds every point, failures show as a notice, closing mid-run is clean, and sessions restore
// the same table while a bad file changes nothing.
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTextDocument>
#include <QtTest>
#include <algorithm>
#include <tuple>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "control_panel.hpp"
#include "suite_helpers.hpp"
#include "ui_suite.hpp"
#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_document.hpp"
#include "diagram_panel.hpp"
#include "diagram_style.hpp"
#include "diagram_view.hpp"
#include "label_layout.hpp"
#endif
#include "kernel_editor.hpp"
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "results_view.hpp"
#include "samples.hpp"
#include "session.hpp"
#include "settings.hpp"
#include "test_results.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::ui::MainWindow;

namespace {

using test::kWaitMs;

Choices smallRun(const std::string& kernel, int size) {
  Choices choices;
  choices.kernel = kernel;
  choices.shape = {size, size, size};
  choices.fixedReps = 2;
  return choices;
}

// Every cell's text, row by row.
QStringList tableText(const ResultsModel& model) {
  QStringList cells;
  for (int row = 0; row < model.rowCount(); ++row) {
    for (int column = 0; column < model.columnCount(); ++column) {
      cells << model.index(row, column).data().toString();
    }
  }
  return cells;
}

// Runs what the window's controls say and waits for the queue to finish.
void runAndWait(MainWindow& window) {
  QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
  QSignalSpy finished(window.controller(), &RunController::queueFinished);
  QVERIFY(window.runChoices());
  QVERIFY(finished.wait(kWaitMs));
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
  }

  void aRunLandsInTheChartAndTheTable() {
    MainWindow window;
    window.show();
    window.controls()->setChoices(smallRun("naive", 64));
    runAndWait(window);
    QCOMPARE(window.results()->rowCount(), 1);
    const RunResult& result = window.results()->results().front();
    QCOMPARE(window.table()->model()->index(0, ResultsModel::Kernel).data().toString(),
             QString("naive"));
    ui::ChartView* time = window.charts()->chart(ChartKind::Time);
    // One size so far: a bar for the kernel, labelled with it, the size under the axis.
    QTRY_COMPARE(time->plottableCount(), 1);
    auto* bars = qobject_cast<QCPBars*>(time->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), 1);
    QCOMPARE(bars->data()->at(0)->value, result.stats.medianMs);
    QVERIFY(time->categories().front().startsWith(QStringLiteral("naive")));
    QVERIFY(time->xAxis->label().contains(QStringLiteral("64")));
    QVERIFY(window.isWindowModified());
    QVERIFY(window.table()->selectionAsText().startsWith(QStringLiteral("Backend\tDevice")));
  }

  void aSweepAddsEveryPoint() {
    MainWindow window;
    Choices choices = smallRun("shared-tiled", 32);
    choices.sweep = SweepKind::Tile;
    choices.tiles = "1,2,4,8";
    window.controls()->setChoices(choices);
    runAndWait(window);
    QCOMPARE(window.results()->rowCount(), 4);
    QCOMPARE(window.charts()->currentChart(), ChartKind::TileSweep);
    ui::ChartView* tiles = window.charts()->chart(ChartKind::TileSweep);
    QTRY_COMPARE(tiles->graphCount(), 1);
    QCOMPARE(tiles->graph(0)->dataCount(), 4);
  }

  // Autotune is offered when Run is, for kernels with parameters to tune.
  void autotuneIsEnabledWithRun() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    auto* run = window.findChild<QAction*>(QStringLiteral("run"));
    auto* autotune = window.findChild<QAction*>(QStringLiteral("autotune"));
    QVERIFY(run && autotune);
    window.controls()->setChoices(smallRun("shared-tiled", 32));
    QVERIFY(run->isEnabled());
    QVERIFY(autotune->isEnabled());
    // An invalid tile: neither runs.
    Choices invalid = smallRun("register-tiled", 32);
    invalid.params = {{"tile", 7}};
    window.controls()->setChoices(invalid);
    QVERIFY(!run->isEnabled());
    QVERIFY(!autotune->isEnabled());
    // A type the CPU does not multiply: neither.
    Choices fp16 = smallRun("library", 32);
    fp16.element = ElementType::F16;
    window.controls()->setChoices(fp16);
    QVERIFY(!run->isEnabled());
    QVERIFY(!autotune->isEnabled());
    // Nothing to tune: Run yes, Autotune no, and its tooltip says why.
    window.controls()->setChoices(smallRun("serial", 32));
    QVERIFY(run->isEnabled());
    QVERIFY(!autotune->isEnabled());
    QVERIFY2(autotune->toolTip().contains(QStringLiteral("no parameters")),
             qPrintable(autotune->toolTip()));
  }

  void anInvalidChoiceSaysWhyAndRunsNothing() {
    MainWindow window;
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    Choices choices = smallRun("register-tiled", 32);
    choices.params = {{"tile", 7}};
    window.controls()->setChoices(choices);
    QVERIFY(!window.runChoices());
    QVERIFY(!window.controller()->busy());
    QVERIFY(window.notice()->isVisibleTo(&window));
    QVERIFY2(window.notice()->message().contains(QStringLiteral("7")),
             qPrintable(window.notice()->message()));
  }

  void aRunBeyondTheSerialWorkBoundIsRefused() {
    MainWindow window;
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    window.controls()->setChoices(smallRun("serial", 2048));
    QVERIFY(!window.runChoices());
    QVERIFY(!window.controller()->busy());
    QVERIFY2(window.notice()->message().contains(QStringLiteral("limited to M*N*K")),
             qPrintable(window.notice()->message()));
  }

  // The CPU backend multiplies fp32 only: a run or an autotune in fp16 there is refused with its
  // reason, before anything is queued.
  void theCpuRefusesTensorCoreTypesWithItsReason() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    Choices choices = smallRun("library", 32);
    choices.element = ElementType::F16;
    window.controls()->setChoices(choices);
    QCOMPARE(window.controls()->choices().element, ElementType::F16);
    QVERIFY(!window.runChoices());
    QVERIFY(!window.controller()->busy());
    const QString reason = QStringLiteral("the CPU backend multiplies fp32 only");
    QVERIFY2(window.notice()->message().contains(reason), qPrintable(window.notice()->message()));
    QString problem;
    QVERIFY(!window.autotune(&problem));
    QVERIFY2(problem.contains(reason), qPrintable(problem));
    QVERIFY(!window.controller()->busy());
  }

  // Counters asked of the CPU: the run is kept, and the status line says why there are none.
  void countersAskedOfTheCpuAreExplainedInTheStatusLine() {
    MainWindow window;
    Choices choices = smallRun("naive", 32);
    choices.counters = true;
    window.controls()->setChoices(choices);
    runAndWait(window);
    QCOMPARE(window.table()->model()->rowCount(), 1);
    QVERIFY2(window.statusBar()->currentMessage().contains(
                 QStringLiteral("the CPU backend has no hardware counters")),
             qPrintable(window.statusBar()->currentMessage()));
  }

#ifdef TILESCOPE_HAVE_DIAGRAMS
  // A trace knows one block's accesses. Selecting another traces that block on Run Setup's
  // backend, the CPU here (no GPU needed), and the diagrams then draw its trace.
  void anotherBlockOfATraceIsTracedOnTheCpu() {
    MainWindow window;
    window.setRemembersSettings(false);
    window.controls()->setChoices(smallRun("naive", 32));  // the CPU backend
    QString error;
    QVERIFY2(
        window.traces()->open(QStringLiteral(TILESCOPE_TRACES_DIR "/naive-trace.json"), &error),
        qPrintable(error));
    auto* document = window.findChild<tilescope::ui::DiagramDocument*>();
    QVERIFY(document && document->mapping() && document->mapping()->trace());
    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    tilescope::ui::DiagramSelection selection = document->selection();
    QCOMPARE(selection.block.x, 1);  // the block the file traced
    // The traced block itself asks for nothing.
    document->setSelection(selection);
    QVERIFY(!window.controller()->busy());
    selection.block = {2, 3};
    document->setSelection(selection);
    QCOMPARE(window.statusBar()->currentMessage(),
             QStringLiteral("Tracing block (2,3) of user:naive on cpu"));
    QVERIFY(finished.wait(kWaitMs));
    QTRY_VERIFY(document->mapping() && document->mapping()->trace());
    QCOMPARE(document->mapping()->trace()->tracedBlock.x, 2);
    QCOMPARE(document->mapping()->trace()->tracedBlock.y, 3);
    QVERIFY(document->mapping()->trace()->sanitizer.clean());
  }

  // A trace on the CPU with the sanitizer's findings, as the run controller hands it over: each
  // finding is marked at its line in the Kernel Editor, in view beside the diagrams; the
  // memory-access view selects the warp of the first finding's thread and says so; the notice
  // says what was found. A clean trace clears the marks, and so does an edit of the source.
  void sanitizerFindingsAreMarkedAndTheirWarpDrawn() {
    MainWindow window;
    window.setRemembersSettings(false);
    QString error;
    std::optional<KernelTrace> loaded =
        loadTrace(QStringLiteral(TILESCOPE_TRACES_DIR "/naive-trace.json"), &error);
    QVERIFY2(loaded, qPrintable(error));
    KernelTrace trace = *loaded;
    ui::KernelEditor* editor = window.kernelEditor();
    editor->setKernel(QStringLiteral("naive"), QString::fromStdString(*trace.kernel.source));
    const Dim2 block = trace.tracedBlock;
    // Thread (5,2) of a 16 x 16 block is linear thread 37: lane 5 of warp 1.
    QCOMPARE(trace.block.x, 16);
    trace.sanitizer.findings = {
        {SanitizerFinding::Kind::Race,
         9,
         block,
         {5, 2},
         "line 9, block (1,1), thread (5,2): a read of shared word 3 (a race)"},
        {SanitizerFinding::Kind::OutOfBounds,
         7,
         block,
         {0, 0},
         "line 7, block (1,1), thread (0,0): a indexed with 16 (out of bounds)"}};
    trace.sanitizer.total = 5;
    emit window.controller()->traceReady(trace);

    const auto& findings = editor->editor()->findings();
    QCOMPARE(findings.size(), std::size_t(2));
    QCOMPARE(findings[0].line, 9);
    QCOMPARE(findings[1].line, 7);
    QVERIFY(editor->editor()->diagnostics().empty());  // not compile errors
    QStringList listed;
    for (int row = 0; row < editor->messages()->count(); ++row)
      listed << editor->messages()->item(row)->text();
    QCOMPARE(listed, QStringList({"sanitizer line 9, block (1,1), thread (5,2): a read of shared "
                                  "word 3 (a race)",
                                  "sanitizer line 7, block (1,1), thread (0,0): a indexed with 16 "
                                  "(out of bounds)"}));
    // The wavy marks on lines 9 and 7, as compile errors get.
    QList<int> marked;
    for (const QTextEdit::ExtraSelection& mark : editor->editor()->extraSelections())
      marked << mark.cursor.blockNumber() + 1;
    QCOMPARE(marked, QList<int>({9, 7}));
    QCOMPARE(editor->editor()->textCursor().blockNumber() + 1, 9);  // the first finding's line
    QVERIFY2(window.notice()->message().startsWith(
                 QStringLiteral("The sanitizer found a race at line 9 (block (1,1), thread "
                                "(5,2)) in user:naive, and 4 more")),
             qPrintable(window.notice()->message()));
    // The editor shows beside the diagrams, in front of the results, no longer behind them.
    auto* diagramsDock = window.findChild<QDockWidget*>(QStringLiteral("diagramsDock"));
    auto* editorDock = window.findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"));
    auto* resultsDock = window.findChild<QDockWidget*>(QStringLiteral("resultsDock"));
    QVERIFY(!window.tabifiedDockWidgets(diagramsDock).contains(editorDock));
    QVERIFY(window.tabifiedDockWidgets(resultsDock).contains(editorDock));

    auto* document = window.findChild<tilescope::ui::DiagramDocument*>();
    QVERIFY(document && document->mapping());
    QCOMPARE(document->selection().warp, 1);
    QCOMPARE(document->selection().block.x, block.x);
    QCOMPARE(document->selection().block.y, block.y);
    auto* panel = window.findChild<tilescope::ui::DiagramPanel*>();
    QVERIFY(panel->setCurrentView(QStringLiteral("access")));
    QImage image(1400, 900, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    panel->currentView()->render(painter, QRectF(image.rect()), ui::DiagramTheme::light());
    painter.end();
    QStringList texts;
    for (const ui::PlacedLabel& label : panel->currentView()->lastLayout().labels())
      texts << label.text;
    QVERIFY2(texts.contains(QStringLiteral("Sanitizer: a race at line 9 (block (1,1), thread "
                                           "(5,2)), lane 5 of this warp. The trace ends where "
                                           "the launch stopped.")),
             qPrintable(texts.join(QLatin1Char('\n'))));

    // A clean trace of it clears the marks.
    trace.sanitizer = {};
    emit window.controller()->traceReady(trace);
    QVERIFY(editor->editor()->findings().empty());
    QVERIFY(editor->editor()->extraSelections().isEmpty());
    QCOMPARE(editor->messages()->count(), 0);

    // So does an edit of the source they were found in; a trace of another source marks nothing.
    trace.sanitizer.findings = {{SanitizerFinding::Kind::Race, 9, block, {5, 2}, "line 9: race"}};
    trace.sanitizer.total = 1;
    emit window.controller()->traceReady(trace);
    QCOMPARE(editor->editor()->findings().size(), std::size_t(1));
    editor->editor()->appendPlainText(QStringLiteral("// edited"));
    QVERIFY(editor->editor()->findings().empty());
    QCOMPARE(editor->messages()->count(), 0);
    emit window.controller()->traceReady(trace);
    QVERIFY(editor->editor()->findings().empty());
  }
#endif

  void failuresShowAsANoticeAndResultsStay() {
    MainWindow window;
    window.controls()->setChoices(smallRun("naive", 32));
    runAndWait(window);
    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    RunJob unavailable;
    unavailable.backend = "no-such-backend";
    unavailable.request.kernel = {"naive", {}};
    window.queue()->enqueue({unavailable});
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(window.notice()->isVisibleTo(&window));
    QVERIFY(window.notice()->message().contains(QStringLiteral("no-such-backend")));
    QCOMPARE(window.results()->rowCount(), 1);
  }

  void closingDuringARunIsClean() {
    auto window = std::make_unique<MainWindow>();
    window->show();
    Choices choices = smallRun("naive", 128);
    choices.fixedReps = 5000;
    choices.sweep = SweepKind::Size;
    choices.sizes = "128,128,128";
    window->controls()->setChoices(choices);
    QTRY_VERIFY_WITH_TIMEOUT(window->controller()->backendsKnown(), kWaitMs);
    QSignalSpy progress(window->controller(), &RunController::progressChanged);
    QVERIFY(window->runChoices());
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 3, kWaitMs);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window->close());
    QVERIFY(!window->controller()->workerRunning());
    QVERIFY(clock.elapsed() < 10000);
    window.reset();
  }

  void sessionSavedAndLoadedGivesTheSameTable() {
    const QString path = dir_.filePath(QStringLiteral("session.json"));
    QStringList saved;
    {
      MainWindow window;
      window.setRemembersSettings(false);
      Choices choices = smallRun("naive", 32);
      choices.sweep = SweepKind::Kernel;
      choices.kernels = {"naive", "library"};
      window.controls()->setChoices(choices);
      runAndWait(window);
      QCOMPARE(window.results()->rowCount(), 2);
      window.kernelEditor()->setKernel(QStringLiteral("mine"), QStringLiteral("TS_KERNEL {}\n"));
      QString error;
      QVERIFY2(window.sessions()->save(path, &error), qPrintable(error));
      QVERIFY(!window.isWindowModified());
      saved = tableText(*window.results());
    }
    MainWindow reopened;
    reopened.setRemembersSettings(false);
    QString error;
    QVERIFY2(reopened.sessions()->open(path, &error), qPrintable(error));
    QCOMPARE(tableText(*reopened.results()), saved);
    QCOMPARE(reopened.controls()->choices().sweep, SweepKind::Kernel);
    QCOMPARE(reopened.controls()->choices().shape, (Shape{32, 32, 32}));
    // The Kernel Editor's source comes back with the session.
    QCOMPARE(reopened.kernelEditor()->kernelName(), QStringLiteral("mine"));
    QCOMPARE(reopened.kernelEditor()->editor()->toPlainText(), QStringLiteral("TS_KERNEL {}\n"));
    QVERIFY(reopened.windowTitle().contains(QStringLiteral("session.json")));
    QTRY_COMPARE(reopened.charts()->chart(ChartKind::Library)->plottableCount(), 1);
  }

  // A session measured on a GPU in bf16 (made up here): the table says the type, the controls
  // take it back, every type has its own chart series, and "% of library" compares within a type.
  void aBf16SessionReopensWithItsTypeAndItsOwnSeries() {
    const KernelConfig tensor = resolve({"tensor-mma", {}});
    std::vector<RunResult> results;
    for (const auto& [kernel, element, ms] : {std::tuple{"library", ElementType::F32, 1.0},
                                              std::tuple{"library", ElementType::BF16, 0.25},
                                              std::tuple{"tensor-mma", ElementType::BF16, 0.5}}) {
      RunResult result =
          test::madeUpResult(kernel, kernel == tensor.kernel ? tensor.params : Params{}, 256, ms);
      result.backend = "cuda";
      result.device = "Test GPU";
      result.element = element;
      results.push_back(result);
    }
    Session session;
    session.choices.backend = "cuda";
    session.choices.kernel = "tensor-mma";
    session.choices.element = ElementType::BF16;
    session.results = results;
    const QString path = dir_.filePath(QStringLiteral("bf16.json"));
    QString error;
    QVERIFY2(desktop::saveSession(path, session, &error), qPrintable(error));

    MainWindow window;
    window.setRemembersSettings(false);
    QVERIFY2(window.sessions()->open(path, &error), qPrintable(error));
    QCOMPARE(window.controls()->choices().element, ElementType::BF16);
    QCOMPARE(window.controls()->findChild<QComboBox*>(QStringLiteral("type"))->currentText(),
             QStringLiteral("bf16"));
    const ResultsModel& model = *window.results();
    QStringList types;
    for (int row = 0; row < model.rowCount(); ++row)
      types << model.index(row, ResultsModel::Element).data().toString();
    QCOMPARE(types, (QStringList{"fp32", "bf16", "bf16"}));

    window.charts()->refresh();
    ui::ChartView* time = window.charts()->chart(ChartKind::Time);
    QStringList series;
    // All at 256: the kernels compared as bars.
    for (int i = 0; i < time->plottableCount(); ++i) series << time->plottable(i)->name();
    QCOMPARE(series,
             (QStringList{"library", "library bf16",
                          QString::fromStdString("tensor-mma bf16 " + formatParams(tensor))}));
    // tensor-mma against the bf16 library (0.25 ms / 0.5 ms), not the fp32 one (1 ms).
    ui::ChartView* library = window.charts()->chart(ChartKind::Library);
    QCOMPARE(library->plottableCount(), 1);
    QCOMPARE(qobject_cast<QCPBars*>(library->plottable(0))->data()->at(0)->value, 50.0);
    QCOMPARE(model.index(2, ResultsModel::PercentOfLibrary).data().toString(),
             QStringLiteral("50.0"));
  }

  void aBadSessionChangesNothing() {
    MainWindow window;
    window.setRemembersSettings(false);
    window.controls()->setChoices(smallRun("naive", 32));
    runAndWait(window);
    const QStringList before = tableText(*window.results());
    const QString title = window.windowTitle();
    const nlohmann::json choicesBefore = toJson(window.controls()->choices());
    for (const QByteArray& content :
         {QByteArray("{ not json"), QByteArray("{\"format\": \"something-else\", \"results\": []}"),
          QByteArray("{\"format\": \"tilescope-session\", \"version\": 1, \"results\": [{}]}")}) {
      const QString path = dir_.filePath(QStringLiteral("bad.json"));
      QFile file(path);
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
      file.write(content);
      file.close();
      QString error;
      QVERIFY(!window.sessions()->open(path, &error));
      QVERIFY(!error.isEmpty());
      QCOMPARE(tableText(*window.results()), before);
      QCOMPARE(window.windowTitle(), title);
      QCOMPARE(toJson(window.controls()->choices()), choicesBefore);
    }
    QString error;
    QVERIFY(!window.sessions()->save(dir_.filePath(QStringLiteral("no/dir/s.json")), &error));
    QVERIFY(error.contains(QStringLiteral("Cannot write")));
    QCOMPARE(window.windowTitle(), title);
  }

#ifdef TILESCOPE_HAVE_DIAGRAMS
  // F11 works on every platform, Linux included, where QKeySequence::FullScreen has no key.
  void f11EntersAndLeavesPresentation() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* diagrams = window.findChild<ui::DiagramPanel*>();
    QVERIFY(diagrams);
    // The offscreen platform binds F11 to full screen, X11 binds nothing: the action must carry
    // F11 itself, as the panel lists it, not only the platform's binding.
    const QList<QAction*> actions = window.findChildren<QAction*>();
    const auto present =
        std::ranges::find(actions, QStringLiteral("&Presentation Mode"), &QAction::text);
    QVERIFY(present != actions.end());
    QCOMPARE((*present)->shortcuts(), ui::DiagramPanel::presentationShortcuts());
    QTest::keyClick(&window, Qt::Key_F11);
    QVERIFY(diagrams->presentationMode());
    QTest::keyClick(diagrams->currentView(), Qt::Key_F11);
    QVERIFY(!diagrams->presentationMode());
  }
#endif

  // A 1280x720 projector at 150 % gives 853x480 pixels: the three columns do not fit side by
  // side, so the diagrams become a tab of the Run Setup column and the window fits the screen.
  void aNarrowScreenTabsTheDiagramsBesideRunSetup() {
    MainWindow window;
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* controls = window.findChild<QDockWidget*>(QStringLiteral("controlsDock"));
    auto* diagrams = window.findChild<QDockWidget*>(QStringLiteral("diagramsDock"));
    const auto tabbed = [&] { return window.tabifiedDockWidgets(controls).contains(diagrams); };
    window.fitDocksTo(QSize(1920, 1080));
    QVERIFY(!tabbed());
    const QSize threeColumns = window.minimumSizeHint();

    const QSize projector(853, 480);
    QVERIFY(threeColumns.width() > projector.width());
    window.fitDocksTo(projector);
    QVERIFY(tabbed());
    auto* editor = window.findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"));
    QVERIFY(window.tabifiedDockWidgets(controls).contains(editor));
    const QSize fitted = window.minimumSizeHint();
    QVERIFY2(fitted.width() <= projector.width() && fitted.height() <= projector.height(),
             qPrintable(QStringLiteral("minimum %1x%2").arg(fitted.width()).arg(fitted.height())));
    QVERIFY(window.width() <= projector.width() && window.height() <= projector.height());
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("too narrow")));

    // Back on a large screen, the three columns return.
    window.fitDocksTo(QSize(1920, 1080));
    QVERIFY(!tabbed());
    QCOMPARE(window.minimumSizeHint(), threeColumns);
  }

  // The Kernel Editor is a tab behind the diagrams; opening a kernel file shows it and compiles.
  void aKernelFileOpensInTheEditorAndCompiles() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* diagrams = window.findChild<QDockWidget*>(QStringLiteral("diagramsDock"));
    auto* editor = window.findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"));
    QVERIFY(editor);
    QVERIFY(window.tabifiedDockWidgets(diagrams).contains(editor));
    const QString path = dir_.filePath(QStringLiteral("mine.cu"));
    QString error;
    QVERIFY(!window.openKernelFile(path, &error));  // not there yet
    QVERIFY(!error.isEmpty());
    QVERIFY(window.kernelEditor()->saveFile(path, &error));
    QSignalSpy compiled(window.kernelEditor(), &ui::KernelEditor::compiled);
    QVERIFY2(window.openKernelFile(path, &error), qPrintable(error));
    QCOMPARE(window.kernelEditor()->kernelName(), QStringLiteral("mine"));
    QVERIFY(compiled.wait(60000));
  }

  // A GPU's sample opened on any machine leaves the window able to run (issue #35): its backend,
  // kernel and type are changed where they cannot run here, and the status bar says so.
  void aTensorSampleOpensReadyToRun() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    QString error;
    QVERIFY2(window.sessions()->open(
                 desktop::shippedSample(QStringLiteral("h200-tensor-tf32.json")), &error),
             qPrintable(error));
    auto* run = window.findChild<QAction*>(QStringLiteral("run"));
    QVERIFY2(run->isEnabled(), qPrintable(run->toolTip()));
    const BackendSummary* cuda = window.controller()->backend("cuda");
    if (!cuda || !cuda->available()) {
      QCOMPARE(window.controls()->choices().backend, std::string("cpu"));
      QCOMPARE(window.controls()->choices().element, ElementType::F32);
      QTRY_VERIFY(window.statusBar()->currentMessage().startsWith(
          QStringLiteral("Run Setup changed so that it can run here: the cuda backend is "
                         "unavailable")));
    }
  }

  // Closing remembers a backend only where it can run now.
  void closingRemembersAUsableBackendOnly() {
    {
      MainWindow window;
      window.restoreSettings();
      QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
      Choices elsewhere = smallRun("naive", 64);
      elsewhere.backend = "cuda";
      window.controls()->setChoices(elsewhere);
      QVERIFY(window.close());
    }
    const Choices remembered = loadLastChoices();
    MainWindow probe;
    QTRY_VERIFY_WITH_TIMEOUT(probe.controller()->backendsKnown(), kWaitMs);
    const BackendSummary* backend = probe.controller()->backend(remembered.backend);
    QVERIFY2(backend && backend->available(), remembered.backend.c_str());
  }

  // A kernel comparison runs each kernel at its own parameters, never the chosen kernel's tile
  // (register-tiled's 64 is no tile naive can take), and an autotune with it chosen leaves Run
  // and Autotune usable.
  void aComparisonUsesEachKernelsParametersAndStaysUsable() {
    MainWindow window;
    window.setRemembersSettings(false);
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->backendsKnown(), kWaitMs);
    auto* run = window.findChild<QAction*>(QStringLiteral("run"));
    auto* autotune = window.findChild<QAction*>(QStringLiteral("autotune"));
    Choices comparison = smallRun("register-tiled", 32);
    comparison.params = {{"tile", 64}};
    comparison.fixedReps = 1;
    comparison.sweep = SweepKind::Kernel;
    comparison.kernels = {"naive", "shared-tiled"};
    window.controls()->setChoices(comparison);
    QVERIFY2(run->isEnabled(), qPrintable(run->toolTip()));
    QVERIFY(autotune->isEnabled());
    QString problem;
    const std::vector<RunJob> jobs = window.controls()->plannedJobs(&problem);
    QCOMPARE(jobs.size(), std::size_t(2));
    QCOMPARE(jobs[0].request.kernel, resolve({"naive", {}}));
    QCOMPARE(jobs[1].request.kernel, resolve({"shared-tiled", {}}));

    QSignalSpy finished(window.controller(), &RunController::queueFinished);
    QVERIFY(window.autotune(&problem));
    QVERIFY(finished.wait(kWaitMs));
    QTRY_VERIFY(!window.controller()->busy());
    QCOMPARE(window.controls()->choices().sweep, SweepKind::Kernel);
    QVERIFY2(run->isEnabled(), qPrintable(run->toolTip()));
    QVERIFY2(autotune->isEnabled(), qPrintable(autotune->toolTip()));
  }

  // The notice shows a message as written: "Backend > GPU Server...", not "&gt;".
  void theNoticeShowsMessagesAsWritten() {
    MainWindow window;
    const QString message = QStringLiteral("add a GPU server (Backend > GPU Server...) & retry");
    window.notice()->showProblem(message);
    bool shown = false;
    for (const QLabel* label : window.notice()->findChildren<QLabel*>()) {
      if (label->text().isEmpty() || !label->pixmap().isNull()) continue;
      QTextDocument document;
      if (label->textFormat() == Qt::RichText ||
          (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text())))
        document.setHtml(label->text());
      else
        document.setPlainText(label->text());
      QCOMPARE(document.toPlainText(), message);
      shown = true;
    }
    QVERIFY(shown);
  }

  // With a sample open, Save becomes Save As: the File menu lists it once.
  void aSampleListsSaveAsOnce() {
    MainWindow window;
    window.setRemembersSettings(false);
    QString error;
    QVERIFY2(
        window.sessions()->open(desktop::shippedSample(QStringLiteral("h200-ladder.json")), &error),
        qPrintable(error));
    QMenu* file = window.menuBar()->actions().front()->menu();
    const auto saveAsCount = [&] {
      int count = 0;
      for (const QAction* action : file->actions())
        if (action->isVisible() && QString(action->text()).remove(QLatin1Char('&')) ==
                                       QStringLiteral("Save Session As\u2026"))
          ++count;
      return count;
    };
    QCOMPARE(saveAsCount(), 1);
    window.sessions()->startFresh();
    QCOMPARE(saveAsCount(), 1);
  }

  // At a projector's 1280x720 the window's three columns fit, narrower than 960 px, and the
  // diagrams' Present button is in view without scrolling.
  void aProjectorKeepsThreeColumnsAndPresentInView() {
    MainWindow window;
    window.fitDocksTo(QSize(1280, 720));
    QVERIFY2(window.minimumSizeHint().width() <= 960,
             qPrintable(QString::number(window.minimumSizeHint().width())));
#ifdef TILESCOPE_HAVE_DIAGRAMS
    // The memory-access view's controls too.
    auto* diagrams = window.findChild<ui::DiagramPanel*>();
    QVERIFY(diagrams->setCurrentView(QStringLiteral("access")));
    QVERIFY2(window.minimumSizeHint().width() <= 960,
             qPrintable(QString::number(window.minimumSizeHint().width())));
    QVERIFY(diagrams->setCurrentView(QStringLiteral("matrix")));
#endif
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* present = window.findChild<QPushButton*>(QStringLiteral("present"));
    QVERIFY(present);
    auto* host = window.findChild<QDockWidget*>(QStringLiteral("diagramsDock"))->widget();
    const QRect inHost(present->mapTo(host, QPoint(0, 0)), present->size());
    QVERIFY2(host->rect().contains(inHost), qPrintable(QStringLiteral("Present at y %1..%2 of %3")
                                                           .arg(inHost.top())
                                                           .arg(inHost.bottom())
                                                           .arg(host->height())));
  }

  void choicesAndGeometryAreRemembered() {
    Choices choices = smallRun("register-tiled", 96);
    choices.params = {{"tile", 4}};
    {
      MainWindow window;
      window.restoreSettings();
      window.controls()->setChoices(choices);
      window.resize(1100, 700);
      window.show();
      QVERIFY(QTest::qWaitForWindowExposed(&window));
      QVERIFY(window.close());
    }
    MainWindow again;
    again.restoreSettings();
    QCOMPARE(toJson(again.controls()->choices()), toJson(choices));
    QCOMPARE(again.size(), QSize(1100, 700));
  }
};

TILESCOPE_UI_SUITE(TestMainWindow, Gui)
#include "tst_main_window.moc"
