// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A non-modal notice above the charts: failed runs and other problems show here (and in the
// status bar) without a dialog per error; the results already measured stay.
#include <QFrame>

class QLabel;

namespace tilescope::ui {

class NoticeBar : public QFrame {
  Q_OBJECT

 public:
  explicit NoticeBar(QWidget* parent = nullptr);

  // Shows `message`; while the bar is open, later problems replace it and are counted.
  void showProblem(const QString& message);
  // Dismisses the notice when `message` is still the one it shows (the problem is over).
  void resolve(const QString& message);
  void dismiss();
  QString message() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void applyPalette();

  QLabel* icon_ = nullptr;
  QLabel* text_ = nullptr;
  int count_ = 0;
  QString latest_;
};

}  // namespace tilescope::ui
