// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The base of the diagram views: one render() draws title, caption, diagram and legend into
// any rectangle, so the widget, PNG/SVG export and the benchmark all draw the same picture.
#include <QBrush>
#include <QSize>
#include <QWidget>
#include <optional>
#include <vector>

#include "diagram_document.hpp"
#include "diagram_style.hpp"
#include "label_layout.hpp"

namespace tilescope::ui {

class DiagramView : public QWidget {
  Q_OBJECT

 public:
  explicit DiagramView(DiagramDocument* document, QWidget* parent = nullptr);

  virtual DiagramKind kind() const = 0;
  DiagramDocument* document() const { return document_; }
  // "Matrix view", "K-step animation", ...: the view's name for people (help, window titles);
  // diagramKindName(kind()) is its stable id, also the widget's objectName.
  QString title() const;

  void render(QPainter& painter, const QRectF& area, const DiagramTheme& theme);
  // What hovering `pos` (widget coordinates) explains; empty over nothing.
  QString hoverTextAt(QPointF pos) const;
  // The rectangle the diagram occupies inside `area` (below title and caption, above legend).
  QRectF diagramArea(const QRectF& area, const DiagramTheme& theme) const;
  DiagramTheme widgetTheme() const;
  // Where the last render() put the figure and every label, in its area's coordinates.
  const LabelLayout& lastLayout() const { return lastLayout_; }

  // Why a view has nothing meaningful to draw for a configuration that has a mapping, and what
  // would fill it (a tab with nothing to show says so rather than draw a misleading picture).
  struct EmptyState {
    QString reason, remedy;
  };
  virtual std::optional<EmptyState> emptyState() const { return std::nullopt; }
  // The height the view needs at `width` to draw its figure with text a desk can read; 0 where
  // any height will do (the figure scales). A docked panel gives it that much and scrolls.
  virtual int heightFor(int /*width*/) const { return 0; }
  // The smallest a view is drawn: as narrow as a projector's three-column window leaves the
  // Diagrams dock.
  static constexpr QSize kMinimumSize{280, 240};

 signals:
  void hovered(const QString& text);

 protected:
  struct LegendEntry {
    QBrush brush;
    QString text;
  };
  virtual QString caption() const = 0;
  virtual std::vector<LegendEntry> legend(const DiagramTheme& theme) const = 0;
  // Only called with a mapping present. The view reserves its figure's rectangles in `labels`
  // and places its labels there; render() draws those labels after the figure.
  virtual void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                            LabelLayout& labels) = 0;
  virtual QString hoverText(const QRectF& area, QPointF pos) const = 0;
  virtual void clickAt(const QRectF& /*area*/, QPointF /*pos*/) {}
  virtual void zoomAt(QPointF /*pos*/, double /*factor*/) {}
  virtual void dragBy(QPointF /*delta*/) {}
  virtual void resetView() {}

  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Frame {
    QRectF title, caption, diagram, legend;
    QFont legendFont;
    std::size_t legendEntries = 0;  // how many of the legend's entries fit
  };
  Frame frame(const QRectF& area, const DiagramTheme& theme) const;
  std::vector<LegendEntry> visibleLegend(const DiagramTheme& theme) const;
  // A mapping, and something to draw of it.
  bool hasPicture() const;
  QString visibleCaption() const;

  DiagramDocument* document_;
  LabelLayout lastLayout_;
  QPointF pressPos_, lastDragPos_;
  bool dragging_ = false;
};

DiagramView* makeDiagramView(DiagramKind kind, DiagramDocument* document,
                             QWidget* parent = nullptr);
// Renders the view at `size` on a light background into a .png or .svg file (chosen by the
// extension), written through io::writeFile; on failure returns false and says why in `error`.
bool saveDiagram(DiagramView& view, const QString& path, QSize size, QString* error);
inline constexpr QSize kExportSize{1400, 900};

}  // namespace tilescope::ui
