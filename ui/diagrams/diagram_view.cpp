// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_view.hpp"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "access_view.hpp"
#include "block_view.hpp"
#include "kstep_view.hpp"
#include "matrix_view.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "timeline_view.hpp"

namespace tilescope::ui {

namespace {

constexpr double kMargin = 10;
constexpr double kSwatch = 13;
constexpr double kOutlineRoom = 3;

QString viewTitle(DiagramKind kind) {
  switch (kind) {
    case DiagramKind::Matrix:
      return QStringLiteral("Matrix view");
    case DiagramKind::KStep:
      return QStringLiteral("K-step animation");
    case DiagramKind::Block:
      return QStringLiteral("Block view");
    case DiagramKind::Access:
      return QStringLiteral("Memory-access view");
    case DiagramKind::Timeline:
      return QStringLiteral("Pipeline timeline");
  }
  return {};
}

// The legend may take this share of the view's height at most: the figure comes first.
constexpr double kMaxLegendShare = 0.16;
// The caption runs over a second line only where the view is at least this many text lines high.
constexpr double kLinesForTwoLineCaption = 24;

// Legend entries flow left to right and wrap; returns the height they take at `width`.
double layoutLegend(const std::vector<QString>& texts, const QFont& font, double scale,
                    double width, std::vector<QPointF>* positions) {
  const QFontMetricsF metrics(font);
  const double rowHeight = std::max(metrics.height(), kSwatch * scale) + 4 * scale;
  double x = 0, y = 0;
  for (const QString& text : texts) {
    const double entryWidth = kSwatch * scale + 5 * scale + metrics.horizontalAdvance(text);
    if (x > 0 && x + entryWidth > width) {
      x = 0;
      y += rowHeight;
    }
    if (positions) positions->push_back({x, y});
    x += entryWidth + 16 * scale;
  }
  return texts.empty() ? 0 : y + rowHeight;
}

}  // namespace

DiagramView::DiagramView(DiagramDocument* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(kMinimumSize);
  auto repaint = [this] { update(); };
  connect(document_, &DiagramDocument::configurationChanged, this, [this] {
    resetView();
    update();
  });
  connect(document_, &DiagramDocument::selectionChanged, this, repaint);
  connect(document_, &DiagramDocument::appearanceChanged, this, repaint);
}

DiagramTheme DiagramView::widgetTheme() const {
  return DiagramTheme::fromPalette(palette(), document_->fontScale());
}

bool DiagramView::hasPicture() const {
  return document_->mapping() && !emptyState();
}

QString DiagramView::visibleCaption() const {
  return hasPicture() ? caption() : QString();
}

std::vector<DiagramView::LegendEntry> DiagramView::visibleLegend(const DiagramTheme& theme) const {
  return hasPicture() ? legend(theme) : std::vector<LegendEntry>{};
}

QString DiagramView::title() const {
  return viewTitle(kind());
}

DiagramView::Frame DiagramView::frame(const QRectF& area, const DiagramTheme& theme) const {
  const double scale = theme.fontScale;
  const double margin = std::min(kMargin * scale, 0.02 * std::min(area.width(), area.height()) + 4);
  const QRectF inner = area.adjusted(margin, margin, -margin, -margin);
  Frame f;
  const double titleHeight = QFontMetricsF(theme.font(11, true)).height();
  f.title = QRectF(inner.left(), inner.top(), inner.width(), titleHeight);
  const double captionLine = QFontMetricsF(theme.font(9)).height();
  const int captionLines = inner.height() >= kLinesForTwoLineCaption * captionLine ? 2 : 1;
  f.caption =
      QRectF(inner.left(), f.title.bottom() + 3 * scale, inner.width(), captionLines * captionLine);

  // The legend shrinks, then gives up its last entries, before it takes the figure's room.
  std::vector<QString> texts;
  for (const LegendEntry& entry : visibleLegend(theme)) texts.push_back(entry.text);
  const double most = kMaxLegendShare * inner.height();
  f.legendFont = theme.font(8.5);
  double legendHeight = layoutLegend(texts, f.legendFont, scale, inner.width(), nullptr);
  if (legendHeight > most) {
    f.legendFont.setPointSizeF(f.legendFont.pointSizeF() * LabelLayout::kMinFontShare);
    legendHeight = layoutLegend(texts, f.legendFont, scale, inner.width(), nullptr);
  }
  while (!texts.empty() && legendHeight > most) {
    texts.pop_back();
    legendHeight = layoutLegend(texts, f.legendFont, scale, inner.width(), nullptr);
  }
  f.legendEntries = texts.size();
  f.legend = QRectF(inner.left(), inner.bottom() - legendHeight, inner.width(), legendHeight);
  const double top = f.caption.bottom() + 8 * scale;
  const double bottom = f.legend.top() - (legendHeight > 0 ? 8 * scale : 0);
  f.diagram = QRectF(inner.left(), top, inner.width(), std::max(bottom - top, 1.0));
  return f;
}

QRectF DiagramView::diagramArea(const QRectF& area, const DiagramTheme& theme) const {
  return frame(area, theme).diagram;
}

void DiagramView::render(QPainter& painter, const QRectF& area, const DiagramTheme& theme) {
  const Frame f = frame(area, theme);
  LabelLayout labels(area);
  painter.save();
  painter.fillRect(area, theme.background);
  const Shape& shape = document_->shape();
  const QString configuration = document_->configurationLabel();
  const QString sizes = QStringLiteral("M=%1 N=%2 K=%3").arg(shape.m).arg(shape.n).arg(shape.k);
  const QString dot = QStringLiteral(" · ");
  // Shorter and shorter where the view is narrow: a dock has room for the kernel's name.
  // A traced kernel keeps saying so: its picture is what the GPU did, not a model.
  const bool traced = document_->mapping() && document_->mapping()->trace();
  const QString kernel = QString::fromStdString(document_->config().kernel) +
                         (traced ? QStringLiteral(", traced") : QString());
  const QString shortSizes = QStringLiteral("%1×%2×%3").arg(shape.m).arg(shape.n).arg(shape.k);
  labels.place({title() + dot + configuration + dot + sizes, configuration + dot + sizes,
                kernel + dot + sizes, kernel + dot + shortSizes, kernel},
               theme.font(11, true), theme.text, {{f.title}});
  // The hover text tells what an elided caption leaves out.
  labels.place({visibleCaption()}, theme.font(9), theme.muted,
               {{f.caption, Qt::AlignLeft | Qt::AlignTop}}, true);

  if (hasPicture()) {
    painter.save();
    // A little past the figure's room, so that its outlines are drawn whole.
    painter.setClipRect(
        f.diagram.adjusted(-kOutlineRoom, -kOutlineRoom, kOutlineRoom, kOutlineRoom));
    paintDiagram(painter, f.diagram, theme, labels);
    painter.restore();
  } else {
    // Why there is no picture, and what the kernel is (or what would fill the view), in the
    // middle of the view.
    const std::optional<EmptyState> empty =
        document_->mapping() ? emptyState() : std::optional<EmptyState>();
    const KernelInfo* info = findKernel(document_->config().kernel);
    const QString reason = empty ? empty->reason : document_->unavailableReason();
    const QString remedy = empty  ? empty->remedy
                           : info ? QString::fromStdString(info->teaching)
                                  : QString();
    const QRectF upper(f.diagram.left(), f.diagram.top(), f.diagram.width(),
                       f.diagram.height() / 2);
    labels.place({reason}, theme.font(16, true), theme.text,
                 {{upper, Qt::AlignHCenter | Qt::AlignBottom}}, true);
    const double width = std::min(f.diagram.width(), 640 * theme.fontScale);
    labels.place({remedy}, theme.font(10), theme.muted,
                 {{QRectF(f.diagram.center().x() - width / 2, upper.bottom() + 12 * theme.fontScale,
                          width, f.diagram.bottom() - upper.bottom() - 12 * theme.fontScale),
                   Qt::AlignHCenter | Qt::AlignTop}},
                 true);
  }

  std::vector<LegendEntry> entries = visibleLegend(theme);
  entries.resize(std::min(entries.size(), f.legendEntries));
  std::vector<QString> texts;
  for (const LegendEntry& entry : entries) texts.push_back(entry.text);
  std::vector<QPointF> positions;
  layoutLegend(texts, f.legendFont, theme.fontScale, f.legend.width(), &positions);
  painter.setFont(f.legendFont);
  const QFontMetricsF metrics(f.legendFont);
  const double swatch = kSwatch * theme.fontScale;
  const double gap = 5 * theme.fontScale;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const QPointF at = f.legend.topLeft() + positions[e];
    const double rowHeight = std::max(metrics.height(), swatch);
    const QRectF entry(at, QSizeF(swatch + gap + metrics.horizontalAdvance(texts[e]), rowHeight));
    if (!labels.reserveLabel(entry, texts[e])) continue;
    const QRectF box(at.x(), at.y() + (rowHeight - swatch) / 2, swatch, swatch);
    painter.fillRect(box, theme.background);
    painter.fillRect(box, entries[e].brush);
    painter.setPen(QPen(theme.outline, 0));
    painter.drawRect(box);
    painter.setPen(theme.text);
    painter.drawText(
        QRectF(box.right() + gap, at.y(), entry.right() - box.right() - gap + 1, rowHeight),
        Qt::AlignLeft | Qt::AlignVCenter, texts[e]);
  }
  painter.restore();
  labels.paint(painter);
  lastLayout_ = labels;
}

