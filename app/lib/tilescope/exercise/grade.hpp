// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Grading a class (docs/exercises.md, "Grading a class"): every submission checked against an
// exercise in a child process of its own (sandbox.hpp), in a scratch folder, with a time and a
// memory limit, and the rows written as a table, CSV or JSON. An endless loop, a crash, a huge
// allocation, a compile that never ends or a kernel that reaches for files fails its own row with
// the reason, and the grading goes on.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"
#include "tilescope/exercise/check.hpp"
#include "tilescope/exercise/exercise.hpp"

namespace tilescope::exercise {

struct GradeOptions {
  std::string backend = "cpu";  // the children's: cpu (sandboxed) or cuda
  double timeLimitSeconds = 60;
  std::uint64_t memoryLimitBytes = std::uint64_t(2048) << 20;
  int jobs = 0;         // children at once; 0: one per core (cpu), one (cuda)
  std::string scratch;  // where the children work; empty: a fresh folder, removed afterwards
  // The program whose `--grade-child EXERCISE FILE --backend B` checks one submission.
  std::string childProgram = "/proc/self/exe";
};

struct GradeRow {
  std::string submission;  // as the table names it: the path given, or inside a folder given
  bool compiled = false;
  bool verified = false;            // every verification shape right
  std::vector<CheckResult> checks;  // the exercise's, where the child got that far
  bool passed = false;
  double seconds = 0;  // its child's wall time, compile included
  std::string reason;  // why it did not pass ("timed out after 20 s"); empty if it did
  std::vector<std::string> refused;        // system calls the sandbox refused it
  std::optional<SubmissionReport> report;  // the child's, where it wrote one
};

// The .cu files `named` gives: each a file, or a folder whose .cu files (not its subfolders',
// nor links) are taken, sorted by name. Throws Error(InvalidArgument) for a name that is
// neither, or a folder without one.
std::vector<std::string> listSubmissions(const std::vector<std::string>& named);

// The name the child finds `exercise` by: its id when built in, else its folder, absolute.
std::string exerciseArgument(const Exercise& exercise, const std::string& named);

using GradeProgressFn = std::function<void(std::size_t done, std::size_t total, const GradeRow&)>;

// Grades each submission (a path from listSubmissions) in a child of its own; rows in the order
// given. `exerciseName`: what the child finds the exercise by (exerciseArgument). Throws
// Error(InvalidArgument) for a scratch folder it cannot make; never for what a submission does.
std::vector<GradeRow> gradeSubmissions(const std::string& exerciseName,
                                       const std::vector<std::string>& submissions,
                                       const GradeOptions& options,
                                       const GradeProgressFn& progress = {},
                                       const std::atomic<bool>* cancel = nullptr);

// The rows as a fixed-width table, as CSV (a header, then a row each), and as a JSON document
// ("tilescope-grades", version 1). The check columns are named by checkName and operand
// ("sectors-per-load(A)"); the verified check's "wrong-shapes" (its figure counts them).
std::string gradesTable(const Exercise& exercise, const std::vector<GradeRow>& rows);
std::string gradesCsv(const Exercise& exercise, const std::vector<GradeRow>& rows);
nlohmann::json gradesJson(const Exercise& exercise, const std::vector<GradeRow>& rows,
                          const GradeOptions& options, const std::string& gradedAt);

// --- The child ----------------------------------------------------------------------------------

// The exit status of a child that ran out of memory (its new-handler's); 0 when it wrote its
// document, anything else a failure of the child itself.
inline constexpr int kGradeChildOutOfMemory = 3;

// Checks one submission in this process, the child: reads the exercise and the file, and on the
// CPU builds both variants (plain, and traced with the sanitizer), shuts file access off
// (Landlock), loads them under a system-call filter, narrows the filter to memory, threads and
// time, and only then checks. Returns the document to write on stdout ("tilescope-grade-child":
// the report, the refused calls, how it was shut in); phases go to stderr as they begin
// ("tilescope-grade-child: compiling"). Throws Error for what it could not set up.
std::string runGradeChild(const std::string& exerciseName, const std::string& submission,
                          Backend& backend);

}  // namespace tilescope::exercise
