// SPDX-License-Identifier: GPL-3.0-or-later
#include "lesson_controller.hpp"

#include "samples.hpp"

namespace tilescope::desktop {

LessonController::LessonController(SessionController& sessions, QueueController& queue,
                                   const RunController& runs, QObject* parent)
    : QObject(parent), sessions_(sessions), queue_(queue), runs_(runs) {
  try {
    lessons_ = seedLessons();
  } catch (const Error& error) {
    loadError_ = QString::fromStdString(error.what());
  }
}

bool LessonController::start(const std::string& id, const Choices& current, QString* problem) {
  const auto refuse = [&](const QString& message) {
    emit this->problem(message);
    if (problem) *problem = message;
    return false;
  };
  const Lesson* lesson = findLesson(lessons_, id);
  if (!lesson) return refuse(tr("No lesson called %1").arg(QString::fromStdString(id)));
  // Its results would land in the lesson's fresh session.
  if (runs_.busy())
    return refuse(
        tr("Runs are in progress: cancel them (Esc) or let them end, then start the lesson"));
  const Choices choices = lessonChoices(*lesson, current);
  std::vector<RunJob> jobs;
  try {
    jobs = lessonJobs(*lesson, choices);
  } catch (const Error& error) {
    return refuse(tr("Cannot start the lesson: %1").arg(QString::fromStdString(error.what())));
  }
  if (!sessions_.settleUnsaved(tr("starting the lesson"))) {
    if (problem) *problem = tr("cancelled");
    return false;
  }
  // A fresh session: the lesson's results alone, nothing to undo into, no overlay of before.
  sessions_.startFresh();
  emit started(lesson->title,
               lessonText(*lesson, choices.backend) + QStringLiteral("\n\n") +
                   lessonPlanText(*lesson, choices, jobs),
               choices);
  // On the CPU the GPU's side of the lesson comes from the sample measured on an H200.
  if (onTheCpu(choices.backend) && !lesson->sample.isEmpty()) {
    QString error;
    if (!sessions_.openOverlay(shippedSample(lesson->sample), &error)) emit this->problem(error);
  }
  queue_.enqueue(jobs);
  return true;
}

}  // namespace tilescope::desktop
