// SPDX-License-Identifier: GPL-3.0-or-later
#include "access_view.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "access_banks.hpp"

namespace tilescope::ui {

namespace {

// A bank column shows at most this many words, then "+n" (shared among a read's phases).
constexpr int kMaxBankRows = 8;
constexpr double kMinMemoryHeight = 80;  // below this the words around give way to memory rows
constexpr double kMinBankBox = 7;        // thinnest a bank row is drawn, in pixels
// The rows' names and the lanes' numbers: 12 pixels at scale 1, read from a desk; presenting, no
// less than 20 pixels, read from the back of a room.
constexpr double kRowTextPoints = 9, kRowHallPoints = 15;
// A gap's note takes this share of a line's row, or the thin one where the lines need the room.
constexpr double kNoteShare = 0.6, kThinNoteShare = 0.25;
// The rows' names take the widest one's room, up to this share of the panel's width.
constexpr double kMaxNameShare = 0.3;
// A line's row, where the view may grow to draw every line: a little more than its text needs.
constexpr double kRoomyRow = 1.3;
// Room the lanes' threads down to the words take, where the panel is tall enough.
constexpr double kFanHeight = 30;
constexpr int kWrap = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;

double textHeight(const QFont& font, double width, const QString& text) {
  return QFontMetricsF(font).boundingRect(QRectF(0, 0, width, 1e6), kWrap, text).height();
}

// A memory row's name: the first element its line holds.
QString lineName(const AccessPicture& picture, std::int64_t line, std::int64_t operandElements) {
  const std::int64_t first = line * (kLineBytes / picture.elementBytes);
  if (first >= operandElements) return QStringLiteral("past the end");
  const Cell cell = picture.cellOf(first);
  return QStringLiteral("%1[%2][%3]")
      .arg(QLatin1String(operandName(picture.operand)))
      .arg(cell.row)
      .arg(cell.col);
}

std::int64_t operandElementsOf(const AccessView::Panel& panel) {
  const Shape& shape = panel.mapping->shape();
  return operandRows(shape, panel.picture.operand) * panel.picture.operandCols;
}

// The lanes numbered in the lane strip: every one where a cell holds two digits, else every
// second, fourth, ... lane (each number starts at its lane's cell); the words below still carry
// every lane's number where a vector's box is wide enough.
int laneNumberStride(const QFont& font, double wordWidth) {
  const double digits = QFontMetricsF(font).horizontalAdvance(QStringLiteral("00")) + 2;
  int stride = 1;
  while (stride < kWarpSize && stride * wordWidth < digits) stride *= 2;
  return stride;
}

// Rows each phase gets in the bank strip: all its passes, up to a fair share of `maxRows`.
std::vector<int> phaseRowsOf(const std::vector<BankPhase>& phases, int maxRows = kMaxBankRows) {
  const int share = std::max(maxRows / std::max(int(phases.size()), 1), 2);
  std::vector<int> rows;
  for (const BankPhase& phase : phases) rows.push_back(std::clamp(phase.passes(), 1, share));
  return rows;
}

}  // namespace

AccessView::AccessView(DiagramDocument* document, QWidget* parent)
    : DiagramView(document, parent) {}

const KernelTraffic* AccessView::compareTraffic(const Mapping& compare) const {
  if (!compareTraffic_ || !(compareTraffic_->config == compare.config()) ||
      !(compareTraffic_->shape == compare.shape()))
    compareTraffic_ = CompareTraffic{compare.config(), compare.shape(), kernelTraffic(compare)};
  return &compareTraffic_->traffic;
}

std::vector<AccessView::Panel> AccessView::panels() const {
  std::vector<Panel> result;
  auto add = [&](const Mapping& m, const KernelTraffic* traffic) {
    Panel panel;
    panel.mapping = &m;
    panel.selection = clampSelection(m, document()->selection());
    const DiagramSelection& s = panel.selection;
    panel.picture = accessPicture(m, s.block, s.warp, s.access, s.step, s.instr);
    // The staged tile of the operand this access reads, else the kernel's other staged tile.
    const Operand preferred = s.access == Access::LoadB ? Operand::B : Operand::A;
    for (const Operand operand : {preferred, preferred == Operand::A ? Operand::B : Operand::A}) {
      const int accesses = s.sharedWrite ? m.sharedWriteSlots(operand) : m.sharedReadSlots(operand);
      const int slot = std::min(s.readSlot, accesses - 1);
      if (auto banks =
              bankPicture(m, operand, s.warp, s.innerK, s.pad, slot, s.step, s.sharedWrite)) {
        panel.banks = *banks;
        panel.bankOperand = operand;
        panel.bankSlot = slot;
        break;
      }
    }
    panel.traffic = traffic;
    panel.counted = document()->countedRun(m);
    result.push_back(std::move(panel));
  };
  add(*document()->mapping(), document()->traffic());
  if (const Mapping* compare = document()->compareMapping())
    add(*compare, compareTraffic(*compare));
  return result;
}

QString AccessView::caption() const {
  if (const SanitizerFinding* finding = document()->sanitizerFinding()) {
    const ThreadRef at = document()->mapping()->threadRef(finding->block, finding->thread);
    const DiagramSelection& s = document()->selection();
    const bool drawn =
        s.warp == at.warp && s.block.x == finding->block.x && s.block.y == finding->block.y;
    return QStringLiteral("Sanitizer: %1, lane %2 of %3. The trace ends where the launch stopped.")
        .arg(QString::fromStdString(finding->summary()))
        .arg(at.lane)
        .arg(drawn ? QStringLiteral("this warp") : QStringLiteral("warp %1").arg(at.warp));
  }
  return QStringLiteral(
      "One warp's 32 lanes over memory: a 32-byte sector is fetched whole, so lanes far apart "
      "waste bandwidth.");
}

std::vector<DiagramView::LegendEntry> AccessView::legend(const DiagramTheme& theme) const {
  QLinearGradient lanes(0, 0, 13 * theme.fontScale, 0);
  lanes.setColorAt(0, theme.laneColor(0));
  lanes.setColorAt(0.5, theme.laneColor(16));
  lanes.setColorAt(1, theme.laneColor(31));
  // A 4-byte word holds two elements of a 16-bit type.
  const Mapping* m = document()->mapping();
  const QString words =
      m && storageBytes(m->element()) == 2
          ? QStringLiteral(
                "lanes 0..31 and the 4-byte words they touch (two %1 "
                "each; a 16-byte vector: four)")
                .arg(QLatin1String(toString(m->element())))
          : QStringLiteral("lanes 0..31 and the words they touch (a float4: four)");
  std::vector<LegendEntry> entries;
  // The sanitizer's thread first: the legend gives up its last entries where room is short.
  if (const SanitizerFinding* finding = document()->sanitizerFinding()) {
    const ThreadRef at = m->threadRef(finding->block, finding->thread);
    entries.push_back({theme.laneColor(at.lane),
                       QStringLiteral("lane %1 of warp %2: thread (%3,%4), the sanitizer's finding")
                           .arg(at.lane)
                           .arg(at.warp)
                           .arg(finding->thread.x)
                           .arg(finding->thread.y)});
  }
  entries.insert(
      entries.end(),
      {{QBrush(lanes), words},
       {theme.accentFill, QStringLiteral("sector fetched (32 bytes)")},
       {theme.pending, QStringLiteral("sector not fetched")},
       {theme.idle, QStringLiteral("idle lane")},
       {QBrush(theme.padding, Qt::BDiagPattern), QStringLiteral("past the end of the matrix")},
       {Qt::NoBrush,
        QStringLiteral("orange outline: a bank serving several words in one phase (conflict)")}});
  return entries;
}

std::vector<QRectF> AccessView::panelRects(const QRectF& area, std::size_t count) const {
  if (count <= 1) return {area};
  const double gap = 24;
  const double width = (area.width() - gap) / 2;
  return {QRectF(area.left(), area.top(), width, area.height()),
          QRectF(area.left() + width + gap, area.top(), width, area.height())};
}

std::vector<QString> AccessView::rowNames(const Panel& panel) {
  std::vector<QString> names{QStringLiteral("lanes")};
  const std::int64_t elements = operandElementsOf(panel);
  for (const std::int64_t line : panel.picture.lines)
    names.push_back(lineName(panel.picture, line, elements));
  if (panel.banks) {
    names.push_back(QStringLiteral("bank"));
    for (const BankPhase& phase : bankPhases(*panel.banks)) names.push_back(laneSpan(phase));
  }
  return names;
}

AccessView::PanelLayout AccessView::panelLayout(const QRectF& rect, const Panel& panel,
                                                const DiagramTheme& theme) const {
  const double scale = theme.fontScale;
  const double gap = 8 * scale;
  PanelLayout l;
  const bool presenting = document()->presenting();
  l.rowFont = theme.font(kRowTextPoints);
  if (presenting && l.rowFont.pointSizeF() < kRowHallPoints)
    l.rowFont.setPointSizeF(kRowHallPoints);
  const QFontMetricsF rowMetrics(l.rowFont);
  double widestName = 0;
  for (const QString& name : rowNames(panel))
    widestName = std::max(widestName, rowMetrics.horizontalAdvance(name));
  const double labelWidth = std::min(widestName + 8 * scale, kMaxNameShare * rect.width());
  l.wordsLeft = rect.left() + labelWidth;
  l.wordWidth = (rect.right() - l.wordsLeft) / kWarpSize;
  const double wordsWidth = rect.right() - l.wordsLeft;
  const double lanesHeight = std::max(18 * scale, rowMetrics.height() + 4);
  // Room for the lanes' threads down to the words, less where the panel is short.
  double fanHeight = std::min(kFanHeight * scale, 0.06 * rect.height());
  // A row keeps its name and its lanes' numbers whole: thinner rows give way to a note.
  // (Presenting, with no more room than the text needs: the rows are large already.)
  l.minRowHeight = rowMetrics.height() + (presenting ? 3 : 4);

  // One row per line touched, and a gap row wherever untouched lines lie between two of them.
  const std::vector<std::int64_t>& lines = panel.picture.lines;
  for (std::size_t n = 0; n < lines.size(); ++n) {
    if (n > 0 && lines[n] > lines[n - 1] + 1)
      l.rows.push_back({-1, lines[n] - lines[n - 1] - 1, 0, 0, 0});
    l.rows.push_back({lines[n], 0, 0, 0, 0});
  }
  // Notes take less height than a line; where the lines would not all fit, a gap's note thins
  // to a dashed rule (its words give way before a line does).
  std::size_t split = l.rows.size();  // the first row of the second column, if any
  const auto unitsOf = [&](double share) {
    double first = 0, second = 0;
    for (std::size_t r = 0; r < l.rows.size(); ++r)
      (r < split ? first : second) += l.rows[r].line < 0 ? share : 1.0;
    return std::max(first, second);
  };
  // Presenting, lines that one column cannot hold even where every word around gives way
  // (prefetched's A load: 16 lines on a 720-pixel projector) share two columns side by side,
  // where a vector's box in the narrower words still holds its lane's number.
  const double columnGap = 3 * gap;
  const double splitWordWidth = (rect.width() - 2 * labelWidth - columnGap) / (2 * kWarpSize);
  const double laneWords =
      std::max(1.0, std::ceil(double(laneBytes(panel.picture)) / double(kWordBytes)));
  const double leastAround = 3 * gap + lanesHeight + 0.3 * fanHeight;
  const auto fits = [&] {
    return unitsOf(kThinNoteShare) * l.minRowHeight + 1 <= rect.height() - leastAround;
  };
  if (presenting && lines.size() > 1 && !fits() &&
      laneWords * splitWordWidth - 3 >= rowMetrics.horizontalAdvance(QStringLiteral("00"))) {
    std::size_t kept = 0;
    split = 0;
    while (kept < (lines.size() + 1) / 2) kept += l.rows[split++].line >= 0;
    while (l.rows[split].line < 0) ++split;  // a gap's note stays under the first column
    if (!fits()) split = l.rows.size();
  }
  l.rowWordWidth = split < l.rows.size() ? splitWordWidth : l.wordWidth;
  l.nameWidth = labelWidth - 4;
  double noteShare = kNoteShare;
  double units = unitsOf(noteShare);

  // The figure comes first: the words around it shrink, then the least needed give way, until
  // the lanes, some lines of memory and every bank row fit.
  l.textFont = theme.font(8.5);
  const QFont headerFont = theme.font(9, true);
  double headerHeight = textHeight(headerFont, rect.width(), header(panel));
  double statsHeight = 0, footerHeight = 0;
  int bankRows = 0;
  if (panel.banks) {
    l.phaseRows = phaseRowsOf(bankPhases(*panel.banks));
    bankRows = std::accumulate(l.phaseRows.begin(), l.phaseRows.end(), 0);
  }
  const double phaseGaps = panel.banks ? double(l.phaseRows.size() - 1) * 3 * scale : 0;
  auto measure = [&] {
    statsHeight = textHeight(l.textFont, rect.width(), stats(panel.picture));
    footerHeight = textHeight(l.textFont, rect.width(), footer(panel));
    l.bankTextHeight = panel.banks ? textHeight(l.textFont, rect.width(), bankCaption(panel)) : 0;
    l.bankIndexHeight = panel.banks ? QFontMetricsF(theme.font(7.5)).height() + 3 * scale : 0;
  };
  measure();
  l.bankBoxHeight = std::max(15 * scale, rowMetrics.height() + 2);
  bool withBanks = panel.banks.has_value();
  auto bankStrip = [&] {
    return withBanks
               ? l.bankTextHeight + l.bankIndexHeight + bankRows * l.bankBoxHeight + phaseGaps + gap
               : 0;
  };
  // The height that draws every line touched, roomily, with all the words at full size.
  l.wantedHeight = headerHeight + gap + lanesHeight + kFanHeight * scale +
                   units * kRoomyRow * l.minRowHeight + statsHeight + bankStrip() + footerHeight +
                   2 * gap;
  // Presenting, every line touched keeps its row: the words and the bank strip give way first.
  const double memoryWanted =
      presenting ? unitsOf(kThinNoteShare) * l.minRowHeight + 1
                 : std::min(kMinMemoryHeight * scale, double(lines.size()) * l.minRowHeight + 1);
  auto spare = [&] {
    return rect.height() - headerHeight - gap - lanesHeight - fanHeight - statsHeight -
           bankStrip() - footerHeight - 2 * gap - memoryWanted;
  };
  // Where the panel has room, the strip grows down to draw every pass of a bank that serves
  // more words than kMaxBankRows (a column of the tile in one bank: 32).
  if (panel.banks && spare() >= l.bankBoxHeight) {
    const int grown = std::max(kMaxBankRows, bankRows + int(spare() / l.bankBoxHeight));
    l.phaseRows = phaseRowsOf(bankPhases(*panel.banks), std::min(grown, kWarpSize));
    bankRows = std::accumulate(l.phaseRows.begin(), l.phaseRows.end(), 0);
  }
  if (spare() < 0) footerHeight = 0;
  if (spare() < 0) {
    l.textFont.setPointSizeF(l.textFont.pointSizeF() * LabelLayout::kMinFontShare);
    measure();
    footerHeight = 0;
  }
  auto thinBanks = [&] {
    if (spare() < 0) l.bankTextHeight = 0;
    if (spare() < 0 && bankRows > 0)
      l.bankBoxHeight = std::max(l.bankBoxHeight + spare() / bankRows, kMinBankBox);
  };
  // Presenting, the request's figures (lanes, sectors, efficiency) stay before the bank strip's.
  if (presenting) thinBanks();
  if (spare() < 0) statsHeight = 0;
  if (spare() < 0) headerHeight = QFontMetricsF(headerFont).height();
  thinBanks();
  // Presenting, the lines of memory come before the rest: the fan thins, then the bank strip
  // (its own control still picks it) and the panel's header (the title says most of it) go.
  if (presenting && spare() < 0) fanHeight = std::max(fanHeight + spare(), 0.3 * fanHeight);
  if (presenting && spare() < 0) withBanks = false;
  if (presenting && spare() < 0) headerHeight = 0;

  l.header = QRectF(rect.left(), rect.top(), rect.width(), headerHeight);
  l.lanes = QRectF(l.wordsLeft, l.header.bottom() + gap, wordsWidth, lanesHeight);
  const double memoryTop = l.lanes.bottom() + fanHeight;
  const double bankHeight = bankStrip();
  const double memoryBottom = rect.bottom() - statsHeight - bankHeight - footerHeight - 2 * gap;

  const double available = std::max(memoryBottom - memoryTop, 1.0);
  if (units * l.minRowHeight > available) {
    noteShare = kThinNoteShare;
    units = unitsOf(noteShare);
  }
  l.rowHeight = l.rows.empty() ? 0
                               : std::clamp(available / units, l.minRowHeight,
                                            std::max(30 * scale, l.minRowHeight));
  // Where even the thinnest rows do not fit, the last rows give way to one note.
  if (split == l.rows.size() && units * l.rowHeight > available + 0.5) {
    double used = kNoteShare * l.rowHeight;
    std::size_t kept = 0;
    while (kept < l.rows.size() &&
           used + (l.rows[kept].line < 0 ? noteShare : 1.0) * l.rowHeight <= available)
      used += (l.rows[kept++].line < 0 ? noteShare : 1.0) * l.rowHeight;
    // A gap's note next to the rest's would crowd it; the rest's says enough.
    while (kept > 0 && l.rows[kept - 1].line < 0) --kept;
    const auto hidden = std::count_if(l.rows.begin() + std::ptrdiff_t(kept), l.rows.end(),
                                      [](const MemoryRow& row) { return row.line >= 0; });
    l.rows.resize(kept);
    l.rows.push_back({-1, 0, std::int64_t(hidden), 0, 0});
  }
  double memoryEnd = memoryTop, columnEnd = memoryTop;
  for (std::size_t r = 0; r < l.rows.size(); ++r) {
    MemoryRow& row = l.rows[r];
    if (r == split) columnEnd = memoryTop;
    row.nameLeft = r < split ? rect.left() : rect.right() - kWarpSize * l.rowWordWidth - labelWidth;
    row.wordsLeft = row.nameLeft + labelWidth;
    row.top = columnEnd;
    row.height = row.line < 0 && row.hidden == 0 ? noteShare * l.rowHeight
                 : row.line < 0                  ? kNoteShare * l.rowHeight
                                                 : l.rowHeight;
    columnEnd += row.height;
    memoryEnd = std::max(memoryEnd, columnEnd);
  }
  // The sections below follow the memory rows directly.
  l.stats = QRectF(rect.left(), memoryEnd + gap, rect.width(), statsHeight);
  l.banks = QRectF(rect.left(), l.stats.bottom() + gap, rect.width(), bankHeight);
  l.footer = QRectF(rect.left(), l.banks.bottom() + (bankHeight > 0 ? gap : 0), rect.width(),
                    footerHeight);
  return l;
}

int AccessView::heightFor(int width) const {
  if (!document()->mapping() || emptyState()) return 0;
  const DiagramTheme theme = widgetTheme();
  const std::vector<Panel> all = panels();
  // The frame around the figure (title, caption, legend) depends a little on the height: twice
  // settles it.
  double height = 2000;
  for (int pass = 0; pass < 2; ++pass) {
    const QRectF area(0, 0, width, height);
    const QRectF diagram = diagramArea(area, theme);
    const std::vector<QRectF> rects = panelRects(diagram, all.size());
    double wanted = 0;
    for (std::size_t p = 0; p < all.size(); ++p)
      wanted = std::max(wanted, panelLayout(rects[p], all[p], theme).wantedHeight);
    height = area.height() - diagram.height() + wanted;
  }
  return int(std::ceil(height));
}

void AccessView::paintDiagram(QPainter& painter, const QRectF& area, const DiagramTheme& theme,
                              LabelLayout& labels) {
  const std::vector<Panel> all = panels();
  const std::vector<QRectF> rects = panelRects(area, all.size());
  for (std::size_t p = 0; p < all.size(); ++p) paintPanel(painter, rects[p], all[p], theme, labels);
  if (all.size() > 1) {
    painter.setPen(QPen(theme.muted, 0, Qt::DashLine));
    const double x = (rects[0].right() + rects[1].left()) / 2;
    painter.drawLine(QLineF(x, area.top(), x, area.bottom()));
  }
}

void AccessView::paintPanel(QPainter& painter, const QRectF& rect, const Panel& panel,
                            const DiagramTheme& theme, LabelLayout& labels) {
  const PanelLayout l = panelLayout(rect, panel, theme);
  const AccessPicture& picture = panel.picture;
  const std::int64_t operandElements = operandElementsOf(panel);
  const QFont tiny = theme.font(7.5);
  const double ww = l.wordWidth;
  auto wordRect = [&](double top, int word, double height) {
    return QRectF(l.wordsLeft + word * ww + 0.5, top + 0.5, ww - 1, height - 1);
  };

  // Memory rows' words: narrower than the lanes' where the rows take two columns.
  const double rw = l.rowWordWidth;
  auto rowWordRect = [&](const MemoryRow& row, int word) {
    return QRectF(row.wordsLeft + word * rw + 0.5, row.top + 1.5, rw - 1, l.rowHeight - 3);
  };
  // The figure: lanes and their threads down to the lines of memory, one block where the rows
  // take one column; else the lanes with the threads, and each column.
  const double memoryTop = l.rows.empty() ? l.lanes.bottom() : l.rows.front().top;
  double firstBottom = l.lanes.bottom(), secondBottom = 0;
  for (const MemoryRow& row : l.rows)
    (row.wordsLeft == l.rows.front().wordsLeft ? firstBottom : secondBottom) = row.top + row.height;
  if (secondBottom == 0) {
    labels.reserveFigure(
        QRectF(l.wordsLeft, l.lanes.top(), kWarpSize * ww, firstBottom - l.lanes.top()));
  } else {
    labels.reserveFigure(
        QRectF(l.wordsLeft, l.lanes.top(), kWarpSize * ww, memoryTop - l.lanes.top()));
    labels.reserveFigure(
        QRectF(l.rows.front().wordsLeft, memoryTop, kWarpSize * rw, firstBottom - memoryTop));
    labels.reserveFigure(
        QRectF(l.rows.back().wordsLeft, memoryTop, kWarpSize * rw, secondBottom - memoryTop));
  }
  const double bankIndexTop = l.banks.top() + l.bankTextHeight;
  if (panel.banks && l.banks.height() > 0)
    labels.reserveFigure(
        QRectF(l.wordsLeft, bankIndexTop, kWarpSize * ww, l.banks.bottom() - bankIndexTop));
  // The names left of the figure's rows: a row's name is left out rather than cut.
  auto rowName = [&](const QString& text, double top, double height, const QColor& color,
                     double left) {
    labels.place({text}, l.rowFont, color,
                 {{QRectF(left, top, l.nameWidth, height), Qt::AlignRight | Qt::AlignVCenter}},
                 false, false);
  };
  if (l.header.height() > 0)
    labels.place({header(panel)}, theme.font(9, true), theme.text,
                 {{l.header, Qt::AlignLeft | Qt::AlignTop}}, true);

  // Lanes, numbered every `stride` lanes, each number from its own lane's cell on.
  painter.setFont(l.rowFont);
  rowName(QStringLiteral("lanes"), l.lanes.top(), l.lanes.height(), theme.text, rect.left());
  const int stride = laneNumberStride(l.rowFont, ww);
  auto laneFill = [&](const LaneAddress& lane) {
    return lane.cell ? theme.laneColor(lane.lane) : theme.idle;
  };
  for (const LaneAddress& lane : picture.lanes)
    painter.fillRect(wordRect(l.lanes.top(), lane.lane, l.lanes.height()), laneFill(lane));
  for (const LaneAddress& lane : picture.lanes) {
    if (lane.lane % stride != 0) continue;
    const QRectF box = wordRect(l.lanes.top(), lane.lane, l.lanes.height());
    painter.setPen(theme.inkOn(laneFill(lane)));
    if (stride == 1) {
      drawFittedText(painter, labels, box, QString::number(lane.lane));
      continue;
    }
    const QString number = QString::number(lane.lane);
    const QFontMetricsF metrics(l.rowFont);
    const QRectF text(box.left() + 1, box.center().y() - metrics.height() / 2,
                      metrics.horizontalAdvance(number), metrics.height());
    if (text.height() > box.height()) continue;
    painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, number);
    labels.noteCellText(
        box.united(wordRect(l.lanes.top(), lane.lane + stride - 1, l.lanes.height())), text, number,
        l.rowFont);
  }

