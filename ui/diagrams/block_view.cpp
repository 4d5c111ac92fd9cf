// SPDX-License-Identifier: GPL-3.0-or-later
#include "block_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

#include "core/registry.hpp"

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
// Narrower float4 copies are not outlined: side by side they would read as a grid.
constexpr double kMinCopyOutline = 12;

using WarpLaneColors = std::array<QRgb, kWarpSize * kWarpSize>;

WarpLaneColors colorTable(const DiagramTheme& theme) {
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

// How a thread is named inside its block: "37" in a 1-D block, "3,4" in a 2-D one.
QString threadLabel(const Mapping& m, Dim2 thread) {
  return oneDimensionalBlock(m) ? QString::number(thread.x)
                                : QStringLiteral("%1,%2").arg(thread.x).arg(thread.y);
}

QString dims(std::int64_t rows, std::int64_t cols) {
  return QStringLiteral("%1 × %2").arg(rows).arg(cols);
}

// The first thread that computes outputs: thread 0 but in tensor-tma (its producer warpgroup
// only copies).
Dim2 firstOwner(const Mapping& m) {
  return m.threadOfLinear(m.firstOutputThread());
}

// The pieces of the first computing warp's lanes alone, enough to describe the block's warp
// tiles in words.
WarpTile firstWarpTile(const Mapping& m, Dim2 block) {
  std::vector<ThreadOutputs> lanes;
  const int first = m.firstOutputThread();
  for (int linear = first; linear < std::min(m.threadsPerBlock(), first + kWarpSize); ++linear) {
    const Dim2 thread = m.threadOfLinear(linear);
    lanes.push_back({m.threadRef(block, thread), {}, outputPieces(m, block, thread)});
  }
  return warpTiles(lanes).front();
}

// Consecutive elements of a staged row loaded by one instruction of one thread: a float4 copy.
struct CopyRun {
  Cell first;
  std::int64_t length = 1;
  const StagedElement* element = nullptr;
};

std::vector<CopyRun> copyRuns(const std::vector<StagedElement>& elements) {
  std::vector<CopyRun> runs;
  for (const StagedElement& e : elements) {
    if (!e.loader) continue;
    if (!runs.empty()) {
      CopyRun& last = runs.back();
      const StagedElement& previous = *last.element;
      if (e.cell.row == last.first.row && e.cell.col == last.first.col + last.length &&
          e.instr == previous.instr && previous.loader->thread.x == e.loader->thread.x &&
          previous.loader->thread.y == e.loader->thread.y) {
        ++last.length;
        continue;
      }
    }
    runs.push_back({e.cell, 1, &e});
  }
  return runs;
}

}  // namespace

BlockView::BlockView(DiagramDocument* document, QWidget* parent) : DiagramView(document, parent) {}

