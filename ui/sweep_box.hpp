// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The control panel's Sweep group: a single run, a tile sweep, a size sweep, or a kernel
// comparison (at the chosen size, or over the listed sizes), with the page of each.
#include <QGroupBox>

#include "choices.hpp"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QListWidget;
class QStackedWidget;

namespace tilescope {
struct KernelInfo;
}

namespace tilescope::ui {

class SweepBox : public QGroupBox {
  Q_OBJECT

 public:
  explicit SweepBox(QWidget* parent = nullptr);

  // The chosen kernel: the tile sweep is offered only where it has a tile (a kernel without one
  // falls back to a single run), and the Seed 004 button lists its tiles.
  void setKernel(const KernelInfo* kernel);
  // The sweep's part of the choices.
  void readInto(desktop::Choices& choices) const;
  void show(const desktop::Choices& choices);
  desktop::SweepKind kind() const;

 signals:
  void changed();

 private:
  void fillSeed004Tiles();

  const KernelInfo* kernel_ = nullptr;
  QComboBox* sweep_ = nullptr;
  QStackedWidget* pages_ = nullptr;
  QLineEdit* tiles_ = nullptr;
  QLineEdit* sizes_ = nullptr;
  QListWidget* kernels_ = nullptr;
  QCheckBox* overSizes_ = nullptr;
  QLineEdit* comparedSizes_ = nullptr;
};

}  // namespace tilescope::ui
