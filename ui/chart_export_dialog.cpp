// SPDX-License-Identifier: GPL-3.0-or-later
#include "chart_export_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <cmath>

#include "settings.hpp"

namespace tilescope::ui {
namespace {

const std::string kSettingsKey = "chartExport";
constexpr int kSmallest = 320, kLargest = 8000;
constexpr double kScales[] = {1, 1.5, 2, 3};

struct Preset {
  const char* name;
  QSize size;  // empty: the chart as shown
};
constexpr Preset kPresets[] = {{"As shown on screen", {}},
                               {"Slide, 1280 x 720", {1280, 720}},
                               {"Slide, 1920 x 1080", {1920, 1080}},
                               {"Page, 1600 x 1000", {1600, 1000}},
                               {"Half page, 1200 x 800", {1200, 800}}};

}  // namespace

QSize ChartExportOptions::pixels() const {
  return {int(std::lround(size.width() * scale)), int(std::lround(size.height() * scale))};
}

ChartExportDialog::ChartExportDialog(QSize shown, bool raster, QWidget* parent)
    : QDialog(parent), shown_(shown.expandedTo({kSmallest, kSmallest})), raster_(raster) {
  setWindowTitle(tr("Export Chart"));
  auto* form = new QFormLayout(this);
  preset_ = new QComboBox;
  preset_->setObjectName(QStringLiteral("exportPreset"));
  for (const Preset& preset : kPresets) {
    const QSize size = preset.size.isEmpty() ? shown_ : preset.size;
    preset_->addItem(preset.size.isEmpty()
                         ? tr("As shown on screen, %1 x %2").arg(size.width()).arg(size.height())
                         : tr(preset.name),
                     size);
  }
  preset_->addItem(tr("Other size"), QSize());
  preset_->setToolTip(tr("The chart's layout: a slide's size lays it out for a slide"));
  form->addRow(tr("&Size:"), preset_);

  auto* sizeRow = new QHBoxLayout;
  width_ = new QSpinBox;
  height_ = new QSpinBox;
  for (QSpinBox* box : {width_, height_}) {
    box->setRange(kSmallest, kLargest);
    box->setSuffix(tr(" px"));
  }
  width_->setObjectName(QStringLiteral("exportWidth"));
  height_->setObjectName(QStringLiteral("exportHeight"));
  sizeRow->addWidget(width_);
  sizeRow->addWidget(new QLabel(QStringLiteral("\u00d7")));
  sizeRow->addWidget(height_);
  sizeRow->addStretch();
  form->addRow(tr("&Width, height:"), sizeRow);

  scale_ = new QComboBox;
  scale_->setObjectName(QStringLiteral("exportScale"));
  for (double scale : kScales) scale_->addItem(tr("%1\u00d7").arg(scale), scale);
  scale_->setToolTip(
      tr("Pixels per layout pixel: 2\u00d7 draws the same chart twice as sharp, "
         "for print and high-DPI screens"));
  scale_->setEnabled(raster_);
  form->addRow(tr("S&cale:"), scale_);

  largeText_ = new QCheckBox(tr("&Large text and markers, as when presenting"));
  largeText_->setObjectName(QStringLiteral("exportLargeText"));
  largeText_->setToolTip(
      tr("For a slide: tick labels of 20 px on 1280 x 720, larger on larger "
         "sizes"));
  form->addRow(largeText_);

  summary_ = new QLabel;
  form->addRow(summary_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("&Export"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);

  connect(preset_, &QComboBox::currentIndexChanged, this, &ChartExportDialog::presetChosen);
  for (QSpinBox* box : {width_, height_}) {
    connect(box, &QSpinBox::valueChanged, this, [this] {
      // A size typed in is another size, unless it is a preset's.
      const QSize size(width_->value(), height_->value());
      const int preset = preset_->findData(size);
      const QSignalBlocker block(preset_);
      preset_->setCurrentIndex(preset >= 0 ? preset : preset_->count() - 1);
      updateSummary();
    });
  }
  connect(scale_, &QComboBox::currentIndexChanged, this, &ChartExportDialog::updateSummary);
  setOptions(remembered());
}

void ChartExportDialog::presetChosen() {
  const QSize size = preset_->currentData().toSize();
  if (size.isEmpty()) return;  // another size: the spin boxes keep theirs
  const QSignalBlocker blockWidth(width_), blockHeight(height_);
  width_->setValue(size.width());
  height_->setValue(size.height());
  updateSummary();
}

void ChartExportDialog::updateSummary() {
  const ChartExportOptions chosen = options();
  summary_->setText(raster_ ? tr("The image will be %1 x %2 pixels, every entry of the legend "
                                 "listed.")
                                  .arg(chosen.pixels().width())
                                  .arg(chosen.pixels().height())
                            : tr("The drawing will be %1 x %2 points, every entry of the legend "
                                 "listed.")
                                  .arg(chosen.size.width())
                                  .arg(chosen.size.height()));
}

ChartExportOptions ChartExportDialog::options() const {
  return {{width_->value(), height_->value()},
          raster_ ? scale_->currentData().toDouble() : 1.0,
          largeText_->isChecked()};
}

void ChartExportDialog::setOptions(const ChartExportOptions& options) {
  {
    const QSignalBlocker blockWidth(width_), blockHeight(height_);
    width_->setValue(options.size.width());
    height_->setValue(options.size.height());
  }
  const int preset = preset_->findData(QSize(width_->value(), height_->value()));
  {
    const QSignalBlocker block(preset_);
    preset_->setCurrentIndex(preset >= 0 ? preset : preset_->count() - 1);
  }
  const int scale = scale_->findData(options.scale);
  scale_->setCurrentIndex(scale >= 0 ? scale : 0);
  largeText_->setChecked(options.largeText);
  updateSummary();
}

ChartExportOptions ChartExportDialog::remembered() {
  ChartExportOptions options;
  const nlohmann::json saved = desktop::rememberedSetting(kSettingsKey);
  if (!saved.is_object()) return options;
  const auto number = [&](const char* key, double fallback) {
    const auto found = saved.find(key);
    return found != saved.end() && found->is_number() ? found->get<double>() : fallback;
  };
  options.size = QSize(std::clamp(int(number("width", 1200)), kSmallest, kLargest),
                       std::clamp(int(number("height", 800)), kSmallest, kLargest));
  options.scale = std::clamp(number("scale", 1), 1.0, 3.0);
  const auto large = saved.find("largeText");
  options.largeText = large != saved.end() && large->is_boolean() && large->get<bool>();
  return options;
}

void ChartExportDialog::remember(const ChartExportOptions& options) {
  desktop::rememberSetting(kSettingsKey, {{"width", options.size.width()},
                                          {"height", options.size.height()},
                                          {"scale", options.scale},
                                          {"largeText", options.largeText}});
}

}  // namespace tilescope::ui
