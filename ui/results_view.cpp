// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_view.hpp"

#include <QAction>
#include <QApplication>
#include <QBrush>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QMenu>
#include <algorithm>

namespace tilescope::ui {

namespace {

// A failed verification, or local memory in use: register spills or arrays that live in device
// memory instead of registers, a usual cause of a slow kernel.
bool isWarning(const QModelIndex& index) {
  const QVariant value = index.data(desktop::ResultsModel::kSortRole);
  switch (index.column()) {
    case desktop::ResultsModel::Verified:
      return value.toInt() == 0;
    case desktop::ResultsModel::LocalBytes:
      return value.toLongLong() > 0;
    default:
      return false;
  }
}

}  // namespace

QVariant ResultsProxy::data(const QModelIndex& index, int role) const {
  if (role == Qt::ForegroundRole && isWarning(index)) return QBrush(QColor(0xd0, 0x30, 0x30));
  return QSortFilterProxyModel::data(index, role);
}

ResultsView::ResultsView(desktop::ResultsModel* model, QWidget* parent) : QTableView(parent) {
  proxy_.setSourceModel(model);
  proxy_.setSortRole(desktop::ResultsModel::kSortRole);
  setModel(&proxy_);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  setAlternatingRowColors(true);
  setWordWrap(false);
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  horizontalHeader()->setHighlightSections(false);
  horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  horizontalHeader()->setSortIndicatorClearable(true);
  // Rows stay in the order they were measured until the user sorts.
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);

  copy_ = new QAction(QIcon::fromTheme(QStringLiteral("edit-copy")), tr("&Copy Rows"), this);
  copy_->setShortcut(QKeySequence::Copy);
  copy_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  copy_->setStatusTip(tr("Copy the selected rows (or all) as tab-separated text"));
  connect(copy_, &QAction::triggered, this, &ResultsView::copySelection);
  addAction(copy_);

  connect(model, &QAbstractItemModel::rowsInserted, this, [this, model] {
    showCounterColumnsFor(*model);
    resizeColumnsToContents();
    if (horizontalHeader()->sortIndicatorSection() < 0) scrollToBottom();
  });
  connect(model, &QAbstractItemModel::modelReset, this, [this, model] {
    showCounterColumnsFor(*model);
    resizeColumnsToContents();
  });
  showCounterColumnsFor(*model);
  resizeColumnsToContents();
}

void ResultsView::showCounterColumnsFor(const desktop::ResultsModel& model) {
  // Five empty columns would push the rest aside: they appear once a run has counters.
  const bool any = std::any_of(model.results().begin(), model.results().end(),
                               [](const RunResult& r) { return r.counters.has_value(); });
  for (int column = desktop::ResultsModel::DramMB;
       column <= desktop::ResultsModel::AchievedOccupancy; ++column)
    setColumnHidden(column, !any);
}

QString ResultsView::selectionAsText() const {
  std::vector<int> rows;
  for (const QModelIndex& index : selectionModel()->selectedRows()) rows.push_back(index.row());
  if (rows.empty()) {
    for (int row = 0; row < proxy_.rowCount(); ++row) rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  QStringList lines;
  QStringList cells;
  for (int column = 0; column < proxy_.columnCount(); ++column) {
    if (!isColumnHidden(column))
      cells << proxy_.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
  }
  lines << cells.join(QLatin1Char('\t'));
  for (int row : rows) {
    cells.clear();
    for (int column = 0; column < proxy_.columnCount(); ++column) {
      if (!isColumnHidden(column))
        cells << proxy_.index(row, column).data(Qt::DisplayRole).toString();
    }
    lines << cells.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void ResultsView::copySelection() {
  QApplication::clipboard()->setText(selectionAsText());
}

void ResultsView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(copy_);
  menu.addAction(tr("Select &All"), this, &QTableView::selectAll);
  menu.exec(event->globalPos());
}

}  // namespace tilescope::ui
