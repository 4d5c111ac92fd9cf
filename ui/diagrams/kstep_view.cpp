// SPDX-License-Identifier: GPL-3.0-or-later
#include "kstep_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "core/registry.hpp"
#include "diagram_model.hpp"
#include "text_pages.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::ui {

namespace {

constexpr double kMinStrip = 8;      // thinnest a staged tile or panel is drawn, in pixels
constexpr double kMaxCell = 48;      // largest an element is drawn, in pixels
constexpr double kPanelShare = 0.3;  // most of the width (height) the A (B) panel may take
constexpr double kMinGridCell = 10;  // element grid lines from this size up
// Presenting, the recipe is read from the back of a room: 20 pixels on a 1280x720 projector.
constexpr double kRecipeHallShare = 1.4;
// The recipe's own column, where the corner is too small for it: this share of the width, and
// no narrower than a readable measure.
constexpr double kRecipeColumnShare = 0.4, kMinRecipeColumn = 240, kMinCorner = 180;
// The share of its scale the figure keeps beside the recipe's column, at least.
constexpr double kKeptFigure = 0.8;

// The empty corner left of the B panel and above the A panel.
QRectF cornerOf(const KStepView::Layout& l, const QRectF& area, const DiagramTheme& theme) {
  return QRectF(area.left(), area.top(), l.panelB.left() - area.left() - 16 * theme.fontScale,
                l.panelA.top() - l.labelHeight - area.top() - 8 * theme.fontScale);
}

std::int64_t summedProducts(const Mapping& m, std::int64_t step) {
  return kStepValues(m, step).end();
}

// "2 float4s of A (8 elements)", "one element of B", "2 16-byte vectors of A (16 elements)":
// what one thread copies of an operand.
QString copyPhrase(const Mapping& m, Operand operand) {
  const Access load = operand == Operand::A ? Access::LoadA : Access::LoadB;
  const std::int64_t loads = m.instructionsPerStep(load);
  const WarpAccess first = m.warpAccess({0, 0}, 0, load, 0, 0);
  const int width = first.width;
  const QString name = QLatin1String(operandName(operand));
  if (width == 1)
    return loads == 1 ? QStringLiteral("one element of %1").arg(name)
                      : QStringLiteral("%1 elements of %2, one load each").arg(loads).arg(name);
  const QString vector = QString::fromStdString(vectorName(width, first.elementBytes));
  return loads == 1 ? QStringLiteral("one %1 of %2 (%3 elements)").arg(vector, name).arg(width)
                    : QStringLiteral("%1 %2s of %3 (%4 elements)")
                          .arg(loads)
                          .arg(vector, name)
                          .arg(loads * width);
}

// "As is stored transposed (As[k][m]), each row padded by 4 words", or nothing.
QString layoutPhrase(const Mapping& m, Operand operand) {
  const StagedLayout layout = stagedLayout(m, operand);
  const QString name = operand == Operand::A ? QStringLiteral("As") : QStringLiteral("Bs");
  QString text;
  if (layout.transposed) text = QStringLiteral("%1 is stored transposed (%1[k][m])").arg(name);
  if (layout.pad > 0)
    text +=
        (text.isEmpty() ? name + QStringLiteral(" has each row") : QStringLiteral(", each row")) +
        QStringLiteral(" padded by %1 words").arg(layout.pad);
  return text.isEmpty() ? text : QStringLiteral("; ") + text;
}

// The registration of the mapping's kernel, where it is one of the catalogue's (not a trace).
const KernelRegistration* registrationFor(const Mapping& m) {
  return m.trace() ? nullptr : &registrationOf(m.config().kernel);
}

// What the threads do with the staged tiles in one k-step.
QString productPhrase(const Mapping& m) {
  // The kernel's own words, where it has them (its registration's productPhrase).
  if (const KernelRegistration* registration = registrationFor(m);
      registration && registration->productPhrase)
    return QString::fromStdString(registration->productPhrase(m));
  const int depth = m.kDepth();
  const std::int64_t outputs = m.rowsPerThread() * m.colsPerThread();
  return outputs == 1 ? QStringLiteral(
                            "each thread adds %1 products As[row][kk] × Bs[kk][col] to its "
                            "partial sum")
                            .arg(depth)
                      : QStringLiteral(
                            "for each of the %1 inner indices kk, each thread reads its %2 "
                            "values of As and %3 of Bs into registers and adds their %4 "
                            "products to its %4 partial sums")
                            .arg(depth)
                            .arg(m.rowsPerThread())
                            .arg(m.colsPerThread())
                            .arg(outputs);
}

// What the threads do in every k-step, in the order they do it.
QString stepRecipe(const Mapping& m, bool sharedA, bool sharedB) {
  if (const KernelTrace* trace = m.trace())
    return QStringLiteral(
               "Traced on %1: the elements of A and B that block (%2,%3)'s threads loaded "
               "through ts::loadA and ts::loadB while k was in this k-step (TS_KSTEP = %4). "
               "The trace does not see which loads fill a staged tile, so its tiles show as "
               "global reads; the words read and written through ts::readShared and "
               "ts::writeShared are drawn over the banks in the memory-access view.")
        .arg(QString::fromStdString(trace->device))
        .arg(trace->tracedBlock.x)
        .arg(trace->tracedBlock.y)
        .arg(trace->kDepth);
  // The kernel's own recipe, where it has one (its registration's stepRecipe).
  if (const KernelRegistration& registration = *registrationFor(m); registration.stepRecipe)
    return QString::fromStdString(registration.stepRecipe(m));
  const int depth = m.kDepth();
  const std::int64_t outputs = m.rowsPerThread() * m.colsPerThread();
  if (sharedA && sharedB) {
    const int stages = pipelineStages(m);
    const QString copies =
        copyPhrase(m, Operand::A) + QStringLiteral(" and ") + copyPhrase(m, Operand::B);
    const QString layout = QStringLiteral(" (zero past the edges)") + layoutPhrase(m, Operand::A) +
                           layoutPhrase(m, Operand::B);
    const QString product = productPhrase(m);
    if (stages > 1 && m.pipeline()->fill == StageFill::Registers)
      return QStringLiteral(
                 "Two stages filled through registers: the next k-step's tiles are on their way "
                 "while this one is multiplied. In every k-step:\n1. each thread loads its share "
                 "of the next step's tiles into registers: %1%2\n2. %3\n3. it stores them into "
                 "the other buffer\n4. barrier (__syncthreads)")
          .arg(copies, layout, product);
    // An asynchronous MMA batch still reading a stage keeps it from being refilled at once.
    const int ahead = m.pipeline() ? m.pipeline()->ahead() : 0;
    if (stages > 1)
      return QStringLiteral(
                 "A %1-stage pipeline: %2 on their way while this one is multiplied. In every "
                 "k-step:\n1. wait for this step's tiles, barrier (__syncthreads)\n2. each thread "
                 "starts cp.async copies of the tiles %3 ahead into the buffer just freed: "
                 "%4%5\n3. %6")
          .arg(stages)
          .arg(ahead == 1 ? QStringLiteral("the next k-step's tiles are")
                          : QStringLiteral("the tiles of the next %1 k-steps are").arg(ahead))
          .arg(ahead == 1 ? QStringLiteral("one step") : QStringLiteral("%1 steps").arg(ahead))
          .arg(copies, layout, product);
    return QStringLiteral(
               "In every k-step:\n1. each thread copies %1 into the shared tiles%2\n2. barrier "
               "(__syncthreads)\n3. %3\n4. barrier, so that the next step may overwrite the "
               "tiles")
        .arg(copies, layout, product);
  }
  if (sharedA)
    return QStringLiteral(
               "In every k-step:\n1. each thread copies one element of A into the shared tile\n"
               "2. barrier (__syncthreads)\n3. each thread adds %1 products As[row][kk] × "
               "B[k][col], reading B from global memory\n4. barrier")
        .arg(depth);
  if (m.threadsPerBlock() > 1 && outputs > 1 && m.rowsPerThread() > 1)
    return QStringLiteral(
               "In every k-step each thread reads %1 values of A's column k and %2 of B's row k "
               "from global memory into registers and adds their %3 products to its %3 partial "
               "sums: reuse from registers, no shared memory.")
        .arg(m.rowsPerThread())
        .arg(m.colsPerThread())
        .arg(outputs);
  return QStringLiteral(
      "In every k-step each thread reads A[i][k] and B[k][j] from global memory and adds their "
      "product to its partial sum. Nothing is shared between threads: neighbours read the same "
      "values again.");
}

// The k-steps a pipeline has in flight while it multiplies `step`: the next stages - 1.
Range inFlight(const Mapping& m, std::int64_t step) {
  const std::optional<Pipeline> pipeline = m.pipeline();
  const std::int64_t ahead =
      std::min<std::int64_t>(pipeline ? pipeline->ahead() : 0, m.kSteps() - 1 - step);
  return {(step + 1) * m.kDepth(), std::max<std::int64_t>(ahead, 0) * m.kDepth()};
}

QBrush inFlightBrush(const DiagramTheme& theme) {
  return QBrush(theme.accent, Qt::Dense6Pattern);
}

// A thread's load instructions of the step parted by dots, each band of rows they fill named
// ("load 1", or "loads 4–7" where scalar copies of a vector take one instruction per element).
void paintLoads(QPainter& painter, const AxisScale& x, const AxisScale& y,
                const std::vector<StagedElement>& elements, std::int64_t regionCols,
                const DiagramTheme& theme, LabelLayout& labels) {
  drawLoadBoundaries(painter, x, y, elements, regionCols, theme.outline);
  const auto width = std::size_t(regionCols);
  painter.setFont(theme.font(8));
  painter.setPen(theme.text);
  auto bandOf = [&](std::size_t row) {
    const auto first = elements.begin() + std::ptrdiff_t(row * width);
    const auto [low, high] = std::minmax_element(
        first, first + std::ptrdiff_t(width),
        [](const StagedElement& a, const StagedElement& b) { return a.instr < b.instr; });
    return std::pair{low->instr, high->instr};
  };
  const std::size_t rowCount = elements.size() / width;
  for (std::size_t top = 0; top < rowCount;) {
    const auto band = bandOf(top);
    std::size_t end = top + 1;
    while (end < rowCount && bandOf(end) == band) ++end;
    const StagedElement& corner = elements[top * width];
    const QRectF rect =
        spanRect(x, y, {corner.cell.row, std::int64_t(end - top)}, {corner.cell.col, regionCols});
    drawFittedText(painter, labels, rect,
                   band.first == band.second
                       ? QStringLiteral("load %1").arg(band.first)
                       : QStringLiteral("loads %1–%2").arg(band.first).arg(band.second));
    top = end;
  }
}

void drawElementGrid(QPainter& painter, const QRectF& rect, const AxisScale& x, const AxisScale& y,
                     Range rows, Range cols) {
  if (x.pixelsPerUnit < kMinGridCell || y.pixelsPerUnit < kMinGridCell) return;
  std::vector<QLineF> lines;
  for (std::int64_t r = rows.begin + 1; r < rows.end(); ++r)
    lines.emplace_back(rect.left(), y.at(double(r)), rect.right(), y.at(double(r)));
  for (std::int64_t c = cols.begin + 1; c < cols.end(); ++c)
    lines.emplace_back(x.at(double(c)), rect.top(), x.at(double(c)), rect.bottom());
  painter.drawLines(lines.data(), int(lines.size()));
}

}  // namespace

