// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Colours, fonts and the few drawing helpers every diagram view shares.
#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRectF>

#include "diagram_model.hpp"
#include "label_layout.hpp"
#include "tilescope/mapping.hpp"

class QPainter;

namespace tilescope::ui {

// `from` moved the fraction `t` of the way to `to`.
QColor blend(const QColor& from, const QColor& to, double t);

struct DiagramTheme {
  QColor background, text, muted, outline, matrix, padding, accent, accentFill, done, pending, idle;
  double fontScale = 1.0;

  // Follows the widget palette: its base and text colours (light, dark or high contrast), the
  // figure's fills chosen for a light or a dark base; exports always use light().
  static DiagramTheme fromPalette(const QPalette& palette, double fontScale);
  static DiagramTheme light(double fontScale = 1.0);

  // Well separated hues for up to 32 warps; lighter for higher lanes when `lane` is given.
  QColor warpColor(int warp, int lane = 0) const;
  QColor laneColor(int lane) const;
  // The colour of text on a cell filled with `fill`: black or white, whichever contrasts more
  // with the fill (dark digits on a pastel lane in a dark theme; the small digits a block view
  // draws on mid-tone cells need the most contrast there is).
  QColor inkOn(const QColor& fill) const;
  QFont font(double points = 9.0, bool bold = false) const;

 private:
  bool dark_ = false;
};

// WCAG 2's contrast ratio of two colours, 1 (the same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);

// Maps a coordinate along one matrix axis (an element index) to pixels.
struct AxisScale {
  double origin = 0;  // pixel position of coordinate 0
  double pixelsPerUnit = 1;
  double at(double coordinate) const { return origin + coordinate * pixelsPerUnit; }
  double coordinateAt(double pixel) const { return (pixel - origin) / pixelsPerUnit; }
};

// The largest an element of a matrix is drawn: `base` pixels at the theme's text scale, more on
// a large view, so that a small block still fills a 4K screen.
double largestCell(double base, const QRectF& area, const DiagramTheme& theme);

// The rectangle rows x cols covers on screen, x along columns and y along rows.
QRectF spanRect(const AxisScale& x, const AxisScale& y, Range rows, Range cols);
// A half-open index range of the elements a pixel interval shows, clipped to [0, limit).
Range visibleRange(const AxisScale& axis, double fromPixel, double toPixel, std::int64_t limit);

void fillHatched(QPainter& painter, const QRectF& rect, const QColor& color);
// Hatches the part of rows x cols past rowLimit or colLimit (the padding), each spot once.
void hatchPadding(QPainter& painter, const AxisScale& x, const AxisScale& y, Range rows, Range cols,
                  std::int64_t rowLimit, std::int64_t colLimit, const QColor& color);
// Dotted lines between staged elements that different load instructions bring in (a thread's
// load 0, its load 1, ...); `elements` row-major over a region `regionCols` wide.
void drawLoadBoundaries(QPainter& painter, const AxisScale& x, const AxisScale& y,
                        const std::vector<StagedElement>& elements, std::int64_t regionCols,
                        const QColor& color);
void drawArrow(QPainter& painter, QPointF from, QPointF to, const QColor& color, double width);
// Text centred in the cell `rect` when it fits at the painter's font, else nothing; returns
// whether drawn. What is drawn is noted in `labels` (LabelLayout::cellTexts).
bool drawFittedText(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                    const QString& text);
// Like drawFittedText, but decided by `widest` (the longest label of its set) so that a set of
// labels is drawn whole or not at all, turned upright where only a tall narrow box holds it.
bool drawUniformLabel(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                      const QString& text, const QString& widest);
// "12.5%", "1.50 GB", "3.2e+04"
QString percentText(double fraction);
QString bytesText(double bytes);
QString countText(double value);

}  // namespace tilescope::ui
