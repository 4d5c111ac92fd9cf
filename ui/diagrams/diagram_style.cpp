// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_style.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <set>

namespace tilescope::ui {

QColor blend(const QColor& from, const QColor& to, double t) {
  return QColor::fromRgbF(float(from.redF() + (to.redF() - from.redF()) * t),
                          float(from.greenF() + (to.greenF() - from.greenF()) * t),
                          float(from.blueF() + (to.blueF() - from.blueF()) * t));
}

DiagramTheme DiagramTheme::fromPalette(const QPalette& palette, double fontScale) {
  const QColor base = palette.color(QPalette::Base), text = palette.color(QPalette::Text);
  // Qt 6.4 has no colorScheme(): a dark base means a dark theme.
  DiagramTheme theme = base.lightness() >= 128 ? light(fontScale) : DiagramTheme{};
  if (base.lightness() < 128) {
    theme.dark_ = true;
    theme.fontScale = fontScale;
    theme.matrix = QColor(58, 64, 76);
    theme.padding = QColor(140, 110, 90);
    theme.accent = QColor(255, 170, 60);
    theme.accentFill = QColor(255, 170, 60, 70);
    theme.done = QColor(70, 120, 170);
    theme.pending = QColor(48, 52, 60);
    theme.idle = QColor(90, 90, 95);
  }
  // Words and lines in the palette's own colours, so a high-contrast palette stays so.
  theme.background = base;
  theme.text = text;
  theme.muted = blend(text, base, 0.35);
  theme.outline = blend(text, base, 0.2);
  return theme;
}

DiagramTheme DiagramTheme::light(double fontScale) {
  DiagramTheme theme;
  theme.fontScale = fontScale;
  theme.background = Qt::white;
  theme.text = QColor(30, 30, 35);
  theme.muted = QColor(110, 115, 125);
  theme.outline = QColor(70, 75, 85);
  theme.matrix = QColor(232, 236, 243);
  theme.padding = QColor(190, 150, 120);
  theme.accent = QColor(230, 120, 0);
  theme.accentFill = QColor(255, 160, 40, 80);
  theme.done = QColor(150, 190, 230);
  theme.pending = QColor(244, 246, 250);
  theme.idle = QColor(200, 200, 204);
  return theme;
}

QColor DiagramTheme::warpColor(int warp, int lane) const {
  // Golden-ratio hue steps keep neighbouring warps far apart on the colour wheel.
  const double hue = std::fmod(0.08 + warp * 0.618033988749895, 1.0);
  const double lighten = lane / double(kWarpSize) * (dark_ ? 0.25 : 0.35);
  const double value = dark_ ? 0.62 + lighten : 0.93;
  const double saturation = dark_ ? 0.55 : 0.62 - lighten;
  return QColor::fromHsvF(float(hue), float(saturation), float(std::min(value, 1.0)));
}

QColor DiagramTheme::laneColor(int lane) const {
  return QColor::fromHsvF(float(lane / double(kWarpSize) * 0.85), dark_ ? 0.55f : 0.7f,
                          dark_ ? 0.9f : 0.85f);
}

QColor DiagramTheme::inkOn(const QColor& fill) const {
  const QColor black(Qt::black), white(Qt::white);
  return contrastRatio(black, fill) >= contrastRatio(white, fill) ? black : white;
}

double contrastRatio(const QColor& a, const QColor& b) {
  const auto luminance = [](const QColor& color) {
    const auto linear = [](double c) {
      return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(color.redF()) + 0.7152 * linear(color.greenF()) +
           0.0722 * linear(color.blueF());
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QFont DiagramTheme::font(double points, bool bold) const {
  QFont font(QStringLiteral("DejaVu Sans"));
  font.setPointSizeF(points * fontScale);
  font.setBold(bold);
  return font;
}

double largestCell(double base, const QRectF& area, const DiagramTheme& theme) {
  // Views up to this size keep `base`; larger ones grow it in step with their shorter side.
  constexpr double kPlainSide = 1000;
  return base * std::max(theme.fontScale, std::min(area.width(), area.height()) / kPlainSide);
}

QRectF spanRect(const AxisScale& x, const AxisScale& y, Range rows, Range cols) {
  return QRectF(QPointF(x.at(double(cols.begin)), y.at(double(rows.begin))),
                QPointF(x.at(double(cols.end())), y.at(double(rows.end()))));
}

Range visibleRange(const AxisScale& axis, double fromPixel, double toPixel, std::int64_t limit) {
  const double first = std::floor(axis.coordinateAt(fromPixel));
  const double last = std::ceil(axis.coordinateAt(toPixel));
  const auto begin = std::int64_t(std::clamp(first, 0.0, double(limit)));
  const auto end = std::int64_t(std::clamp(last, 0.0, double(limit)));
  return {begin, std::max<std::int64_t>(end - begin, 0)};
}

void fillHatched(QPainter& painter, const QRectF& rect, const QColor& color) {
  if (rect.isEmpty()) return;
  painter.save();
  QColor light = color;
  light.setAlpha(50);
  painter.fillRect(rect, light);
  painter.fillRect(rect, QBrush(color, Qt::BDiagPattern));
  painter.restore();
}

void hatchPadding(QPainter& painter, const AxisScale& x, const AxisScale& y, Range rows, Range cols,
                  std::int64_t rowLimit, std::int64_t colLimit, const QColor& color) {
  if (rows.end() > rowLimit) {
    const std::int64_t first = std::max(rows.begin, rowLimit);
    fillHatched(painter, spanRect(x, y, {first, rows.end() - first}, cols), color);
  }
  const std::int64_t insideRows = std::min(rows.end(), rowLimit) - rows.begin;
  if (cols.end() > colLimit && insideRows > 0) {
    const std::int64_t first = std::max(cols.begin, colLimit);
    fillHatched(painter, spanRect(x, y, {rows.begin, insideRows}, {first, cols.end() - first}),
                color);
  }
}

void drawLoadBoundaries(QPainter& painter, const AxisScale& x, const AxisScale& y,
                        const std::vector<StagedElement>& elements, std::int64_t regionCols,
                        const QColor& color) {
  if (elements.empty()) return;
  std::vector<QLineF> across, down;  // boundaries between rows, and between columns
  std::set<std::int64_t> acrossAt, downAt;
  const auto width = std::size_t(regionCols);
  for (std::size_t n = 0; n < elements.size(); ++n) {
    const StagedElement& e = elements[n];
    const double left = x.at(double(e.cell.col)), top = y.at(double(e.cell.row));
    const double right = x.at(double(e.cell.col + 1)), bottom = y.at(double(e.cell.row + 1));
    if (n + width < elements.size() && elements[n + width].instr != e.instr) {
      across.emplace_back(left, bottom, right, bottom);
      acrossAt.insert(e.cell.row);
    }
    if ((n + 1) % width != 0 && elements[n + 1].instr != e.instr) {
      down.emplace_back(right, top, right, bottom);
      downAt.insert(e.cell.col);
    }
  }
  // Scalar copies of a vector change instruction at every element: lines closer than this would
  // only grey the tile, so that orientation is left out at such a zoom.
  constexpr double kMinSpacing = 6;
  const double tileHeight = y.pixelsPerUnit * double(elements.size() / width);
  const double tileWidth = x.pixelsPerUnit * double(width);
  painter.save();
  painter.setPen(QPen(color, 1.5, Qt::DotLine));
  if (tileHeight / double(acrossAt.size() + 1) >= kMinSpacing)
    painter.drawLines(across.data(), int(across.size()));
  if (tileWidth / double(downAt.size() + 1) >= kMinSpacing)
    painter.drawLines(down.data(), int(down.size()));
  painter.restore();
}

namespace {

QRectF centred(const QRectF& box, QSizeF size) {
  return QRectF(box.center() - QPointF(size.width() / 2, size.height() / 2), size);
}

}  // namespace

bool drawUniformLabel(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                      const QString& text, const QString& widest) {
  const QFontMetricsF metrics(painter.font());
  const double length = metrics.horizontalAdvance(widest) + 2, thickness = metrics.height();
  const double own = metrics.horizontalAdvance(text);
  if (length <= rect.width() && thickness <= rect.height()) {
    painter.drawText(rect, Qt::AlignCenter, text);
    labels.noteCellText(rect, centred(rect, {own, thickness}), text, painter.font());
    return true;
  }
  if (length > rect.height() || thickness > rect.width()) return false;
  labels.noteCellText(rect, centred(rect, {thickness, own}), text, painter.font());
  painter.save();
  painter.translate(rect.center());
  painter.rotate(-90);
  painter.drawText(QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width()),
                   Qt::AlignCenter, text);
  painter.restore();
  return true;
}

void drawArrow(QPainter& painter, QPointF from, QPointF to, const QColor& color, double width) {
  const QLineF line(from, to);
  if (line.length() < 1) return;
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap));
  const double head = 4 + 2.5 * width;
  QLineF shaft = line;
  shaft.setLength(std::max(line.length() - head * 0.8, 0.0));
  painter.drawLine(shaft);
  const double angle = std::atan2(-line.dy(), line.dx());
  const QPointF left = to - QPointF(std::cos(angle - 0.45) * head, -std::sin(angle - 0.45) * head);
  const QPointF right = to - QPointF(std::cos(angle + 0.45) * head, -std::sin(angle + 0.45) * head);
  QPainterPath tip;
  tip.moveTo(to);
  tip.lineTo(left);
  tip.lineTo(right);
  tip.closeSubpath();
  painter.fillPath(tip, color);
  painter.restore();
}

bool drawFittedText(QPainter& painter, LabelLayout& labels, const QRectF& rect,
                    const QString& text) {
  const QFontMetricsF metrics(painter.font());
  const QSizeF size(metrics.horizontalAdvance(text), metrics.height());
  if (size.width() > rect.width() - 2 || size.height() > rect.height()) return false;
  painter.drawText(rect, Qt::AlignCenter, text);
  labels.noteCellText(rect, centred(rect, size), text, painter.font());
  return true;
}

QString percentText(double fraction) {
  return QString::number(fraction * 100.0, 'f', fraction >= 0.995 || fraction == 0 ? 0 : 1) +
         QLatin1Char('%');
}

QString bytesText(double bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1000 && unit < 5) {
    bytes /= 1000;
    ++unit;
  }
  return QString::number(bytes, 'f', unit == 0 ? 0 : 2) + QLatin1Char(' ') +
         QLatin1String(units[unit]);
}

QString countText(double value) {
  if (std::abs(value) < 1e6 && value == std::floor(value)) return QString::number(qint64(value));
  if (std::abs(value) < 1e6) return QString::number(value, 'f', 2);
  return QString::number(value, 'e', 2);
}

}  // namespace tilescope::ui
