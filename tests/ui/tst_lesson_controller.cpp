// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson controller without a window: it reads every seed lesson, refuses an unknown one and
// one started while runs are in progress, keeps unsaved results when the prompt says Cancel, and
// walks from lesson to lesson: each starts a fresh session with its own choices and text, lays
// its H200 sample over the charts on the CPU and queues its runs.
#include <QtTest>

#include "lesson_controller.hpp"
#include "queue_controller.hpp"
#include "results_model.hpp"
#include "run_controller.hpp"
#include "session_controller.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

// A lesson's queue ends only when the run in progress has.
constexpr int kCancelWaitMs = 120000;

struct Lessons {
  ResultsModel model;
  RunController runs;
  QueueController queue{runs, model};
  SessionController sessions{model, runs};
  LessonController lessons{sessions, queue, runs};

  Lessons() { sessions.setRemembersSettings(false); }
};

// Ends the runs a lesson queued; waits for the queue's end.
void cancelAndWait(RunController& runs) {
  QSignalSpy finished(&runs, &RunController::queueFinished);
  runs.cancel();
  QVERIFY(finished.wait(kCancelWaitMs));
}

}  // namespace

class TestLessonController : public QObject {
  Q_OBJECT

 private slots:
  void readsEverySeedLesson() {
    Lessons app;
    QVERIFY2(app.lessons.loadError().isEmpty(), qPrintable(app.lessons.loadError()));
    QVERIFY(app.lessons.lessons().size() >= 5);
    QString problem;
    QVERIFY(!app.lessons.start("no-such-lesson", Choices{}, &problem));
    QCOMPARE(problem, QStringLiteral("No lesson called no-such-lesson"));
  }

  void unsavedResultsStayWhenThePromptSaysCancel() {
    Lessons app;
    app.model.append(test::madeUpResult("naive", {}, 64, 2.0));
    QStringList asked;
    app.sessions.setUnsavedPrompt([&](const QString& what) {
      asked << what;
      return UnsavedAnswer::Cancel;
    });
    QSignalSpy started(&app.lessons, &LessonController::started);
    QString problem;
    QVERIFY(!app.lessons.start("seed-002", Choices{}, &problem));
    QCOMPARE(problem, QStringLiteral("cancelled"));
    QCOMPARE(asked, QStringList{QStringLiteral("starting the lesson")});
    QCOMPARE(started.size(), 0);
    QCOMPARE(app.model.rowCount(), 1);
    QVERIFY(!app.runs.busy());
  }

  void walksFromLessonToLesson() {
    Lessons app;
    app.sessions.setUnsavedPrompt([](const QString&) { return UnsavedAnswer::Discard; });
    QSignalSpy started(&app.lessons, &LessonController::started);
    QSignalSpy overlays(&app.sessions, &SessionController::overlayOpened);
    QSignalSpy fresh(&app.sessions, &SessionController::startedFresh);
    Choices quick;
    quick.fixedReps = 1;
    int walked = 0;
    for (const char* id : {"seed-002", "shared-tiles"}) {
      const Lesson* lesson = findLesson(app.lessons.lessons(), id);
      QVERIFY(lesson);
      app.model.append(test::madeUpResult("naive", {}, 64, 2.0));  // the lesson before's
      QString problem;
      QVERIFY2(app.lessons.start(id, quick, &problem), qPrintable(problem));
      ++walked;
      QCOMPARE(started.size(), walked);
      QCOMPARE(fresh.size(), walked);
      QCOMPARE(started.back().at(0).toString(), lesson->title);
      const auto choices = started.back().at(2).value<Choices>();
      const Choices expected = lessonChoices(*lesson, quick);
      // The lesson's text, then what it runs and about how long that takes.
      QCOMPARE(started.back().at(1).toString(),
               lessonText(*lesson, "cpu") + QStringLiteral("\n\n") +
                   lessonPlanText(*lesson, expected, lessonJobs(*lesson, expected)));
      QCOMPARE(choices.kernel, expected.kernel);
      QCOMPARE(choices.sweep, expected.sweep);
      QCOMPARE(choices.shape, expected.shape);
      // A fresh session: what came before is gone, nothing unsaved yet.
      QCOMPARE(app.model.rowCount(), 0);
      QVERIFY(app.sessions.path().isEmpty());
      QVERIFY(!app.sessions.modified());
      // On the CPU the GPU's side comes from the lesson's H200 sample.
      QCOMPARE(overlays.size(), walked);
      QCOMPARE(overlays.back().front().toString(), QStringLiteral("H200 sample"));
      QVERIFY(app.runs.busy());
      // While its runs go on, another lesson waits.
      QVERIFY(!app.lessons.start("coalescing", quick, &problem));
      QVERIFY2(problem.startsWith(QStringLiteral("Runs are in progress")), qPrintable(problem));
      cancelAndWait(app.runs);
    }
  }
};

TILESCOPE_UI_SUITE(TestLessonController, Guiless)
#include "tst_lesson_controller.moc"
