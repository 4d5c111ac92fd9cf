// SPDX-License-Identifier: GPL-3.0-or-later
// The Exercises panel with the tests' own exercise (tests/ui/exercises/01-coalesced-loads: a
// naive kernel whose warps read 16 rows of A) checked on the CPU: the start fails its
// sectors-per-load check and the diagrams draw the check's trace at the warp and k-step of its
// picture; the solution passes; hints come one at a time; the source, hints and last report
// survive a restart; the hand-in reads back as a report, and one that cannot be written says
// why and loses nothing.
#include <QDockWidget>
#include <QLabel>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QtTest>
#include <memory>

#include "control_panel.hpp"
#include "diagram_document.hpp"
#include "diagram_host.hpp"
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#include "exercise_controller.hpp"
#include "exercise_panel.hpp"
#include "kernel_editor.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "tilescope/io/file_io.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

constexpr int kCheckMs = 180000;
const QString kExercise = QStringLiteral(TILESCOPE_TEST_EXERCISES "/01-coalesced-loads");
const std::string kId = "01-coalesced-loads";

// The panel with what it works with, as the window wires them, on `data`'s progress.
struct Panel {
  ResultsModel model;
  RunController runs;
  ui::ControlPanel controls;
  ui::KernelEditor editor;
  ui::DiagramHost diagrams{controls, model};
  ExerciseController exercises;
  ui::ExercisePanel panel{exercises, &editor, &diagrams, &controls};
  QStringList asked;  // the questions the panel asked, answered by `answer`
  bool answer = true;

  explicit Panel(const QString& data) : exercises(runs, data) {
    QSignalSpy known(&runs, &RunController::backendsChanged);
    if (!runs.backendsKnown()) known.wait(kCheckMs);
    controls.setBackends(runs.backends());
    panel.setConfirm([this](const QString&, const QString& question) {
      asked << question;
      return answer;
    });
  }

  int index() const { return exercises.indexOf(kId); }
  // Opens the tests' exercise (remembered in the settings) and makes it the current one.
  void open() {
    QString error;
    int at = -1;
    QVERIFY2(exercises.openFolder(kExercise, &error, &at), qPrintable(error));
    QCOMPARE(at, index());
    exercises.setCurrent(at);
  }
  // Checks what the panel would, and waits for the report.
  exercise::SubmissionReport check() {
    QSignalSpy checked(&exercises, &ExerciseController::checked);
    QString problem;
    if (!panel.check(&problem)) qFatal("check refused: %s", qPrintable(problem));
    if (!checked.wait(kCheckMs)) qFatal("no report within %d ms", kCheckMs);
    return checked.front().at(1).value<exercise::SubmissionReport>();
  }
  ui::DiagramDocument* document() const { return diagrams.findChild<ui::DiagramDocument*>(); }
  QString stateShown() const { return panel.list()->topLevelItem(index())->text(1); }
};

QString readText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace

