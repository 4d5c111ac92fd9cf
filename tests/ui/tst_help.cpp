// SPDX-License-Identifier: GPL-3.0-or-later
// "What am I looking at?": every chart tab and every diagram view has its own help text (what is
// drawn, how to read it, which seed), opened by its ? button and by F1; Help > Guide opens the
// guide.
#include <QAction>
#include <QMenuBar>
#include <QTabWidget>
#include <QToolButton>
#include <QtTest>

#include "chart_panel.hpp"
#include "chart_view.hpp"
#include "context_help.hpp"
#include "diagram_host.hpp"
#include "help_panel.hpp"
#include "main_window.hpp"
#include "ui_suite.hpp"

#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#endif

using namespace tilescope;
using tilescope::ui::MainWindow;

namespace {

// Each chart and view with the heading its help must show.
const std::pair<desktop::ChartKind, const char*> kChartHeadings[] = {
    {desktop::ChartKind::Time, "The time chart"},
    {desktop::ChartKind::Rate, "The GFLOP/s chart"},
    {desktop::ChartKind::TileSweep, "The tile sweep chart"},
    {desktop::ChartKind::Phases, "The phases chart"},
    {desktop::ChartKind::Library, "The vs library chart"},
    {desktop::ChartKind::Landscape, "The autotune chart"},
    {desktop::ChartKind::Roofline, "The roofline"},
};
const std::pair<const char*, const char*> kViewHeadings[] = {
    {"matrix", "The matrix view"},         {"kstep", "The k-step view"},
    {"block", "The block view"},           {"access", "The memory-access view"},
    {"timeline", "The pipeline timeline"},
};

void verifyShown(MainWindow& window, const QString& topic, const QString& heading) {
  ui::HelpPanel* help = window.help()->panel();
  QVERIFY(help->isVisible());
  QCOMPARE(help->topic(), topic);
  QVERIFY2(help->shownText().startsWith(heading), qPrintable(help->shownText().left(80)));
  QVERIFY(help->windowTitle().contains(heading));
}

}  // namespace

class TestHelp : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_help"));
  }

  // A chart or view added later without its help text fails here.
  void everyChartAndViewHasAHelpText() {
    for (desktop::ChartKind kind : desktop::kAllCharts)
      QVERIFY2(!ui::helpText(ui::chartHelpTopic(desktop::chartId(kind))).isEmpty(),
               qPrintable(desktop::chartId(kind)));
    QCOMPARE(std::size(kChartHeadings), std::size(desktop::kAllCharts));
#ifdef TILESCOPE_HAVE_DIAGRAMS
    for (ui::DiagramKind kind : ui::kDiagramKinds)
      QVERIFY2(!ui::helpText(ui::diagramHelpTopic(ui::diagramKindName(kind))).isEmpty(),
               qPrintable(ui::diagramKindName(kind)));
    QCOMPARE(std::size(kViewHeadings), std::size(ui::kDiagramKinds));
#endif
  }

  // What is drawn, how to read it and the seed, for every chart and view, and nothing shared.
  void everyTopicSaysWhatHowAndWhichSeed() {
    QStringList topics;
    for (const auto& [kind, heading] : kChartHeadings)
      topics << ui::chartHelpTopic(desktop::chartId(kind));
    for (const auto& [view, heading] : kViewHeadings) topics << ui::diagramHelpTopic(view);
    QSet<QString> texts;
    for (const QString& topic : topics) {
      const QString text = ui::helpText(topic);
      QVERIFY2(text.contains(QStringLiteral("**What is drawn.**")), qPrintable(topic));
      QVERIFY2(text.contains(QStringLiteral("**How to read it.**")), qPrintable(topic));
      QVERIFY2(text.contains(QStringLiteral("**Where it comes from.**")), qPrintable(topic));
      QVERIFY2(text.contains(QRegularExpression(QStringLiteral("[Ss]eeds? 00[0-4]"))),
               qPrintable(topic));
      texts.insert(text);
    }
    QCOMPARE(texts.size(), topics.size());
    QVERIFY(ui::helpText(QStringLiteral("no-such-topic")).isEmpty());
  }

  void theChartButtonExplainsTheChartOnShow() {
    MainWindow window;
    window.show();
    auto* button = window.findChild<QToolButton*>(QStringLiteral("chartHelpButton"));
    QVERIFY(button);
    QVERIFY(button->isVisible());
    for (const auto& [kind, heading] : kChartHeadings) {
      window.charts()->showChart(kind);
      button->click();
      verifyShown(window, ui::chartHelpTopic(desktop::chartId(kind)), QString::fromLatin1(heading));
    }
  }

  void f1ExplainsTheChartWithTheFocus() {
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    for (const auto& [kind, heading] : kChartHeadings) {
      window.charts()->showChart(kind);
      ui::ChartView* chart = window.charts()->chart(kind);
      chart->setFocus(Qt::OtherFocusReason);
      QTRY_VERIFY(chart->hasFocus());
      QCOMPARE(window.help()->contextTopic(), ui::chartHelpTopic(desktop::chartId(kind)));
      QTest::keyClick(chart, Qt::Key_F1);
      verifyShown(window, ui::chartHelpTopic(desktop::chartId(kind)), QString::fromLatin1(heading));
      window.help()->panel()->hide();
      window.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&window));
    }
  }

  void theGuideOpensFromTheHelpMenu() {
    MainWindow window;
    window.show();
    auto* guide = window.findChild<QAction*>(QStringLiteral("guideAction"));
    QVERIFY(guide);
    guide->trigger();
    verifyShown(window, ui::kGuideTopic, QStringLiteral("A short guide to TileScope"));
    QVERIFY(window.help()->panel()->shownText().contains(QStringLiteral("F1")));
  }