KStepView::KStepView(DiagramDocument* document, QWidget* parent) : DiagramView(document, parent) {}

KStepView::Layout KStepView::layout(const QRectF& area, const DiagramTheme& theme) const {
  return fitted(recipePlace(area, theme).figure, theme);
}

QString KStepView::recipe() const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  return stepRecipe(m, m.regionA(sel.block, sel.step).shared,
                    m.regionB(sel.block, sel.step).shared);
}

void KStepView::nextRecipePart() {
  ++recipePart_;
  update();
}

KStepView::RecipePlace KStepView::recipePlace(const QRectF& area, const DiagramTheme& theme) const {
  RecipePlace place;
  place.font = theme.font(9 * (document()->presenting() ? kRecipeHallShare : 1.0));
  place.figure = area;
  const QRectF corner = cornerOf(fitted(area, theme), area, theme);
  const double needed = QFontMetricsF(place.font)
                            .boundingRect(QRectF(0, 0, corner.width(), 1e6),
                                          Qt::AlignLeft | Qt::TextWordWrap, recipe())
                            .height();
  const double width = kRecipeColumnShare * area.width();
  if ((corner.width() >= kMinCorner * theme.fontScale && needed <= corner.height()) ||
      width < kMinRecipeColumn * theme.fontScale)
    return place;
  const double gap = 20 * theme.fontScale;
  const QRectF figure = area.adjusted(0, 0, -width - gap, 0);
  // Not at the cost of the figure: where it would shrink much, the words give way.
  if (fitted(figure, theme).cols.pixelsPerUnit <
      kKeptFigure * fitted(area, theme).cols.pixelsPerUnit)
    return place;
  place.column = QRectF(area.right() - width, area.top(), width, area.height());
  place.figure = figure;
  return place;
}

