#include "block_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

namespace tilescope::ui {

namespace {

constexpr double kMaxCell = 56;      // largest an element is drawn, in pixels
constexpr double kMinStrip = 10;     // thinnest a staged tile is drawn, in pixels
constexpr double kLabelCell = 15;    // lane numbers inside elements from this size up
constexpr int kMaxImageSide = 4096;  // one pixel per element up to this many per side...
constexpr std::int64_t kMaxExactCells = 512 * 512;  // ...and this many elements in all
constexpr int kMaxSamplesPerSide = 512;
// Listing every output is cheap up to here; beyond it the picture is sampled from owner().
constexpr std::int64_t kMaxListedOutputs = 4 * kMaxExactCells;
// A window replaces the whole block once it makes elements this many times larger.
constexpr double kWindowGain = 4;

using WarpLaneColors = std::array<QRgb, kWarpSize * kWarpSize>;

WarpLaneColors colorTable(const Theme& theme) {
  WarpLaneColors table{};
  for (int warp = 0; warp < kWarpSize; ++warp)
    for (int lane = 0; lane < kWarpSize; ++lane)
      table[std::size_t(warp * kWarpSize + lane)] = theme.warpColor(warp, lane).rgba();
  return table;
}

QRgb colorOf(const WarpLaneColors& table, const ThreadRef& t) {
  return table[std::size_t((t.warp % kWarpSize) * kWarpSize + t.lane)];
}

bool sameBlock(Dim2 a, Dim2 b) {
  return a.x == b.x && a.y == b.y;
}
bool sameRange(Range a, Range b) {
  return a.begin == b.begin && a.count == b.count;
}
bool inside(Range range, std::int64_t value) {
  return value >= range.begin && value < range.end();
}

}  // namespace

BlockView::BlockView(DiagramDocument* document, QWidget* parent) : DiagramView(document, parent) {}

BlockView::Layout BlockView::layout(const QRectF& area, const Theme& theme) const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const Range rows = m.blockRows(sel.block), cols = m.blockCols(sel.block);
  const Range kr = m.kRange(sel.step);
  const double kd = double(m.kDepth());
  Layout l;
  l.labelHeight = QFontMetricsF(theme.font(9, true)).height() + 4 * theme.fontScale;
  const double gap = 12 * theme.fontScale;
  const double width = area.width() - gap - l.labelHeight;
  const double height = area.height() - gap - 3 * l.labelHeight;
  const double maxCell = kMaxCell * theme.fontScale;
  double scale =
      std::min({width / (kd + double(cols.count)), height / (kd + double(rows.count)), maxCell});
  l.rowWindow = rows;
  l.colWindow = cols;
  // A sliver of a block (far longer than wide) shows a window of it in which the short side
  // fills the view, rather than the whole block a few pixels thin.
  const bool wide = cols.count >= rows.count;
  const double shortScale = std::min(
      wide ? height / (kd + double(rows.count)) : width / (kd + double(cols.count)), maxCell);
  if (shortScale > kWindowGain * scale) {
    scale = shortScale;
    l.windowed = true;
    Range& window = wide ? l.colWindow : l.rowWindow;
    const Range whole = window;
    const double room = (wide ? width : height) / scale - kd;
    window.count = std::clamp<std::int64_t>(std::int64_t(room), 1, whole.count);
    window.begin =
        whole.begin + std::clamp<std::int64_t>(windowStart_, 0, whole.count - window.count);
  }
  const double strip = std::max(kd * scale, kMinStrip * theme.fontScale);
  const double tileWidth = std::max(double(l.colWindow.count) * scale, 1.0);
  const double tileHeight = std::max(double(l.rowWindow.count) * scale, 1.0);
  const double totalWidth = l.labelHeight + strip + gap + tileWidth;
  const double totalHeight = 3 * l.labelHeight + strip + gap + tileHeight;
  const double left = area.left() + l.labelHeight + (area.width() - totalWidth) / 2;
  const double top = area.top() + 2 * l.labelHeight + (area.height() - totalHeight) / 2;
  const double tileLeft = left + strip + gap, tileTop = top + strip + gap;
  l.rows = {tileTop - double(l.rowWindow.begin) * tileHeight / double(l.rowWindow.count),
            tileHeight / double(l.rowWindow.count)};
  l.cols = {tileLeft - double(l.colWindow.begin) * tileWidth / double(l.colWindow.count),
            tileWidth / double(l.colWindow.count)};
  l.stagedK = {left - double(kr.begin) * strip / kd, strip / kd};
  l.stagedKDown = {top - double(kr.begin) * strip / kd, strip / kd};
  l.stagedA = spanRect(l.stagedK, l.rows, l.rowWindow, kr);
  l.stagedB = spanRect(l.cols, l.stagedKDown, kr, l.colWindow);
  l.tile = spanRect(l.cols, l.rows, l.rowWindow, l.colWindow);
  return l;
}

