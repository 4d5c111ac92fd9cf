// SPDX-License-Identifier: GPL-3.0-or-later
#include "presenter.hpp"

#include <QEvent>
#include <QKeyEvent>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>

namespace tilescope::ui {
namespace {

// The screen a presentation's text is drawn at its natural size on; larger screens enlarge it.
constexpr QSize kPresentationBase{1000, 600};
constexpr double kMaxFontScale = 3.0;

}  // namespace

Presenter::Presenter(QObject* parent) : QObject(parent) {}

Presenter::~Presenter() {
  delete window_;
}

QList<QKeySequence> Presenter::shortcuts() {
  QList<QKeySequence> keys{QKeySequence(Qt::Key_F11)};
  for (const QKeySequence& key : QKeySequence::keyBindings(QKeySequence::FullScreen))
    if (!keys.contains(key)) keys.append(key);
  return keys;
}

bool Presenter::endsPresentation(const QKeyEvent& key) {
  return key.key() == Qt::Key_Escape || shortcuts().contains(QKeySequence(key.keyCombination()));
}

double Presenter::fontScale(QSize size) {
  const double fit = std::min(double(size.width()) / kPresentationBase.width(),
                              double(size.height()) / kPresentationBase.height());
  return std::clamp(fit, 1.0, kMaxFontScale);
}

bool Presenter::begin(QWidget* content, const QString& title) {
  if (window_) return false;
  window_ = new QWidget(nullptr, Qt::Window);
  window_->setWindowTitle(title);
  auto* layout = new QVBoxLayout(window_);
  layout->setContentsMargins(0, 0, 0, 0);
  content_ = content;
  layout->addWidget(content);
  content->show();
  window_->installEventFilter(this);
  window_->showFullScreen();
  emit resized(window_->size());
  return true;
}

QWidget* Presenter::swap(QWidget* content) {
  if (!window_) return nullptr;
  QWidget* shown = content_;
  if (shown) {
    window_->layout()->removeWidget(shown);
    shown->setParent(nullptr);
  }
  content_ = content;
  window_->layout()->addWidget(content);
  content->show();
  return shown;
}

QWidget* Presenter::end() {
  if (!window_) return nullptr;
  QWidget* shown = content_;
  if (shown) {
    window_->layout()->removeWidget(shown);
    shown->setParent(nullptr);
  }
  content_ = nullptr;
  window_->removeEventFilter(this);
  window_->hide();
  window_->deleteLater();
  window_ = nullptr;
  return shown;
}

bool Presenter::eventFilter(QObject* watched, QEvent* event) {
  if (watched != window_) return QObject::eventFilter(watched, event);
  switch (event->type()) {
    case QEvent::Close:
      // Closing the full-screen window (Alt+F4, the window manager) just ends the presentation.
      event->ignore();
      QTimer::singleShot(0, this, &Presenter::endRequested);
      return true;
    case QEvent::Resize:
      emit resized(window_->size());
      break;
    case QEvent::KeyPress: {
      // The presentation is a window of its own: the main window's shortcuts do not reach it.
      const auto* key = static_cast<QKeyEvent*>(event);
      if (endsPresentation(*key)) {
        emit endRequested();
        return true;
      }
      emit keyPressed(key->key());
      return true;
    }
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace tilescope::ui
