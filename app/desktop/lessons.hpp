// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The seed lessons (Run > Seed Lessons): each replays a table of the seed texts in a fresh
// session. A lesson's data (what it sets, what it runs, its text on a GPU, the GPU effects a CPU
// run cannot show, the H200 sample that shows them) is a resource, ":/lessons/seed-lessons.json".
#include <QString>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "choices.hpp"
#include "run_job.hpp"

namespace tilescope::desktop {

struct Lesson {
  std::string id;  // "register-tiles"
  QString title;   // the menu entry
  QString tip;
  QString text;        // what the lesson shows, as measured on a GPU
  QString gpuEffects;  // which of those effects are GPU effects, said on the CPU
  QString sample;      // the H200 sample that shows them ("h200-ladder.json"); empty: none
  nlohmann::json choices = nlohmann::json::object();  // the choices it sets
  std::vector<std::string> sweep;  // what it runs (KEY=...); empty: the choices' own sweep
  // On a CPU backend, what it sets over `choices` and runs instead of `sweep`: sizes a CPU
  // runs in seconds rather than minutes.
  nlohmann::json cpuChoices = nlohmann::json::object();
  std::vector<std::string> cpuSweep;
};

// Every lesson, in menu order. Throws Error(InvalidArgument) for a malformed lesson file.
std::vector<Lesson> seedLessons();
const Lesson* findLesson(const std::vector<Lesson>& lessons, const std::string& id);

// The current choices with what the lesson sets; on a CPU backend (the current one) with its
// CPU sizes too.
Choices lessonChoices(const Lesson& lesson, const Choices& current);
// Every run the lesson's name promises, on the choices' backend. Throws Error(InvalidArgument).
std::vector<RunJob> lessonJobs(const Lesson& lesson, const Choices& choices);
// Whether `backend` runs on a CPU: "cpu", or a run server's CPU backend ("cpu@laptop").
bool onTheCpu(const std::string& backend);
// The lesson's text for `backend`: on the CPU it says which effects are GPU effects and names
// the H200 sample opened beside the run.
QString lessonText(const Lesson& lesson, const std::string& backend);
// What the lesson will run and roughly how long it takes: "12 runs of up to 2 s each after a
// warm-up: about 30 s", and on the CPU at which size instead of the GPU's.
QString lessonPlanText(const Lesson& lesson, const Choices& choices,
                       const std::vector<RunJob>& jobs);

}  // namespace tilescope::desktop
