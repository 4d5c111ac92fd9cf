// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "diagram_model.hpp"

namespace tilescope::ui {

namespace {

// Tile lines closer than this many pixels are not drawn: they would only grey the matrix out.
constexpr double kMinTilePixels = 4;
// Up to this many tiles are drawn as separate rectangles, beyond it as shared grid lines.
constexpr std::size_t kMaxTileRects = 3000;
// A matrix thinner than this on screen is widened so that it stays visible.
constexpr double kMinThickness = 6;

// The selected block is drawn at least this many pixels wide and high.
constexpr double kMinMarker = 8;

QRectF atLeast(const QRectF& rect, double width, double height) {
  const double growX = std::max(width - rect.width(), 0.0) / 2;
  const double growY = std::max(height - rect.height(), 0.0) / 2;
  return rect.adjusted(-growX, -growY, growX, growY);
}

QString dims(std::int64_t rows, std::int64_t cols) {
  return QStringLiteral("%1 × %2").arg(rows).arg(cols);
}

}  // namespace

MatrixView::MatrixView(DiagramDocument* document, QWidget* parent)
    : DiagramView(document, parent) {}

MatrixView::Layout MatrixView::layout(const QRectF& area, const DiagramTheme& theme) const {
  const Mapping& m = *document()->mapping();
  const Shape& s = m.shape();
  Layout l;
  l.paddedM = m.blockRows(blockAt(m, s.m - 1, 0)).end();
  l.paddedN = m.blockCols(blockAt(m, 0, s.n - 1)).end();
  l.paddedK = m.kSteps() * m.kDepth();
  l.labelHeight = QFontMetricsF(theme.font(9, true)).height() + 4 * theme.fontScale;
  const double gap = 12 * theme.fontScale;
  const double width = area.width() - gap;
  const double height = area.height() - 2 * l.labelHeight;
  const double kUnits = double(l.paddedK), mUnits = double(l.paddedM), nUnits = double(l.paddedN);

  double scale = std::min(width / (kUnits + nUnits), height / (kUnits + mUnits));
  double kPixels = kUnits * scale;
  if (kPixels < kMinThickness) {
    kPixels = kMinThickness;
    scale = std::min((width - kPixels) / nUnits, (height - kPixels) / mUnits);
  }
  const double mPixels = std::max(mUnits * scale, kMinThickness);
  const double nPixels = std::max(nUnits * scale, kMinThickness);

  const double totalWidth = kPixels + gap + nPixels;
  const double totalHeight = 2 * l.labelHeight + kPixels + mPixels;
  const double left = area.left() + (area.width() - totalWidth) / 2;
  const double top = area.top() + (area.height() - totalHeight) / 2;
  const double cLeft = left + kPixels + gap;
  const double bTop = top + l.labelHeight;
  const double rowTop = bTop + kPixels + l.labelHeight;

  // Zooming scales every pixel position about the widget origin, then shifts by the pan offset.
  auto zoomed = [&](double origin, double pixelsPerUnit, double offset) {
    return AxisScale{origin * zoom_ + offset, pixelsPerUnit * zoom_};
  };
  l.k = zoomed(left, kPixels / kUnits, offset_.x());
  l.kDown = zoomed(bTop, kPixels / kUnits, offset_.y());
  l.rows = zoomed(rowTop, mPixels / mUnits, offset_.y());
  l.cols = zoomed(cLeft, nPixels / nUnits, offset_.x());
  l.a = spanRect(l.k, l.rows, {0, s.m}, {0, s.k});
  l.b = spanRect(l.cols, l.kDown, {0, s.k}, {0, s.n});
  l.c = spanRect(l.cols, l.rows, {0, s.m}, {0, s.n});
  return l;
}

QString MatrixView::caption() const {
  const Mapping& m = *document()->mapping();
  const Dim2 block = document()->selection().block;
  return QStringLiteral(
             "%1 blocks of %2 outputs, %3 thread%4 each; block (%5,%6) reads the lit rows of A "
             "and columns of B. Click a block; scroll to zoom.")
      .arg(m.blockCount())
      .arg(dims(m.blockRows(block).count, m.blockCols(block).count))
      .arg(m.threadsPerBlock())
      .arg(m.threadsPerBlock() == 1 ? QString() : QStringLiteral("s"))
      .arg(block.x)
      .arg(block.y);
}

std::vector<DiagramView::LegendEntry> MatrixView::legend(const DiagramTheme& theme) const {
  return {
      {theme.matrix, QStringLiteral("A, B and C in global memory")},
      {theme.matrix.darker(112), QStringLiteral("thread-block tiles of C (alternate shades)")},
      {theme.accentFill, QStringLiteral("selected block: its C tile, A row panel, B column panel")},
      {QBrush(theme.padding, Qt::BDiagPattern),
       QStringLiteral("padding past the matrix edge (edge tiles)")}};
}

void MatrixView::paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                              LabelLayout& labels) {
  const Mapping& m = *document()->mapping();
  const Layout l = layout(area, theme);
  const QRectF visible = area.adjusted(-2, -2, 2, 2);
  // Clipping to the view first keeps huge zoomed coordinates out of the paint engine.
  auto clip = [&](const QRectF& rect) { return rect.intersected(visible); };

  const Range allRows{0, l.paddedM}, allCols{0, l.paddedN}, allK{0, l.paddedK};
  for (const QRectF& padded :
       {spanRect(l.k, l.rows, allRows, allK), spanRect(l.cols, l.kDown, allK, allCols),
        spanRect(l.cols, l.rows, allRows, allCols)})
    fillHatched(painter, clip(padded), theme.padding);
  for (const QRectF& matrix : {l.a, l.b, l.c}) painter.fillRect(clip(matrix), theme.matrix);

  const Dim2 selected = document()->selection().block;
  const Range rows = m.blockRows(selected), cols = m.blockCols(selected);
  // A block smaller than a few pixels is still marked where it is.
  const QRectF panelA = atLeast(spanRect(l.k, l.rows, rows, allK), 0, kMinMarker / 2);
  const QRectF panelB = atLeast(spanRect(l.cols, l.kDown, allK, cols), kMinMarker / 2, 0);
  const QRectF tileC = atLeast(spanRect(l.cols, l.rows, rows, cols), kMinMarker, kMinMarker);
  paintTiles(painter, area, l, labels, theme);
  for (const QRectF& lit : {panelA, panelB, tileC}) painter.fillRect(clip(lit), theme.accentFill);

  // The k-steps inside the lit panels, where they are far enough apart to tell.
  const double stepPixels = m.kDepth() * l.k.pixelsPerUnit;
  if (stepPixels >= 2 * kMinTilePixels && m.kSteps() > 1) {
    painter.setPen(QPen(theme.accent, 0, Qt::DotLine));
    const Range steps = visibleRange(l.k, area.left(), area.right(), m.kSteps() * m.kDepth());
    for (std::int64_t k = (steps.begin / m.kDepth() + 1) * m.kDepth(); k < steps.end();
         k += m.kDepth()) {
      painter.drawLine(
          QLineF(l.k.at(double(k)), clip(panelA).top(), l.k.at(double(k)), clip(panelA).bottom()));
      painter.drawLine(QLineF(clip(panelB).left(), l.kDown.at(double(k)), clip(panelB).right(),
                              l.kDown.at(double(k))));
    }
  }

  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(theme.outline, 1.2));
  for (const QRectF& matrix : {l.a, l.b, l.c}) painter.drawRect(clip(matrix));
  painter.setPen(QPen(theme.accent, 1.5));
  painter.drawRect(clip(panelA));
  painter.drawRect(clip(panelB));
  painter.setPen(QPen(theme.accent, 2.5));
  painter.drawRect(clip(tileC));

  const Shape& s = m.shape();
  for (const QRectF& padded :
       {spanRect(l.k, l.rows, allRows, allK), spanRect(l.cols, l.kDown, allK, allCols),
        spanRect(l.cols, l.rows, allRows, allCols)})
    labels.reserveFigure(clip(padded));
  // Each name above its matrix, A's stopping where C's begins; shorter where that is narrow.
  const QFont font = theme.font(9, true);
  auto name = [&](const QRectF& matrix, double right, const QString& letter, const QString& axes,
                  std::int64_t rows, std::int64_t cols) {
    const QRectF above(matrix.left(), matrix.top() - l.labelHeight, right - matrix.left() - 4,
                       l.labelHeight);
    labels.place({QStringLiteral("%1  (%2 = %3)").arg(letter, axes, dims(rows, cols)),
                  QStringLiteral("%1  %2").arg(letter, dims(rows, cols)), letter},
                 font, theme.text, {{above}});
  };
  name(l.b, area.right(), QStringLiteral("B"), QStringLiteral("K × N"), s.k, s.n);
  name(l.a, l.c.left(), QStringLiteral("A"), QStringLiteral("M × K"), s.m, s.k);
  name(l.c, area.right(), QStringLiteral("C"), QStringLiteral("M × N"), s.m, s.n);
}