BlockView::Layout BlockView::layout(const QRectF& area, const DiagramTheme& theme) const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const Range rows = m.blockRows(sel.block), cols = m.blockCols(sel.block);
  const Range kr = m.kRange(sel.step);
  const double kd = double(m.kDepth());
  Layout l;
  l.labelHeight = QFontMetricsF(theme.font(9, true)).height() + 4 * theme.fontScale;
  const double gap = 12 * theme.fontScale;
  // Label bands: the step above everything; a second below the tile for a window's note, kept
  // only where the block could need a window. A and B are named in the column left of the tiles.
  const double longest = double(std::max(rows.count, cols.count));
  const double shortest = double(std::min(rows.count, cols.count));
  const bool sliver = longest > kWindowGain * (shortest + kd);
  const int bands = sliver ? 2 : 1;
  const double width = area.width() - gap - l.labelHeight;
  const double height = area.height() - gap - bands * l.labelHeight;
  const double maxCell = largestCell(kMaxCell, area, theme);
  const double minStrip = kMinStrip * theme.fontScale;
  // The largest scale at which the staged strip (at least minStrip) and `count` elements fit.
  auto fitting = [&](double room, std::int64_t count) {
    return std::min(room / (kd + double(count)), (room - minStrip) / double(count));
  };
  double scale = std::min({fitting(width, cols.count), fitting(height, rows.count), maxCell});
  l.rowWindow = rows;
  l.colWindow = cols;
  // A sliver of a block (far longer than wide) shows a window of it in which the short side
  // fills the view, rather than the whole block a few pixels thin.
  const bool wide = cols.count >= rows.count;
  const double shortScale =
      std::min(wide ? fitting(height, rows.count) : fitting(width, cols.count), maxCell);
  if (sliver && shortScale > kWindowGain * scale) {
    scale = shortScale;
    l.windowed = true;
    Range& window = wide ? l.colWindow : l.rowWindow;
    const Range whole = window;
    const double room = ((wide ? width : height) - std::max(kd * scale, minStrip)) / scale;
    window.count = std::clamp<std::int64_t>(std::int64_t(room), 1, whole.count);
    window.begin =
        whole.begin + std::clamp<std::int64_t>(windowStart_, 0, whole.count - window.count);
  }
  const double strip = std::max(kd * scale, minStrip);
  const double tileWidth = std::max(double(l.colWindow.count) * scale, 1.0);
  const double tileHeight = std::max(double(l.rowWindow.count) * scale, 1.0);
  const double totalWidth = l.labelHeight + strip + gap + tileWidth;
  const double totalHeight = bands * l.labelHeight + strip + gap + tileHeight;
  const double left = area.left() + l.labelHeight + (area.width() - totalWidth) / 2;
  const double top = area.top() + l.labelHeight + (area.height() - totalHeight) / 2;
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

const BlockView::Cache& BlockView::cached(const DiagramTheme& theme, const Layout& l) {
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
    cache_.warps = cache_.outputs ? warpTiles(*cache_.outputs) : std::vector<WarpTile>{};
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
  const std::vector<CellBox> pieces = outputPieces(m, sel.block, firstOwner(m));
  QString outputs;
  if (m.rowsPerThread() * m.colsPerThread() > 1) {
    outputs = QStringLiteral("; each computes %1 outputs")
                  .arg(dims(m.rowsPerThread(), m.colsPerThread()));
    if (pieces.size() > 1 && pieces.front().rows.count * pieces.front().cols.count > 1)
      outputs += QStringLiteral(" in %1 pieces of %2")
                     .arg(pieces.size())
                     .arg(dims(pieces.front().rows.count, pieces.front().cols.count));
  }
  return QStringLiteral(
             "Block (%1,%2): %3 threads%4 in %5 warp%6%7; colour = the warp computing each "
             "element (lighter = higher lane)%8.")
      .arg(sel.block.x)
      .arg(sel.block.y)
      .arg(m.threadsPerBlock())
      .arg(oneDimensionalBlock(m) ? QStringLiteral(" (1-D: thread t is threadIdx.x)") : QString())
      .arg(m.warpsPerBlock())
      .arg(m.warpsPerBlock() == 1 ? QString() : QStringLiteral("s"))
      .arg(outputs)
      .arg(shared ? QStringLiteral(", or loading it into shared memory") : QString());
}