KStepView::Layout KStepView::fitted(const QRectF& area, const DiagramTheme& theme) const {
  // The partial sums' bar goes under the C tile, or beside it where the view is wide and short:
  // whichever leaves the tiles larger.
  const Layout below = arrange(area, theme, false), beside = arrange(area, theme, true);
  return beside.cols.pixelsPerUnit > below.cols.pixelsPerUnit ? beside : below;
}

KStepView::Layout KStepView::arrange(const QRectF& area, const DiagramTheme& theme,
                                     bool progressBeside) const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const Range rows = m.blockRows(sel.block), cols = m.blockCols(sel.block);
  const Range kr = m.kRange(sel.step);
  const double kd = double(m.kDepth()), paddedK = double(m.kSteps() * m.kDepth());
  Layout l;
  l.sharedA = m.regionA(sel.block, sel.step).shared;
  l.sharedB = m.regionB(sel.block, sel.step).shared;
  l.labelHeight = QFontMetricsF(theme.font(9, true)).height() + 4 * theme.fontScale;
  const double gap = 20 * theme.fontScale;
  // Down the view an arrow needs less room than across it, and each gap holds a label line.
  const double gapDown = 12 * theme.fontScale + l.labelHeight;
  const double progressHeight = 2.2 * l.labelHeight;
  const double progressWidth = 220 * theme.fontScale;
  const double fixedWidth = gap * (l.sharedA ? 2 : 1) + (progressBeside ? gap + progressWidth : 0);
  const double fixedHeight = l.labelHeight + gapDown * (l.sharedB ? 2 : 1) +
                             (progressBeside ? 0 : progressHeight + 6 * theme.fontScale);
  const double width = area.width() - fixedWidth, height = area.height() - fixedHeight;
  const double unitsWide = double(cols.count) + (l.sharedA ? kd : 0);
  const double unitsHigh = double(rows.count) + (l.sharedB ? kd : 0);

  // Everything shares one scale, except that the panels' k axis may be squeezed so that a long K
  // does not shrink the block to a speck.
  double scale = std::min(width / (paddedK + unitsWide), height / (paddedK + unitsHigh));
  double kWide = paddedK * scale, kHigh = kWide;
  for (int pass = 0; pass < 2; ++pass) {
    kWide = std::clamp(paddedK * scale, kMinStrip, kPanelShare * width);
    kHigh = std::clamp(paddedK * scale, kMinStrip, kPanelShare * height);
    // A staged tile is drawn at least kMinStrip thick, however thin its k-step is.
    const double stripA = l.sharedA ? kMinStrip : 0, stripB = l.sharedB ? kMinStrip : 0;
    scale = std::min({(width - kWide) / unitsWide, (height - kHigh) / unitsHigh,
                      (width - kWide - stripA) / double(cols.count),
                      (height - kHigh - stripB) / double(rows.count),
                      largestCell(kMaxCell, area, theme)});
  }
  kWide = std::clamp(paddedK * scale, kMinStrip, kWide);
  kHigh = std::clamp(paddedK * scale, kMinStrip, kHigh);
  l.kCompressed = kWide < paddedK * scale - 0.5 || kHigh < paddedK * scale - 0.5;
  const double staged = std::max(kd * scale, kMinStrip);
  const double tileWidth = std::max(double(cols.count) * scale, 1.0);
  const double tileHeight = std::max(double(rows.count) * scale, 1.0);

  const double totalWidth = kWide + fixedWidth + (l.sharedA ? staged : 0) + tileWidth;
  const double totalHeight = fixedHeight + kHigh + (l.sharedB ? staged : 0) + tileHeight;
  const double left = area.left() + (area.width() - totalWidth) / 2;
  const double top = area.top() + (area.height() - totalHeight) / 2;

  const double stagedLeft = left + kWide + gap;
  const double tileLeft = l.sharedA ? stagedLeft + staged + gap : stagedLeft;
  const double panelBTop = top + l.labelHeight;
  const double stagedTop = panelBTop + kHigh + gapDown;
  const double tileTop = l.sharedB ? stagedTop + staged + gapDown : stagedTop;

  l.rows = {tileTop - double(rows.begin) * (tileHeight / double(rows.count)),
            tileHeight / double(rows.count)};
  l.cols = {tileLeft - double(cols.begin) * (tileWidth / double(cols.count)),
            tileWidth / double(cols.count)};
  l.panelK = {left, kWide / paddedK};
  l.panelKDown = {panelBTop, kHigh / paddedK};
  l.stagedK = {stagedLeft - double(kr.begin) * staged / kd, staged / kd};
  l.stagedKDown = {stagedTop - double(kr.begin) * staged / kd, staged / kd};
  const Range allK{0, m.kSteps() * m.kDepth()};
  l.panelA = spanRect(l.panelK, l.rows, rows, allK);
  l.panelB = spanRect(l.cols, l.panelKDown, allK, cols);
  l.stagedA = l.sharedA ? spanRect(l.stagedK, l.rows, rows, kr) : QRectF();
  l.stagedB = l.sharedB ? spanRect(l.cols, l.stagedKDown, kr, cols) : QRectF();
  l.tile = spanRect(l.cols, l.rows, rows, cols);
  l.progress = progressBeside
                   ? QRectF(l.tile.right() + gap, l.tile.center().y() - progressHeight / 2,
                            progressWidth, progressHeight)
                   : QRectF(l.tile.left(), l.tile.bottom() + 6 * theme.fontScale,
                            std::clamp(progressWidth, l.tile.width(), area.right() - l.tile.left()),
                            progressHeight);
  return l;
}

