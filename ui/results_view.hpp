// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The results table: sortable by any column (numerically where the column is a number), rows
// copyable as tab-separated text that pastes into a spreadsheet.
#include <QSortFilterProxyModel>
#include <QTableView>

#include "results_model.hpp"

namespace tilescope::ui {

// Sorts by the model's raw values and marks failed verifications and local memory use (register
// spills) in red.
class ResultsProxy : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  QVariant data(const QModelIndex& index, int role) const override;
};

class ResultsView : public QTableView {
  Q_OBJECT

 public:
  explicit ResultsView(desktop::ResultsModel* model, QWidget* parent = nullptr);

  // The selected rows (every row when none is selected) with a header line, tab-separated, in
  // the order the table shows them, without the hidden columns.
  QString selectionAsText() const;
  QAction* copyAction() const { return copy_; }

 public slots:
  void copySelection();

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void showCounterColumnsFor(const desktop::ResultsModel& model);

  ResultsProxy proxy_;
  QAction* copy_ = nullptr;
};

}  // namespace tilescope::ui
