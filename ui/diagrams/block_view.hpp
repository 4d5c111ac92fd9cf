// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Block view: the threads of the selected block. Each C element has the colour of the warp whose
// thread computes it (lighter for higher lanes); each thread's register tile (or its pieces) is
// outlined and named, each warp's tile drawn bold with its sub-iterations dashed; the step's A and
// B tiles show which thread loads each element into shared memory, a float4 copy outlined whole. A
// block far longer than wide (row-per-thread: T rows across all of N) shows a readable window of
// it; drag or scroll to move.
#include <QImage>

#include "diagram_model.hpp"
#include "diagram_view.hpp"

namespace tilescope::ui {

class BlockView : public DiagramView {
  Q_OBJECT

 public:
  explicit BlockView(DiagramDocument* document, QWidget* parent = nullptr);
  DiagramKind kind() const override { return DiagramKind::Block; }

  struct Layout {
    AxisScale rows, cols, stagedK, stagedKDown;
    Range rowWindow, colWindow;  // the part of the block drawn (all of it unless windowed)
    bool windowed = false;
    QRectF stagedA, stagedB, tile;  // tile: the drawn window of the block's C tile
    double labelHeight = 0;
  };
  Layout layout(const QRectF& area, const DiagramTheme& theme) const;

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;
  // Clicking an element selects the warp computing it (for the memory-access view).
  void clickAt(const QRectF& area, QPointF pos) override;
  void zoomAt(QPointF pos, double factor) override;
  void dragBy(QPointF delta) override;
  void resetView() override;

 private:
  // What the last paint computed, kept while configuration, block and step stay the same.
  struct Cache {
    KernelConfig config;
    Shape shape;
    Dim2 block{-1, -1};
    std::int64_t step = -1;
    Range rowWindow, colWindow;
    QSize imageSize;
    bool dark = false;
    QImage owners;  // the C tile, one pixel per element or per sample
    std::optional<std::vector<ThreadOutputs>> outputs;
    std::vector<WarpTile> warps;  // of the listed outputs
    std::vector<StagedElement> stagedA, stagedB;
  };
  const Cache& cached(const DiagramTheme& theme, const Layout& l);
  void paintTile(QPainter& painter, const Layout& l, const DiagramTheme& theme, const Cache& cache,
                 LabelLayout& labels);
  void paintStaged(QPainter& painter, const Layout& l, const DiagramTheme& theme,
                   LabelLayout& labels, const std::vector<StagedElement>& elements,
                   Operand operand);

  Cache cache_;
  // The window along the block's long side: where it starts, and as last drawn its length,
  // how far it may move, its axis and its pixels per element (for dragging).
  std::int64_t windowStart_ = 0, windowSpan_ = 1, windowLimit_ = 0;
  bool windowAlongCols_ = true;
  double windowCell_ = 1, dragPixels_ = 0;
};

}  // namespace tilescope::ui