class TestExercisePanel : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> home_;
  QString data() const { return home_->filePath(QStringLiteral("data")); }

 private slots:
  // Every test starts from no settings and no progress.
  void init() {
    home_ = std::make_unique<QTemporaryDir>();
    QVERIFY(home_->isValid());
    qputenv("XDG_CONFIG_HOME", home_->filePath(QStringLiteral("config")).toUtf8());
    qputenv("XDG_DATA_HOME", home_->filePath(QStringLiteral("share")).toUtf8());
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_exercise_panel"));
  }

  void theListShowsEveryExercise() {
    Panel app(data());
    QVERIFY2(app.exercises.loadProblems().isEmpty(),
             qPrintable(app.exercises.loadProblems().join('\n')));
    const int builtIn = int(exercise::builtInExercises().size());
    QCOMPARE(app.exercises.count(), builtIn);
    app.open();
    QCOMPARE(app.exercises.count(), builtIn + 1);
    QCOMPARE(app.panel.list()->topLevelItemCount(), builtIn + 1);
    QCOMPARE(app.stateShown(), QStringLiteral("not started"));
    QCOMPARE(app.panel.progressLabel()->text(), QStringLiteral("0 of %1 passed").arg(builtIn + 1));
    QVERIFY(app.panel.text()->toPlainText().contains(QStringLiteral("16 rows of A")));
    // Before a check: the exercise's checks, none measured.
    QCOMPARE(app.panel.checks()->rowCount(), 4);
    QCOMPARE(app.panel.checks()->item(2, 0)->text(),
             QString::fromStdString(app.exercises.exercise(app.index()).checks[2].title()));
    QCOMPARE(app.panel.checks()->item(2, 2)->text(), QStringLiteral("not checked"));
    QCOMPARE(app.panel.verdict()->text(), QStringLiteral("Not checked yet."));

    // A folder that is no exercise is refused with the file at fault.
    QTemporaryDir empty;
    QString error;
    QVERIFY(!app.exercises.openFolder(empty.path(), &error));
    QVERIFY2(error.startsWith(
                 QStringLiteral("Cannot open the exercise in %1: cannot read ").arg(empty.path())),
             qPrintable(error));
    QCOMPARE(app.exercises.count(), builtIn + 1);
  }

  void aFailingCheckDrawsItsPicture() {
    Panel app(data());
    app.open();
    QVERIFY(app.panel.openInEditor());
    QVERIFY(app.panel.editorHoldsCurrent());
    QCOMPARE(app.editor.kernel().source, app.exercises.exercise(app.index()).start);
    QCOMPARE(app.editor.kernelName(), QString::fromStdString(kId));

    const exercise::SubmissionReport report = app.check();
    QVERIFY2(report.compiled && report.error.empty(), report.error.c_str());
    QCOMPARE(report.exercise, kId);
    QCOMPARE(report.backend, std::string("cpu"));
    QCOMPARE(app.exercises.progress(app.index()).state, ExerciseState::Failing);
    QCOMPARE(app.stateShown(), QStringLiteral("failing"));

    // Verified and clean, but every warp's load of A touches 16 sectors: the third check fails;
    // the race against the rung needs a GPU.
    QCOMPARE(report.checks.size(), std::size_t(4));
    QCOMPARE(report.checks[0].state, exercise::CheckState::Passed);
    QCOMPARE(report.checks[1].state, exercise::CheckState::Passed);
    const exercise::CheckResult& sectors = report.checks[2];
    QCOMPARE(sectors.state, exercise::CheckState::Failed);
    QCOMPARE(*sectors.figure, 16.0);
    QCOMPARE(report.checks[3].state, exercise::CheckState::NotMeasured);
    QCOMPARE(app.panel.checks()->item(2, 1)->text(), QStringLiteral("16"));
    QCOMPARE(app.panel.checks()->item(2, 2)->text(), QStringLiteral("failed"));
    QCOMPARE(app.panel.checks()->item(3, 2)->text(), QStringLiteral("not measured"));
    QVERIFY2(app.panel.verdict()->text().contains(QStringLiteral("Failing")),
             qPrintable(app.panel.verdict()->text()));

    // The picture, at once: the check's trace in the memory-access view at its warp and k-step,
    // the load of A.
    QVERIFY(sectors.picture && report.trace);
    const exercise::CheckPicture& picture = *sectors.picture;
    QVERIFY(!picture.shared);
    QCOMPARE(picture.access, Access::LoadA);
    ui::DiagramDocument* document = app.document();
    QVERIFY(document->mapping() && document->mapping()->trace());
    QCOMPARE(document->mapping()->trace()->kernel.kernel, userKernelId(kId));
    const ui::DiagramSelection& selected = document->selection();
    QCOMPARE(selected.block.x, picture.block.x);
    QCOMPARE(selected.block.y, picture.block.y);
    QCOMPARE(selected.warp, picture.warp);
    QCOMPARE(selected.step, picture.step);
    QCOMPARE(selected.access, Access::LoadA);
    QCOMPARE(selected.instr, picture.instr);
    QCOMPARE(app.diagrams.findChild<ui::DiagramPanel*>()->currentView()->kind(),
             ui::DiagramKind::Access);

    // Elsewhere in the diagrams, then the row again: the picture comes back.
    ui::DiagramSelection moved = selected;
    moved.warp = picture.warp == 0 ? 1 : 0;
    document->setSelection(moved);
    QVERIFY(app.diagrams.showView(QStringLiteral("matrix")));
    QVERIFY(!app.panel.showPicture(0));  // a passed check has none
    QVERIFY(app.panel.showPicture(2));
    QCOMPARE(document->selection().warp, picture.warp);
    QCOMPARE(app.diagrams.findChild<ui::DiagramPanel*>()->currentView()->kind(),
             ui::DiagramKind::Access);
  }

  void aPassingSourcePasses() {
    Panel app(data());
    app.open();
    QVERIFY(app.panel.openInEditor());
    // What the student typed in the editor is what is checked, and saved.
    const std::string solution = app.exercises.exercise(app.index()).solution;
    app.editor.editor()->setPlainText(QString::fromStdString(solution));
    const exercise::SubmissionReport report = app.check();
    QVERIFY2(report.passed(), report.error.c_str());
    QCOMPARE(report.source, solution);
    QCOMPARE(app.exercises.progress(app.index()).state, ExerciseState::Passed);
    QCOMPARE(app.stateShown(), QStringLiteral("passed"));
    QCOMPARE(app.panel.progressLabel()->text(),
             QStringLiteral("1 of %1 passed").arg(app.exercises.count()));
    QVERIFY2(app.panel.verdict()->text().contains(QStringLiteral("Passed")),
             qPrintable(app.panel.verdict()->text()));
    QCOMPARE(readText(data() + QStringLiteral("/%1/source.cu").arg(QString::fromStdString(kId))),
             QString::fromStdString(solution));
  }

  void hintsRevealOneAtATime() {
    Panel app(data());
    app.open();
    const std::vector<std::string>& hints = app.exercises.exercise(app.index()).hints;
    QCOMPARE(hints.size(), std::size_t(2));
    const auto shows = [&](std::size_t hint) {
      return app.panel.text()->toPlainText().contains(QString::fromStdString(hints[hint]));
    };
    QVERIFY(!shows(0) && !shows(1));
    QVERIFY(app.panel.revealHint());
    QCOMPARE(app.exercises.progress(app.index()).hintsShown, 1);
    QVERIFY(shows(0) && !shows(1));
    QVERIFY(app.panel.revealHint());
    QVERIFY(shows(0) && shows(1));
    QVERIFY(!app.panel.revealHint());
    QCOMPARE(app.exercises.progress(app.index()).hintsShown, 2);
  }

  // The folder, the source as typed (saved a moment after the last keystroke), the hints and the
  // last report, picture included, come back with a new controller on the same settings and data.
  void progressSurvivesARestart() {
    const QString edited = QStringLiteral("// my attempt\n");
    exercise::SubmissionReport before;
    {
      Panel app(data());
      app.open();
      QVERIFY(app.panel.openInEditor());
      before = app.check();
      QVERIFY(app.panel.revealHint());
      app.editor.editor()->appendPlainText(edited);
      // Saved a moment after the last keystroke, without anything else happening.
      const QString saved =
          data() + QStringLiteral("/%1/source.cu").arg(QString::fromStdString(kId));
      QTRY_VERIFY_WITH_TIMEOUT(readText(saved).endsWith(edited), 5000);
    }
    Panel app(data());
    QVERIFY2(app.exercises.loadProblems().isEmpty(),
             qPrintable(app.exercises.loadProblems().join('\n')));
    QVERIFY(app.index() >= 0);
    QCOMPARE(app.exercises.current(), app.index());
    const ExerciseController::Progress& progress = app.exercises.progress(app.index());
    QCOMPARE(progress.state, ExerciseState::Failing);
    QCOMPARE(progress.hintsShown, 1);
    QVERIFY(QString::fromStdString(app.exercises.source(app.index())).endsWith(edited));
    QVERIFY(progress.lastReport);
    QCOMPARE(progress.lastReport->checks.size(), before.checks.size());
    QVERIFY(progress.lastReport->checks[2].picture == before.checks[2].picture);
    QCOMPARE(app.stateShown(), QStringLiteral("failing"));
    QVERIFY(app.panel.showPicture(2));
    QCOMPARE(app.document()->selection().warp, before.checks[2].picture->warp);
    // Open in Editor brings the edited source back.
    QVERIFY(app.panel.openInEditor());
    QVERIFY(app.editor.editor()->toPlainText().endsWith(edited));
  }

  void theHandInReadsBackAsTheReport() {
    Panel app(data());
    app.open();
    QString error;
    const QString handIn = home_->filePath(QStringLiteral("hand-in.json"));
    QVERIFY(!app.panel.exportHandIn(handIn, &error));  // nothing checked yet
    QVERIFY2(error.contains(QStringLiteral("check it first")), qPrintable(error));
    const exercise::SubmissionReport report = app.check();
    QVERIFY2(app.panel.exportHandIn(handIn, &error), qPrintable(error));
    const std::optional<std::string> text =
        io::readFile(handIn.toStdString(), io::kMaxSessionBytes, "the hand-in");
    QVERIFY(text);
    const exercise::SubmissionReport back =
        exercise::reportFromJson(io::parseJson(*text, "the hand-in"));
    QCOMPARE(back.exercise, kId);
    QCOMPARE(back.source, report.source);
    QCOMPARE(back.backend, std::string("cpu"));
    QCOMPARE(back.checks.size(), report.checks.size());
    for (std::size_t i = 0; i < back.checks.size(); ++i) {
      QCOMPARE(back.checks[i].state, report.checks[i].state);
      QVERIFY(back.checks[i].figure == report.checks[i].figure);
    }

    // Under a file, not a folder: refused with the path; the progress and the hand-in written
    // before are as they were.
    const QString unwritable = handIn + QStringLiteral("/hand-in.json");
    QVERIFY(!app.panel.exportHandIn(unwritable, &error));
    QVERIFY2(error.contains(unwritable), qPrintable(error));
    QVERIFY(io::readFile(handIn.toStdString(), io::kMaxSessionBytes, "the hand-in") == text);
    QVERIFY(app.exercises.progress(app.index()).lastReport);
    QCOMPARE(app.exercises.progress(app.index()).state, ExerciseState::Failing);
    QVERIFY(QFileInfo::exists(
        data() + QStringLiteral("/%1/last-check.json").arg(QString::fromStdString(kId))));
  }

  // The solution and a reset each ask first; the solution never replaces the student's source.
  void theSolutionAndAResetAskFirst() {
    Panel app(data());
    app.open();
    QVERIFY(app.panel.openInEditor());
    app.editor.editor()->appendPlainText(QStringLiteral("// mine"));
    const QString mine = app.editor.editor()->toPlainText();
    app.answer = false;
    QVERIFY(!app.panel.showSolution());
    QVERIFY(!app.panel.solutionWindow());
    QVERIFY(!app.panel.resetToStart());
    QCOMPARE(app.asked.size(), 2);
    QCOMPARE(app.editor.editor()->toPlainText(), mine);

    app.answer = true;
    QVERIFY(app.panel.showSolution());
    QVERIFY(app.panel.solutionWindow());
    auto* shown = app.panel.solutionWindow()->findChild<QPlainTextEdit*>();
    QCOMPARE(shown->toPlainText().toStdString(), app.exercises.exercise(app.index()).solution);
    QVERIFY(shown->isReadOnly());
    QCOMPARE(app.editor.editor()->toPlainText(), mine);

    QVERIFY(app.panel.resetToStart());
    QCOMPARE(app.editor.kernel().source, app.exercises.exercise(app.index()).start);
    QCOMPARE(app.exercises.source(app.index()), app.exercises.exercise(app.index()).start);
    QCOMPARE(app.exercises.progress(app.index()).state, ExerciseState::NotStarted);
  }
};

TILESCOPE_UI_SUITE(TestExercisePanel, Gui)
#include "tst_exercise_panel.moc"
