// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one layout pass every diagram view shares. The figure reserves its rectangles first; each
// label is then measured and put in the first of its candidate spots where it fits whole without
// touching the figure, another label or the view's edge. A label that fits nowhere is tried in
// its shorter wordings, then a little smaller, then elided, and left out only when nothing
// readable fits. What was placed stays readable, so tests can check it.
#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

class QPainter;

namespace tilescope::ui {

// A box a label may sit in, and where in the box: the label takes only the room its text needs.
struct LabelSpot {
  QRectF box;
  Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter;
};

// Text drawn inside a cell of the figure (a lane's number, a load's name), with its cell.
struct CellText {
  QRectF cell;
  QRectF rect;  // the text's own extent
  QString text;
  QFont font;
};

struct PlacedLabel {
  QRectF rect;  // the text's own extent, not the spot it was offered
  QString text;
  QFont font;
  QColor color;
  int flags = 0;
  bool drawnByOwner = false;  // reserved with reserveLabel(): place() did not draw it
};

class LabelLayout {
 public:
  explicit LabelLayout(const QRectF& bounds = {});

  // Part of the picture; labels keep off it. The part outside the bounds is dropped.
  void reserveFigure(const QRectF& rect);
  // A label the caller draws itself (a legend entry with its swatch); false, and nothing
  // reserved, where it would touch what is already placed or leave the bounds.
  bool reserveLabel(const QRectF& rect, const QString& text);
  // `wordings` from the fullest to the shortest; `wrap` lets the text run over several lines of
  // its spot; `elide` allows the fullest wording cut short as the last resort. Returns where the
  // text went, or nothing when it fits nowhere.
  std::optional<QRectF> place(const QStringList& wordings, const QFont& font, const QColor& color,
                              const std::vector<LabelSpot>& spots, bool wrap = false,
                              bool elide = true);
  // Draws the labels placed with place().
  void paint(QPainter& painter) const;
  // Notes text the figure draws inside its own cell (see drawFittedText), so that tests can
  // check it fits the cell.
  void noteCellText(const QRectF& cell, const QRectF& rect, const QString& text, const QFont& font);
  const std::vector<CellText>& cellTexts() const { return cellTexts_; }

  // Whether `rect` is inside the bounds and clear of every figure and label placed so far.
  bool isFree(const QRectF& rect) const;
  const QRectF& bounds() const { return bounds_; }
  const std::vector<QRectF>& figures() const { return figures_; }
  const std::vector<PlacedLabel>& labels() const { return labels_; }

  // How far a label may shrink below the size it asks for.
  static constexpr double kMinFontShare = 0.75;

 private:
  std::optional<QRectF> fit(const QString& text, const QFont& font, const LabelSpot& spot,
                            int flags) const;

  QRectF bounds_;
  std::vector<QRectF> figures_;
  std::vector<PlacedLabel> labels_;
  std::vector<CellText> cellTexts_;
};

}  // namespace tilescope::ui
