// SPDX-License-Identifier: GPL-3.0-or-later
// DiagramPanel: configuration, view switching, stepping by keys, the animation, and
// presentation mode entered and left (Esc).
#include <QtTest>

#include <QLabel>
#include <QPainter>
#include <QSignalSpy>
#include <algorithm>

#include "diagram_document.hpp"
#include "diagram_panel.hpp"
#include "diagram_view.hpp"

using namespace tilescope;
using namespace tilescope::ui;

class TestDiagramPanel : public QObject {
  Q_OBJECT

 private slots:
  void showsTheConfigurationAndSwitchesViews();
  void arrowKeysStepThroughKSteps();
  void animationPlaysToTheLastStepAndStops();
  void presentationModeEntersAndLeavesWithEscape();
  void f11LeavesPresentationOnEveryPlatform();
  void closingThePresentationWindowComesBackEveryTime();
  void sliderAndCaptionNameTheStepAlike();
  void closedLibraryDisablesTheControls();
  void tTurnsTheKStepWordsWhilePresenting();
};

void TestDiagramPanel::showsTheConfigurationAndSwitchesViews() {
  DiagramPanel panel;
  panel.setConfiguration({"shared-tiled", {{"tile", 8}}}, {64, 64, 64});
  QCOMPARE(panel.document()->config().kernel, std::string("shared-tiled"));
  QVERIFY(panel.document()->mapping());
  QVERIFY(panel.setCurrentView(QStringLiteral("access")));
  QCOMPARE(panel.currentView()->kind(), DiagramKind::Access);
  QVERIFY(!panel.setCurrentView(QStringLiteral("flow")));
  QCOMPARE(panel.currentView()->kind(), DiagramKind::Access);
}

void TestDiagramPanel::arrowKeysStepThroughKSteps() {
  DiagramPanel panel;
  panel.setConfiguration({"shared-tiled", {{"tile", 8}}}, {64, 64, 64});  // 8 k-steps
  panel.setCurrentView(QStringLiteral("kstep"));
  QWidget* view = panel.currentView();
  QTest::keyClick(view, Qt::Key_Right);
  QTest::keyClick(view, Qt::Key_Right);
  QCOMPARE(panel.document()->selection().step, std::int64_t(2));
  QTest::keyClick(view, Qt::Key_Left);
  QCOMPARE(panel.document()->selection().step, std::int64_t(1));
  QTest::keyClick(view, Qt::Key_End);
  QCOMPARE(panel.document()->selection().step, std::int64_t(7));
  QTest::keyClick(view, Qt::Key_Right);  // clamped at the last step
  QCOMPARE(panel.document()->selection().step, std::int64_t(7));
  QTest::keyClick(view, Qt::Key_Home);
  QCOMPARE(panel.document()->selection().step, std::int64_t(0));
}

void TestDiagramPanel::animationPlaysToTheLastStepAndStops() {
  DiagramPanel panel;
  panel.setConfiguration({"shared-tiled", {{"tile", 16}}}, {64, 64, 64});  // 4 k-steps
  panel.setPlaying(true);
  QVERIFY(panel.playing());
  QTRY_COMPARE_WITH_TIMEOUT(panel.document()->selection().step, std::int64_t(3), 10000);
  QTRY_VERIFY_WITH_TIMEOUT(!panel.playing(), 5000);
  // Playing again from the end starts over.
  panel.setPlaying(true);
  QCOMPARE(panel.document()->selection().step, std::int64_t(0));
  panel.setPlaying(false);
  QVERIFY(!panel.playing());
}

void TestDiagramPanel::presentationModeEntersAndLeavesWithEscape() {
  DiagramPanel panel;
  QSignalSpy changes(&panel, &DiagramPanel::presentationModeChanged);
  panel.setPresentationMode(true);
  QVERIFY(panel.presentationMode());
  QCOMPARE(changes.count(), 1);
  QVERIFY(panel.currentView()->window() != panel.window());  // moved into its own window
  QCOMPARE(panel.currentView()->window(), panel.presentationWindow());
  // The text grows with the screen: a projector's 1280x720 less than a 1920x1080 desk screen.
  panel.presentationWindow()->resize(1280, 720);
  const double projector = panel.document()->fontScale();
  QCOMPARE(projector, DiagramPanel::presentationFontScale({1280, 720}));
  panel.presentationWindow()->resize(1920, 1080);
  QCOMPARE(panel.document()->fontScale(), DiagramPanel::presentationFontScale({1920, 1080}));
  QVERIFY(projector > 1.0 && panel.document()->fontScale() > projector);
  QTest::keyClick(panel.currentView(), Qt::Key_Right);
  QCOMPARE(panel.document()->selection().step, std::int64_t(1));
  QTest::keyClick(panel.currentView(), Qt::Key_Escape);
  QVERIFY(!panel.presentationMode());
  QCOMPARE(changes.count(), 2);
  QCOMPARE(changes.last().first().toBool(), false);
  QCOMPARE(panel.document()->fontScale(), 1.0);
  QCOMPARE(panel.currentView()->window(), panel.window());
}

