// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing a chart to a file whose suffix names the format: .png, .jpg/.jpeg, .pdf or .svg.
#include <QSize>
#include <QString>

class QCustomPlot;

namespace tilescope::ui {

// Renders `plot` laid out at `size` pixels, a PNG or JPEG at `scale` image pixels per layout pixel
// (the PDF and SVG at `size` in points, with `title` in their metadata). On failure returns false
// with a message in `error`, and any existing file at `path` is untouched.
bool exportPlot(QCustomPlot* plot, const QString& title, const QString& path, QSize size,
                QString* error, double scale = 1);

}  // namespace tilescope::ui
