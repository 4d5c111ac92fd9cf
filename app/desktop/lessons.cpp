// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons.hpp"

#include <QCoreApplication>
#include <QFile>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"

namespace tilescope::desktop {
namespace {

const QString kLessonFile = QStringLiteral(":/lessons/seed-lessons.json");

QString textField(const nlohmann::json& json, const char* key) {
  return QString::fromStdString(json.value(key, std::string()));
}

Lesson lessonFromJson(const nlohmann::json& json) {
  Lesson lesson;
  lesson.id = json.at("id").get<std::string>();
  lesson.title = textField(json, "title");
  lesson.tip = textField(json, "tip");
  lesson.text = textField(json, "text");
  lesson.gpuEffects = textField(json, "gpu_effects");
  lesson.sample = textField(json, "sample");
  lesson.choices = json.value("choices", nlohmann::json::object());
  lesson.sweep = json.value("sweep", std::vector<std::string>{});
  if (lesson.id.empty() || lesson.title.isEmpty() || lesson.text.isEmpty() ||
      !lesson.choices.is_object()) {
    throw Error(ErrorKind::InvalidArgument, "lesson '" + lesson.id + "' lacks a field");
  }
  return lesson;
}

}  // namespace

std::vector<Lesson> seedLessons() {
  QFile file(kLessonFile);
  if (!file.open(QIODevice::ReadOnly))
    throw Error(ErrorKind::InvalidArgument, "the lessons are missing from this build");
  std::vector<Lesson> lessons;
  try {
    const nlohmann::json document = nlohmann::json::parse(file.readAll().toStdString());
    for (const nlohmann::json& entry : document.at("lessons"))
      lessons.push_back(lessonFromJson(entry));
  } catch (const nlohmann::json::exception& error) {
    throw Error(ErrorKind::InvalidArgument, std::string("malformed lesson file: ") + error.what());
  }
  return lessons;
}

bool onTheCpu(const std::string& backend) {
  return implementationOf(backend) == "cpu";
}

const Lesson* findLesson(const std::vector<Lesson>& lessons, const std::string& id) {
  for (const Lesson& lesson : lessons) {
    if (lesson.id == id) return &lesson;
  }
  return nullptr;
}

Choices lessonChoices(const Lesson& lesson, const Choices& current) {
  nlohmann::json merged = toJson(current);
  merged.update(lesson.choices);
  return choicesFromJson(merged);
}

std::vector<RunJob> lessonJobs(const Lesson& lesson, const Choices& choices) {
  if (lesson.sweep.empty()) return planJobs(choices, sweepAxes(choices));
  return planJobs(choices, plan::Sweep::parse(lesson.sweep));
}

QString lessonText(const Lesson& lesson, const std::string& backend) {
  if (!onTheCpu(backend) || lesson.gpuEffects.isEmpty()) return lesson.text;
  QString text =
      lesson.text + QStringLiteral("\n\n") +
      QCoreApplication::translate("Lesson", "This run is on the CPU. %1").arg(lesson.gpuEffects);
  if (!lesson.sample.isEmpty()) {
    text += QLatin1Char(' ') + QCoreApplication::translate(
                                   "Lesson",
                                   "The H200 sample %1 is laid over the charts beside this run, "
                                   "marked \u201cH200 sample\u201d.")
                                   .arg(lesson.sample);
  }
  return text;
}

}  // namespace tilescope::desktop