QString DiagramView::hoverTextAt(QPointF pos) const {
  if (!hasPicture()) return {};
  const DiagramTheme theme = widgetTheme();
  const QRectF area = diagramArea(QRectF(rect()), theme);
  if (!area.contains(pos)) return {};
  return hoverText(area, pos);
}

void DiagramView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  render(painter, QRectF(rect()), widgetTheme());
}

void DiagramView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    dragBy(event->position() - lastDragPos_);
    lastDragPos_ = event->position();
    update();
    return;
  }
  if (event->buttons() & Qt::LeftButton && (event->position() - pressPos_).manhattanLength() > 4) {
    dragging_ = true;
    lastDragPos_ = event->position();
    return;
  }
  emit hovered(hoverTextAt(event->position()));
}

void DiagramView::mousePressEvent(QMouseEvent* event) {
  pressPos_ = event->position();
  dragging_ = false;
  setFocus(Qt::MouseFocusReason);
}

void DiagramView::mouseReleaseEvent(QMouseEvent* event) {
  if (!dragging_ && event->button() == Qt::LeftButton && hasPicture()) {
    const QRectF area = diagramArea(QRectF(rect()), widgetTheme());
    if (area.contains(event->position())) clickAt(area, event->position());
  }
  dragging_ = false;
}

