// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_bar.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace tilescope::ui {
namespace {

constexpr int kVisibleLines = 5;

}  // namespace

LessonBar::LessonBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("lessonBar"));
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 6, 6, 6);
  auto* words = new QVBoxLayout;
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  text_ = new QLabel;
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The charts keep their room on a small screen: past a few lines the text scrolls.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(text_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMaximumHeight(fontMetrics().lineSpacing() * kVisibleLines);
  words->addWidget(title_);
  words->addWidget(scroll);
  auto* close = new QToolButton(this);
  close->setAutoRaise(true);
  close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  close->setToolTip(tr("Hide the lesson's text"));
  connect(close, &QToolButton::clicked, this, &QWidget::hide);
  layout->addLayout(words, 1);
  layout->addWidget(close, 0, Qt::AlignTop);
  hide();
}

void LessonBar::showLesson(const QString& title, const QString& text) {
  title_->setText(title);
  text_->setText(text);
  show();
}

QString LessonBar::title() const {
  return title_->text();
}

QString LessonBar::text() const {
  return text_->text();
}

}  // namespace tilescope::ui
