// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "What am I looking at?": a ? button on the chart tabs and on the diagram views, F1 for the one
// under the focus or the mouse, and Help > Guide, all shown in one help panel.
#include <QObject>

class QMenu;
class QWidget;

namespace tilescope::ui {

class ChartPanel;
class DiagramHost;
class HelpPanel;

class ContextHelp : public QObject {
  Q_OBJECT

 public:
  // Puts the ? buttons on `charts` and `diagrams` and F1 on `window`.
  ContextHelp(QWidget* window, ChartPanel* charts, DiagramHost* diagrams);

  // The Help menu: Guide, What Am I Looking At?, About TileScope and About Qt.
  void fillMenu(QMenu* help);
  // The topic F1 opens now: the diagram view or chart that has the focus or the mouse, else the
  // guide.
  QString contextTopic() const;
  bool show(const QString& topic);
  HelpPanel* panel() const { return panel_; }

 private:
  QWidget* window_;
  ChartPanel* charts_;
  DiagramHost* diagrams_;
  HelpPanel* panel_;
};

}  // namespace tilescope::ui