QString KStepView::caption() const {
  const Mapping& m = *document()->mapping();
  const DiagramSelection& sel = document()->selection();
  const Range values = kStepValues(m, sel.step);
  const bool sharedA = m.regionA(sel.block, sel.step).shared;
  const bool sharedB = m.regionB(sel.block, sel.step).shared;
  const QString what = sharedA && sharedB ? QStringLiteral("A and B tiles staged in shared memory")
                       : sharedA ? QStringLiteral("A staged in shared memory, B read from global")
                                 : QStringLiteral("A and B read straight from global memory");
  QString step = QString::fromStdString(kStepText(m, sel.step));
  step[0] = step[0].toUpper();
  return QStringLiteral("%1 (k = %2..%3) in block (%4,%5): %6; the partial sums grow.")
      .arg(step)
      .arg(values.begin)
      .arg(values.end() - 1)
      .arg(sel.block.x)
      .arg(sel.block.y)
      .arg(what);
}

std::vector<DiagramView::LegendEntry> KStepView::legend(const DiagramTheme& theme) const {
  std::vector<LegendEntry> entries{
      {theme.done, QStringLiteral("k-steps already summed")},
      {theme.accentFill, QStringLiteral("this k-step's slices of A and B")}};
  if (pipelineStages(*document()->mapping()) > 1)
    entries.push_back(
        {inFlightBrush(theme),
         QStringLiteral("on their way (%1)")
             .arg(QLatin1String(stageFillName(document()->mapping()->pipeline()->fill)))});
  entries.push_back({theme.pending, QStringLiteral("k-steps still to come")});
  entries.push_back(
      {QBrush(theme.padding, Qt::BDiagPattern), QStringLiteral("padding: read as zero")});
  return entries;
}

