// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pipeline timeline: for a kernel that overlaps copies with products, one column per iteration of
// its main loop (and what comes before and after it), one row per role of its warps with what
// they do in program order (copies, products, waits), and one row per shared stage with the
// k-step it holds and what becomes of it: filled, multiplied, still read by an MMA batch, free.
// Drawn from the kernel's Pipeline (thread_map.hpp); the selected k-step's column is outlined.
#include "diagram_view.hpp"

namespace tilescope::ui {

class TimelineView : public DiagramView {
  Q_OBJECT

 public:
  explicit TimelineView(DiagramDocument* document, QWidget* parent = nullptr);
  DiagramKind kind() const override { return DiagramKind::Timeline; }
  std::optional<EmptyState> emptyState() const override;

  // A row of the timeline: a role of the warps, or a shared stage.
  struct Row {
    std::optional<PipelineRole> role;
    int stage = -1;
    QRectF rect;  // the whole row across the visible columns
  };
  struct Column {
    std::int64_t iteration = 0;  // -1: before the loop; the k-step count: after it
    QRectF rect;                 // the whole column down every row
  };
  struct Layout {
    QRectF grid;  // every cell
    std::vector<Row> rows;
    std::vector<Column> columns;
    double headerWidth = 0, labelHeight = 0;
    std::int64_t hiddenBefore = 0, hiddenAfter = 0;  // columns left out on either side
  };
  Layout layout(const QRectF& area, const DiagramTheme& theme) const;

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;
  // Clicking a k-step's column selects that k-step.
  void clickAt(const QRectF& area, QPointF pos) override;
};

// The iterations the timeline has a column for: -1 (before the loop), every k-step, and the
// k-step count (after the loop) where the pipeline drains MMA batches there.
std::vector<std::int64_t> timelineIterations(const Pipeline& pipeline, std::int64_t steps);
// What a role does in `iteration`, in program order (stepOffset still relative to the iteration,
// as in pipelineLoop; before the loop absolute), leaving out the copies and waits the loop skips
// near its ends.
std::vector<PipelineStep> timelineActions(const Pipeline& pipeline, PipelineRole role,
                                          std::int64_t iteration, std::int64_t steps);

}  // namespace tilescope::ui
