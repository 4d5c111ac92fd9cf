// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tilescope-bench --grade, --check-exercise and the child --grade starts per submission. No Qt.
#include <CLI/CLI.hpp>

#include "command_line.hpp"

namespace tilescope::bench {

// --grade EXERCISE SUBMISSION...: a row per submission.
int runGrade(const CLI::App& app, const CommandLine& cl);
// --check-exercise FOLDER_OR_ID: valid, its solution passes and its start fails.
int runCheckExercise(const CLI::App& app, const CommandLine& cl);
// --grade-child: checks one submission, shut in, and writes the report on stdout.
int runGradeChild(const CommandLine& cl);

}  // namespace tilescope::bench
