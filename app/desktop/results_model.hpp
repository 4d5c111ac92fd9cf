// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The measured results as a table model: the report's fields plus the percent of the library
// reference. Qt::DisplayRole gives formatted text, kSortRole the raw value to sort by.
#include <QAbstractTableModel>
#include <vector>

#include "session.hpp"

namespace tilescope::desktop {

class ResultsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Backend,
    Device,
    Kernel,
    Params,
    Element,  // the type of A and B
    M,
    N,
    K,
    MedianMs,
    MinMs,
    MaxMs,
    Gflops,
    PercentOfLibrary,
    RelError,
    Verified,
    Reps,
    H2dMs,
    KernelMs,
    D2hMs,
    // What the launched kernel takes from an SM (RunResult::resources; GPU backends).
    Registers,
    SharedBytes,
    LocalBytes,
    ThreadsPerBlock,
    BlocksPerSM,
    Occupancy,
    // What the GPU's counters measured (RunResult::counters), the model's figure in the tooltip.
    DramMB,
    LoadSectors,
    SharedWavefronts,
    BankConflicts,
    AchievedOccupancy,
    ColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit ResultsModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  const std::vector<RunResult>& results() const { return results_; }
  void append(const RunResult& result);
  void setResults(std::vector<RunResult> results);
  void clear();

  // Facts of the devices the results come from, shown as tooltips.
  const std::vector<MeasuredDevice>& devices() const { return devices_; }
  void setDevices(std::vector<MeasuredDevice> devices);

  // The roofline ceilings measured on devices (one entry per backend and device). They describe
  // the devices, not the runs: clear() keeps them.
  const std::vector<DeviceCeilings>& ceilings() const { return ceilings_; }
  void setCeilings(std::vector<DeviceCeilings> ceilings);

 signals:
  void ceilingsChanged();

 private:
  QVariant display(const RunResult& result, std::size_t row, int column) const;
  QVariant sortValue(const RunResult& result, std::size_t row, int column) const;
  QString tooltip(const RunResult& result, int column) const;

  std::vector<RunResult> results_;
  std::vector<MeasuredDevice> devices_;
  std::vector<DeviceCeilings> ceilings_;
};

}  // namespace tilescope::desktop
