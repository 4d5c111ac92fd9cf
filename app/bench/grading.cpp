// SPDX-License-Identifier: GPL-3.0-or-later
#include "grading.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <optional>

#include "console.hpp"
#include "tilescope/error.hpp"
#include "tilescope/exercise/grade.hpp"
#include "tilescope/exercise/sandbox.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/interrupt.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::bench {
namespace {

// --grade, --check-exercise: only these options go with them.
void refuseOtherOptions(const CLI::App& app, const std::string& mode) {
  static const std::vector<std::string> allowed = {
      "--grade",   "--check-exercise", "--backend", "--format",       "--output",
      "--scratch", "--time-limit",     "--jobs",    "--memory-limit", "submissions"};
  for (const CLI::Option* option : app.get_options())
    if (option->count() > 0 &&
        std::find(allowed.begin(), allowed.end(), option->get_name()) == allowed.end())
      throw Error(ErrorKind::InvalidArgument,
                  mode +
                      " takes --backend, --format, -o, --time-limit, --memory-limit, --jobs "
                      "and --scratch (got " +
                      option->get_name() + ")");
}

exercise::GradeOptions gradeOptions(const CommandLine& cl) {
  if (cl.backend != "cpu" && cl.backend != "cuda")
    throw Error(ErrorKind::InvalidArgument,
                "--backend " + cl.backend + ": grading runs cpu or cuda on this machine");
  exercise::GradeOptions options;
  options.backend = cl.backend;
  if (cl.timeLimit)
    options.timeLimitSeconds = plan::parsePositiveNumber(*cl.timeLimit, "--time-limit");
  if (cl.memoryLimit)
    options.memoryLimitBytes =
        std::uint64_t(plan::parseIntegerIn(*cl.memoryLimit, "--memory-limit", 64, 1 << 24)) << 20;
  if (cl.jobs) options.jobs = int(plan::parseIntegerIn(*cl.jobs, "--jobs", 1, 1024));
  if (cl.scratch) options.scratch = *cl.scratch;
  return options;
}

// Progress of a grading on stderr, when it is a terminal.
exercise::GradeProgressFn gradeProgress() {
  if (::isatty(STDERR_FILENO) != 1) return {};
  return [](std::size_t done, std::size_t total, const exercise::GradeRow& row) {
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s", done, total, row.submission.c_str(),
                 row.passed ? "passed" : row.reason.substr(0, 60).c_str());
    if (done == total) std::fprintf(stderr, "\r\033[K");
  };
}

// A grading child out of memory exits with the status its parent reads as such.
[[noreturn]] void exitOutOfMemory() {
  ::_exit(exercise::kGradeChildOutOfMemory);
}

// Out of memory where no Error said where (the new-handler, a library's bad_alloc): says so
// without allocating.
[[noreturn]] void outOfMemory() {
  static const char message[] = "tilescope-bench: out of memory\n";
  (void)!::write(STDERR_FILENO, message, sizeof message - 1);
  exitOutOfMemory();
}

}  // namespace

int runGrade(const CLI::App& app, const CommandLine& cl) {
  refuseOtherOptions(app, "--grade");
  if (cl.submissions.empty())
    throw Error(ErrorKind::InvalidArgument,
                "--grade " + *cl.grade +
                    ": name the submissions after the options (.cu files "
                    "or folders of them)");
  const exercise::Exercise graded = exercise::findExercise(*cl.grade);
  const exercise::GradeOptions options = gradeOptions(cl);
  const std::vector<std::string> submissions = exercise::listSubmissions(cl.submissions);
  std::optional<io::FileWriter> outputFile;
  if (cl.output) outputFile.emplace(*cl.output, "--output");
  if (!exercise::sandbox::addressSpaceLimitWorks() && options.backend == "cpu")
    printNote(
        "this is a sanitizer build: --memory-limit is not applied (the sanitizer's shadow "
        "memory alone is larger)");
  const std::vector<exercise::GradeRow> rows =
      exercise::gradeSubmissions(exercise::exerciseArgument(graded, *cl.grade), submissions,
                                 options, gradeProgress(), &interruptRequested);
  const std::string text =
      cl.format == "json" ? exercise::gradesJson(graded, rows, options, io::utcNow())
                                    .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                                "\n"
      : cl.format == "csv" ? exercise::gradesCsv(graded, rows)
                           : exercise::gradesTable(graded, rows);
  if (outputFile)
    outputFile->commit(text);
  else
    writeStdout(text);
  if (interruptRequested.load()) {
    printError("interrupted; the submissions not graded are marked cancelled");
    return io::interruptedExitCode(io::interruptSignal());
  }
  return kExitOk;
}

int runCheckExercise(const CLI::App& app, const CommandLine& cl) {
  refuseOtherOptions(app, "--check-exercise");
  if (!cl.submissions.empty())
    throw Error(ErrorKind::InvalidArgument,
                "--check-exercise takes no submissions (got " + cl.submissions.front() + ")");
  const exercise::Exercise checked = exercise::findExercise(*cl.checkExercise);
  exercise::GradeOptions options = gradeOptions(cl);
  // Its two files, graded as a class's would be.
  std::string folder = (std::filesystem::temp_directory_path() / "tilescope-check-XXXXXX").string();
  if (!mkdtemp(folder.data()))
    throw Error(ErrorKind::InvalidArgument, "cannot make a temporary folder");
  struct Remove {
    std::string path;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove{folder};
  io::writeFile(folder + "/solution.cu", checked.solution, "the solution");
  io::writeFile(folder + "/start.cu", checked.start, "the start");
  if (!options.scratch.empty()) options.scratch += "/" + checked.id;
  const std::vector<exercise::GradeRow> rows = exercise::gradeSubmissions(
      exercise::exerciseArgument(checked, *cl.checkExercise),
      {folder + "/solution.cu", folder + "/start.cu"}, options, {}, &interruptRequested);
  const auto line = [](const char* name, const exercise::GradeRow& row) {
    std::string text = std::string(name) + ": " + (row.passed ? "passes" : "fails");
    if (!row.reason.empty()) text += ": " + row.reason;
    for (const exercise::CheckResult& check : row.checks)
      text += std::string("\n  ") + exercise::toString(check.state) + "  " + check.spec.title() +
              (check.detail.empty() ? "" : ": " + check.detail);
    return text + "\n";
  };
  const bool right = rows[0].passed && !rows[1].passed;
  writeStdout(checked.id + " (" + checked.origin + "): " + checked.title + "\n" +
              line("solution.cu", rows[0]) + line("start.cu", rows[1]) +
              (right ? "the exercise is sound: its solution passes and its start fails\n" : ""));
  if (!right)
    printError(checked.id + ": " +
               (rows[0].passed ? "its start passes already" : "its solution does not pass"));
  return right ? kExitOk : kExitUnverified;
}

int runGradeChild(const CommandLine& cl) {
  if (cl.submissions.size() != 1)
    throw Error(ErrorKind::InvalidArgument, "--grade-child EXERCISE FILE --backend KIND");
  std::set_new_handler(outOfMemory);
  try {
    const std::unique_ptr<Backend> backend = makeBackend(cl.backend);
    writeStdout(exercise::runGradeChild(*cl.gradeChild, cl.submissions.front(), *backend) + "\n");
  } catch (const std::bad_alloc&) {  // thrown by a library rather than by operator new
    outOfMemory();
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::OutOfMemory) throw;
    printError(error.what());
    exitOutOfMemory();
  }
  return kExitOk;
}

}  // namespace tilescope::bench
