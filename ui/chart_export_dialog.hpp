// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How File > Export Chart writes the chart: its size (as shown, a slide, a page or any), the
// scale of its pixels (sharper images for print and high-DPI slides), and whether its text is as
// large as when presenting. The last choices are remembered.
#include <QDialog>
#include <QSize>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace tilescope::ui {

struct ChartExportOptions {
  QSize size{1200, 800};   // the chart's layout, in pixels (points in a PDF or SVG)
  double scale = 1;        // pixels of a PNG or JPEG per layout pixel
  bool largeText = false;  // text and markers as when presenting on a screen of `size`
  // What a raster image holds: size * scale.
  QSize pixels() const;
};

class ChartExportDialog : public QDialog {
  Q_OBJECT

 public:
  // `shown`: the chart's size on screen; `raster`: whether the file is PNG or JPEG (the scale
  // applies to those alone).
  ChartExportDialog(QSize shown, bool raster, QWidget* parent = nullptr);
  ChartExportOptions options() const;
  void setOptions(const ChartExportOptions& options);

  // The choices remembered in the settings file, and remembering them.
  static ChartExportOptions remembered();
  static void remember(const ChartExportOptions& options);

 private:
  void presetChosen();
  void updateSummary();

  QSize shown_;
  bool raster_;
  QComboBox* preset_ = nullptr;
  QSpinBox *width_ = nullptr, *height_ = nullptr;
  QComboBox* scale_ = nullptr;
  QCheckBox* largeText_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace tilescope::ui
