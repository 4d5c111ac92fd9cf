// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run > Seed Lessons: a lesson starts a fresh session (after offering to save unsaved results),
// sets the choices it names, queues everything it runs and says its text for the backend in use;
// on the CPU the matching H200 sample is laid over the charts.
#include <QObject>
#include <string>
#include <vector>

#include "lessons.hpp"
#include "queue_controller.hpp"
#include "session_controller.hpp"

namespace tilescope::desktop {

class LessonController : public QObject {
  Q_OBJECT

 public:
  // Reads the seed lessons; a malformed lesson file leaves none and says why in loadError().
  LessonController(SessionController& sessions, QueueController& queue, const RunController& runs,
                   QObject* parent = nullptr);

  const std::vector<Lesson>& lessons() const { return lessons_; }
  const QString& loadError() const { return loadError_; }

  // Starts lesson `id` from the `current` choices. False when refused (the reason as a problem
  // and in `problem`) or when the user keeps the unsaved results ("cancelled").
  bool start(const std::string& id, const Choices& current, QString* problem = nullptr);

 signals:
  // The lesson's session has begun: show its choices and its text, then its runs are queued.
  void started(const QString& title, const QString& text,
               const tilescope::desktop::Choices& choices);
  void problem(const QString& message);

 private:
  SessionController& sessions_;
  QueueController& queue_;
  const RunController& runs_;
  std::vector<Lesson> lessons_;
  QString loadError_;
};

}  // namespace tilescope::desktop
