// SPDX-License-Identifier: GPL-3.0-or-later
#include "dock_layout.hpp"

#include <QDockWidget>
#include <QLayout>
#include <QMainWindow>
#include <QScreen>
#include <QStatusBar>
#include <QWindow>
#include <vector>

#include "settings.hpp"

namespace tilescope::ui {
namespace {

const std::string kGeometryKey = "windowGeometry";
const std::string kStateKey = "windowState";
// Bump when the docks or toolbars change, so an old saved layout is not applied to a new one.
constexpr int kWindowStateVersion = 3;

// Window geometry and dock layout are kept base64-encoded in the settings file.
QByteArray rememberedBytes(const std::string& key) {
  const nlohmann::json value = desktop::rememberedSetting(key);
  return value.is_string()
             ? QByteArray::fromBase64(QByteArray::fromStdString(value.get<std::string>()))
             : QByteArray();
}

}  // namespace

DockLayout::DockLayout(QMainWindow* window) : QObject(window), window_(window) {}

void DockLayout::restore() {
  if (!window_->restoreGeometry(rememberedBytes(kGeometryKey)))
    window_->resize(kFirstRunSize.boundedTo(window_->screen()->availableSize() * 0.92));
  window_->restoreState(rememberedBytes(kStateKey), kWindowStateVersion);
}

void DockLayout::save() const {
  desktop::rememberSetting(kGeometryKey, window_->saveGeometry().toBase64().toStdString());
  const QByteArray layout =
      layoutBeforeFit_.isEmpty() ? window_->saveState(kWindowStateVersion) : layoutBeforeFit_;
  desktop::rememberSetting(kStateKey, layout.toBase64().toStdString());
}

void DockLayout::fitTo(const QSize& available) {
  // Back on a screen wide enough for the layout this window had before it was fitted: restore it.
  if (!layoutBeforeFit_.isEmpty() && minimumBeforeFit_.width() <= available.width()) {
    window_->restoreState(layoutBeforeFit_, kWindowStateVersion);
    layoutBeforeFit_.clear();
    return;
  }
  if (window_->minimumSizeHint().width() <= available.width()) return;
  // Three columns are wider than the screen: the right column's docks (the diagrams, the kernel
  // editor) become tabs of the Run Setup column.
  auto* controlsDock = window_->findChild<QDockWidget*>(QStringLiteral("controlsDock"));
  std::vector<QDockWidget*> right;
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
    if (window_->dockWidgetArea(dock) == Qt::RightDockWidgetArea && !dock->isFloating() &&
        dock->toggleViewAction()->isChecked())  // a tab behind another is shown, if not visible
      right.push_back(dock);
  if (right.empty()) return;
  layoutBeforeFit_ = window_->saveState(kWindowStateVersion);
  minimumBeforeFit_ = window_->minimumSizeHint();
  for (QDockWidget* dock : right) window_->tabifyDockWidget(controlsDock, dock);
  controlsDock->raise();
  window_->layout()->activate();  // the new, narrower minimum, before the window shrinks
  window_->resize(window_->size().boundedTo(available));
  window_->statusBar()->showMessage(
      tr("The screen is too narrow for three columns: Diagrams and the Kernel Editor are tabs "
         "beside Run Setup"),
      10000);
}

void DockLayout::fitToScreen() {
  fitTo(window_->screen()->availableSize());
  if (followsScreen_) return;
  followsScreen_ = true;
  connect(window_->windowHandle(), &QWindow::screenChanged, this,
          [this](QScreen* screen) { fitTo(screen->availableSize()); });
}

void DockLayout::showEditorBesideDiagrams() {
  auto* diagramsDock = window_->findChild<QDockWidget*>(QStringLiteral("diagramsDock"));
  auto* editorDock = window_->findChild<QDockWidget*>(QStringLiteral("kernelEditorDock"));
  auto* resultsDock = window_->findChild<QDockWidget*>(QStringLiteral("resultsDock"));
  if (window_->tabifiedDockWidgets(diagramsDock).contains(editorDock)) {
    window_->tabifyDockWidget(resultsDock, editorDock);
    window_->resizeDocks({editorDock}, {window_->height() / 2}, Qt::Vertical);
  }
  editorDock->raise();
}

}  // namespace tilescope::ui