  // Memory: the lines touched, sectors fetched and the words the lanes ask for.
  const std::int64_t bytes = laneBytes(picture);
  std::vector<std::int64_t> sectors;
  for (const LaneAddress& lane : picture.lanes)
    if (lane.cell)
      for (std::int64_t sector = lane.byte / kSectorBytes;
           sector <= (lane.byte + bytes - 1) / kSectorBytes; ++sector)
        sectors.push_back(sector);
  // The first element a word of a line holds.
  auto elementAt = [&](std::int64_t line, int word) {
    return (line * kLineBytes + std::int64_t(word) * kWordBytes) / picture.elementBytes;
  };
  auto rowOf = [&](std::int64_t line) { return std::ranges::find(l.rows, line, &MemoryRow::line); };
  for (const MemoryRow& row : l.rows) {
    if (row.line < 0) {
      painter.setPen(theme.muted);
      const QString note =
          row.hidden > 0 ? QStringLiteral("⋯ %1 more line%2 touched: enlarge the view to see them")
                               .arg(row.hidden)
                               .arg(row.hidden == 1 ? "" : "s")
                         : QStringLiteral("⋯ %1 line%2 (%3) not touched")
                               .arg(row.skipped)
                               .arg(row.skipped == 1 ? "" : "s")
                               .arg(bytesText(double(row.skipped) * kLineBytes));
      // A note row is thinner than a line; its text may spill into the rows around it as far
      // as their own text, centred in them, leaves free; a smaller font where it must.
      bool written = false;
      for (const double share : {1.0, LabelLayout::kMinFontShare}) {
        QFont font = tiny;
        font.setPointSizeF(tiny.pointSizeF() * share);
        painter.setFont(font);
        const double free = std::max((l.rowHeight - QFontMetricsF(l.rowFont).height()) / 2, 0.0);
        const double spill = std::min((l.rowHeight - row.height) / 2, free);
        written = drawFittedText(
            painter, labels,
            QRectF(row.wordsLeft, row.top - spill, kWarpSize * rw, row.height + 2 * spill), note);
        if (written) break;
      }
      // Too thin for its words: a dashed rule still says the lines are not adjacent.
      if (!written) {
        painter.setPen(QPen(theme.muted, 1, Qt::DashLine));
        const double y = row.top + row.height / 2;
        painter.drawLine(QLineF(row.wordsLeft, y, row.wordsLeft + kWarpSize * rw, y));
      }
      continue;
    }
    rowName(lineName(picture, row.line, operandElements), row.top, l.rowHeight, theme.text,
            row.nameLeft);
    for (int sector = 0; sector < kWarpSize / kWordsPerSector; ++sector) {
      const std::int64_t id = row.line * (kLineBytes / kSectorBytes) + sector;
      const bool fetched = std::ranges::find(sectors, id) != sectors.end();
      const QRectF box(row.wordsLeft + sector * kWordsPerSector * rw, row.top + 1,
                       kWordsPerSector * rw, l.rowHeight - 2);
      painter.fillRect(box, fetched ? theme.accentFill : theme.pending);
      painter.setPen(QPen(fetched ? theme.accent : theme.idle, fetched ? 1.5 : 0.8));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(box);
    }
    for (int word = 0; word < kWordsPerLine; ++word)
      if (elementAt(row.line, word) >= operandElements)
        fillHatched(painter, rowWordRect(row, word), theme.padding);
  }
  // Words: coloured by the first lane reading them (a vector lane's words as one box), with
  // "×n" where lanes share one.
  auto sameStart = [](const LaneAddress& a, const LaneAddress& b) {
    return a.cell && b.cell && a.byte == b.byte;
  };
  std::vector<std::pair<QPointF, const LaneAddress*>> targets;  // where each lane's line ends
  for (const LaneAddress& lane : picture.lanes) {
    const auto row = lane.cell ? rowOf(lane.line) : l.rows.end();
    if (row == l.rows.end()) continue;
    const int word = int((lane.byte % kLineBytes) / kWordBytes);
    // Whole words (a lone 16-bit element takes half of one); an aligned vector never wraps.
    const int words = std::min(int((bytes + kWordBytes - 1) / kWordBytes), kWordsPerLine - word);
    const QRectF box = rowWordRect(*row, word).united(rowWordRect(*row, word + words - 1));
    targets.emplace_back(QPointF(box.center().x(), row->top + 1), &lane);
    const LaneAddress& first = *std::ranges::find_if(
        picture.lanes, [&](const LaneAddress& o) { return sameStart(o, lane); });
    if (first.lane != lane.lane) continue;
    const auto readers = std::ranges::count_if(
        picture.lanes, [&](const LaneAddress& o) { return sameStart(o, lane); });
    painter.fillRect(box.adjusted(1, 1, -1, -1), theme.laneColor(lane.lane));
    if (picture.width > 1) {
      painter.setPen(QPen(theme.text, 0.8));
      painter.drawRect(box.adjusted(1, 1, -1, -1));
    }
    painter.setPen(theme.inkOn(theme.laneColor(lane.lane)));
    painter.setFont(l.rowFont);
    drawFittedText(painter, labels, box,
                   readers > 1 ? QStringLiteral("×%1").arg(readers) : QString::number(lane.lane));
  }
  // Each lane's thread of connection to its word.
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing);
  for (const auto& [to, lane] : targets) {
    QColor color = theme.laneColor(lane->lane);
    color.setAlpha(150);
    painter.setPen(QPen(color, 1));
    painter.drawLine(QPointF(l.wordsLeft + (lane->lane + 0.5) * ww, l.lanes.bottom()), to);
  }
  painter.restore();

  auto words = [&](const QString& text, const QRectF& box, const QColor& color) {
    if (box.height() > 0)
      labels.place({text}, l.textFont, color, {{box, Qt::AlignLeft | Qt::AlignTop}}, true);
  };
  words(stats(picture), l.stats, theme.text);

  if (panel.banks && l.banks.height() > 0) {
    words(bankCaption(panel), QRectF(rect.left(), l.banks.top(), rect.width(), l.bankTextHeight),
          theme.text);
    const double indexTop = bankIndexTop;
    const double indexHeight = l.bankIndexHeight;
    painter.setFont(tiny);
    rowName(QStringLiteral("bank"), indexTop, indexHeight, theme.text, rect.left());
    for (int bank = 0; bank < kSharedBanks; ++bank) {
      painter.setPen(theme.muted);
      drawFittedText(painter, labels, wordRect(indexTop, bank, indexHeight), QString::number(bank));
    }
    const std::vector<BankPhase> phases = bankPhases(*panel.banks);
    double top = indexTop + indexHeight;
    for (std::size_t p = 0; p < phases.size(); ++p) {
      const BankPhase& phase = phases[p];
      const int rows = l.phaseRows[p];
      painter.setFont(l.rowFont);
      rowName(laneSpan(phase), top, rows * l.bankBoxHeight, theme.text, rect.left());
      for (int bank = 0; bank < kSharedBanks; ++bank) {
        const auto& served = phase.byBank[std::size_t(bank)];
        for (int r = 0; r < std::min<int>(int(served.size()), rows); ++r) {
          const QRectF box = wordRect(top + r * l.bankBoxHeight, bank, l.bankBoxHeight);
          const bool more = r == rows - 1 && int(served.size()) > rows;
          const QColor fill = more ? theme.idle : theme.laneColor(served[std::size_t(r)].second);
          painter.fillRect(box, fill);
          painter.setPen(theme.inkOn(fill));
          drawFittedText(painter, labels, box,
                         more ? QStringLiteral("+%1").arg(served.size() - std::size_t(r))
                              : QString::number(served[std::size_t(r)].first));
        }
        if (served.size() > 1) {
          painter.setPen(QPen(theme.accent, 2));
          painter.setBrush(Qt::NoBrush);
          painter.drawRect(
              wordRect(top, bank, l.bankBoxHeight * std::min<int>(int(served.size()), rows)));
        }
      }
      top += rows * l.bankBoxHeight + 3 * theme.fontScale;
    }
  }
  words(footer(panel), l.footer, theme.muted);
}
}  // namespace tilescope::ui
