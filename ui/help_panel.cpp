// SPDX-License-Identifier: GPL-3.0-or-later
#include "help_panel.hpp"

#include <QFile>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

namespace tilescope::ui {

QString chartHelpTopic(const QString& chartId) {
  return QStringLiteral("chart-") + chartId;
}

QString diagramHelpTopic(const QString& viewName) {
  return QStringLiteral("diagram-") + viewName;
}

QString helpText(const QString& topic) {
  QFile file(QStringLiteral(":/help/%1.md").arg(topic));
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll());
}

QToolButton* makeHelpButton(const QString& toolTip, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setText(QStringLiteral("?"));
  button->setToolTip(toolTip);
  button->setStatusTip(toolTip);
  button->setAutoRaise(true);
  QFont font = button->font();
  font.setBold(true);
  button->setFont(font);
  return button;
}

HelpPanel::HelpPanel(QWidget* parent) : QDialog(parent, Qt::Tool) {
  setObjectName(QStringLiteral("helpPanel"));
  setModal(false);
  browser_ = new QTextBrowser(this);
  browser_->setOpenExternalLinks(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(browser_);
  resize(520, 560);
}

bool HelpPanel::showTopic(const QString& topic, QWidget* anchor) {
  const QString text = helpText(topic);
  if (text.isEmpty()) return false;
  topic_ = topic;
  browser_->setMarkdown(text);
  // The first heading names the window: "What am I looking at? The roofline".
  setWindowTitle(tr("What am I looking at? %1").arg(browser_->document()->firstBlock().text()));
  // A tool window stays above the main window; over another one (the diagrams' full-screen
  // presentation, which is deleted when it ends, so never its parent) it must stay on top.
  const bool elsewhere = anchor && parentWidget() && anchor->window() != parentWidget()->window();
  if (elsewhere != windowFlags().testFlag(Qt::WindowStaysOnTopHint))
    setWindowFlag(Qt::WindowStaysOnTopHint, elsewhere);
  show();
  raise();
  activateWindow();
  return true;
}

QString HelpPanel::shownText() const {
  return browser_->toPlainText();
}

}  // namespace tilescope::ui
