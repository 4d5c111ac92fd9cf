// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lesson in progress, above the charts: its title and what it shows on the backend in use.
#include <QFrame>

class QLabel;

namespace tilescope::ui {

class LessonBar : public QFrame {
  Q_OBJECT

 public:
  explicit LessonBar(QWidget* parent = nullptr);

  void showLesson(const QString& title, const QString& text);
  QString title() const;
  QString text() const;

 private:
  QLabel* title_ = nullptr;
  QLabel* text_ = nullptr;
};

}  // namespace tilescope::ui