void DiagramView::mouseDoubleClickEvent(QMouseEvent*) {
  resetView();
  update();
}

void DiagramView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomAt(event->position(), std::pow(1.25, steps));
  update();
  event->accept();
}

void DiagramView::leaveEvent(QEvent*) {
  emit hovered(QString());
}

void DiagramView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) update();
  QWidget::changeEvent(event);
}

bool DiagramView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = hoverTextAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

DiagramView* makeDiagramView(DiagramKind kind, DiagramDocument* document, QWidget* parent) {
  DiagramView* view = nullptr;
  switch (kind) {
    case DiagramKind::Matrix:
      view = new MatrixView(document, parent);
      break;
    case DiagramKind::KStep:
      view = new KStepView(document, parent);
      break;
    case DiagramKind::Block:
      view = new BlockView(document, parent);
      break;
    case DiagramKind::Access:
      view = new AccessView(document, parent);
      break;
    case DiagramKind::Timeline:
      view = new TimelineView(document, parent);
      break;
  }
  // A stable name for help panels, tests and scripts to find the view by.
  if (view) view->setObjectName(QStringLiteral("diagram-%1").arg(diagramKindName(kind)));
  return view;
}

bool saveDiagram(DiagramView& view, const QString& path, QSize size, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QLatin1String("png") && suffix != QLatin1String("svg"))
    return fail(QStringLiteral("%1: the diagram file must end in .png or .svg").arg(path));
  QBuffer file;
  file.open(QIODevice::WriteOnly);
  const DiagramTheme theme = DiagramTheme::light(view.document()->fontScale());
  const QRectF area(QPointF(0, 0), QSizeF(size));
  if (suffix == QLatin1String("png")) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view.render(painter, area, theme);
    painter.end();
    if (!image.save(&file, "PNG")) return fail(QStringLiteral("%1: PNG encoding failed").arg(path));
  } else {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(area);
    svg.setTitle(QStringLiteral("TileScope %1 diagram").arg(diagramKindName(view.kind())));
    svg.setDescription(view.document()->configurationLabel());
    QPainter painter(&svg);
    view.render(painter, area, theme);
    painter.end();
  }
  try {
    const QByteArray& bytes = file.data();
    io::writeFile(QFile::encodeName(path).toStdString(),
                  std::string_view(bytes.constData(), std::size_t(bytes.size())), "the diagram");
  } catch (const Error& writeError) {
    return fail(QString::fromUtf8(writeError.what()));
  }
  return true;
}

}  // namespace tilescope::ui