void MatrixView::paintTiles(QPainter& painter, const QRectF& area, const Layout& l,
                            LabelLayout& labels, const DiagramTheme& theme) {
  const Mapping& m = *document()->mapping();
  const Range rows = visibleRange(l.rows, area.top(), area.bottom(), l.paddedM);
  const Range cols = visibleRange(l.cols, area.left(), area.right(), l.paddedN);
  if (rows.count == 0 || cols.count == 0) return;
  const QRectF visibleC = spanRect(l.cols, l.rows, rows, cols).intersected(area);
  // Level of detail: never more bands than fit at kMinTilePixels apart.
  const TileBands bands = tileBands(m, rows, cols, std::int64_t(area.height() / kMinTilePixels) + 2,
                                    std::int64_t(area.width() / kMinTilePixels) + 2);
  if (!bands.complete) {
    // Said inside C, and only where it fits there whole.
    painter.setFont(theme.font(9));
    painter.setPen(theme.muted);
    const QRectF inside = visibleC.adjusted(6, 6, -6, -6);
    const QString note = QStringLiteral("%1 blocks, each under %2 pixels here:\nscroll to zoom in")
                             .arg(m.blockCount())
                             .arg(kMinTilePixels);
    const int flags = Qt::AlignCenter | Qt::TextWordWrap;
    const QRectF needed = painter.fontMetrics().boundingRect(inside.toRect(), flags, note);
    if (inside.contains(needed)) {
      painter.drawText(inside, flags, note);
      labels.noteCellText(visibleC, needed, note, painter.font());
    }
    return;
  }
  const QRectF visible = area.adjusted(-2, -2, 2, 2);
  const std::size_t tileCount = bands.rows.size() * bands.cols.size();
  painter.setPen(QPen(theme.outline, 0));
  painter.setBrush(Qt::NoBrush);
  if (tileCount <= kMaxTileRects) {
    const QColor shade = theme.matrix.darker(112);
    std::vector<QRectF> outlines;
    outlines.reserve(tileCount);
    for (const BlockTile& tile : blockTiles(m, bands)) {
      const QRectF rect = spanRect(l.cols, l.rows, tile.rows, tile.cols);
      if ((tile.block.x + tile.block.y) % 2)
        painter.fillRect(rect.intersected(l.c).intersected(visible), shade);
      outlines.push_back(rect.intersected(visible));
    }
    painter.drawRects(outlines.data(), int(outlines.size()));
    return;
  }
  // Too many tiles for one rectangle each: their edges as grid lines.
  std::vector<QLineF> lines;
  for (const Range& band : bands.rows)
    lines.emplace_back(visibleC.left(), l.rows.at(double(band.begin)), visibleC.right(),
                       l.rows.at(double(band.begin)));
  for (const Range& band : bands.cols)
    lines.emplace_back(l.cols.at(double(band.begin)), visibleC.top(), l.cols.at(double(band.begin)),
                       visibleC.bottom());
  painter.drawLines(lines.data(), int(lines.size()));
}

