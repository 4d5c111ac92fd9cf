// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Diagrams dock's content: the thread-mapping diagrams where this build has them, else a note
// that says they are not part of it. The window talks to it without knowing which. The diagrams
// scroll down rather than hold the window taller than a small screen (a 1280x720 projector at
// 150 %); they never scroll sideways: the window makes room for their width.
#include <QScrollArea>
#include <vector>

#include "tilescope/user_kernel.hpp"

class QToolButton;

namespace tilescope::exercise {
struct CheckPicture;
}  // namespace tilescope::exercise

namespace tilescope::desktop {
class ResultsModel;
class TraceController;
}  // namespace tilescope::desktop

namespace tilescope::ui {

class ControlPanel;

class DiagramHost : public QScrollArea {
  Q_OBJECT

 public:
  // The diagrams draw the configuration `controls` describe; the access view sets the counted
  // run of it in `results` beside the model.
  DiagramHost(const ControlPanel& controls, const desktop::ResultsModel& results,
              QWidget* parent = nullptr);
  // Draws the traces of `traces` (raising the dock this sits in) and, where another block of a
  // trace is selected, has it traced on `controls`' backend.
  void drawTracesOf(desktop::TraceController& traces, const ControlPanel& controls);

  // The diagrams draw `trace`; false with why (no diagrams here, an inconsistent trace).
  bool showTrace(const KernelTrace& trace, QString* error);
  // Draws `trace` in the memory-access view at what `picture` names (an exercise's failing
  // check): its block, warp and k-step, and the global load or the shared-memory access there.
  // False with why, as showTrace().
  bool showTraceAt(const KernelTrace& trace, const exercise::CheckPicture& picture, QString* error);
  // The trace the diagrams draw now, or null; the block selected in them.
  const KernelTrace* drawnTrace() const;
  Dim2 selectedBlock() const;
  void selectBlock(Dim2 block);
  // One view ("matrix", "kstep", "block", "access"); false without diagrams or for another name.
  bool showView(const QString& view);
  // Writes `view` as the diagrams draw it now (a trace, say) as PNG or SVG.
  bool exportView(const QString& view, const QString& path, QString* error);
  // The diagrams present in a full-screen window of their own; false without diagrams.
  bool setPresentation(bool on);
  bool presentationMode() const;
  // F11 on every platform, plus the platform's own full-screen key.
  static QList<QKeySequence> presentationShortcuts();
  // The help topic of the view on show; empty without diagrams.
  QString helpTopic() const;
  // Puts the ? button at the right end of the views' tab row; false without diagrams.
  bool setHelpButton(QToolButton* button);

 signals:
  // Another block or view was selected.
  void selectionChanged();
  // Esc in the presentation window ends it without the window's action.
  void presentationModeChanged(bool on);
};

}  // namespace tilescope::ui
