// SPDX-License-Identifier: GPL-3.0-or-later
// The session controller without a window: a corrupt file is refused with a clear error and the
// results already measured stay; samples open read-only; what is measured is unsaved until saved;
// unsaved results are never dropped without the prompt's answer.
#include <QtTest>

#include "results_model.hpp"
#include "run_controller.hpp"
#include "samples.hpp"
#include "session_controller.hpp"
#include "suite_helpers.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

using test::writeText;

}  // namespace

class TestSessionController : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("XDG_CONFIG_HOME", dir_.path().toUtf8());
    QStandardPaths::setTestModeEnabled(true);
  }

  void aCorruptFileIsRefusedAndTheMeasuredResultsStay() {
    ResultsModel model;
    RunController runs;
    SessionController sessions(model, runs);
    sessions.setRemembersSettings(false);
    model.append(test::madeUpResult("naive", {{"tile", 8}}, 64, 2.0));
    QVERIFY(sessions.modified());
    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.json"));
    writeText(corrupt, "{\"results\": [ {\"kernel\": ");
    QSignalSpy opened(&sessions, &SessionController::opened);
    QString error;
    QVERIFY(!sessions.open(corrupt, &error));
    QVERIFY2(error.contains(QStringLiteral("corrupt.json")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("not valid JSON")), qPrintable(error));
    QCOMPARE(opened.size(), 0);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.results().front().kernel.kernel, std::string("naive"));
    QVERIFY(sessions.modified());
    QVERIFY(sessions.path().isEmpty());
  }

  void aSampleOpensReadOnlyAndIsNeverWrittenInto() {
    ResultsModel model;
    RunController runs;
    SessionController sessions(model, runs);
    sessions.setRemembersSettings(false);
    const QString sample = shippedSamples().front();
    QSignalSpy opened(&sessions, &SessionController::opened);
    QSignalSpy replaced(&sessions, &SessionController::replaced);
    QString error;
    QVERIFY2(sessions.open(sample, &error), qPrintable(error));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(replaced.size(), 1);
    QVERIFY(model.rowCount() > 0);
    QVERIFY(!sessions.modified());
    QVERIFY(sessions.readOnly());
    QVERIFY2(sessions.displayName().endsWith(QStringLiteral(" (read-only sample)")),
             qPrintable(sessions.displayName()));
    QVERIFY(!sessions.save(sample, &error));
    QVERIFY2(error.contains(QStringLiteral("sample shipped with TileScope")), qPrintable(error));

    // Save asks for a new name beside the remembered folder, never over the sample.
    QString suggested;
    const QString mine = dir_.filePath(QStringLiteral("mine"));
    sessions.setSavePathPrompt([&](const QString& offered) {
      suggested = offered;
      return mine;
    });
    QVERIFY(sessions.saveInteractively(false));
    QCOMPARE(QFileInfo(suggested).fileName(), QFileInfo(sample).fileName());
    QCOMPARE(sessions.path(), mine + QStringLiteral(".json"));
    QVERIFY(!sessions.readOnly());
  }

  void whatIsMeasuredIsUnsavedUntilSaved() {
    ResultsModel model;
    RunController runs;
    SessionController sessions(model, runs);
    sessions.setRemembersSettings(false);
    sessions.setWidgetState([](Session& session) { session.choices.kernel = "shared-tiled"; });
    QSignalSpy modified(&sessions, &SessionController::modifiedChanged);
    model.append(test::madeUpResult("naive", {}, 64, 2.0));
    QCOMPARE(modified.size(), 1);
    QVERIFY(sessions.modified());
    const QString path = dir_.filePath(QStringLiteral("saved.json"));
    QString error;
    QVERIFY2(sessions.save(path, &error), qPrintable(error));
    QVERIFY(!sessions.modified());
    QCOMPARE(sessions.displayName(), QStringLiteral("saved.json"));

    // Reopened elsewhere: the results and what the widgets held come back.
    ResultsModel other;
    SessionController reopened(other, runs);
    reopened.setRemembersSettings(false);
    QSignalSpy opened(&reopened, &SessionController::opened);
    QVERIFY2(reopened.open(path, &error), qPrintable(error));
    QCOMPARE(other.results().size(), std::size_t(1));
    QCOMPARE(opened.front().front().value<Choices>().kernel, std::string("shared-tiled"));
  }

  void unsavedResultsWaitForThePromptsAnswer() {
    ResultsModel model;
    RunController runs;
    SessionController sessions(model, runs);
    sessions.setRemembersSettings(false);
    model.append(test::madeUpResult("naive", {}, 64, 2.0));
    // Without a prompt nothing is dropped.
    QVERIFY(!sessions.settleUnsaved(QStringLiteral("quitting")));
    QString asked;
    UnsavedAnswer answer = UnsavedAnswer::Cancel;
    sessions.setUnsavedPrompt([&](const QString& what) {
      asked = what;
      return answer;
    });
    QVERIFY(!sessions.settleUnsaved(QStringLiteral("quitting")));
    QCOMPARE(asked, QStringLiteral("quitting"));
    answer = UnsavedAnswer::Discard;
    QVERIFY(sessions.settleUnsaved(QStringLiteral("quitting")));
    QCOMPARE(model.rowCount(), 1);  // settling decides; it drops nothing itself

    // Save with no name given saves nothing and keeps the results.
    answer = UnsavedAnswer::Save;
    sessions.setSavePathPrompt([](const QString&) { return QString(); });
    QVERIFY(!sessions.settleUnsaved(QStringLiteral("quitting")));
    const QString path = dir_.filePath(QStringLiteral("settled.json"));
    sessions.setSavePathPrompt([&](const QString&) { return path; });
    QVERIFY(sessions.settleUnsaved(QStringLiteral("quitting")));
    QVERIFY(QFile::exists(path));
    QVERIFY(!sessions.modified());

    // A fresh session: empty, untitled, nothing unsaved.
    QSignalSpy fresh(&sessions, &SessionController::startedFresh);
    sessions.startFresh();
    QCOMPARE(fresh.size(), 1);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(sessions.displayName(), QStringLiteral("Untitled session"));
  }

  void anOverlayIsLabelledBySessionAndDevice() {
    ResultsModel model;
    RunController runs;
    SessionController sessions(model, runs);
    QSignalSpy overlay(&sessions, &SessionController::overlayOpened);
    QString error;
    QVERIFY2(sessions.openOverlay(shippedSample(QStringLiteral("h200-ladder.json")), &error),
             qPrintable(error));
    QCOMPARE(overlay.size(), 1);
    QCOMPARE(overlay.front().front().toString(), QStringLiteral("H200 sample"));
    QCOMPARE(model.rowCount(), 0);  // the overlay stays out of this session
    QVERIFY(!sessions.modified());
    QVERIFY(!sessions.openOverlay(dir_.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("missing.json")), qPrintable(error));
  }
};

TILESCOPE_UI_SUITE(TestSessionController, Guiless)
#include "tst_session_controller.moc"
