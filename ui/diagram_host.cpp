// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_host.hpp"

#include <QLabel>
#include <QTimer>
#include <QToolButton>

#include "control_panel.hpp"
#include "help_panel.hpp"
#include "results_model.hpp"
#include "settings.hpp"
#include "tilescope/exercise/check.hpp"
#include "trace_controller.hpp"

#ifdef TILESCOPE_HAVE_DIAGRAMS
#include "diagram_document.hpp"
#include "diagram_panel.hpp"
#include "diagram_view.hpp"
#endif

namespace tilescope::ui {

void DiagramHost::drawTracesOf(desktop::TraceController& traces, const ControlPanel& controls) {
  traces.setDrawer([this](const KernelTrace& trace, QString* error) {
    if (!showTrace(trace, error)) return false;
    parentWidget()->raise();  // the Diagrams dock, in front of the Kernel Editor
    return true;
  });
  const auto retrace = [this, &traces, &controls] {
    traces.retrace(drawnTrace(), selectedBlock(), controls.choices());
  };
  connect(this, &DiagramHost::selectionChanged, &traces, retrace);
  connect(&traces, &desktop::TraceController::reselect, this, [this, retrace](Dim2 block) {
    selectBlock(block);  // traces it, unless that block is already drawn
    retrace();           // where the selection stayed on it
  });
}

#ifdef TILESCOPE_HAVE_DIAGRAMS

namespace {
DiagramPanel* panelOf(const DiagramHost* host) {
  return static_cast<DiagramPanel*>(host->widget());
}
}  // namespace

DiagramHost::DiagramHost(const ControlPanel& controls, const desktop::ResultsModel& results,
                         QWidget* parent)
    : QScrollArea(parent) {
  auto* diagrams = new DiagramPanel;
  diagrams->setObjectName(QStringLiteral("diagrams"));
  connect(&controls, &ControlPanel::configurationChanged, diagrams,
          &DiagramPanel::setConfiguration);
  connect(diagrams, &DiagramPanel::presentationModeChanged, this,
          &DiagramHost::presentationModeChanged);
  connect(diagrams->document(), &DiagramDocument::selectionChanged, this,
          &DiagramHost::selectionChanged);
  const auto shareCounted = [diagrams, &results] {
    diagrams->document()->setCountedRuns(results.results());
  };
  connect(&results, &QAbstractItemModel::rowsInserted, diagrams, shareCounted);
  connect(&results, &QAbstractItemModel::modelReset, diagrams, shareCounted);
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setWidget(diagrams);
  setMinimumWidth(diagrams->minimumSizeHint().width());
  // Diagram exports start where the window's last export went, and move it.
  diagrams->setExportFolder(desktop::lastFolder(desktop::Folder::Exports));
  connect(diagrams, &DiagramPanel::exported, this, [diagrams](const QString& path) {
    desktop::rememberFolder(desktop::Folder::Exports, path);
    diagrams->setExportFolder(desktop::lastFolder(desktop::Folder::Exports));
  });
}

bool DiagramHost::showTrace(const KernelTrace& trace, QString* error) {
  DiagramDocument* document = panelOf(this)->document();
  document->setTrace(trace);
  if (document->mapping()) return true;
  if (error) *error = document->unavailableReason();
  return false;
}

bool DiagramHost::showTraceAt(const KernelTrace& trace, const exercise::CheckPicture& picture,
                              QString* error) {
  if (!showTrace(trace, error)) return false;
  DiagramDocument* document = panelOf(this)->document();
  DiagramSelection selection = document->selection();
  selection.block = picture.block;
  selection.warp = picture.warp;
  selection.step = picture.step;
  // The bank strip shows the staged tile of the operand the selected access loads.
  selection.access = picture.shared
                         ? (picture.sharedOperand == Operand::B ? Access::LoadB : Access::LoadA)
                         : picture.access;
  selection.instr = picture.shared ? 0 : picture.instr;
  selection.sharedWrite = picture.shared && picture.sharedWrite;
  selection.innerK = picture.shared ? picture.innerK : 0;
  selection.readSlot = picture.shared ? picture.slot : 0;
  document->setSelection(selection);
  DiagramPanel* panel = panelOf(this);
  panel->setCurrentView(QStringLiteral("access"));
  // On a short screen the controls above push the view out of sight: the view first, once the
  // dock has its new size.
  QTimer::singleShot(0, this, [this, panel] {
    if (panel->currentView()) ensureWidgetVisible(panel->currentView(), 0, 0);
  });
  return true;
}

const KernelTrace* DiagramHost::drawnTrace() const {
  const DiagramDocument* document = panelOf(this)->document();
  return document->mapping() ? document->mapping()->trace() : nullptr;
}

Dim2 DiagramHost::selectedBlock() const {
  return panelOf(this)->document()->selection().block;
}

void DiagramHost::selectBlock(Dim2 block) {
  DiagramDocument* document = panelOf(this)->document();
  DiagramSelection selection = document->selection();
  selection.block = block;
  document->setSelection(selection);
}

bool DiagramHost::showView(const QString& view) {
  return panelOf(this)->setCurrentView(view);
}

bool DiagramHost::exportView(const QString& view, const QString& path, QString* error) {
  DiagramPanel* panel = panelOf(this);
  if (!panel->setCurrentView(view)) {
    if (error) *error = tr("unknown view '%1'").arg(view);
    return false;
  }
  return saveDiagram(*panel->currentView(), path, kExportSize, error);
}

bool DiagramHost::setPresentation(bool on) {
  panelOf(this)->setPresentationMode(on);
  return true;
}

bool DiagramHost::presentationMode() const {
  return panelOf(this)->presentationMode();
}

QList<QKeySequence> DiagramHost::presentationShortcuts() {
  return DiagramPanel::presentationShortcuts();
}

QString DiagramHost::helpTopic() const {
  return diagramHelpTopic(diagramKindName(panelOf(this)->currentView()->kind()));
}

bool DiagramHost::setHelpButton(QToolButton* button) {
  panelOf(this)->setCornerWidget(button);
  return true;
}

#else

DiagramHost::DiagramHost(const ControlPanel&, const desktop::ResultsModel&, QWidget* parent)
    : QScrollArea(parent) {
  auto* note =
      new QLabel(tr("The thread-mapping diagrams are not part of this build of TileScope."));
  note->setObjectName(QStringLiteral("diagrams"));
  note->setAlignment(Qt::AlignCenter);
  note->setWordWrap(true);
  note->setMargin(24);
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setWidget(note);
}

bool DiagramHost::showTrace(const KernelTrace&, QString* error) {
  if (error) *error = tr("the thread-mapping diagrams are not part of this build of TileScope");
  return false;
}
bool DiagramHost::showTraceAt(const KernelTrace& trace, const exercise::CheckPicture&,
                              QString* error) {
  return showTrace(trace, error);
}
const KernelTrace* DiagramHost::drawnTrace() const {
  return nullptr;
}
Dim2 DiagramHost::selectedBlock() const {
  return {};
}
void DiagramHost::selectBlock(Dim2) {}
bool DiagramHost::showView(const QString&) {
  return false;
}
bool DiagramHost::exportView(const QString&, const QString&, QString* error) {
  if (error) *error = tr("this build of TileScope has no diagrams");
  return false;
}
bool DiagramHost::setPresentation(bool) {
  return false;
}
bool DiagramHost::presentationMode() const {
  return false;
}
QList<QKeySequence> DiagramHost::presentationShortcuts() {
  return QList<QKeySequence>{QKeySequence(Qt::Key_F11)} +
         QKeySequence::keyBindings(QKeySequence::FullScreen);
}
QString DiagramHost::helpTopic() const {
  return {};
}
bool DiagramHost::setHelpButton(QToolButton*) {
  return false;
}

#endif

}  // namespace tilescope::ui
