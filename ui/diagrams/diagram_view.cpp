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
#include "io/file_io.hpp"
#include "kstep_view.hpp"
#include "matrix_view.hpp"
#include "tilescope/error.hpp"

namespace tilescope::ui {

namespace {

constexpr double kMargin = 10;
constexpr double kSwatch = 13;

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
  }
  return {};
}

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
  setMinimumSize(320, 240);
  auto repaint = [this] { update(); };
  connect(document_, &DiagramDocument::configurationChanged, this, [this] {
    resetView();
    update();
  });
  connect(document_, &DiagramDocument::selectionChanged, this, repaint);
  connect(document_, &DiagramDocument::appearanceChanged, this, repaint);
}

Theme DiagramView::widgetTheme() const {
  return Theme::fromPalette(palette(), document_->fontScale());
}

QString DiagramView::visibleCaption() const {
  return document_->mapping() ? caption() : QString();
}

std::vector<DiagramView::LegendEntry> DiagramView::visibleLegend(const Theme& theme) const {
  return document_->mapping() ? legend(theme) : std::vector<LegendEntry>{};
}

DiagramView::Frame DiagramView::frame(const QRectF& area, const Theme& theme) const {
  const double scale = theme.fontScale;
  const QRectF inner =
      area.adjusted(kMargin * scale, kMargin * scale, -kMargin * scale, -kMargin * scale);
  Frame f;
  const double titleHeight = QFontMetricsF(theme.font(11, true)).height();
  f.title = QRectF(inner.left(), inner.top(), inner.width(), titleHeight);
  f.caption = QRectF(inner.left(), f.title.bottom() + 3 * scale, inner.width(),
                     QFontMetricsF(theme.font(9)).height());
  std::vector<QString> texts;
  for (const LegendEntry& entry : visibleLegend(theme)) texts.push_back(entry.text);
  const double legendHeight = layoutLegend(texts, theme.font(8.5), scale, inner.width(), nullptr);
  f.legend = QRectF(inner.left(), inner.bottom() - legendHeight, inner.width(), legendHeight);
  const double top = f.caption.bottom() + 8 * scale;
  const double bottom = f.legend.top() - (legendHeight > 0 ? 8 * scale : 0);
  f.diagram = QRectF(inner.left(), top, inner.width(), std::max(bottom - top, 1.0));
  return f;
}

QRectF DiagramView::diagramArea(const QRectF& area, const Theme& theme) const {
  return frame(area, theme).diagram;
}

void DiagramView::render(QPainter& painter, const QRectF& area, const Theme& theme) {
  const Frame f = frame(area, theme);
  painter.save();
  painter.fillRect(area, theme.background);
  painter.setPen(theme.text);
  painter.setFont(theme.font(11, true));
  const QString title = viewTitle(kind()) + QStringLiteral(" · ") +
                        document_->configurationLabel() +
                        QStringLiteral(" · M=%1 N=%2 K=%3")
                            .arg(document_->shape().m)
                            .arg(document_->shape().n)
                            .arg(document_->shape().k);
  painter.drawText(
      f.title, Qt::AlignLeft | Qt::AlignVCenter,
      QFontMetricsF(painter.font()).elidedText(title, Qt::ElideRight, f.title.width()));
  painter.setPen(theme.muted);
  painter.setFont(theme.font(9));
  // One line, elided where the view is narrow; the hover text tells the rest.
  painter.drawText(f.caption, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(painter.font())
                       .elidedText(visibleCaption(), Qt::ElideRight, f.caption.width()));

  if (document_->mapping()) {
    painter.save();
    painter.setClipRect(f.diagram);
    paintDiagram(painter, f.diagram, theme);
    painter.restore();
  } else {
    // Why there is no picture, and what the kernel is, in the middle of the view.
    const QRectF upper(f.diagram.left(), f.diagram.top(), f.diagram.width(),
                       f.diagram.height() / 2);
    painter.setPen(theme.text);
    painter.setFont(theme.font(16, true));
    painter.drawText(upper, Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWordWrap,
                     document_->unavailableReason());
    const KernelInfo* info = findKernel(document_->config().kernel);
    const double width = std::min(f.diagram.width(), 640 * theme.fontScale);
    painter.setPen(theme.muted);
    painter.setFont(theme.font(10));
    painter.drawText(QRectF(f.diagram.center().x() - width / 2,
                            upper.bottom() + 12 * theme.fontScale, width, f.diagram.height() / 2),
                     Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
                     info ? QString::fromStdString(info->teaching) : QString());
  }

  const std::vector<LegendEntry> entries = visibleLegend(theme);
  std::vector<QString> texts;
  for (const LegendEntry& entry : entries) texts.push_back(entry.text);
  std::vector<QPointF> positions;
  const QFont legendFont = theme.font(8.5);
  layoutLegend(texts, legendFont, theme.fontScale, f.legend.width(), &positions);
  painter.setFont(legendFont);
  const double swatch = kSwatch * theme.fontScale;
  const double textHeight = QFontMetricsF(legendFont).height();
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const QPointF at = f.legend.topLeft() + positions[e];
    const QRectF box(at.x(), at.y() + (textHeight - swatch) / 2, swatch, swatch);
    painter.fillRect(box, theme.background);
    painter.fillRect(box, entries[e].brush);
    painter.setPen(QPen(theme.outline, 0));
    painter.drawRect(box);
    painter.setPen(theme.text);
    painter.drawText(
        QPointF(box.right() + 5 * theme.fontScale, at.y() + QFontMetricsF(legendFont).ascent()),
        texts[e]);
  }
  painter.restore();
}

QString DiagramView::hoverTextAt(QPointF pos) const {
  if (!document_->mapping()) return {};
  const Theme theme = widgetTheme();
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
  if (!dragging_ && event->button() == Qt::LeftButton && document_->mapping()) {
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
  switch (kind) {
    case DiagramKind::Matrix:
      return new MatrixView(document, parent);
    case DiagramKind::KStep:
      return new KStepView(document, parent);
    case DiagramKind::Block:
      return new BlockView(document, parent);
    case DiagramKind::Access:
      return new AccessView(document, parent);
  }
  return nullptr;
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
  const Theme theme = Theme::light(view.document()->fontScale());
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