QString MatrixView::hoverText(const QRectF& area, QPointF pos) const {
  const Mapping& m = *document()->mapping();
  const Shape& s = m.shape();
  const Layout l = layout(area, widgetTheme());
  const auto i = std::int64_t(std::floor(l.rows.coordinateAt(pos.y())));
  const auto j = std::int64_t(std::floor(l.cols.coordinateAt(pos.x())));
  const auto k = std::int64_t(std::floor(l.k.coordinateAt(pos.x())));
  const auto kDown = std::int64_t(std::floor(l.kDown.coordinateAt(pos.y())));
  auto within = [](std::int64_t v, std::int64_t limit) { return v >= 0 && v < limit; };
  auto stepOf = [&](std::int64_t kk) { return kk / m.kDepth(); };

  if (within(i, l.paddedM) && within(j, l.paddedN)) {
    if (i < s.m && j < s.n) return QString::fromStdString(ownerText(m, i, j));
    const Dim2 b = blockAt(m, std::min(i, s.m - 1), std::min(j, s.n - 1));
    return QStringLiteral(
               "padding (%1, %2): past the edge of C; block (%3,%4) covers it but "
               "writes nothing there")
        .arg(i)
        .arg(j)
        .arg(b.x)
        .arg(b.y);
  }
  if (within(i, l.paddedM) && within(k, l.paddedK)) {
    if (i >= s.m || k >= s.k)
      return QStringLiteral("padding past the edge of A: read as zero where a tile reaches it");
    return QStringLiteral("A[%1][%2]: used in k-step %3 by every block whose C tile covers row %1")
        .arg(i)
        .arg(k)
        .arg(stepOf(k));
  }
  if (within(kDown, l.paddedK) && within(j, l.paddedN)) {
    if (kDown >= s.k || j >= s.n)
      return QStringLiteral("padding past the edge of B: read as zero where a tile reaches it");
    return QStringLiteral(
               "B[%1][%2]: used in k-step %3 by every block whose C tile covers column %2")
        .arg(kDown)
        .arg(j)
        .arg(stepOf(kDown));
  }
  return {};
}

