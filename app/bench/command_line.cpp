// SPDX-License-Identifier: GPL-3.0-or-later
#include "command_line.hpp"

#include <cstdio>

#include "tilescope/cli/options.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::bench {
namespace {

using cli::Program;

const cli::OptionSpec& spec(std::string_view name) {
  return cli::option(name, Program::Bench);
}

// "-o,--output" or "--size": the names CLI11 declares.
// --type's choices: every element type's name.
std::vector<std::string> typeNames() {
  std::vector<std::string> names;
  for (const ElementType type : kElementTypes) names.emplace_back(toString(type));
  return names;
}

std::string namesOf(std::string_view name) {
  const cli::OptionSpec& option = spec(name);
  std::string names = option.shortName.empty() ? "" : "-" + std::string(option.shortName) + ",";
  return names + "--" + std::string(option.name);
}

template <class Value>
CLI::Option* addOption(CLI::App& app, std::string_view name, Value& value) {
  return app.add_option(namesOf(name), value, std::string(spec(name).help))
      ->type_name(std::string(spec(name).valueName));
}

CLI::Option* addFlag(CLI::App& app, std::string_view name, bool& value) {
  return app.add_flag(namesOf(name), value, std::string(spec(name).help));
}

// A deprecated spelling of `name`, never with `name` itself. --help lists it apart (a hidden
// option has no name in CLI11 2.1's errors).
template <class Value>
CLI::Option* addDeprecated(CLI::App& app, std::string_view name, Value& value) {
  const cli::DeprecatedAlias& alias = spec(name).aliases.front();
  const std::string old = "--" + std::string(alias.name);
  const std::string note = cli::deprecationNote(spec(name), alias);
  CLI::Option* option;
  if constexpr (std::is_same_v<Value, bool>)
    option = app.add_flag(old, value, note);
  else
    option = app.add_option(old, value, note)->type_name(std::string(alias.valueName));
  return option->group("Deprecated spellings")->excludes(app.get_option("--" + std::string(name)));
}

}  // namespace

const CLI::Option* declareOptions(CLI::App& app, CommandLine& cl) {
  app.footer(cli::helpFooter(Program::Bench));
  app.set_help_flag(namesOf("help"), std::string(spec("help").help));
  app.set_version_flag("--version", "tilescope-bench " TILESCOPE_VERSION,
                       std::string(spec("version").help));
  const auto* list = addFlag(app, "list", cl.list);
  addFlag(app, "serve", cl.serve);
  addOption(app, "backend", cl.backend)->capture_default_str();
  addOption(app, "via", cl.via);
  auto* kernel = addOption(app, "kernel", cl.plan.kernel);
  auto* kernelFile = addOption(app, "kernel-file", cl.kernelFile);
  kernelFile->excludes(kernel);
  auto* trace = addOption(app, "trace", cl.trace);
  auto* traceBlock = addOption(app, "trace-block", cl.traceBlock);
  trace->needs(kernelFile);
  traceBlock->needs(trace);
  auto* autotune = addOption(app, "autotune", cl.autotune);
  auto* ceilings = addFlag(app, "ceilings", cl.ceilings);
  auto* measureCeilings = addDeprecated(app, "ceilings", cl.measureCeilings);
  auto* tuned = addFlag(app, "tuned", cl.tuned);
  auto* noTuned = addFlag(app, "no-tuned", cl.noTuned);
  auto* tile = addOption(app, "tile", cl.plan.tile);
  auto* params = addOption(app, "param", cl.plan.params);
  auto* m = addOption(app, "m", cl.plan.m);
  auto* n = addOption(app, "n", cl.plan.n);
  auto* k = addOption(app, "k", cl.plan.k);
  auto* size = addOption(app, "size", cl.plan.size);
  auto* sweep = addOption(app, "sweep", cl.plan.sweeps)
                    ->expected(1)
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  auto* reps = addOption(app, "reps", cl.reps);
  auto* budget = addOption(app, "budget-ms", cl.budgetMs);
  auto* budgetSeconds = addDeprecated(app, "budget-ms", cl.budgetSeconds);
  addOption(app, "format", cl.format)
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  addOption(app, "output", cl.output);
  addOption(app, "seed", cl.seed);
  addOption(app, "fill", cl.fill)
      ->check(CLI::IsMember({"random", "integer"}))
      ->capture_default_str();
  addOption(app, "type", cl.type)->check(CLI::IsMember(typeNames()))->capture_default_str();
  addFlag(app, "no-verify", cl.noVerify);
  addFlag(app, "allow-long-runs", cl.allowLongRuns);
  addFlag(app, "counters", cl.counters);
  auto* device = addOption(app, "device", cl.device);
  auto* devices = addOption(app, "devices", cl.devices);
  devices->excludes(device)->excludes(trace);
  auto* grade = addOption(app, "grade", cl.grade);
  auto* checkExercise = addOption(app, "check-exercise", cl.checkExercise);
  addOption(app, "time-limit", cl.timeLimit);
  addOption(app, "memory-limit", cl.memoryLimit);
  addOption(app, "jobs", cl.jobs);
  addOption(app, "scratch", cl.scratch);
  grade->excludes(checkExercise);
  app.add_option("submissions", cl.submissions,
                 "--grade: the submissions, .cu files or folders of them")
      ->type_name("SUBMISSION");
  // The child --grade starts for each submission: not for people (no help, no man page).
  app.add_option("--grade-child", cl.gradeChild)->group("");
  // The child every compile of a user kernel runs in (app/lib/tilescope/compile): not for people.
  app.add_option("--compile-kernel", cl.compileKernel)->group("");
  tile->excludes(params);
  size->excludes(m)->excludes(n)->excludes(k);
  for (CLI::Option* other :
       {kernel, tile, params, sweep, tuned, noTuned, ceilings, measureCeilings})
    autotune->excludes(other);
  for (CLI::Option* other : {noTuned, tile, params}) tuned->excludes(other);
  for (CLI::Option* other : {sweep, autotune, ceilings, measureCeilings, tuned, noTuned})
    trace->excludes(other);
  reps->excludes(budget)->excludes(budgetSeconds);
  return list;
}

std::vector<std::string> applyDeprecatedSpellings(const CLI::App& app, CommandLine& cl) {
  std::vector<std::string> notes;
  const auto noteIfGiven = [&](std::string_view name) {
    const cli::OptionSpec& option = spec(name);
    const cli::DeprecatedAlias& alias = option.aliases.front();
    const bool given = app.get_option("--" + std::string(alias.name))->count() > 0;
    if (given) notes.push_back(cli::deprecationNote(option, alias));
    return given ? &alias : nullptr;
  };
  if (const cli::DeprecatedAlias* alias = noteIfGiven("budget-ms")) {
    const double milliseconds =
        plan::parsePositiveNumber(*cl.budgetSeconds, "--budget") * alias->scale;
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", milliseconds);
    cl.budgetMs = text;
  }
  if (noteIfGiven("ceilings")) cl.ceilings = true;
  return notes;
}

}  // namespace tilescope::bench
