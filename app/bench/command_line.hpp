// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// tilescope-bench's options: declared on CLI11 from the option table (cli/options.hpp), which
// gives each its name, value name and help text, as `tilescope` takes the shared ones.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plan.hpp"

namespace tilescope::bench {

// The options as typed. Numbers stay text until validated, so errors can quote them.
struct CommandLine {
  bool serve = false;
  bool list = false, noVerify = false, allowLongRuns = false, tuned = false, noTuned = false,
       ceilings = false, counters = false;
  std::optional<std::string> autotune;
  std::string backend = "cpu", format = "table", fill = "random", type = "fp32";
  std::optional<std::string> output, reps, budgetMs, seed, device, devices, via, kernelFile;
  std::optional<std::string> trace, traceBlock;
  // Grading: the exercise, the submissions (the positional arguments), the limits. The hidden
  // --grade-child EXERCISE FILE is the child that checks one of them.
  std::optional<std::string> grade, checkExercise, gradeChild;
  // --compile-kernel REQUEST compiles one user kernel and writes the result (compile_child.hpp).
  std::optional<std::string> compileKernel;
  std::optional<std::string> timeLimit, memoryLimit, jobs, scratch;
  std::vector<std::string> submissions;
  PlanInput plan;  // kernel, parameters, sizes and sweeps

  // The deprecated spellings as typed: --budget SECONDS, --measure-ceilings.
  std::optional<std::string> budgetSeconds;
  bool measureCeilings = false;
};

// Declares every option of `app`, bound to `cl`; returns --list.
const CLI::Option* declareOptions(CLI::App& app, CommandLine& cl);

// After parsing: each deprecated spelling given becomes its option (--budget 2 is --budget-ms
// 2000); returns the notes to print, one per spelling. Throws tilescope::Error for a bad value.
std::vector<std::string> applyDeprecatedSpellings(const CLI::App& app, CommandLine& cl);

}  // namespace tilescope::bench