void TestDiagramPanel::f11LeavesPresentationOnEveryPlatform() {
  // QKeySequence::FullScreen has no binding on Linux: F11 must be there regardless.
  QVERIFY(DiagramPanel::presentationShortcuts().contains(QKeySequence(Qt::Key_F11)));
  for (const QKeySequence& key : QKeySequence::keyBindings(QKeySequence::FullScreen))
    QVERIFY(DiagramPanel::presentationShortcuts().contains(key));
  DiagramPanel panel;
  panel.setPresentationMode(true);
  QVERIFY(panel.presentationMode());
  QTest::keyClick(panel.currentView(), Qt::Key_F11);
  QVERIFY(!panel.presentationMode());
}

void TestDiagramPanel::closingThePresentationWindowComesBackEveryTime() {
  // The window manager's close (Alt+F4) ends a presentation, the second time too: the
  // connection was remade on each start as a unique one, which Qt refuses for a lambda.
  DiagramPanel panel;
  for (int time = 0; time < 2; ++time) {
    panel.setPresentationMode(true);
    QVERIFY(panel.presentationMode());
    panel.presentationWindow()->close();
    QTRY_VERIFY(!panel.presentationMode());
    QCOMPARE(panel.currentView()->window(), panel.window());
  }
}

void TestDiagramPanel::sliderAndCaptionNameTheStepAlike() {
  DiagramPanel panel;
  panel.setConfiguration({"shared-tiled", {{"tile", 16}}}, {64, 64, 40});  // 3 k-steps
  panel.setCurrentView(QStringLiteral("kstep"));
  auto* label = panel.findChild<QLabel*>(QStringLiteral("stepLabel"));
  QVERIFY(label);
  for (const int step : {0, 2}) {
    DiagramSelection s = panel.document()->selection();
    s.step = step;
    panel.document()->setSelection(s);
    const QString name = QStringLiteral("k-step %1 of 3").arg(step);
    QCOMPARE(label->text(), name);
    QImage image(900, 600, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    panel.currentView()->render(painter, QRectF(image.rect()), DiagramTheme::light());
    painter.end();
    const auto& labels = panel.currentView()->lastLayout().labels();
    QVERIFY2(std::ranges::any_of(labels,
                                 [&](const PlacedLabel& l) {
                                   return l.text.startsWith(QStringLiteral("K") + name.mid(1));
                                 }),
             qPrintable(name));
  }
}

void TestDiagramPanel::closedLibraryDisablesTheControls() {
  DiagramPanel panel;
  panel.setConfiguration({"library", {}}, {64, 64, 64});
  QVERIFY(!panel.document()->mapping());
  panel.setPlaying(true);
  QVERIFY(!panel.playing());
  panel.stepBy(1);  // nothing to step, nothing thrown
  QCOMPARE(panel.document()->selection().step, std::int64_t(0));
}

void TestDiagramPanel::tTurnsTheKStepWordsWhilePresenting() {
  // tensor-persistent's recipe is longer than its column on a projector: T shows the next part.
  DiagramPanel panel;
  panel.setConfiguration({"tensor-persistent", {}}, {1024, 1024, 1024});
  QVERIFY(panel.setCurrentView(QStringLiteral("kstep")));
  panel.setPresentationMode(true);
  QVERIFY(panel.document()->presenting());
  QWidget* shown = panel.presentationWindow();
  shown->setWindowState(Qt::WindowNoState);  // the offscreen screen is not a projector's
  shown->resize(1280, 720);
  shown->show();
  QCoreApplication::processEvents();
  DiagramView* view = panel.currentView();
  QVERIFY2(view->width() > 1200, qPrintable(QString::number(view->width())));
  auto partNote = [view] {
    QImage image(view->size(), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view->render(painter, QRectF(image.rect()), view->widgetTheme());
    for (const PlacedLabel& label : view->lastLayout().labels())
      if (label.text.startsWith(QStringLiteral("part "))) return label.text.left(11);
    return QString();
  };
  QCOMPARE(partNote(), QStringLiteral("part 1 of 2"));
  QTest::keyClick(view, Qt::Key_T);
  QCOMPARE(partNote(), QStringLiteral("part 2 of 2"));
  QTest::keyClick(view, Qt::Key_T);
  QCOMPARE(partNote(), QStringLiteral("part 1 of 2"));
  panel.setPresentationMode(false);
  QVERIFY(!panel.document()->presenting());
}

QTEST_MAIN(TestDiagramPanel)
#include "tst_diagram_panel.moc"
