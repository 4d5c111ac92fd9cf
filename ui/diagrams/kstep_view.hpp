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
  // The k-step in words: what the threads do in every k-step, in order.
  QString recipe() const;
  // Where the words take a column of their own in parts: the next part (after the last, the
  // first).
  void nextRecipePart();

 protected:
  QString caption() const override;
  std::vector<LegendEntry> legend(const DiagramTheme& theme) const override;
  void paintDiagram(QPainter& painter, const QRectF& whole, const DiagramTheme& theme,
                    LabelLayout& labels) override;
  QString hoverText(const QRectF& area, QPointF pos) const override;
  // Clicking a k-step in the A or B panel jumps there; clicking the words shows their next part.
  void clickAt(const QRectF& area, QPointF pos) override;
  void resetView() override { recipePart_ = 0; }

 private:
  // Where the recipe goes: the empty corner above the A panel where it fits there whole, else a
  // column of its own right of the figure, shown part by part where it is longer than that.
  struct RecipePlace {
    QFont font;
    QRectF figure;  // the figure's share of the area
    QRectF column;  // empty: the corner
  };
  RecipePlace recipePlace(const QRectF& area, const DiagramTheme& theme) const;
  // The best of the two arrangements (the partial sums' bar under the C tile or beside it).
  Layout fitted(const QRectF& area, const DiagramTheme& theme) const;
  Layout arrange(const QRectF& area, const DiagramTheme& theme, bool progressBeside) const;
  void paintRecipe(const Layout& l, const QRectF& area, const DiagramTheme& theme,
                   LabelLayout& labels);

  int recipePart_ = 0;
};

}  // namespace tilescope::ui