void KStepView::paintDiagram(QPainter& painter, const QRectF& whole, const DiagramTheme& theme,
                             LabelLayout& labels) {
  const Mapping& m = *document()->mapping();
  const Shape& s = m.shape();
  const DiagramSelection& sel = document()->selection();
  // The figure and its labels keep to their share: the recipe may take a column of its own.
  const QRectF area = recipePlace(whole, theme).figure;
  const Layout l = fitted(area, theme);
  const Range rows = m.blockRows(sel.block), cols = m.blockCols(sel.block);
  const Range kr = m.kRange(sel.step);
  const Range allK{0, m.kSteps() * m.kDepth()};
  const Range doneK{0, kr.begin};

  // The A row panel and the B column panel in global memory; a pipeline's later k-steps already
  // on their way to shared memory.
  const Range flyingK = inFlight(m, sel.step);
  const QBrush flying = inFlightBrush(theme);
  painter.fillRect(l.panelA, theme.pending);
  painter.fillRect(spanRect(l.panelK, l.rows, rows, doneK), theme.done);
  painter.fillRect(spanRect(l.panelK, l.rows, rows, flyingK), flying);
  const QRectF stripA = spanRect(l.panelK, l.rows, rows, kr);
  painter.fillRect(stripA, theme.accentFill);
  hatchPadding(painter, l.panelK, l.rows, rows, allK, s.m, s.k, theme.padding);
  painter.fillRect(l.panelB, theme.pending);
  painter.fillRect(spanRect(l.cols, l.panelKDown, doneK, cols), theme.done);
  painter.fillRect(spanRect(l.cols, l.panelKDown, flyingK, cols), flying);
  const QRectF stripB = spanRect(l.cols, l.panelKDown, kr, cols);
  painter.fillRect(stripB, theme.accentFill);
  hatchPadding(painter, l.cols, l.panelKDown, allK, cols, s.k, s.n, theme.padding);

  painter.setBrush(Qt::NoBrush);
  if (m.kSteps() > 1 && m.kDepth() * l.panelK.pixelsPerUnit >= 8) {
    painter.setPen(QPen(theme.muted, 0, Qt::DotLine));
    for (std::int64_t k = m.kDepth(); k < allK.end(); k += m.kDepth()) {
      painter.drawLine(QLineF(l.panelK.at(double(k)), l.panelA.top(), l.panelK.at(double(k)),
                              l.panelA.bottom()));
      painter.drawLine(QLineF(l.panelB.left(), l.panelKDown.at(double(k)), l.panelB.right(),
                              l.panelKDown.at(double(k))));
    }
  }
  painter.setPen(QPen(theme.outline, 1));
  painter.drawRect(l.panelA);
  painter.drawRect(l.panelB);
  painter.setPen(QPen(theme.accent, 2));
  painter.drawRect(stripA);
  painter.drawRect(stripB);

  // The staged tiles, or arrows straight into C for kernels without shared memory.
  const QColor arrow = theme.accent;
  if (l.sharedA) {
    painter.fillRect(l.stagedA, theme.accentFill);
    if (m.instructionsPerStep(Access::LoadA) > 1)
      paintLoads(painter, l.stagedK, l.rows, stagedElements(m, sel.block, sel.step, Operand::A),
                 kr.count, theme, labels);
    hatchPadding(painter, l.stagedK, l.rows, rows, kr, s.m, s.k, theme.padding);
    painter.setPen(QPen(theme.outline, 0));
    drawElementGrid(painter, l.stagedA, l.stagedK, l.rows, rows, kr);
    painter.setPen(QPen(theme.accent, 2));
    painter.drawRect(l.stagedA);
    drawArrow(painter, stripA.center(), QPointF(l.stagedA.left() - 2, stripA.center().y()), arrow,
              2);
  } else {
    drawArrow(painter, stripA.center(), QPointF(l.tile.left() - 3, stripA.center().y()), arrow, 2);
  }
  if (l.sharedB) {
    painter.fillRect(l.stagedB, theme.accentFill);
    if (m.instructionsPerStep(Access::LoadB) > 1)
      paintLoads(painter, l.cols, l.stagedKDown, stagedElements(m, sel.block, sel.step, Operand::B),
                 cols.count, theme, labels);
    hatchPadding(painter, l.cols, l.stagedKDown, kr, cols, s.k, s.n, theme.padding);
    painter.setPen(QPen(theme.outline, 0));
    drawElementGrid(painter, l.stagedB, l.cols, l.stagedKDown, kr, cols);
    painter.setPen(QPen(theme.accent, 2));
    painter.drawRect(l.stagedB);
    drawArrow(painter, stripB.center(), QPointF(stripB.center().x(), l.stagedB.top() - 2), arrow,
              2);
  } else {
    drawArrow(painter, stripB.center(), QPointF(stripB.center().x(), l.tile.top() - 3), arrow, 2);
  }

  // The C tile: its colour deepens as the partial sums take in more of K.
  const std::int64_t summed = summedProducts(m, sel.step);
  const double progress = double(summed) / double(s.k);
  painter.fillRect(l.tile, blend(theme.pending, theme.done, 0.25 + 0.75 * progress));
  hatchPadding(painter, l.cols, l.rows, rows, cols, s.m, s.n, theme.padding);
  painter.setPen(QPen(theme.outline, 0));
  drawElementGrid(painter, l.tile, l.cols, l.rows, rows, cols);
  painter.setPen(QPen(theme.accent, 2.5));
  painter.drawRect(l.tile);
  painter.setPen(theme.text);
  painter.setFont(theme.font(9, true));
  drawFittedText(painter, labels, l.tile, QStringLiteral("Σ k < %1").arg(summed));

  // Progress of the partial sums under the tile.
  const double barHeight = l.progress.height() * 0.35;
  const QRectF bar(l.progress.left(), l.progress.top(), l.progress.width(), barHeight);
  painter.fillRect(bar, theme.pending);
  painter.fillRect(QRectF(bar.left(), bar.top(), bar.width() * progress, bar.height()), theme.done);
  painter.setPen(QPen(theme.outline, 0));
  painter.drawRect(bar);

  for (const QRectF& figure : {l.panelA, l.panelB, l.stagedA, l.stagedB, l.tile, bar})
    labels.reserveFigure(figure);
  const QFont bold = theme.font(9, true), plain = theme.font(9), small = theme.font(8.5);
  // Labels in order of importance: a later one gives way to an earlier one.
  const QString aRows = QStringLiteral("A rows %1..%2").arg(rows.begin).arg(rows.end() - 1);
  const QString bCols = QStringLiteral("B columns %1..%2").arg(cols.begin).arg(cols.end() - 1);
  const QString squeezed = l.kCompressed ? QStringLiteral(", K not to scale") : QString();
  auto above = [&](const QRectF& over, double right) {
    return LabelSpot{
        QRectF(over.left(), over.top() - l.labelHeight, right - over.left() - 4, l.labelHeight)};
  };
  const double besideA = l.sharedA ? l.stagedA.left() : l.tile.left();
  labels.place({aRows + squeezed, aRows, QStringLiteral("A")}, bold, theme.text,
               {above(l.panelA, besideA)});
  labels.place({bCols + squeezed, bCols, QStringLiteral("B")}, bold, theme.text,
               {above(l.panelB, area.right())});
  if (l.sharedA)
    labels.place({QStringLiteral("shared As"), QStringLiteral("As")}, bold, theme.text,
                 {above(l.stagedA, area.right())});
  if (l.sharedB)
    labels.place({QStringLiteral("shared Bs"), QStringLiteral("Bs")}, bold, theme.text,
                 {{QRectF(area.left(), l.stagedB.top(), l.stagedB.left() - area.left() - 6,
                          l.stagedB.height()),
                   Qt::AlignRight | Qt::AlignVCenter},
                  above(l.stagedB, area.right())});
  labels.place(
      {QStringLiteral("partial sums: %1 of %2 products (%3)")
           .arg(summed)
           .arg(s.k)
           .arg(percentText(progress)),
       QStringLiteral("%1 of %2 products (%3)").arg(summed).arg(s.k).arg(percentText(progress)),
       percentText(progress)},
      plain, theme.text,
      {{QRectF(bar.left(), bar.bottom(), area.right() - bar.left(),
               l.progress.height() - barHeight)}});
  if (!l.sharedA || !l.sharedB)
    labels.place({QStringLiteral("arrows: read straight from global memory"),
                  QStringLiteral("arrows: from global memory")},
                 small, theme.muted,
                 {{QRectF(area.left(), l.tile.bottom() + 6 * theme.fontScale,
                          l.tile.left() - area.left() - 8, area.bottom() - l.tile.bottom()),
                   Qt::AlignLeft | Qt::AlignTop}},
                 true);
  paintRecipe(l, whole, theme, labels);
}