std::vector<DiagramView::LegendEntry> BlockView::legend(const DiagramTheme& theme) const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  std::vector<LegendEntry> entries;
  const int shown = std::min(m.warpsPerBlock(), 8);
  for (int warp = 0; warp < shown; ++warp)
    entries.push_back({theme.warpColor(warp), QStringLiteral("warp %1").arg(warp)});
  if (m.warpsPerBlock() > shown)
    entries.push_back(
        {theme.warpColor(shown), QStringLiteral("… %1 warps in all").arg(m.warpsPerBlock())});
  const WarpTile warp = firstWarpTile(m, sel.block);
  if (m.threadsPerBlock() > 1 && warp.box)
    entries.push_back({Qt::NoBrush, QStringLiteral("bold outline: a warp's %1 tile")
                                        .arg(dims(warp.box->rows.count, warp.box->cols.count))});
  if (!warp.subTiles.empty()) {
    // The lanes' grid inside a sub-iteration: how many pieces fit down and across it.
    const CellBox& sub = warp.subTiles.front();
    const CellBox piece = outputPieces(m, sel.block, firstOwner(m)).front();
    const QString tile = dims(sub.rows.count, sub.cols.count);
    const QString lanes =
        dims(sub.rows.count / piece.rows.count, sub.cols.count / piece.cols.count);
    // The kernel's own words for them, where it has them (its registration's warpPieces).
    const KernelRegistration* registration =
        m.trace() ? nullptr : &registrationOf(m.config().kernel);
    const QString pieces = registration && registration->warpPieces
                               ? QString::fromStdString(registration->warpPieces(
                                     warp.subTiles.size(), tile.toStdString(), lanes.toStdString()))
                               : QStringLiteral("%1 sub-iterations of %2 (lanes as %3)")
                                     .arg(warp.subTiles.size())
                                     .arg(tile, lanes);
    entries.push_back({Qt::NoBrush, QStringLiteral("dashed: its ") + pieces});
  }
  if (m.rowsPerThread() * m.colsPerThread() > 1)
    entries.push_back({Qt::NoBrush, QStringLiteral("thin outline: one thread's outputs")});
  const std::int64_t copiesA =
      m.regionA(sel.block, sel.step).shared ? m.instructionsPerStep(Access::LoadA) : 0;
  const std::int64_t copiesB =
      m.regionB(sel.block, sel.step).shared ? m.instructionsPerStep(Access::LoadB) : 0;
  if (std::max(copiesA, copiesB) > 1)
    entries.push_back({Qt::NoBrush, QStringLiteral("dotted: where a thread's next load starts")});
  if (!m.regionA(sel.block, sel.step).shared || !m.regionB(sel.block, sel.step).shared)
    entries.push_back({theme.pending, QStringLiteral("read from global memory, not staged")});
  entries.push_back(
      {QBrush(theme.padding, Qt::BDiagPattern), QStringLiteral("padding (zero / not written)")});
  return entries;
}

