// SPDX-License-Identifier: GPL-3.0-or-later
#include "notice_bar.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace tilescope::ui {

NoticeBar::NoticeBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("noticeBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 6, 6, 6);
  icon_ = new QLabel(this);
  const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize);
  icon_->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  // Always rich text: the message is escaped, and a plain one would show its "&gt;" raw.
  text_->setTextFormat(Qt::RichText);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* close = new QToolButton(this);
  close->setAutoRaise(true);
  close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  close->setToolTip(tr("Dismiss"));
  connect(close, &QToolButton::clicked, this, &NoticeBar::dismiss);
  layout->addWidget(icon_, 0, Qt::AlignTop);
  layout->addWidget(text_, 1);
  layout->addWidget(close, 0, Qt::AlignTop);
  applyPalette();
  hide();
}

void NoticeBar::showProblem(const QString& message) {
  ++count_;
  latest_ = message;
  QString text = message.toHtmlEscaped();
  if (count_ > 1) text += tr(" <i>(%1 problems since this notice opened)</i>").arg(count_);
  text_->setText(text);
  show();
}

void NoticeBar::resolve(const QString& message) {
  if (latest_ == message) dismiss();
}

void NoticeBar::dismiss() {
  count_ = 0;
  latest_.clear();
  hide();
}

QString NoticeBar::message() const {
  return latest_;
}

void NoticeBar::changeEvent(QEvent* event) {
  QFrame::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyPalette();
}

void NoticeBar::applyPalette() {
  // A warm tint that reads on light and on dark palettes alike.
  const bool dark = palette().color(QPalette::Window).lightness() < 128;
  const QColor background = dark ? QColor(0x5a, 0x44, 0x10) : QColor(0xfd, 0xf1, 0xc8);
  const QColor border = dark ? QColor(0x9a, 0x74, 0x1c) : QColor(0xe0, 0xb4, 0x3c);
  const QColor text = dark ? QColor(0xf6, 0xe8, 0xc8) : QColor(0x40, 0x30, 0x00);
  const QString sheet = QStringLiteral(
                            "#noticeBar { background: %1; border: 1px solid %2; "
                            "border-radius: 4px; } #noticeBar QLabel { color: %3; }")
                            .arg(background.name(), border.name(), text.name());
  // Setting a style sheet can itself change the palette: only set a different one.
  if (sheet != styleSheet()) setStyleSheet(sheet);
}

}  // namespace tilescope::ui
