// SPDX-License-Identifier: GPL-3.0-or-later
// Files people can trust: shipped samples open read-only and Save never writes into them;
// unsaved results are never dropped without asking (close, open, lesson); Clear Results can be
// undone; File > Open Sample lists the samples; the dialogs start in the last folder used.
#include <QAction>
#include <QMenu>
#include <QUndoStack>
#include <QtTest>

#include "main_window.hpp"
#include "results_model.hpp"
#include "results_undo.hpp"
#include "samples.hpp"
#include "settings.hpp"
#include "test_results.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;
using tilescope::desktop::UnsavedAnswer;
using tilescope::ui::MainWindow;

namespace {

QByteArray bytesOf(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A measured result as the run controller delivers it, so the window counts it as unsaved.
void deliver(MainWindow& window, const std::string& kernel, double ms) {
  emit window.controller()->resultReady(test::madeUpResult(kernel, {}, 64, ms));
}

QAction* actionWithShortcut(MainWindow& window, QKeySequence::StandardKey key) {
  for (QAction* action : window.findChildren<QAction*>()) {
    if (action->shortcut() == QKeySequence(key)) return action;
  }
  return nullptr;
}

QAction* sampleAction(MainWindow& window, const QString& fileName) {
  for (QAction* action : window.sampleMenu()->actions()) {
    if (QFileInfo(action->data().toString()).fileName() == fileName) return action;
  }
  return nullptr;
}

// Records what the window asked and answers with `answer`.
struct PromptLog {
  QStringList asked;
  tilescope::desktop::SessionController::UnsavedPrompt answering(UnsavedAnswer answer) {
    return [this, answer](const QString& what) {
      asked << what;
      return answer;
    };
  }
};

}  // namespace

class TestFiles : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString copyOfSample(const QString& fileName) {
    const QString copy = dir_.filePath(QStringLiteral("shipped/") + fileName);
    QDir().mkpath(QFileInfo(copy).absolutePath());
    QFile::remove(copy);
    if (!QFile::copy(shippedSample(fileName), copy)) return {};
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    return copy;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_files"));
    QFile::remove(settingsPath());
    QVERIFY(dir_.isValid());
  }

  void openSampleListsEveryShippedSample() {
    QStringList onDisk =
        QDir(QStringLiteral(TILESCOPE_SESSIONS)).entryList({QStringLiteral("*.json")}, QDir::Files);
    onDisk.sort();
    QVERIFY(onDisk.contains(QStringLiteral("h200-register-tiles.json")));
    MainWindow window;
    QStringList listed;
    for (QAction* action : window.sampleMenu()->actions()) {
      listed << QFileInfo(action->data().toString()).fileName();
      QVERIFY(!action->statusTip().isEmpty());
      QVERIFY2(action->text().contains(QStringLiteral("NVIDIA H200, ")),
               qPrintable(action->text()));
    }
    QCOMPARE(listed, onDisk);
  }