const BlockView::Cache& BlockView::cached(const Theme& theme, const Layout& l) {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const bool dark = theme.background.lightness() < 128;
  const Range rows = l.rowWindow, cols = l.colWindow;
  const bool exact = rows.count <= kMaxImageSide && cols.count <= kMaxImageSide &&
                     rows.count * cols.count <= kMaxExactCells;
  const QSize imageSize =
      exact ? QSize(int(cols.count), int(rows.count))
            : QSize(std::clamp(int(std::ceil(l.tile.width())), 1, kMaxSamplesPerSide),
                    std::clamp(int(std::ceil(l.tile.height())), 1, kMaxSamplesPerSide));
  const bool same = cache_.config == m.config() && cache_.shape == m.shape() &&
                    sameBlock(cache_.block, sel.block) && cache_.dark == dark &&
                    cache_.imageSize == imageSize && sameRange(cache_.rowWindow, rows) &&
                    sameRange(cache_.colWindow, cols);
  if (!same) {
    cache_.config = m.config();
    cache_.shape = m.shape();
    cache_.block = sel.block;
    cache_.dark = dark;
    cache_.imageSize = imageSize;
    cache_.rowWindow = rows;
    cache_.colWindow = cols;
    cache_.step = -1;
    const WarpLaneColors colors = colorTable(theme);
    cache_.owners = QImage(imageSize, QImage::Format_ARGB32);
    cache_.owners.fill(Qt::transparent);
    cache_.outputs = exact ? blockOutputs(m, sel.block, kMaxListedOutputs) : std::nullopt;
    if (cache_.outputs) {
      for (const ThreadOutputs& thread : *cache_.outputs)
        for (const Cell& cell : thread.cells)
          if (inside(rows, cell.row) && inside(cols, cell.col))
            cache_.owners.setPixel(int(cell.col - cols.begin), int(cell.row - rows.begin),
                                   colorOf(colors, thread.thread));
    } else {
      const auto samples = ownerSamples(m, rows, cols, imageSize.width(), imageSize.height());
      for (int y = 0; y < imageSize.height(); ++y)
        for (int x = 0; x < imageSize.width(); ++x)
          if (const auto& owner = samples[std::size_t(y * imageSize.width() + x)])
            cache_.owners.setPixel(x, y, colorOf(colors, *owner));
    }
  }
  if (cache_.step != sel.step) {
    cache_.step = sel.step;
    cache_.stagedA = stagedElements(m, sel.block, sel.step, Operand::A);
    cache_.stagedB = stagedElements(m, sel.block, sel.step, Operand::B);
  }
  return cache_;
}

QString BlockView::caption() const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const bool shared = m.regionA(sel.block, sel.step).shared;
  return QStringLiteral(
             "Block (%1,%2): %3 threads in %4 warp%5; colour = the warp computing "
             "each element (lighter = higher lane)%6.")
      .arg(sel.block.x)
      .arg(sel.block.y)
      .arg(m.threadsPerBlock())
      .arg(m.warpsPerBlock())
      .arg(m.warpsPerBlock() == 1 ? QString() : QStringLiteral("s"))
      .arg(shared ? QStringLiteral(", or loading it into shared memory") : QString());
}

