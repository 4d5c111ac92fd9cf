// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_export.hpp"

#include <qcustomplot.h>
#include <QBuffer>
#include <QFileInfo>
#include <QSvgGenerator>

#include "qt_files.hpp"

namespace tilescope::ui {
namespace {

const QString kCreator = QStringLiteral("TileScope");

bool exportSvg(QCustomPlot* plot, const QString& title, const QString& path, QSize size,
               QString* error) {
  QBuffer svg;
  svg.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&svg);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(title);
  generator.setDescription(kCreator);
  QCPPainter painter;
  if (!painter.begin(&generator)) {
    if (error) *error = QStringLiteral("Could not start drawing the SVG for %1").arg(path);
    return false;
  }
  // Vector output: no pixmap caching, cosmetic pens kept as drawn.
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  plot->toPainter(&painter, size.width(), size.height());
  painter.end();
  return desktop::writeFileAtomically(path, svg.data(), error);
}

}  // namespace

bool exportPlot(QCustomPlot* plot, const QString& title, const QString& path, QSize size,
                QString* error, double scale) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const int width = size.width(), height = size.height();
  if (suffix == QLatin1String("svg")) return exportSvg(plot, title, path, size, error);
  std::function<bool(const QString&)> write;
  if (suffix == QLatin1String("png")) {
    write = [=](const QString& file) { return plot->savePng(file, width, height, scale); };
  } else if (suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg")) {
    constexpr int kJpegQuality = 92;
    write = [=](const QString& file) {
      return plot->saveJpg(file, width, height, scale, kJpegQuality);
    };
  } else if (suffix == QLatin1String("pdf")) {
    write = [=](const QString& file) {
      return plot->savePdf(file, width, height, QCP::epAllowCosmetic, kCreator, title);
    };
  } else {
    if (error) {
      *error =
          QStringLiteral("Cannot export %1: the suffix must be .png, .jpg, .pdf or .svg").arg(path);
    }
    return false;
  }
  return desktop::replaceFileAtomically(
      path, write, QStringLiteral("the %1 exporter").arg(suffix.toUpper()), error);
}

}  // namespace tilescope::ui
