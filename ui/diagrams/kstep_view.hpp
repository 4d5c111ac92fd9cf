// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// K-step animation: for the selected block, the A row panel and B column panel in global memory
// with the current step's slices lit, the tiles staged in shared memory (or the note that the
// kernel reads straight from global memory), and the C tile's partial sums growing step by step.
#include "diagram_view.hpp"

namespace tilescope::ui {

class KStepView : public DiagramView {
  Q_OBJECT

 public:
  explicit KStepView(DiagramDocument* document, QWidget* parent = nullptr);
  DiagramKind kind() const override { return DiagramKind::KStep; }

  struct Layout {
    AxisScale panelK, panelKDown;    // k along the A panel (right) and the B panel (down)
    AxisScale stagedK, stagedKDown;  // k inside the staged tiles
    AxisScale rows, cols;            // the block's rows (down) and columns (right)
    QRectF panelA, panelB, stagedA, stagedB, tile, progress;
    bool sharedA = false, sharedB = false;
    bool kCompressed = false;  // the panels' k axis is shorter than to scale
    double labelHeight = 0;
  };
  Layout layout(const QRectF& area, const DiagramTheme& theme) const;

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;
  // Clicking a k-step in the A or B panel jumps there.
  void clickAt(const QRectF& area, QPointF pos) override;

 private:
  Layout arrange(const QRectF& area, const DiagramTheme& theme, bool progressBeside) const;
};

}  // namespace tilescope::ui