#ifdef TILESCOPE_HAVE_DIAGRAMS
  void everyDiagramViewHasItsButtonAndF1() {
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* button = window.findChild<QToolButton*>(QStringLiteral("diagramHelpButton"));
    QVERIFY(button);
    auto* diagrams = window.findChild<ui::DiagramPanel*>();
    QVERIFY(diagrams);
    for (const auto& [view, heading] : kViewHeadings) {
      QVERIFY(window.diagrams()->showView(QString::fromLatin1(view)));
      const QString topic = ui::diagramHelpTopic(QString::fromLatin1(view));
      button->click();
      verifyShown(window, topic, QString::fromLatin1(heading));
      window.help()->panel()->hide();

      window.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&window));
      diagrams->currentView()->setFocus(Qt::OtherFocusReason);
      QTRY_VERIFY(diagrams->currentView()->hasFocus());
      QTest::keyClick(diagrams->currentView(), Qt::Key_F1);
      verifyShown(window, topic, QString::fromLatin1(heading));
      window.help()->panel()->hide();
    }
  }

  // In presentation the views sit in a full-screen window of their own: F1 there explains the
  // view on show, and the help outlives that window.
  void f1InPresentationExplainsTheViewOnShow() {
    MainWindow window;
    window.show();
    auto* diagrams = window.findChild<ui::DiagramPanel*>();
    QVERIFY(window.diagrams()->showView(QStringLiteral("access")));
    diagrams->setPresentationMode(true);
    QWidget* presentation = diagrams->currentView()->window();
    QVERIFY(presentation != &window);
    presentation->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(presentation));
    QTest::keyClick(diagrams->currentView(), Qt::Key_F1);
    verifyShown(window, ui::diagramHelpTopic(QStringLiteral("access")),
                QStringLiteral("The memory-access view"));
    QPointer<ui::HelpPanel> help = window.help()->panel();
    diagrams->setPresentationMode(false);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QVERIFY(help);
    QVERIFY(window.help()->show(ui::kGuideTopic));
  }
#endif
};

TILESCOPE_UI_SUITE(TestHelp, Gui)
#include "tst_help.moc"
