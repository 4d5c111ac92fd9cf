// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing a chart to a file whose suffix names the format: .png, .jpg/.jpeg, .pdf or .svg.
#include <QSize>
#include <QString>

class QCustomPlot;

namespace tilescope::ui {

// Renders `plot` at `size` pixels (the PDF and SVG at the same size in points, with `title` in
// their metadata). On failure returns false with a message in `error`, and any existing file at
// `path` is untouched.
bool exportPlot(QCustomPlot* plot, const QString& title, const QString& path, QSize size,
                QString* error);

}  // namespace tilescope::ui
