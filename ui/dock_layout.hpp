// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's size and dock layout: remembered in the settings file between runs, and fitted to
// a screen too narrow for three columns (the Diagrams and Kernel Editor docks become tabs of the
// Run Setup column), then put back on a screen wide enough.
#include <QByteArray>
#include <QObject>
#include <QSize>

class QMainWindow;

namespace tilescope::ui {

class DockLayout : public QObject {
  Q_OBJECT

 public:
  static constexpr QSize kFirstRunSize{1600, 1000};

  explicit DockLayout(QMainWindow* window);

  // The remembered geometry and dock layout; a first run gets kFirstRunSize, within the screen.
  void restore();
  // Remembers them; a layout squeezed for a small screen is not remembered in place of the one
  // it squeezed.
  void save() const;
  void fitTo(const QSize& available);
  // Fits to the screen the window is shown on, and from then on to any screen it moves to.
  void fitToScreen();
  // The Kernel Editor beside the Diagrams, not a tab behind them: in the wide bottom row, in
  // front of the results, half the window's height (its marked lines and the diagrams at once).
  void showEditorBesideDiagrams();

 private:
  QMainWindow* window_;
  // The dock layout before fitTo() squeezed it, and the minimum size it needed.
  QByteArray layoutBeforeFit_;
  QSize minimumBeforeFit_;
  bool followsScreen_ = false;
};

}  // namespace tilescope::ui