void BlockView::paintTile(QPainter& painter, const Layout& l, const DiagramTheme& theme,
                          const Cache& cache, LabelLayout& labels) {
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
    const Mapping& m = *document()->mapping();
    const QRectF visible = l.tile.adjusted(-1, -1, 1, 1);
    const QString widest = threadLabel(m, m.threadOfLinear(m.threadsPerBlock() - 1));
    // The largest font, down to a small one, at which every thread's name fits its piece.
    const CellBox& sample = cache.outputs->at(std::size_t(m.firstOutputThread())).pieces.front();
    const QRectF sampleRect = spanRect(l.cols, l.rows, sample.rows, sample.cols);
    for (const double points : {7.5, 6.5, 6.0}) {
      painter.setFont(theme.font(points));
      const QFontMetricsF metrics(painter.font());
      const double length = metrics.horizontalAdvance(widest) + 2, thickness = metrics.height();
      const double w = sampleRect.width(), h = sampleRect.height();
      if ((length <= w && thickness <= h) || (length <= h && thickness <= w)) break;
    }
    // Each warp's name in its tile's corner, where the tile has room for it; the threads' and
    // lanes' names under a tag are left out rather than drawn beneath it.
    const QFont tagFont = theme.font(8, true);
    const QFontMetricsF tagMetrics(tagFont);
    std::vector<std::pair<QRectF, QString>> tags;
    std::vector<QRectF> tagged;  // each tag's warp tile
    for (const WarpTile& warp : cache.warps) {
      if (!warp.box || m.threadsPerBlock() == 1) continue;
      const QRectF box = spanRect(l.cols, l.rows, warp.box->rows, warp.box->cols);
      const QString name = QStringLiteral("warp %1").arg(warp.warp);
      const QRectF tag(box.left() + 2, box.top() + 2, tagMetrics.horizontalAdvance(name) + 6,
                       tagMetrics.height());
      if (tag.width() < box.width() - 4 && tag.height() < box.height() - 4 &&
          tag.intersects(visible)) {
        tags.emplace_back(tag, name);
        tagged.push_back(box);
      }
    }
    auto underATag = [&](const QRectF& rect) {
      return std::ranges::any_of(tags, [&](const auto& tag) { return tag.first.intersects(rect); });
    };
    const WarpLaneColors colors = colorTable(theme);
    for (const ThreadOutputs& thread : *cache.outputs) {
      // Dark or light ink, whichever stands out on the thread's colour.
      const QColor ink = theme.inkOn(QColor::fromRgba(colorOf(colors, thread.thread)));
      for (const CellBox& piece : thread.pieces) {
        const QRectF rect = spanRect(l.cols, l.rows, piece.rows, piece.cols);
        if (piece.rows.count * piece.cols.count == 1 || rect.width() < 5 ||
            !rect.intersects(visible))
          continue;
        painter.setPen(QPen(theme.outline, 0.8));
        painter.drawRect(rect);
        painter.setPen(ink);
        if (!underATag(rect))
          drawUniformLabel(painter, labels, rect, threadLabel(m, thread.thread.thread), widest);
      }
      // Threads owning single elements: each element shows its lane.
      const bool single = std::ranges::all_of(thread.pieces, [](const CellBox& piece) {
        return piece.rows.count * piece.cols.count == 1;
      });
      if (cell < kLabelCell * theme.fontScale || !single) continue;
      painter.setPen(ink);
      for (const Cell& c : thread.cells) {
        const QRectF rect = spanRect(l.cols, l.rows, {c.row, 1}, {c.col, 1});
        if (inside(rows, c.row) && inside(cols, c.col) && !underATag(rect))
          drawFittedText(painter, labels, rect,
                         oneDimensionalBlock(m) ? threadLabel(m, thread.thread.thread)
                                                : QString::number(thread.thread.lane));
      }
    }
    // The warps' tiles over the threads' pieces, their sub-iterations dashed.
    for (const WarpTile& warp : cache.warps) {
      if (!warp.box || m.threadsPerBlock() == 1) continue;
      painter.setPen(QPen(theme.text, 1.5, Qt::DashLine));
      for (const CellBox& sub : warp.subTiles)
        painter.drawRect(spanRect(l.cols, l.rows, sub.rows, sub.cols));
      painter.setPen(QPen(theme.text, 2));
      painter.drawRect(spanRect(l.cols, l.rows, warp.box->rows, warp.box->cols));
    }
    painter.setFont(tagFont);
    QColor back = theme.background;
    back.setAlpha(200);
    for (std::size_t t = 0; t < tags.size(); ++t) {
      const auto& [tag, name] = tags[t];
      painter.fillRect(tag, back);
      painter.drawText(tag, Qt::AlignCenter, name);
      labels.noteCellText(tagged[t], tag, name, tagFont);
    }
  }
  painter.restore();
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(theme.accent, 2.5));
  painter.drawRect(l.tile);
}

void BlockView::paintStaged(QPainter& painter, const Layout& l, const DiagramTheme& theme,
                            LabelLayout& labels, const std::vector<StagedElement>& elements,
                            Operand operand) {
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
    painter.setFont(theme.font(7.5));
    for (const StagedElement& element : elements) {
      const QRectF rect = rectOf(element.cell);
      if (element.loader)
        painter.fillRect(rect, theme.warpColor(element.loader->warp, element.loader->lane));
      if (element.padding) fillHatched(painter, rect, theme.padding);
    }
    // Each copy outlined and named by its thread (its lane in a 2-D block's scalar copy).
    const bool named = oneDimensionalBlock(m);
    const QString widest = threadLabel(m, m.threadOfLinear(m.threadsPerBlock() - 1));
    for (const CopyRun& run : copyRuns(elements)) {
      const QRectF rect =
          operand == Operand::A
              ? spanRect(l.stagedK, l.rows, {run.first.row, 1}, {run.first.col, run.length})
              : spanRect(l.cols, l.stagedKDown, {run.first.row, 1}, {run.first.col, run.length});
      if (run.length > 1 && rect.width() >= kMinCopyOutline) {
        painter.setPen(QPen(theme.outline, 0.8));
        painter.drawRect(rect);
      }
      painter.setPen(
          theme.inkOn(theme.warpColor(run.element->loader->warp, run.element->loader->lane)));
      if (named || run.length > 1)
        drawUniformLabel(painter, labels, rect, threadLabel(m, run.element->loader->thread),
                         widest);
      else if (std::min(rect.width(), rect.height()) >= kLabelCell * theme.fontScale)
        drawFittedText(painter, labels, rect, QString::number(run.element->loader->lane));
    }
    // Where one load instruction of the threads ends and their next begins.
    const StepRegion region =
        operand == Operand::A ? m.regionA(sel.block, sel.step) : m.regionB(sel.block, sel.step);
    drawLoadBoundaries(painter, operand == Operand::A ? l.stagedK : l.cols,
                       operand == Operand::A ? l.rows : l.stagedKDown, elements, region.cols.count,
                       theme.text);
  }
  painter.restore();
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(theme.outline, 1.2));
  painter.drawRect(strip);
}

