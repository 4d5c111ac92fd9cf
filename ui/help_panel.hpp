// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "What am I looking at?": a help panel per chart and diagram view (what is drawn, how to read
// it, which seed it comes from), opened by F1 or a ? button. The texts are resources, one
// Markdown file per topic: ":/help/chart-<chart id>.md", ":/help/diagram-<view>.md" and
// ":/help/guide.md" (Help > Guide).
#include <QDialog>
#include <QString>

class QTextBrowser;
class QToolButton;

namespace tilescope::ui {

// The help topic of a chart ("chart-roofline") or a diagram view ("diagram-kstep").
QString chartHelpTopic(const QString& chartId);
QString diagramHelpTopic(const QString& viewName);
inline const QString kGuideTopic = QStringLiteral("guide");

// The Markdown text of `topic`; empty when there is none.
QString helpText(const QString& topic);

// A small "?" button for a tab row's corner; the caller connects its clicked signal.
QToolButton* makeHelpButton(const QString& toolTip, QWidget* parent = nullptr);

// One non-modal window that shows one topic at a time beside what it explains.
class HelpPanel : public QDialog {
  Q_OBJECT

 public:
  explicit HelpPanel(QWidget* parent = nullptr);

  // Shows `topic` above `anchor`'s window (the main window or the diagrams' presentation
  // window); false when the topic has no text.
  bool showTopic(const QString& topic, QWidget* anchor);
  QString topic() const { return topic_; }
  // The text on show, as plain text.
  QString shownText() const;

 private:
  QTextBrowser* browser_ = nullptr;
  QString topic_;
};

}  // namespace tilescope::ui
