// SPDX-License-Identifier: GPL-3.0-or-later
// The access view's hover text: what a lane, a memory word or a bank box under the pointer is.
#include <QStringList>
#include <cmath>

#include "access_banks.hpp"
#include "access_view.hpp"

namespace tilescope::ui {

namespace {

QString lanesText(const std::vector<int>& lanes) {
  QStringList parts;
  for (const int lane : lanes) parts << QString::number(lane);
  return parts.join(QStringLiteral(", "));
}

}  // namespace

QString AccessView::hoverText(const QRectF& area, QPointF pos) const {
  const std::vector<Panel> all = panels();
  const std::vector<QRectF> rects = panelRects(area, all.size());
  for (std::size_t p = 0; p < all.size(); ++p)
    if (rects[p].contains(pos)) return panelHover(rects[p], all[p], pos);
  return {};
}

QString AccessView::panelHover(const QRectF& rect, const Panel& panel, QPointF pos) const {
  const DiagramTheme theme = widgetTheme();
  const PanelLayout l = panelLayout(rect, panel, theme);
  const AccessPicture& picture = panel.picture;
  const Mapping& m = *panel.mapping;
  const int column = int(std::floor((pos.x() - l.wordsLeft) / l.wordWidth));
  const char* name = operandName(picture.operand);

  if (column >= 0 && column < kWarpSize && l.lanes.contains(pos)) {
    const LaneAddress& lane = picture.lanes[std::size_t(column)];
    const int linear = panel.selection.warp * kWarpSize + column;
    if (linear >= m.threadsPerBlock())
      return QStringLiteral("lane %1: no thread (the block has %2)")
          .arg(column)
          .arg(m.threadsPerBlock());
    const Dim2 t = m.threadOfLinear(linear);
    if (!lane.cell)
      return QStringLiteral("lane %1: %2 is idle here (outside the matrix)")
          .arg(column)
          .arg(QString::fromStdString(threadName(m, t)));
    const QString thread = QString::fromStdString(threadName(m, t));
    if (picture.width > 1)
      return QStringLiteral(
                 "lane %1: %2 → %3[%4][%5..%6], a %7: bytes %8..%9, sector %10, line %11")
          .arg(column)
          .arg(thread, QLatin1String(name))
          .arg(lane.cell->row)
          .arg(lane.cell->col)
          .arg(lane.cell->col + picture.width - 1)
          .arg(QString::fromStdString(vectorName(picture.width, picture.elementBytes)))
          .arg(lane.byte)
          .arg(lane.byte + laneBytes(picture) - 1)
          .arg(lane.sector)
          .arg(lane.line);
    return QStringLiteral("lane %1: %2 → %3[%4][%5], byte %6, sector %7, line %8")
        .arg(column)
        .arg(thread, QLatin1String(name))
        .arg(lane.cell->row)
        .arg(lane.cell->col)
        .arg(lane.byte)
        .arg(lane.sector)
        .arg(lane.line);
  }
  for (const MemoryRow& row : l.rows) {
    // The rows may take two columns, their words narrower than the lanes'.
    const int word = int(std::floor((pos.x() - row.wordsLeft) / l.rowWordWidth));
    if (pos.y() < row.top || pos.y() >= row.top + row.height || word < 0 || word >= kWarpSize)
      continue;
    if (row.hidden > 0)
      return QStringLiteral("%1 more lines touched: enlarge the view").arg(row.hidden);
    if (row.line < 0) return QStringLiteral("%1 untouched lines: nothing fetched").arg(row.skipped);
    // The word under the pointer: bytes [byte, byte + 4), one or two elements.
    const std::int64_t byte = row.line * kLineBytes + std::int64_t(word) * kWordBytes;
    std::vector<int> readers;
    bool sectorFetched = false;
    const std::int64_t bytes = laneBytes(picture);
    for (const LaneAddress& lane : picture.lanes) {
      if (!lane.cell) continue;
      if (byte < lane.byte + bytes && lane.byte < byte + kWordBytes) readers.push_back(lane.lane);
      if (byte / kSectorBytes >= lane.byte / kSectorBytes &&
          byte / kSectorBytes <= (lane.byte + bytes - 1) / kSectorBytes)
        sectorFetched = true;
    }
    QStringList elements;
    for (std::int64_t element = byte / picture.elementBytes;
         element < (byte + kWordBytes) / picture.elementBytes; ++element) {
      const Cell cell = picture.cellOf(element);
      elements << QStringLiteral("%1[%2][%3]").arg(QLatin1String(name)).arg(cell.row).arg(cell.col);
    }
    const QString what = QStringLiteral("%1 (bytes %2..%3, sector %4)")
                             .arg(elements.join(QStringLiteral(", ")))
                             .arg(byte)
                             .arg(byte + kWordBytes - 1)
                             .arg(byte / kSectorBytes);
    if (!readers.empty()) return what + QStringLiteral(": read by lane ") + lanesText(readers);
    return what + (sectorFetched ? QStringLiteral(": fetched with its sector, used by no lane")
                                 : QStringLiteral(": not fetched"));
  }
  if (panel.banks && column >= 0 && column < kWarpSize && l.banks.contains(pos)) {
    const std::vector<BankPhase> phases = bankPhases(*panel.banks);
    double top = l.banks.top() + l.bankTextHeight + l.bankIndexHeight;
    for (std::size_t p = 0; p < phases.size(); ++p) {
      const double height = l.phaseRows[p] * l.bankBoxHeight + 3 * theme.fontScale;
      if (pos.y() < top || pos.y() >= top + height) {
        top += height;
        continue;
      }
      const auto& served = phases[p].byBank[std::size_t(column)];
      const QString span = laneSpan(phases[p]);
      const QString where = span.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(span);
      if (served.empty())
        return QStringLiteral("bank %1: not used by this read%2").arg(column).arg(where);
      QStringList words;
      std::vector<int> lanes;
      for (const auto& [word, lane] : served) words << QString::number(word);
      for (int lane = phases[p].firstLane; lane < phases[p].firstLane + phases[p].lanes; ++lane) {
        const int start = panel.banks->word[std::size_t(lane)];
        for (int word = start; start >= 0 && word < start + panel.banks->width; ++word)
          if (bankOf(word) == column) lanes.push_back(lane);
      }
      return QStringLiteral("bank %1%2: words %3 for lanes %4 — %5 pass%6")
          .arg(column)
          .arg(where)
          .arg(words.join(QStringLiteral(", ")), lanesText(lanes))
          .arg(served.size())
          .arg(served.size() == 1 ? "" : "es");
    }
  }
  return {};
}

}  // namespace tilescope::ui