void BlockView::paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                             LabelLayout& labels) {
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
  paintTile(painter, l, theme, cache, labels);
  paintStaged(painter, l, theme, labels, cache.stagedA, Operand::A);
  paintStaged(painter, l, theme, labels, cache.stagedB, Operand::B);

  for (const QRectF& figure : {l.stagedA, l.stagedB, l.tile}) labels.reserveFigure(figure);
  const QFont bold = theme.font(9, true);
  const bool sharedA = !cache.stagedA.empty(), sharedB = !cache.stagedB.empty();
  auto source = [](bool shared) {
    return shared ? QStringLiteral("shared, coloured by its loader") : QStringLiteral("global");
  };
  const Range values = kStepValues(m, sel.step);
  const QString step = QStringLiteral("%1 (k = %2..%3)")
                           .arg(QString::fromStdString(kStepText(m, sel.step)))
                           .arg(values.begin)
                           .arg(values.end() - 1);
  labels.place(
      {QStringLiteral("%1: A tile left (%2), B tile top (%3), C tile of block (%4,%5)")
           .arg(step, source(sharedA), source(sharedB))
           .arg(sel.block.x)
           .arg(sel.block.y),
       QStringLiteral("%1, block (%2,%3)").arg(step).arg(sel.block.x).arg(sel.block.y), step},
      bold, theme.text, {{QRectF(area.left(), area.top(), area.width(), l.labelHeight)}});
  labels.place(
      {QStringLiteral("A")}, bold, theme.text,
      {{QRectF(l.stagedA.left() - l.labelHeight, l.stagedA.top(), l.labelHeight, l.labelHeight),
        Qt::AlignCenter}});
  // Beside the B strip; where the strip is thinner than the letter (a one-wide k-step), in the
  // corner above the A strip, down to the tile.
  labels.place({QStringLiteral("B")}, bold, theme.text,
               {{QRectF(l.stagedB.left() - l.labelHeight, l.stagedB.top(), l.labelHeight,
                        l.stagedB.height()),
                 Qt::AlignCenter},
                {QRectF(l.stagedB.left() - l.labelHeight, l.stagedB.top(), l.labelHeight,
                        l.tile.top() - l.stagedB.top()),
                 Qt::AlignCenter}});
  if (windowLimit_ > 0) {
    const QString span =
        QStringLiteral("%1 %2..%3 of the block's %4..%5 shown")
            .arg(windowAlongCols_ ? QStringLiteral("columns") : QStringLiteral("rows"))
            .arg(window.begin)
            .arg(window.end() - 1)
            .arg(whole.begin)
            .arg(whole.end() - 1);
    labels.place(
        {span + QStringLiteral(": drag or scroll to move along"), span}, theme.font(9), theme.muted,
        {{QRectF(l.tile.left(), l.tile.bottom() + 4, area.right() - l.tile.left(), l.labelHeight)},
         {QRectF(area.left(), l.tile.bottom() + 4, area.width(), l.labelHeight)}});
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
    const std::optional<StagedElement> element =
        stagedElementAt(m, sel.block, sel.step, operand, {row, col});
    if (!element) {
      if (padding) return QStringLiteral("padding past the edge of %1").arg(operandName(operand));
      return name + QStringLiteral(
                        ": not staged; read from global memory by every thread that "
                        "needs it");
    }
    return name +
           QStringLiteral(" → shared memory at k-step %1: %2")
               .arg(sel.step)
               .arg(QString::fromStdString(loaderText(m, sel.block, sel.step, operand, *element)));
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