void MatrixView::clickAt(const QRectF& area, QPointF pos) {
  const Mapping& m = *document()->mapping();
  const Layout l = layout(area, widgetTheme());
  const double i = l.rows.coordinateAt(pos.y()), j = l.cols.coordinateAt(pos.x());
  if (i < 0 || j < 0 || i >= double(l.paddedM) || j >= double(l.paddedN)) return;
  DiagramSelection selection = document()->selection();
  selection.block = blockAt(m, std::min(std::int64_t(i), m.shape().m - 1),
                            std::min(std::int64_t(j), m.shape().n - 1));
  document()->setSelection(selection);
}

void MatrixView::zoomAt(QPointF pos, double factor) {
  // Up to about 100 pixels per element of the largest matrix side.
  const Shape& s = document()->shape();
  const double maxZoom = std::max(1.0, 100.0 * double(std::max({s.m, s.n, s.k})) / 400.0);
  const double zoom = std::clamp(zoom_ * factor, 1.0, maxZoom);
  const double applied = zoom / zoom_;
  offset_ = pos - (pos - offset_) * applied;
  zoom_ = zoom;
  if (zoom_ == 1.0) offset_ = {};
}

void MatrixView::dragBy(QPointF delta) {
  if (zoom_ > 1.0) offset_ += delta;
}

void MatrixView::resetView() {
  zoom_ = 1;
  offset_ = {};
}

}  // namespace tilescope::ui
