// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons.hpp"

#include <QCoreApplication>
#include <QFile>

#include "formatting.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"

namespace tilescope::desktop {
namespace {

const QString kLessonFile = QStringLiteral(":/lessons/seed-lessons.json");
// A run's warm-up, verification and start on top of its timing budget. A rough upper figure: the
// seven runs of the register-tile lesson at 256³ took 14 s on a 2-core machine, where the
// estimate says 18 s (runs that turn steady end before their budget).
constexpr double kLessonRunOverheadSeconds = 0.5;

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
  lesson.cpuChoices = json.value("cpu_choices", nlohmann::json::object());
  lesson.cpuSweep = json.value("cpu_sweep", std::vector<std::string>{});
  if (lesson.id.empty() || lesson.title.isEmpty() || lesson.text.isEmpty() ||
      !lesson.choices.is_object() || !lesson.cpuChoices.is_object()) {
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
  if (onTheCpu(current.backend)) merged.update(lesson.cpuChoices);
  return choicesFromJson(merged);
}

std::vector<RunJob> lessonJobs(const Lesson& lesson, const Choices& choices) {
  const std::vector<std::string>& sweep =
      onTheCpu(choices.backend) && !lesson.cpuSweep.empty() ? lesson.cpuSweep : lesson.sweep;
  if (sweep.empty()) return planJobs(choices, sweepAxes(choices));
  return planJobs(choices, plan::Sweep::parse(sweep));
}

QString lessonPlanText(const Lesson& lesson, const Choices& choices,
                       const std::vector<RunJob>& jobs) {
  const auto tr = [](const char* text) { return QCoreApplication::translate("Lesson", text); };
  // Each run warms up, then repeats until its times are steady or its budget is spent: at the
  // sizes a lesson uses, about its budget and a launch or two.
  const double budget = choices.fixedReps ? 0.0 : choices.budgetSeconds;
  const double seconds = double(jobs.size()) * (budget + kLessonRunOverheadSeconds);
  const QString runs = jobs.size() == 1 ? tr("1 run") : tr("%1 runs").arg(jobs.size());
  QString text =
      (choices.fixedReps ? tr("%1 of %2 repetitions each on %3")
                               .arg(runs)
                               .arg(*choices.fixedReps)
                               .arg(QString::fromStdString(choices.backend))
                         : tr("%1 of up to %2 s each on %3: about %4")
                               .arg(runs)
                               .arg(choices.budgetSeconds)
                               .arg(QString::fromStdString(choices.backend))
                               .arg(seconds < 90 ? tr("%1 s").arg(int(seconds + 0.5))
                                                 : tr("%1 min").arg(int(seconds / 60 + 0.5)))) +
      QLatin1Char('.');
  if (onTheCpu(choices.backend) && (!lesson.cpuChoices.empty() || !lesson.cpuSweep.empty())) {
    const QString sizes = lesson.cpuChoices.empty()
                              ? tr("smaller sizes than on a GPU")
                              : formatShape(choices.shape) + tr(", a smaller size than on a GPU");
    text += QLatin1Char(' ') + tr("On the CPU the lesson runs at %1, so that it ends in seconds; "
                                  "for the GPU's size, change the size in Run Setup and press Run.")
                                   .arg(sizes);
  }
  return text;
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