void KStepView::paintRecipe(const Layout& l, const QRectF& area, const DiagramTheme& theme,
                            LabelLayout& labels) {
  const RecipePlace place = recipePlace(area, theme);
  if (place.column.isEmpty()) {
    // The empty corner left of the B panel explains the step in words, where it fits.
    const QRectF corner = cornerOf(l, area, theme);
    std::vector<LabelSpot> cornerSpots{{corner, Qt::AlignLeft | Qt::AlignTop}};
    // Above "shared Bs" where that label took the corner's foot.
    if (l.sharedB)
      cornerSpots.push_back(
          {QRectF(corner.left(), corner.top(), corner.width(), l.stagedB.top() - 4 - corner.top()),
           Qt::AlignLeft | Qt::AlignTop});
    if (corner.width() >= kMinCorner * theme.fontScale)
      labels.place({recipe()}, place.font, theme.text, cornerSpots, true);
    return;
  }
  // A column of its own, part by part where the whole is longer: T or a click turns the part.
  const double noteHeight = QFontMetricsF(place.font).height() + 8 * theme.fontScale;
  QStringList parts =
      textPages(recipe(), place.font, place.column.adjusted(0, 0, 0, -noteHeight).size());
  if (parts.size() == 1) parts = textPages(recipe(), place.font, place.column.size());
  const int part = recipePart_ % int(parts.size());
  labels.place({parts[part]}, place.font, theme.text,
               {{place.column, Qt::AlignLeft | Qt::AlignTop}}, true, false);
  if (parts.size() > 1)
    labels.place(
        {QStringLiteral("part %1 of %2 · T or a click: the next").arg(part + 1).arg(parts.size()),
         QStringLiteral("%1 of %2 · T: next").arg(part + 1).arg(parts.size())},
        place.font, theme.muted,
        {{QRectF(place.column.left(), place.column.bottom() - noteHeight, place.column.width(),
                 noteHeight),
          Qt::AlignLeft | Qt::AlignBottom}});
}

