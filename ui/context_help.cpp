// SPDX-License-Identifier: GPL-3.0-or-later
#include "context_help.hpp"

#include <QApplication>
#include <QCursor>
#include <QMenu>
#include <QMessageBox>
#include <QShortcut>
#include <QToolButton>

#include "chart_panel.hpp"
#include "diagram_host.hpp"
#include "help_panel.hpp"

namespace tilescope::ui {

ContextHelp::ContextHelp(QWidget* window, ChartPanel* charts, DiagramHost* diagrams)
    : QObject(window),
      window_(window),
      charts_(charts),
      diagrams_(diagrams),
      panel_(new HelpPanel(window)) {
  QToolButton* chartHelp =
      makeHelpButton(tr("What am I looking at? Explains the chart on show (F1)"));
  chartHelp->setObjectName(QStringLiteral("chartHelpButton"));
  charts_->setHelpButton(chartHelp);
  connect(chartHelp, &QToolButton::clicked, this,
          [this] { show(chartHelpTopic(desktop::chartId(charts_->currentChart()))); });

  QToolButton* diagramHelp =
      makeHelpButton(tr("What am I looking at? Explains the diagram on show (F1)"));
  diagramHelp->setObjectName(QStringLiteral("diagramHelpButton"));
  if (diagrams_->setHelpButton(diagramHelp))
    connect(diagramHelp, &QToolButton::clicked, this, [this] { show(diagrams_->helpTopic()); });
  else
    delete diagramHelp;

  // F1 itself, not only the platform's help key (which some platforms leave empty). Application
  // wide, so it also works in the diagrams' full-screen presentation window.
  auto* f1 = new QShortcut(QKeySequence(Qt::Key_F1), window);
  f1->setContext(Qt::ApplicationShortcut);
  connect(f1, &QShortcut::activated, this, [this] { show(contextTopic()); });
}

void ContextHelp::fillMenu(QMenu* help) {
  QAction* guide = help->addAction(tr("&Guide"), this, [this] { show(kGuideTopic); });
  guide->setObjectName(QStringLiteral("guideAction"));
  guide->setStatusTip(tr("A short guide: what TileScope does and how to use it"));
  // F1 is the application-wide shortcut above; the menu only names it (a second shortcut on
  // the same key would make both ambiguous).
  QAction* whatsThis = help->addAction(tr("&What Am I Looking At?") + QStringLiteral("\tF1"), this,
                                       [this] { show(contextTopic()); });
  whatsThis->setStatusTip(tr("Explains the chart or diagram under the focus or the mouse"));
  help->addSeparator();
  QAction* about = help->addAction(tr("&About TileScope"), this, [this] {
    QMessageBox::about(
        window_, tr("About TileScope"),
        tr("<h3>TileScope %1</h3><p>See and measure tiled matrix multiplication on GPUs and "
           "CPUs: run the seeds' kernels, watch the charts, and see in the diagrams which "
           "thread computes what.</p>")
            .arg(QApplication::applicationVersion()));
  });
  about->setStatusTip(tr("What TileScope is"));
  QAction* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
  aboutQt->setStatusTip(tr("The Qt version TileScope uses"));
}

QString ContextHelp::contextTopic() const {
  const QString diagramTopic = diagrams_->helpTopic();
  const QString chartTopic = chartHelpTopic(desktop::chartId(charts_->currentChart()));
  // In presentation a view or a chart sits in a window of its own: there is nothing else to
  // explain.
  if (diagrams_->presentationMode()) return diagramTopic;
  if (charts_->presentationMode()) return chartTopic;
  // The focus says where the user works; the mouse where they look when the focus is elsewhere.
  const auto within = [](QWidget* area, QWidget* widget) {
    return widget && (widget == area || area->isAncestorOf(widget));
  };
  for (QWidget* widget : {QApplication::focusWidget(), QApplication::widgetAt(QCursor::pos())}) {
    if (!diagramTopic.isEmpty() && within(diagrams_, widget)) return diagramTopic;
    if (within(charts_, widget)) return chartTopic;
  }
  return kGuideTopic;
}

bool ContextHelp::show(const QString& topic) {
  QWidget* anchor = QApplication::activeWindow();
  return panel_->showTopic(topic, anchor && anchor != panel_ ? anchor : window_);
}

}  // namespace tilescope::ui