std::vector<DiagramView::LegendEntry> BlockView::legend(const Theme& theme) const {
  const Mapping& m = *document()->mapping();
  std::vector<LegendEntry> entries;
  const int shown = std::min(m.warpsPerBlock(), 8);
  for (int warp = 0; warp < shown; ++warp)
    entries.push_back({theme.warpColor(warp), QStringLiteral("warp %1").arg(warp)});
  if (m.warpsPerBlock() > shown)
    entries.push_back(
        {theme.warpColor(shown), QStringLiteral("… %1 warps in all").arg(m.warpsPerBlock())});
  if (m.rowsPerThread() > 1 && m.colsPerThread() > 1)
    entries.push_back({Qt::NoBrush, QStringLiteral("outline: all outputs of one thread")});
  const DiagramSelection& sel = document()->selection();
  if (!m.regionA(sel.block, sel.step).shared || !m.regionB(sel.block, sel.step).shared)
    entries.push_back({theme.pending, QStringLiteral("read from global memory, not staged")});
  entries.push_back(
      {QBrush(theme.padding, Qt::BDiagPattern), QStringLiteral("padding (zero / not written)")});
  return entries;
}

void BlockView::paintTile(QPainter& painter, const Layout& l, const Theme& theme,
                          const Cache& cache) {
  const Shape& s = document()->mapping()->shape();
  const Range rows = l.rowWindow, cols = l.colWindow;
  painter.save();
  painter.setClipRect(l.tile, Qt::IntersectClip);
  painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
  painter.drawImage(l.tile, cache.owners);
  hatchPadding(painter, l.cols, l.rows, rows, cols, s.m, s.n, theme.padding);

  const double cell = std::min(l.rows.pixelsPerUnit, l.cols.pixelsPerUnit);
  if (cache.outputs && cell >= 8) {
    painter.setPen(QPen(theme.background, 0));
    std::vector<QLineF> grid;
    for (std::int64_t r = rows.begin + 1; r < rows.end(); ++r)
      grid.emplace_back(l.tile.left(), l.rows.at(double(r)), l.tile.right(), l.rows.at(double(r)));
    for (std::int64_t c = cols.begin + 1; c < cols.end(); ++c)
      grid.emplace_back(l.cols.at(double(c)), l.tile.top(), l.cols.at(double(c)), l.tile.bottom());
    painter.drawLines(grid.data(), int(grid.size()));
  }
  if (cache.outputs) {
    painter.setFont(theme.font(7.5));
    const QRectF visible = l.tile.adjusted(-1, -1, 1, 1);
    for (const ThreadOutputs& thread : *cache.outputs) {
      const std::optional<CellBox> box = solidBox(thread.cells);
      if (box && thread.cells.size() > 1) {
        const QRectF rect = spanRect(l.cols, l.rows, box->rows, box->cols);
        if (rect.width() >= 5 && rect.intersects(visible)) {
          painter.setPen(QPen(theme.outline, 1.2));
          painter.drawRect(rect);
          painter.setPen(theme.text);
          drawFittedText(
              painter, rect,
              QStringLiteral("%1,%2").arg(thread.thread.thread.x).arg(thread.thread.thread.y));
        }
      } else if (cell >= kLabelCell * theme.fontScale) {
        painter.setPen(theme.text);
        for (const Cell& c : thread.cells)
          if (inside(rows, c.row) && inside(cols, c.col))
            drawFittedText(painter, spanRect(l.cols, l.rows, {c.row, 1}, {c.col, 1}),
                           QString::number(thread.thread.lane));
      }
    }
  }
  painter.restore();
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(theme.accent, 2.5));
  painter.drawRect(l.tile);
}