QString KStepView::hoverText(const QRectF& area, QPointF pos) const {
  const Mapping& m = *document()->mapping();
  const Shape& s = m.shape();
  const DiagramSelection& sel = document()->selection();
  const Layout l = layout(area, widgetTheme());
  const auto i = std::int64_t(std::floor(l.rows.coordinateAt(pos.y())));
  const auto j = std::int64_t(std::floor(l.cols.coordinateAt(pos.x())));
  const std::int64_t summed = summedProducts(m, sel.step);

  auto whenText = [&](std::int64_t k) {
    const std::int64_t step = k / m.kDepth();
    if (step < sel.step) return QStringLiteral("used in k-step %1 (done)").arg(step);
    if (step == sel.step) return QStringLiteral("used in this k-step (%1)").arg(step);
    const Range flying = inFlight(m, sel.step);
    if (k >= flying.begin && k < flying.end())
      return QStringLiteral("used in k-step %1 (on its way to shared memory: %2)")
          .arg(step)
          .arg(QLatin1String(stageFillName(m.pipeline()->fill)));
    return QStringLiteral("used in k-step %1 (to come)").arg(step);
  };
  auto staged = [&](Operand operand, Cell cell) {
    const std::int64_t step = (operand == Operand::A ? cell.col : cell.row) / m.kDepth();
    const std::optional<StagedElement> element = stagedElementAt(m, sel.block, step, operand, cell);
    return QStringLiteral(", ") +
           QString::fromStdString(element ? loaderText(m, sel.block, step, operand, *element)
                                          : std::string("no thread loads it"));
  };
  auto describeA = [&](std::int64_t k) {
    if (i >= s.m || k >= s.k) return QStringLiteral("padding: A is read as zero here");
    QString text = QStringLiteral("A[%1][%2]: %3").arg(i).arg(k).arg(whenText(k));
    if (l.sharedA) text += staged(Operand::A, {i, k});
    return text;
  };
  auto describeB = [&](std::int64_t k) {
    if (k >= s.k || j >= s.n) return QStringLiteral("padding: B is read as zero here");
    QString text = QStringLiteral("B[%1][%2]: %3").arg(k).arg(j).arg(whenText(k));
    if (l.sharedB) text += staged(Operand::B, {k, j});
    return text;
  };

  if (l.tile.contains(pos)) {
    if (i >= s.m || j >= s.n)
      return QStringLiteral("padding: past the edge of C, nothing is written here");
    return QString::fromStdString(ownerText(m, i, j)) +
           QStringLiteral("; after this step %1 of %2 products are summed").arg(summed).arg(s.k);
  }
  if (l.panelA.contains(pos)) return describeA(std::int64_t(l.panelK.coordinateAt(pos.x())));
  if (l.sharedA && l.stagedA.contains(pos))
    return QStringLiteral("shared As ← ") +
           describeA(std::int64_t(l.stagedK.coordinateAt(pos.x())));
  if (l.panelB.contains(pos)) return describeB(std::int64_t(l.panelKDown.coordinateAt(pos.y())));
  if (l.sharedB && l.stagedB.contains(pos))
    return QStringLiteral("shared Bs ← ") +
           describeB(std::int64_t(l.stagedKDown.coordinateAt(pos.y())));
  return {};
}

void KStepView::clickAt(const QRectF& area, QPointF pos) {
  if (recipePlace(area, widgetTheme()).column.contains(pos)) {
    nextRecipePart();
    return;
  }
  const Mapping& m = *document()->mapping();
  const Layout l = layout(area, widgetTheme());
  double k = -1;
  if (l.panelA.contains(pos)) k = l.panelK.coordinateAt(pos.x());
  if (l.panelB.contains(pos)) k = l.panelKDown.coordinateAt(pos.y());
  if (k < 0) return;
  DiagramSelection selection = document()->selection();
  selection.step = std::int64_t(k) / m.kDepth();
  document()->setSelection(selection);
}

}  // namespace tilescope::ui
