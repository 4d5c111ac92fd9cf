// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_box.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "formatting.hpp"
#include "tilescope/catalogue.hpp"

namespace tilescope::ui {
namespace {

using desktop::text;

// The tiles seed 004 measured each method at.
constexpr int kSeed004Tiles[] = {1, 2, 4, 8, 16, 32, 64};

QLabel* hintLabel(const QString& content) {
  auto* label = new QLabel(content);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

}  // namespace

SweepBox::SweepBox(QWidget* parent) : QGroupBox(tr("Sweep"), parent) {
  auto* layout = new QVBoxLayout(this);
  sweep_ = new QComboBox(this);
  sweep_->setObjectName(QStringLiteral("sweep"));
  sweep_->addItem(tr("Single run"), int(desktop::SweepKind::Single));
  sweep_->addItem(tr("Tile sweep"), int(desktop::SweepKind::Tile));
  sweep_->addItem(tr("Size sweep"), int(desktop::SweepKind::Size));
  sweep_->addItem(tr("Kernel comparison"), int(desktop::SweepKind::Kernel));
  sweep_->setStatusTip(tr("Run one configuration, or a series of them"));
  pages_ = new QStackedWidget(this);

  pages_->addWidget(hintLabel(tr("One run of the configuration above.")));

  auto* tilePage = new QWidget(this);
  auto* tileLayout = new QGridLayout(tilePage);
  tileLayout->setContentsMargins(0, 0, 0, 0);
  tiles_ = new QLineEdit(tilePage);
  tiles_->setPlaceholderText(tr("every valid tile"));
  tiles_->setStatusTip(tr("Tiles to run, comma-separated; empty runs every valid tile"));
  auto* seedTiles = new QToolButton(tilePage);
  seedTiles->setText(tr("Seed 004"));
  seedTiles->setToolTip(tr("The tiles seed 004's tables use: 1, 2, 4, ... 64 (where valid)"));
  tileLayout->addWidget(tiles_, 0, 0);
  tileLayout->addWidget(seedTiles, 0, 1);
  tileLayout->addWidget(hintLabel(tr("Each tile of the kernel above at the size above.")), 1, 0, 1,
                        2);
  pages_->addWidget(tilePage);

  auto* sizePage = new QWidget(this);
  auto* sizeLayout = new QVBoxLayout(sizePage);
  sizeLayout->setContentsMargins(0, 0, 0, 0);
  sizes_ = new QLineEdit(sizePage);
  sizes_->setStatusTip(tr("Sizes to run: S for M = N = K, or MxNxK, comma-separated"));
  sizeLayout->addWidget(sizes_);
  sizeLayout->addWidget(hintLabel(tr("The kernel above at each size: S or MxNxK.")));
  pages_->addWidget(sizePage);

  auto* kernelPage = new QWidget(this);
  auto* kernelLayout = new QVBoxLayout(kernelPage);
  kernelLayout->setContentsMargins(0, 0, 0, 0);
  kernels_ = new QListWidget(kernelPage);
  kernels_->setObjectName(QStringLiteral("comparedKernels"));
  kernels_->setStatusTip(tr("The kernels to compare, each at its tuned or default parameters"));
  for (const KernelInfo& info : catalogue()) {
    auto* item = new QListWidgetItem(text(info.displayName), kernels_);
    item->setData(Qt::UserRole, text(info.id));
    item->setToolTip(text(info.teaching));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  kernels_->setMaximumHeight(kernels_->sizeHintForRow(0) * (kernels_->count() + 1));
  overSizes_ = new QCheckBox(tr("Over the sizes"), kernelPage);
  overSizes_->setObjectName(QStringLiteral("compareOverSizes"));
  overSizes_->setStatusTip(
      tr("Compare the kernels at each listed size instead of the size above (GFLOP/s chart)"));
  comparedSizes_ = new QLineEdit(kernelPage);
  comparedSizes_->setStatusTip(sizes_->statusTip());
  auto* overSizesRow = new QHBoxLayout;
  overSizesRow->addWidget(overSizes_);
  overSizesRow->addWidget(comparedSizes_, 1);
  kernelLayout->addWidget(kernels_);
  kernelLayout->addLayout(overSizesRow);
  kernelLayout->addWidget(
      hintLabel(tr("Each kernel at its own parameters: autotune's best for this device, else its "
                   "defaults.")));
  pages_->addWidget(kernelPage);

  layout->addWidget(sweep_);
  layout->addWidget(pages_);
  connect(sweep_, &QComboBox::currentIndexChanged, this, [this] {
    pages_->setCurrentIndex(sweep_->currentIndex());
    emit changed();
  });
  // The size sweep and the comparison over sizes share one list of sizes.
  connect(sizes_, &QLineEdit::textChanged, this, [this](const QString& sizes) {
    if (comparedSizes_->text() != sizes) comparedSizes_->setText(sizes);
    emit changed();
  });
  connect(comparedSizes_, &QLineEdit::textChanged, sizes_, &QLineEdit::setText);
  connect(overSizes_, &QCheckBox::toggled, this, [this](bool on) {
    comparedSizes_->setEnabled(on);
    emit changed();
  });
  connect(tiles_, &QLineEdit::textChanged, this, &SweepBox::changed);
  connect(kernels_, &QListWidget::itemChanged, this, &SweepBox::changed);
  connect(seedTiles, &QToolButton::clicked, this, &SweepBox::fillSeed004Tiles);
  comparedSizes_->setEnabled(false);
}

void SweepBox::setKernel(const KernelInfo* kernel) {
  kernel_ = kernel;
  const bool hasTile = kernel && kernel->param("tile");
  auto* items = qobject_cast<QStandardItemModel*>(sweep_->model());
  QStandardItem* tileSweep = items->item(sweep_->findData(int(desktop::SweepKind::Tile)));
  tileSweep->setEnabled(hasTile);
  tileSweep->setToolTip(
      hasTile || !kernel ? QString()
                         : tr("%1 has no tile parameter to sweep").arg(text(kernel->displayName)));
  if (!hasTile && kind() == desktop::SweepKind::Tile) {
    const QSignalBlocker blocker(sweep_);
    sweep_->setCurrentIndex(sweep_->findData(int(desktop::SweepKind::Single)));
    pages_->setCurrentIndex(sweep_->currentIndex());
  }
}

desktop::SweepKind SweepBox::kind() const {
  return desktop::SweepKind(sweep_->currentData().toInt());
}

void SweepBox::readInto(desktop::Choices& choices) const {
  choices.sweep = kind();
  choices.tiles = tiles_->text().remove(QLatin1Char(' ')).toStdString();
  choices.sizes = sizes_->text().remove(QLatin1Char(' ')).toStdString();
  choices.kernelsOverSizes = overSizes_->isChecked();
  choices.kernels.clear();
  for (int row = 0; row < kernels_->count(); ++row) {
    const QListWidgetItem* item = kernels_->item(row);
    if (item->checkState() == Qt::Checked)
      choices.kernels.push_back(item->data(Qt::UserRole).toString().toStdString());
  }
}

void SweepBox::show(const desktop::Choices& choices) {
  sweep_->setCurrentIndex(std::max(sweep_->findData(int(choices.sweep)), 0));
  pages_->setCurrentIndex(sweep_->currentIndex());
  tiles_->setText(text(choices.tiles));
  sizes_->setText(text(choices.sizes));
  overSizes_->setChecked(choices.kernelsOverSizes);
  for (int row = 0; row < kernels_->count(); ++row) {
    QListWidgetItem* item = kernels_->item(row);
    const std::string id = item->data(Qt::UserRole).toString().toStdString();
    const bool checked =
        std::find(choices.kernels.begin(), choices.kernels.end(), id) != choices.kernels.end();
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
  }
}

void SweepBox::fillSeed004Tiles() {
  const ParamSpec* tile = kernel_ ? kernel_->param("tile") : nullptr;
  if (!tile) return;
  QStringList values;
  for (int value : kSeed004Tiles) {
    if (std::find(tile->allowed.begin(), tile->allowed.end(), value) != tile->allowed.end())
      values << QString::number(value);
  }
  tiles_->setText(values.join(QLatin1Char(',')));
}

}  // namespace tilescope::ui
