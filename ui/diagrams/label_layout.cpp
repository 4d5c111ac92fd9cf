// SPDX-License-Identifier: GPL-3.0-or-later
#include "label_layout.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <algorithm>

namespace tilescope::ui {

namespace {

// Rounding in text measurement may make neighbours share a fraction of a pixel.
constexpr double kTolerance = 0.5;
// Shortest elided text worth showing ("ab…").
constexpr int kMinElidedLength = 4;

bool overlaps(const QRectF& a, const QRectF& b) {
  return a.adjusted(kTolerance, kTolerance, -kTolerance, -kTolerance).intersects(b);
}

QRectF aligned(QSizeF size, const QRectF& box, Qt::Alignment align) {
  double x = box.left(), y = box.top();
  if (align & Qt::AlignRight) x = box.right() - size.width();
  if (align & Qt::AlignHCenter) x = box.center().x() - size.width() / 2;
  if (align & Qt::AlignBottom) y = box.bottom() - size.height();
  if (align & Qt::AlignVCenter) y = box.center().y() - size.height() / 2;
  return QRectF(QPointF(x, y), size);
}

}  // namespace

LabelLayout::LabelLayout(const QRectF& bounds) : bounds_(bounds) {}

void LabelLayout::reserveFigure(const QRectF& rect) {
  const QRectF inside = rect.normalized().intersected(bounds_);
  if (!inside.isEmpty()) figures_.push_back(inside);
}

bool LabelLayout::isFree(const QRectF& rect) const {
  if (!bounds_.adjusted(-kTolerance, -kTolerance, kTolerance, kTolerance).contains(rect))
    return false;
  auto hits = [&](const QRectF& other) { return overlaps(rect, other); };
  return std::ranges::none_of(figures_, hits) &&
         std::ranges::none_of(labels_, hits, &PlacedLabel::rect);
}

void LabelLayout::noteCellText(const QRectF& cell, const QRectF& rect, const QString& text,
                               const QFont& font) {
  cellTexts_.push_back({cell, rect, text, font});
}

bool LabelLayout::reserveLabel(const QRectF& rect, const QString& text) {
  if (!isFree(rect)) return false;
  labels_.push_back({rect, text, {}, {}, 0, true});
  return true;
}

std::optional<QRectF> LabelLayout::fit(const QString& text, const QFont& font,
                                       const LabelSpot& spot, int flags) const {
  const QFontMetricsF metrics(font);
  QSizeF size;
  if (flags & Qt::TextWordWrap) {
    size = metrics.boundingRect(QRectF(0, 0, spot.box.width(), 1e6), flags, text).size();
  } else {
    size = QSizeF(metrics.horizontalAdvance(text), metrics.height());
  }
  if (size.width() > spot.box.width() + kTolerance ||
      size.height() > spot.box.height() + kTolerance)
    return std::nullopt;
  const QRectF rect = aligned(size, spot.box, spot.align);
  if (!isFree(rect)) return std::nullopt;
  return rect;
}

std::optional<QRectF> LabelLayout::place(const QStringList& wordings, const QFont& font,
                                         const QColor& color, const std::vector<LabelSpot>& spots,
                                         bool wrap, bool elide) {
  const double sizes[] = {1.0, 0.875, kMinFontShare};
  auto sized = [&](double share) {
    QFont scaled = font;
    scaled.setPointSizeF(font.pointSizeF() * share);
    return scaled;
  };
  auto keep = [&](const QRectF& rect, const QString& text, const QFont& used, int flags) {
    labels_.push_back({rect, text, used, color, flags});
    return rect;
  };
  // A shorter wording at full size reads better than the full one shrunk among its neighbours.
  for (const double share : sizes)
    for (const QString& text : wordings) {
      if (text.isEmpty()) continue;
      const QFont scaled = sized(share);
      for (const LabelSpot& spot : spots) {
        const int flags = int(spot.align) | (wrap ? int(Qt::TextWordWrap) : 0);
        if (const auto rect = fit(text, scaled, spot, flags))
          return keep(*rect, text, scaled, flags);
      }
    }
  // Nothing fits whole: the fullest wording cut short at the smallest size, on one line.
  if (wordings.isEmpty() || wordings.front().isEmpty() || !elide) return std::nullopt;
  const QFont smallest = sized(kMinFontShare);
  const QFontMetricsF metrics(smallest);
  for (const LabelSpot& spot : spots) {
    const QString elided = metrics.elidedText(wordings.front(), Qt::ElideRight, spot.box.width());
    if (elided.size() < kMinElidedLength) continue;
    const int flags = int(spot.align) & ~int(Qt::TextWordWrap);
    if (const auto rect = fit(elided, smallest, spot, flags))
      return keep(*rect, elided, smallest, flags);
  }
  return std::nullopt;
}

void LabelLayout::paint(QPainter& painter) const {
  painter.save();
  for (const PlacedLabel& label : labels_) {
    if (label.drawnByOwner) continue;
    painter.setFont(label.font);
    painter.setPen(label.color);
    // A hair wider than measured, so that rounding cannot wrap a line differently.
    painter.drawText(label.rect.adjusted(0, 0, 1, 0), label.flags, label.text);
  }
  painter.restore();
}

}  // namespace tilescope::ui
