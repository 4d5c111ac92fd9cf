// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Presentation mode, shared by the diagrams and the charts: one widget moved into a full-screen
// window of its own, its text scaled to the screen, F11 (or the platform's full-screen key) and
// Esc to come back, closing the window the same. The owner moves its widget in and out and reacts
// to the keys it steps with (arrow keys, Page Up and Page Down).
#include <QKeySequence>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSize>
#include <QString>
#include <QWidget>

class QKeyEvent;

namespace tilescope::ui {

class Presenter : public QObject {
  Q_OBJECT

 public:
  explicit Presenter(QObject* parent = nullptr);
  ~Presenter() override;

  // F11 on every platform, plus the platform's own full-screen key where it has one (Linux has
  // none): what enters presentation mode, and what leaves it besides Esc.
  static QList<QKeySequence> shortcuts();
  // Whether `key` ends a presentation: Esc or one of shortcuts().
  static bool endsPresentation(const QKeyEvent& key);
  // How much larger text is drawn when presenting on a screen of `size`: readable from the back
  // of a room, yet leaving the figure most of a 1280x720 projector. 1 up to a 1000x600 screen,
  // 1.2 on 1280x720, 1.8 on 1920x1080, at most 3.
  static double fontScale(QSize size);

  // Moves `content` into a new full-screen window titled `title`; false when presenting already.
  bool begin(QWidget* content, const QString& title);
  // Closes the window and gives back the widget it presented (parentless: the owner puts it back
  // in its place); null when not presenting.
  QWidget* end();
  bool active() const { return window_ != nullptr; }
  QWidget* window() const { return window_; }
  QWidget* content() const { return content_; }
  // Puts another widget in the window in place of the one shown, which is returned parentless.
  QWidget* swap(QWidget* content);

 signals:
  // Esc, F11 or the full-screen key in the window, or the window closed: the owner should end.
  void endRequested();
  // The window's size changed: the owner scales its text with fontScale(size).
  void resized(QSize size);
  // A key the content did not take (the arrow keys and Page Up/Down step through what is shown).
  void keyPressed(int key);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QPointer<QWidget> window_;
  QPointer<QWidget> content_;
};

}  // namespace tilescope::ui
