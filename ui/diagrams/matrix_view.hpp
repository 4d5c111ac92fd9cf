// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Matrix view: A on the left, B on top, C bottom right, to scale; C cut into the kernel's block
// tiles (edge tiles reaching into the padding). Clicking a block lights up the row panel of A and
// the column panel of B it reads. Wheel zooms, dragging pans, a double click resets.
#include "diagram_view.hpp"

namespace tilescope::ui {

class MatrixView : public DiagramView {
  Q_OBJECT

 public:
  explicit MatrixView(DiagramDocument* document, QWidget* parent = nullptr);
  DiagramKind kind() const override { return DiagramKind::Matrix; }

  // Where each matrix lands in `area` at the current zoom.
  struct Layout {
    AxisScale k, kDown, rows, cols;  // A's k axis runs right, B's k axis runs down
    std::int64_t paddedM = 0, paddedN = 0, paddedK = 0;
    QRectF a, b, c;  // the matrices themselves, without padding
    double labelHeight = 0;
  };
  Layout layout(const QRectF& area, const DiagramTheme& theme) const;

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;
  void clickAt(const QRectF& area, QPointF pos) override;
  void zoomAt(QPointF pos, double factor) override;
  void dragBy(QPointF delta) override;
  void resetView() override;

 private:
  void paintTiles(QPainter& painter, const QRectF& area, const Layout& l, LabelLayout& labels,
                  const DiagramTheme& theme);

  double zoom_ = 1;
  QPointF offset_;  // pixels added after zooming
};

}  // namespace tilescope::ui
