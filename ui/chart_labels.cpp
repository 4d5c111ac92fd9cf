// SPDX-License-Identifier: GPL-3.0-or-later
// Labels in a chart's plot (the roofline's roof and slope labels) placed where they cover no
// other label, no point and no line.
#include <algorithm>
#include <cmath>
#include <optional>

#include "chart_text.hpp"
#include "chart_view.hpp"

namespace tilescope::ui {
namespace {

QRectF rectOf(const QCPItemText* label) {
  return QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
}

// Whether the segment crosses or lies in `rect`.
bool crosses(const QLineF& segment, const QRectF& rect) {
  if (rect.contains(segment.p1()) || rect.contains(segment.p2())) return true;
  const QLineF edges[] = {{rect.topLeft(), rect.topRight()},
                          {rect.topRight(), rect.bottomRight()},
                          {rect.bottomRight(), rect.bottomLeft()},
                          {rect.bottomLeft(), rect.topLeft()}};
  for (const QLineF& edge : edges)
    if (segment.intersects(edge, nullptr) == QLineF::BoundedIntersection) return true;
  return false;
}

}  // namespace

void ChartView::keepClear(QCPItemText* label, std::vector<LabelPlace> spots, bool mustShow) {
  clear_.push_back({label, std::move(spots), label->text(), mustShow});
}

void ChartView::keepApart(const std::vector<QCPItemText*>& labels) {
  for (QCPItemText* label : labels) {
    std::vector<LabelPlace> spots;
    for (double shift : {0.0, 1.0, -1.0, 2.0, -2.0})
      spots.push_back({label->position->coords(), label->positionAlignment(), shift});
    keepClear(label, std::move(spots));
  }
}

void ChartView::placeLabelsClear() {
  if (clear_.empty()) return;
  // The plot (a label may touch its edge).
  const QRectF area = QRectF(axisRect()->rect()).adjusted(-1, -1, 1, 1);
  // What a label must not cover: the points of every graph, and its lines.
  std::vector<QRectF> points;
  std::vector<QLineF> lines;
  for (int g = 0; g < graphCount(); ++g) {
    QCPGraph* graph = this->graph(g);
    if (!graph->visible()) continue;
    const double marker = graph->scatterStyle().isNone() ? 0 : graph->scatterStyle().size() + 2;
    QPointF previous;
    bool first = true;
    for (auto point = graph->data()->constBegin(); point != graph->data()->constEnd(); ++point) {
      const QPointF at = graph->coordsToPixels(point->key, point->value);
      if (!std::isfinite(at.x()) || !std::isfinite(at.y())) continue;
      if (marker > 0) points.emplace_back(at.x() - marker / 2, at.y() - marker / 2, marker, marker);
      if (!first && graph->lineStyle() != QCPGraph::lsNone) lines.emplace_back(previous, at);
      previous = at;
      first = false;
    }
  }
  std::vector<QRectF> placed;
  // Whether `rect` is free: in the plot, on no placed label and no point, and (`strict`) across
  // no line (it may touch one: its own roof, its slope at a corner).
  const auto free = [&](const QRectF& rect, bool strict) {
    const auto covers = [&](const QRectF& other) { return other.intersects(rect); };
    const QRectF inner = rect.adjusted(2, 2, -2, -2);
    return area.contains(rect) && std::none_of(placed.begin(), placed.end(), covers) &&
           std::none_of(points.begin(), points.end(), covers) &&
           (!strict || std::none_of(lines.begin(), lines.end(),
                                    [&](const QLineF& line) { return crosses(line, inner); }));
  };
  for (auto& [label, spots, text, mustShow] : clear_) {
    if (!label) continue;
    // The first free one of the label's spots; nullopt where none is.
    const auto atSpot = [&](bool strict) -> std::optional<QRectF> {
      for (const LabelPlace& spot : spots) {
        label->setText(spot.text.isEmpty() ? text : spot.text);
        label->setPositionAlignment(spot.alignment);
        label->position->setCoords(spot.coords);
        QRectF rect = rectOf(label);
        if (spot.shiftHeights != 0) {
          const double offset = spot.shiftHeights * rect.height();
          label->position->setPixelPosition(label->position->pixelPosition() + QPointF(0, offset));
          rect.translate(0, offset);
        }
        if (free(rect, strict)) return rect;
      }
      return std::nullopt;
    };
    // The free place of the plot nearest the label's first spot, in steps of a fraction of its
    // size, in its text as set or any other its spots give it (on two lines, shorter). `level`:
    // only just above or just below the first spot's height (a roof's label stays by its roof,
    // on either side of it, left of its ridge too).
    const auto nearest = [&](bool strict, bool level) -> std::optional<QRectF> {
      if (spots.empty()) return std::nullopt;
      QStringList texts{text};
      for (const LabelPlace& spot : spots)
        if (!spot.text.isEmpty() && !texts.contains(spot.text)) texts << spot.text;
      std::optional<QRectF> best;
      QString bestText;
      QPointF bestShift;
      double bestDistance = 0;
      for (const QString& shown : texts) {
        label->setText(shown);
        label->setPositionAlignment(spots.front().alignment);
        label->position->setCoords(spots.front().coords);
        const QRectF first = rectOf(label);
        if (first.width() < 1 || first.height() < 1) continue;
        const double height = label->position->pixelPosition().y();
        std::vector<double> tops;
        if (level)
          tops = {height, height - first.height()};
        else
          for (double y = area.top(); y + first.height() <= area.bottom(); y += first.height() / 4)
            tops.push_back(y);
        for (const double y : tops)
          for (double x = area.left(); x + first.width() <= area.right(); x += first.width() / 8) {
            const QRectF rect(QPointF(x, y), first.size());
            const double distance = QLineF(rect.center(), first.center()).length();
            if ((!best || distance < bestDistance) && free(rect, strict)) {
              best = rect;
              bestText = shown;
              bestShift = rect.topLeft() - first.topLeft();
              bestDistance = distance;
            }
          }
      }
      if (best) {
        label->setText(bestText);
        label->position->setCoords(spots.front().coords);
        label->position->setPixelPosition(label->position->pixelPosition() + bestShift);
      }
      return best;
    };
    // First clear of lines too; else over a line (the label's veil keeps it readable); one that
    // must show, by its own height first, then anywhere.
    std::optional<QRectF> rect = atSpot(true);
    if (!rect && mustShow) rect = nearest(true, true);
    if (!rect) rect = atSpot(false);
    if (!rect && mustShow) rect = nearest(false, true);
    if (!rect && mustShow) rect = nearest(false, false);
    if (rect) placed.push_back(*rect);
    label->setVisible(rect.has_value());
  }
}

double ChartView::besidePlotTop() const {
  return title_->outerRect().bottom() + 1;
}

double ChartView::besidePlotBottom() const {
  // Down to the legend below the plot, or the bottom in view.
  double bottom = seenHeight() - 1;
  if (legend->visible() && legend->outerRect().top() >= axisRect()->bottom())
    bottom = std::min(bottom, double(legend->outerRect().top()) - 1);
  return bottom;
}

QString ChartView::besidePlotText(const QString& title) const {
  const QFontMetrics metrics(yAxis->labelFont());
  const int room = std::max(int(besidePlotBottom() - besidePlotTop()), 0);
  if (metrics.horizontalAdvance(title) <= room) return title;
  const QString broken = wrapped(title, metrics, std::max(room, 1));
  if (!broken.isEmpty() && broken.count(QLatin1Char('\n')) < 2) return broken;
  return metrics.elidedText(title, Qt::ElideRight, room);
}

QString ChartView::besidePlotLabel(const QString& title) const {
  return besidePlotText(title).contains(QLatin1Char('\n')) ? QStringLiteral(" \n ")
                                                           : QStringLiteral(" ");
}

void ChartView::placeYTitle() {
  const QString& full = fullAxisLabels_.value(yAxis);
  // fitAxisLabels() leaves the label blank (not empty) while the title stands beside the plot.
  if (!yAxis->visible() || full.isEmpty() || yAxis->label().isEmpty() ||
      !yAxis->label().trimmed().isEmpty()) {
    if (yTitle_) removeItem(yTitle_);
    yTitle_ = nullptr;
    return;
  }
  if (!yTitle_) {
    yTitle_ = new QCPItemText(this);
    yTitle_->setClipToAxisRect(false);
    yTitle_->setRotation(-90);
    yTitle_->setPositionAlignment(Qt::AlignCenter);
    yTitle_->setPadding(QMargins());
    yTitle_->position->setType(QCPItemPosition::ptAbsolute);
  }
  const QFontMetrics metrics(yAxis->labelFont());
  yTitle_->setFont(yAxis->labelFont());
  yTitle_->setColor(yAxis->labelColor());
  const QString text = besidePlotText(full);
  const double top = besidePlotTop(), bottom = besidePlotBottom();
  const double half = metrics.boundingRect(QRect(), 0, text).width() / 2.0;
  // As near the plot's middle as the room allows.
  const double middle =
      std::clamp(double(axisRect()->center().y()), top + half, std::max(bottom - half, top + half));
  // The axis's title band: the outermost strip of the plot's left margin.
  const double band = axisRect()->left() - axisRect()->margins().left();
  const double thickness = metrics.boundingRect(QRect(), 0, text).height();
  yTitle_->setText(text);
  yTitle_->position->setCoords(band + thickness / 2.0, middle);
}

}  // namespace tilescope::ui
