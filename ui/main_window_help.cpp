// "What am I looking at?": a ? button on the chart tabs and on the diagram views, F1 for the one
// under the focus or the mouse, and Help > Guide.
#include <QApplication>
#include <QCursor>
#include <QMenu>
#include <QShortcut>
#include <QToolButton>

#include "chart_panel.hpp"
#include "help_panel.hpp"
#include "main_window.hpp"

#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#endif

namespace tilescope::ui {

void MainWindow::createHelp() {
  helpPanel_ = new HelpPanel(this);

  QToolButton* chartHelp =
      makeHelpButton(tr("What am I looking at? Explains the chart on show (F1)"));
  chartHelp->setObjectName(QStringLiteral("chartHelpButton"));
  charts_->setCornerWidget(chartHelp, Qt::TopRightCorner);
  connect(chartHelp, &QToolButton::clicked, this,
          [this] { showHelp(chartHelpTopic(app::chartId(charts_->currentChart()))); });

#ifdef TILESCOPE_HAVE_DIAGRAMS
  auto* diagrams = static_cast<DiagramPanel*>(diagrams_);
  QToolButton* diagramHelp =
      makeHelpButton(tr("What am I looking at? Explains the diagram on show (F1)"));
  diagramHelp->setObjectName(QStringLiteral("diagramHelpButton"));
  diagrams->setCornerWidget(diagramHelp);
  connect(diagramHelp, &QToolButton::clicked, this, [this, diagrams] {
    showHelp(diagramHelpTopic(diagramKindName(diagrams->currentView()->kind())));
  });
#endif

  // F1 itself, not only the platform's help key (which some platforms leave empty). Application
  // wide, so it also works in the diagrams' full-screen presentation window.
  auto* f1 = new QShortcut(QKeySequence(Qt::Key_F1), this);
  f1->setContext(Qt::ApplicationShortcut);
  connect(f1, &QShortcut::activated, this, [this] { showHelp(contextHelpTopic()); });
}

void MainWindow::addGuide(QMenu* help) {
  QAction* guide = help->addAction(tr("&Guide"), this, [this] { showHelp(kGuideTopic); });
  guide->setObjectName(QStringLiteral("guideAction"));
  guide->setStatusTip(tr("A short guide: what TileScope does and how to use it"));
  // F1 is the application-wide shortcut above; the menu only names it (a second shortcut on
  // the same key would make both ambiguous).
  QAction* whatsThis = help->addAction(tr("&What Am I Looking At?") + QStringLiteral("\tF1"), this,
                                       [this] { showHelp(contextHelpTopic()); });
  whatsThis->setStatusTip(tr("Explains the chart or diagram under the focus or the mouse"));
  help->addSeparator();
}

QString MainWindow::contextHelpTopic() const {
  // The focus says where the user works; the mouse where they look when the focus is elsewhere.
  QWidget* focus = QApplication::focusWidget();
  const auto within = [](QWidget* area, QWidget* widget) {
    return widget && (widget == area || area->isAncestorOf(widget));
  };
#ifdef TILESCOPE_HAVE_DIAGRAMS
  auto* diagrams = static_cast<DiagramPanel*>(diagrams_);
  const QString diagramTopic = diagramHelpTopic(diagramKindName(diagrams->currentView()->kind()));
  // In presentation the views sit in a window of their own: there is nothing else to explain.
  if (diagrams->presentationMode()) return diagramTopic;
#else
  const QString diagramTopic;
#endif
  const QString chartTopic = chartHelpTopic(app::chartId(charts_->currentChart()));
  for (QWidget* widget : {focus, QApplication::widgetAt(QCursor::pos())}) {
    if (!diagramTopic.isEmpty() && within(diagrams_, widget)) return diagramTopic;
    if (within(charts_, widget)) return chartTopic;
  }
  return kGuideTopic;
}

bool MainWindow::showHelp(const QString& topic) {
  QWidget* anchor = QApplication::activeWindow();
  return helpPanel_->showTopic(topic, anchor && anchor != helpPanel_ ? anchor : this);
}

}  // namespace tilescope::ui