void BlockView::paintStaged(QPainter& painter, const Layout& l, const Theme& theme,
                            const std::vector<StagedElement>& elements, Operand operand) {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const QRectF strip = operand == Operand::A ? l.stagedA : l.stagedB;
  painter.save();
  painter.setClipRect(strip, Qt::IntersectClip);
  auto rectOf = [&](const Cell& cell) {
    return operand == Operand::A ? spanRect(l.stagedK, l.rows, {cell.row, 1}, {cell.col, 1})
                                 : spanRect(l.cols, l.stagedKDown, {cell.row, 1}, {cell.col, 1});
  };
  if (elements.empty()) {
    // Not staged: the slice each thread reads from global memory itself.
    painter.fillRect(strip, theme.pending);
    const Shape& s = m.shape();
    const StepRegion region =
        operand == Operand::A ? m.regionA(sel.block, sel.step) : m.regionB(sel.block, sel.step);
    const std::int64_t rowLimit = operandRows(s, operand), colLimit = operandCols(s, operand);
    const AxisScale& x = operand == Operand::A ? l.stagedK : l.cols;
    const AxisScale& y = operand == Operand::A ? l.rows : l.stagedKDown;
    hatchPadding(painter, x, y, region.rows, region.cols, rowLimit, colLimit, theme.padding);
  } else {
    const double cell = std::min(l.rows.pixelsPerUnit, l.stagedK.pixelsPerUnit);
    painter.setFont(theme.font(7.5));
    for (const StagedElement& element : elements) {
      const QRectF rect = rectOf(element.cell);
      if (element.loader)
        painter.fillRect(rect, theme.warpColor(element.loader->warp, element.loader->lane));
      if (element.padding) fillHatched(painter, rect, theme.padding);
      if (element.loader && cell >= kLabelCell * theme.fontScale) {
        painter.setPen(theme.text);
        drawFittedText(painter, rect, QString::number(element.loader->lane));
      }
    }
  }
  painter.restore();
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(theme.outline, 1.2));
  painter.drawRect(strip);
}

void BlockView::paintDiagram(QPainter& painter, const QRectF& area, const Theme& theme) {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const Layout l = layout(area, theme);
  const Range whole = l.windowed && l.colWindow.count < m.blockCols(sel.block).count
                          ? m.blockCols(sel.block)
                          : m.blockRows(sel.block);
  windowAlongCols_ = l.windowed && l.colWindow.count < m.blockCols(sel.block).count;
  const Range& window = windowAlongCols_ ? l.colWindow : l.rowWindow;
  windowSpan_ = window.count;
  windowLimit_ = whole.count - window.count;
  windowCell_ = windowAlongCols_ ? l.cols.pixelsPerUnit : l.rows.pixelsPerUnit;
  const Cache& cache = cached(theme, l);
  paintTile(painter, l, theme, cache);
  paintStaged(painter, l, theme, cache.stagedA, Operand::A);
  paintStaged(painter, l, theme, cache.stagedB, Operand::B);

  const Range kr = m.kRange(sel.step);
  painter.setPen(theme.text);
  painter.setFont(theme.font(9, true));
  const bool sharedA = !cache.stagedA.empty(), sharedB = !cache.stagedB.empty();
  auto source = [](bool shared) {
    return shared ? QStringLiteral("shared, coloured by its loader") : QStringLiteral("global");
  };
  const QString header = QStringLiteral(
                             "k-step %1 (k = %2..%3): A tile left (%4), B tile top (%5), C tile of "
                             "block (%6,%7)")
                             .arg(sel.step)
                             .arg(kr.begin)
                             .arg(kr.end() - 1)
                             .arg(source(sharedA), source(sharedB))
                             .arg(sel.block.x)
                             .arg(sel.block.y);
  painter.drawText(QRectF(area.left(), area.top(), area.width(), l.labelHeight),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(painter.font()).elidedText(header, Qt::ElideRight, area.width()));
  painter.drawText(
      QRectF(l.stagedA.left() - l.labelHeight, l.stagedA.top(), l.labelHeight, l.labelHeight),
      Qt::AlignCenter, QStringLiteral("A"));
  painter.drawText(
      QRectF(l.stagedB.left(), l.stagedB.top() - l.labelHeight, l.labelHeight, l.labelHeight),
      Qt::AlignCenter, QStringLiteral("B"));
  if (windowLimit_ > 0) {
    painter.setFont(theme.font(9));
    painter.setPen(theme.muted);
    painter.drawText(
        QRectF(l.tile.left(), l.tile.bottom() + 4, area.right() - l.tile.left(), l.labelHeight),
        Qt::AlignLeft | Qt::AlignVCenter,
        QStringLiteral("%1 %2..%3 of the block's %4..%5 shown: drag or scroll to move along")
            .arg(windowAlongCols_ ? QStringLiteral("columns") : QStringLiteral("rows"))
            .arg(window.begin)
            .arg(window.end() - 1)
            .arg(whole.begin)
            .arg(whole.end() - 1));
  }
}

