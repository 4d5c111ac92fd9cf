// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_model.hpp"

#include "formatting.hpp"
#include "result_analysis.hpp"
#include "tilescope/counter_model.hpp"

namespace tilescope::desktop {
namespace {

bool isNumeric(int column) {
  return column >= ResultsModel::M && column != ResultsModel::Verified;
}

bool isCounter(int column) {
  return column >= ResultsModel::DramMB && column <= ResultsModel::AchievedOccupancy;
}

// The comparison with the model a counter column shows (counter_model.hpp's names).
const char* comparedFigure(int column) {
  switch (column) {
    case ResultsModel::DramMB:
      return "DRAM traffic";
    case ResultsModel::LoadSectors:
      return "global loads";
    case ResultsModel::SharedWavefronts:
      return "shared-memory loads";
    case ResultsModel::BankConflicts:
      return "bank conflicts";
    default:
      return "occupancy";
  }
}

// The measured figure of a counter column; nullopt where the hardware saw no such access.
std::optional<double> measuredFigure(const HardwareCounters& c, int column) {
  const auto perRequest = [](double part, double whole) {
    return whole > 0 ? std::optional<double>(part / whole) : std::nullopt;
  };
  switch (column) {
    case ResultsModel::DramMB:
      return (c.dramReadBytes + c.dramWriteBytes) / 1e6;
    case ResultsModel::LoadSectors:
      return perRequest(c.globalLoadSectors, c.globalLoadRequests);
    case ResultsModel::SharedWavefronts:
      return perRequest(c.sharedLoadWavefronts, c.sharedLoadRequests);
    case ResultsModel::BankConflicts:
      return c.sharedBankConflicts;
    default:
      return 100 * c.achievedOccupancy;
  }
}

}  // namespace

ResultsModel::ResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

int ResultsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(results_.size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
  }
  static const char* const titles[ColumnCount] = {
      "Backend",
      "Device",
      "Kernel",
      "Parameters",
      "Type",
      "M",
      "N",
      "K",
      "Median ms",
      "Min ms",
      "Max ms",
      "GFLOP/s",
      "% of library",
      "Rel. error",
      "Verified",
      "Reps",
      "H2D ms",
      "Kernel ms",
      "D2H ms",
      "Registers",
      "Shared B",
      "Local B",
      "Threads/block",
      "Blocks/SM",
      "Occupancy %",
      "DRAM MB",
      "Load sectors/req",
      "Smem passes/req",
      "Bank conflicts",
      "Achieved occ. %",
  };
  static const char* const tips[ColumnCount] = {
      "The backend that ran it",
      "The device it ran on (hover a cell for its facts)",
      "The catalogue kernel",
      "The kernel's parameters",
      "The element type of A and B: fp32, or tf32, fp16, bf16, e4m3, e5m2 on tensor cores (C "
      "and the accumulation are always fp32)",
      "Rows of A and C",
      "Columns of B and C",
      "Columns of A, rows of B",
      "Median time of one repetition",
      "Fastest repetition",
      "Slowest repetition",
      "2MNK / median time",
      "The library reference's time on the same problem over this one's, in percent",
      "||C - reference|| / ||reference||",
      "Whether C matched the double-precision reference within tolerance",
      "Timed repetitions",
      "Host-to-device copy time (GPU backends)",
      "Kernel time alone (GPU backends)",
      "Device-to-host copy time (GPU backends)",
      "Registers per thread of the compiled kernel (GPU backends)",
      "Shared memory per block in bytes, static and dynamic (GPU backends)",
      "Local memory per thread in bytes: register spills and stack arrays (GPU backends)",
      "Threads per block of the launch (GPU backends)",
      "Most blocks resident on one SM at once, as registers, shared memory and threads allow "
      "(GPU backends)",
      "Resident warps over the SM's maximum: the theoretical occupancy (GPU backends)",
      "Bytes read from and written to DRAM, as the GPU counted them (Read hardware counters); "
      "hover a cell for the model's no-reuse figure",
      "32-byte sectors per warp-wide global load, as counted; the model's figure on hover",
      "Passes (wavefronts) the shared-memory banks took per warp-wide shared load, as counted",
      "Extra passes the shared-memory banks took for conflicting words, as counted",
      "Active warps over the SM's maximum while the kernel ran, as counted (the theoretical "
      "figure is Occupancy %)"};
  if (section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) return QString::fromLatin1(titles[section]);
  if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
  return {};
}

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const std::size_t row = std::size_t(index.row());
  const RunResult& result = results_[row];
  switch (role) {
    case Qt::DisplayRole:
      return display(result, row, index.column());
    case kSortRole:
      return sortValue(result, row, index.column());
    case Qt::ToolTipRole:
      return tooltip(result, index.column());
    case Qt::TextAlignmentRole:
      return isNumeric(index.column()) ? int(Qt::AlignRight | Qt::AlignVCenter)
                                       : int(Qt::AlignLeft | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant ResultsModel::display(const RunResult& result, std::size_t row, int column) const {
  switch (column) {
    case Backend:
      return text(result.backend);
    case Device:
      return text(result.device);
    case Kernel:
      return text(result.kernel.kernel);
    case Params:
      return text(formatParams(result.kernel));
    case Element:
      return QString::fromLatin1(toString(result.element));
    case MedianMs:
      return formatMs(result.stats.medianMs);
    case MinMs:
      return formatMs(result.stats.minMs);
    case MaxMs:
      return formatMs(result.stats.maxMs);
    case Gflops:
      return formatRate(result.gflops);
    case PercentOfLibrary: {
      const auto percent = percentOfLibrary(results_, row);
      return percent ? QString::number(*percent, 'f', 1) : QString();
    }
    case RelError:
      return result.verification ? QString::number(result.verification->relError, 'e', 2)
                                 : QString();
    case Verified:
      if (!result.verification) return tr("not checked");
      return result.verification->passed ? tr("yes") : tr("NO");
    case H2dMs:
    case KernelMs:
    case D2hMs:
      return result.phases ? formatMs(sortValue(result, row, column).toDouble()) : QString();
    case Registers:
    case SharedBytes:
    case LocalBytes:
    case ThreadsPerBlock:
    case BlocksPerSM:
      return result.resources ? sortValue(result, row, column) : QString();
    case Occupancy:
      return result.resources ? QString::number(100.0 * result.resources->occupancy, 'f', 1)
                              : QString();
    case DramMB:
    case LoadSectors:
    case SharedWavefronts:
    case BankConflicts:
    case AchievedOccupancy: {
      if (!result.counters) return QString();
      const std::optional<double> value = measuredFigure(*result.counters, column);
      if (!value) return QString();
      const int decimals = column == BankConflicts ? 0 : column == DramMB ? 1 : 2;
      return QString::number(*value, 'f', column == AchievedOccupancy ? 1 : decimals);
    }
    default:
      return sortValue(result, row, column);
  }
}

QVariant ResultsModel::sortValue(const RunResult& result, std::size_t row, int column) const {
  switch (column) {
    case M:
      return qlonglong(result.shape.m);
    case N:
      return qlonglong(result.shape.n);
    case K:
      return qlonglong(result.shape.k);
    case MedianMs:
      return result.stats.medianMs;
    case MinMs:
      return result.stats.minMs;
    case MaxMs:
      return result.stats.maxMs;
    case Gflops:
      return result.gflops;
    case PercentOfLibrary:
      return percentOfLibrary(results_, row).value_or(-1.0);
    case RelError:
      return result.verification ? result.verification->relError : -1.0;
    case Verified:
      return result.verification ? int(result.verification->passed) : -1;
    case Reps:
      return result.stats.reps;
    case H2dMs:
      return result.phases ? result.phases->h2dMs : -1.0;
    case KernelMs:
      return result.phases ? result.phases->kernelMs : -1.0;
    case D2hMs:
      return result.phases ? result.phases->d2hMs : -1.0;
    case Registers:
      return result.resources ? result.resources->registersPerThread : -1;
    case SharedBytes:
      return result.resources ? qlonglong(result.resources->sharedBytesPerBlock) : -1;
    case LocalBytes:
      return result.resources ? qlonglong(result.resources->localBytesPerThread) : -1;
    case ThreadsPerBlock:
      return result.resources ? result.resources->threadsPerBlock : -1;
    case BlocksPerSM:
      return result.resources ? result.resources->blocksPerSM : -1;
    case Occupancy:
      return result.resources ? result.resources->occupancy : -1.0;
    case DramMB:
    case LoadSectors:
    case SharedWavefronts:
    case BankConflicts:
    case AchievedOccupancy:
      return result.counters ? measuredFigure(*result.counters, column).value_or(-1.0) : -1.0;
    default:
      return display(result, row, column);
  }
}

QString ResultsModel::tooltip(const RunResult& result, int column) const {
  if (column == Device || column == Backend) {
    for (const MeasuredDevice& device : devices_) {
      if (device.backend != result.backend || device.info.name != result.device) continue;
      QString facts = QStringLiteral("<b>%1</b>").arg(text(device.info.name).toHtmlEscaped());
      for (const auto& [name, value] : device.info.facts) {
        facts += QStringLiteral("<br>%1: %2")
                     .arg(text(name).toHtmlEscaped(), text(value).toHtmlEscaped());
      }
      return facts;
    }
    return text(result.device);
  }
  if ((column == Verified || column == RelError) && result.verification) {
    const Verification& check = *result.verification;
    return tr("relative error %1, normalised %2 (tolerance %3), max |error| %4, %5 non-finite")
        .arg(check.relError, 0, 'e', 2)
        .arg(check.normalizedError, 0, 'e', 2)
        .arg(check.tolerance, 0, 'e', 2)
        .arg(check.maxAbsError, 0, 'e', 2)
        .arg(check.nonFinite);
  }
  if (column == MedianMs) {
    return tr("%1 repetitions, spread (IQR / median) %2%")
        .arg(result.stats.reps)
        .arg(100.0 * result.stats.spread, 0, 'f', 1);
  }
  if (column == Kernel) {
    if (result.kernel.source)
      return tr("%1: your own kernel; the result keeps the CUDA source it ran")
          .arg(text(userKernelName(result.kernel.kernel)));
    if (const KernelInfo* info = findKernel(result.kernel.kernel)) return text(info->displayName);
  }
  if (isCounter(column)) {
    if (!result.counters)
      return result.countersUnavailable ? text(*result.countersUnavailable) : QString();
    for (const CounterComparison& c : compareWithModel(result)) {
      if (c.what != comparedFigure(column)) continue;
      QString tip = tr("model: %1 %3, measured: %2")
                        .arg(QString::number(c.model, 'g', 4), QString::number(c.measured, 'g', 4),
                             text(c.unit));
      if (!c.why.empty()) tip += QStringLiteral("<br>") + text(c.why).toHtmlEscaped();
      return tip;
    }
    return text(result.counters->source);
  }
  return {};
}

void ResultsModel::append(const RunResult& result) {
  const int row = rowCount();
  beginInsertRows({}, row, row);
  results_.push_back(result);
  endInsertRows();
  // A new library result changes the percentage of the rows it is the reference for.
  if (result.kernel.kernel == kLibraryKernel && row > 0) {
    emit dataChanged(index(0, PercentOfLibrary), index(row - 1, PercentOfLibrary));
  }
}

void ResultsModel::setResults(std::vector<RunResult> results) {
  beginResetModel();
  results_ = std::move(results);
  endResetModel();
}

void ResultsModel::clear() {
  setResults({});
}

void ResultsModel::setDevices(std::vector<MeasuredDevice> devices) {
  devices_ = std::move(devices);
}

void ResultsModel::setCeilings(std::vector<DeviceCeilings> ceilings) {
  ceilings_ = std::move(ceilings);
  emit ceilingsChanged();
}

}  // namespace tilescope::desktop