  // Samples are read from inside the app, not through the reader of files on disk.
  void everySampleLoadsFromInsideTheApp() {
    for (const QString& sample : shippedSamples()) {
      QString error;
      const std::optional<Session> session = loadSessionOrSample(sample, &error);
      QVERIFY2(session, qPrintable(error));
      QVERIFY(!session->results.empty());
      QCOMPARE(session->results.front().device, std::string("NVIDIA H200"));
    }
    QString error;
    QVERIFY(!loadSessionOrSample(QStringLiteral(":/sessions/none.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("none.json")), qPrintable(error));
  }

  void aSampleOpensReadOnly() {
    MainWindow window;
    QAction* open = sampleAction(window, QStringLiteral("h200-ladder.json"));
    QVERIFY(open);
    open->trigger();
    QVERIFY(window.results()->rowCount() > 0);
    QVERIFY(window.sessions()->readOnly());
    QVERIFY(!window.sessions()->modified());
    QVERIFY2(window.windowTitle().contains(QStringLiteral("read-only")),
             qPrintable(window.windowTitle()));
    // Save becomes Save As.
    QAction* save = actionWithShortcut(window, QKeySequence::Save);
    QVERIFY(save);
    QVERIFY2(save->text().contains(QStringLiteral("As")), qPrintable(save->text()));
    // The source tree's copy of a sample is a sample too; any other session is not.
    QVERIFY(isShippedSample(QStringLiteral(TILESCOPE_SESSIONS "/h200-ladder.json")));
    QVERIFY(!isShippedSample(dir_.filePath(QStringLiteral("nothing.json"))));
  }

  void saveOnASampleAsksForANewPathAndNeverWritesIntoIt() {
    const QString sample = copyOfSample(QStringLiteral("h200-register-tiles.json"));
    QVERIFY(!sample.isEmpty());
    const QByteArray original = bytesOf(sample);
    MainWindow window;
    window.setRemembersSettings(false);
    QString error;
    QVERIFY2(window.sessions()->open(sample, &error), qPrintable(error));
    QVERIFY(window.sessions()->readOnly());
    deliver(window, "naive", 2.0);
    QVERIFY(window.sessions()->modified());

    // Save (not Save As) asks for a name, suggesting the sample's name in another folder.
    QStringList suggested;
    const QString mine = dir_.filePath(QStringLiteral("mine/register-tiles-and-naive.json"));
    QDir().mkpath(QFileInfo(mine).absolutePath());
    window.sessions()->setSavePathPrompt([&](const QString& path) {
      suggested << path;
      return QString();  // the user cancels the first time
    });
    QVERIFY(!window.sessions()->saveInteractively(false));
    QCOMPARE(suggested.size(), 1);
    QVERIFY(suggested.front().endsWith(QStringLiteral("/h200-register-tiles.json")));
    QCOMPARE(bytesOf(sample), original);
    QVERIFY(window.sessions()->modified());

    // Saving straight into the sample is refused with the reason.
    QVERIFY(!window.sessions()->save(sample, &error));
    QVERIFY2(error.contains(QStringLiteral("sample")), qPrintable(error));
    QCOMPARE(bytesOf(sample), original);

    window.sessions()->setSavePathPrompt([&](const QString&) { return mine; });
    QVERIFY(window.sessions()->saveInteractively(false));
    QCOMPARE(bytesOf(sample), original);
    QVERIFY(QFileInfo(mine).isFile());
    QVERIFY(!window.sessions()->readOnly());
    QVERIFY(!window.sessions()->modified());
    QCOMPARE(window.sessions()->path(), QFileInfo(mine).absoluteFilePath());
    QVERIFY(!actionWithShortcut(window, QKeySequence::Save)->text().contains(QStringLiteral("As")));
    std::optional<Session> saved = loadSession(mine, &error);
    QVERIFY2(saved, qPrintable(error));
    QCOMPARE(int(saved->results.size()), window.results()->rowCount());
  }

  void closingWithUnsavedResultsAsks() {
    PromptLog log;
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Cancel));
    deliver(window, "naive", 2.0);
    QVERIFY(!window.close());
    QCOMPARE(log.asked.size(), 1);
    QVERIFY(log.asked.front().contains(QStringLiteral("closing")));
    QVERIFY(window.isVisible());
    QCOMPARE(window.results()->rowCount(), 1);

    // Save asks for a path and closes once the file is written.
    const QString path = dir_.filePath(QStringLiteral("on-close.json"));
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Save));
    window.sessions()->setSavePathPrompt([&](const QString&) { return path; });
    QVERIFY(window.close());
    QCOMPARE(log.asked.size(), 2);
    QVERIFY(QFileInfo(path).isFile());
  }

  void quitWithUnsavedResultsAsks() {
    PromptLog log;
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Cancel));
    deliver(window, "naive", 2.0);
    auto* quit = window.findChild<QAction*>(QStringLiteral("quitAction"));
    QVERIFY(quit);
    QCOMPARE(quit->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->trigger();
    QCOMPARE(log.asked.size(), 1);
    QVERIFY(window.isVisible());
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Discard));
    quit->trigger();
    QCOMPARE(log.asked.size(), 2);
    QVERIFY(!window.isVisible());
  }

  void discardLetsTheWindowClose() {
    PromptLog log;
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Discard));
    deliver(window, "naive", 2.0);
    QVERIFY(window.close());
    QCOMPARE(log.asked.size(), 1);
  }

  void nothingUnsavedAsksNothing() {
    PromptLog log;
    MainWindow window;
    window.setRemembersSettings(false);
    window.show();
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Cancel));
    QVERIFY(window.close());
    QVERIFY(log.asked.isEmpty());
  }

  void openingAnotherSessionWithUnsavedResultsAsks() {
    PromptLog log;
    MainWindow window;
    window.setRemembersSettings(false);
    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Cancel));
    deliver(window, "naive", 2.0);
    sampleAction(window, QStringLiteral("h200-ladder.json"))->trigger();
    QCOMPARE(log.asked.size(), 1);
    QVERIFY(log.asked.front().contains(QStringLiteral("h200-ladder.json")));
    QCOMPARE(window.results()->rowCount(), 1);
    QVERIFY(window.sessions()->path().isEmpty());

    window.sessions()->setUnsavedPrompt(log.answering(UnsavedAnswer::Discard));
    sampleAction(window, QStringLiteral("h200-ladder.json"))->trigger();
    QCOMPARE(log.asked.size(), 2);
    QVERIFY(window.results()->rowCount() > 1);
    QVERIFY(window.sessions()->readOnly());
  }

  void clearResultsIsUndoable() {
    MainWindow window;
    window.setRemembersSettings(false);
    deliver(window, "naive", 2.0);
    deliver(window, "shared-tiled", 1.0);
    QVERIFY(!window.undo()->stack()->canUndo());
    window.undo()->clearResults();
    QCOMPARE(window.results()->rowCount(), 0);
    // An untitled session has nothing left to save once cleared.
    QVERIFY(!window.sessions()->modified());
    QVERIFY(window.undo()->stack()->canUndo());

    // A result that arrives after the clear stays, after the ones brought back.
    deliver(window, "register-tiled", 0.5);
    window.undo()->stack()->undo();
    QCOMPARE(window.results()->rowCount(), 3);
    QCOMPARE(window.results()->results()[0].kernel.kernel, std::string("naive"));
    QCOMPARE(window.results()->results()[1].kernel.kernel, std::string("shared-tiled"));
    QCOMPARE(window.results()->results()[2].kernel.kernel, std::string("register-tiled"));
    QVERIFY(window.sessions()->modified());

    window.undo()->stack()->redo();
    QCOMPARE(window.results()->rowCount(), 0);
  }

  void undoIsReachableFromTheEditMenuWithCtrlZ() {
    MainWindow window;
    QAction* undo = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->shortcut() == QKeySequence(QKeySequence::Undo)) undo = action;
    }
    QVERIFY(undo);
    QVERIFY(!undo->isEnabled());
    deliver(window, "naive", 2.0);
    window.undo()->clearResults();
    QVERIFY(undo->isEnabled());
    undo->trigger();
    QCOMPARE(window.results()->rowCount(), 1);
  }

  void theOpenDialogStartsInTheLastFolderUsed() {
    QFile::remove(settingsPath());
    const QString first = dir_.filePath(QStringLiteral("first"));
    const QString second = dir_.filePath(QStringLiteral("second"));
    QVERIFY(QDir().mkpath(first));
    QVERIFY(QDir().mkpath(second));
    // Never a folder that does not exist, even before anything was opened.
    QVERIFY(QFileInfo(lastFolder(Folder::Sessions)).isDir());

    const QString session = first + QStringLiteral("/a.json");
    QString error;
    {
      MainWindow window;
      deliver(window, "naive", 2.0);
      QVERIFY2(window.sessions()->save(session, &error), qPrintable(error));
    }
    MainWindow window;
    QVERIFY2(window.sessions()->open(session, &error), qPrintable(error));
    QCOMPARE(lastFolder(Folder::Sessions), first);

    // Save As suggests the last folder; saving elsewhere moves it there.
    QStringList suggested;
    window.sessions()->setSavePathPrompt([&](const QString& path) {
      suggested << path;
      return second + QStringLiteral("/b.json");
    });
    QVERIFY(window.sessions()->saveInteractively(true));
    QCOMPARE(QFileInfo(suggested.front()).absolutePath(), first);
    QCOMPARE(lastFolder(Folder::Sessions), second);

    // A remembered folder that is gone is never offered.
    QVERIFY(QDir(second).removeRecursively());
    QVERIFY(lastFolder(Folder::Sessions) != second);
    QVERIFY(QFileInfo(lastFolder(Folder::Sessions)).isDir());
  }
};

TILESCOPE_UI_SUITE(TestFiles, Gui)
#include "tst_files.moc"