void BlockView::clickAt(const QRectF& area, QPointF pos) {
  const Mapping& m = *document()->mapping();
  const Layout l = layout(area, widgetTheme());
  const auto i = std::int64_t(std::floor(l.rows.coordinateAt(pos.y())));
  const auto j = std::int64_t(std::floor(l.cols.coordinateAt(pos.x())));
  if (!l.tile.contains(pos) || i >= m.shape().m || j >= m.shape().n) return;
  DiagramSelection selection = document()->selection();
  selection.warp = m.owner(i, j).warp;
  document()->setSelection(selection);
}

void BlockView::zoomAt(QPointF, double factor) {
  // The wheel moves the window by a quarter of its length.
  const std::int64_t step = std::max<std::int64_t>(windowSpan_ / 4, 1);
  windowStart_ =
      std::clamp<std::int64_t>(windowStart_ + (factor > 1 ? -step : step), 0, windowLimit_);
}

void BlockView::dragBy(QPointF delta) {
  // Accumulated in pixels so that slow drags still move by whole elements.
  dragPixels_ += windowAlongCols_ ? delta.x() : delta.y();
  const auto moved = std::int64_t(dragPixels_ / windowCell_);
  dragPixels_ -= double(moved) * windowCell_;
  windowStart_ = std::clamp<std::int64_t>(windowStart_ - moved, 0, windowLimit_);
}

void BlockView::resetView() {
  windowStart_ = 0;
  dragPixels_ = 0;
}

QString BlockView::hoverText(const QRectF& area, QPointF pos) const {
  const Mapping& m = *document()->mapping();
  const Shape& s = m.shape();
  const DiagramSelection& sel = document()->selection();
  const Layout l = layout(area, widgetTheme());
  const auto i = std::int64_t(std::floor(l.rows.coordinateAt(pos.y())));
  const auto j = std::int64_t(std::floor(l.cols.coordinateAt(pos.x())));

  auto staged = [&](Operand operand, std::int64_t row, std::int64_t col) {
    const QString name = QStringLiteral("%1[%2][%3]").arg(operandName(operand)).arg(row).arg(col);
    const bool padding = row >= operandRows(s, operand) || col >= operandCols(s, operand);
    const std::optional<Dim2> loader = operand == Operand::A
                                           ? m.loaderOfA(sel.block, sel.step, row, col)
                                           : m.loaderOfB(sel.block, sel.step, row, col);
    if (!loader) {
      if (padding) return QStringLiteral("padding past the edge of %1").arg(operandName(operand));
      return name + QStringLiteral(
                        ": not staged; read from global memory by every thread that "
                        "needs it");
    }
    const ThreadRef t = m.threadRef(sel.block, *loader);
    return name + QStringLiteral(
                      " → shared memory at k-step %1: loaded by thread (%2,%3), warp "
                      "%4, lane %5%6")
                      .arg(sel.step)
                      .arg(t.thread.x)
                      .arg(t.thread.y)
                      .arg(t.warp)
                      .arg(t.lane)
                      .arg(padding ? QStringLiteral(" (a zero: padding)") : QString());
  };

  if (l.tile.contains(pos)) {
    if (i >= s.m || j >= s.n)
      return QStringLiteral("padding: past the edge of C, nothing is written here");
    return QString::fromStdString(ownerText(m, i, j));
  }
  if (l.stagedA.contains(pos))
    return staged(Operand::A, i, std::int64_t(std::floor(l.stagedK.coordinateAt(pos.x()))));
  if (l.stagedB.contains(pos))
    return staged(Operand::B, std::int64_t(std::floor(l.stagedKDown.coordinateAt(pos.y()))), j);
  return {};
}

}  // namespace tilescope::ui
