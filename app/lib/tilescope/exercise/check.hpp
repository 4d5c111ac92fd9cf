// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checking a submission against its exercise: compile it, verify it at the exercise's shapes,
// trace one launch and measure the trace's figures, and on a GPU race it against the rung's
// catalogue kernel. Runs through any Backend (the CPU's, a GPU's, a run server's), so the app, the
// grader and the tests check alike.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/backend.hpp"
#include "tilescope/exercise/exercise.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::exercise {

// The picture that explains a trace check's figure: the access view at the traced block, this
// warp and k-step, showing one global load instruction (shared: false) or one shared-memory
// access of a staged tile (shared: true).
struct CheckPicture {
  Dim2 block;
  int warp = 0;
  std::int64_t step = 0;
  Access access = Access::LoadA;  // the global load drawn: LoadA or LoadB
  std::int64_t instr = 0;         // which of the lanes' loads of that access in the k-step
  bool shared = false;
  Operand sharedOperand = Operand::A;  // the staged tile
  bool sharedWrite = false;            // a write that stages the tile, else a read
  int innerK = 0;                      // a read's inner index in the k-step
  int slot = 0;                        // which of a thread's reads at innerK (or writes)
  bool operator==(const CheckPicture&) const = default;
};

enum class CheckState { Passed, Failed, NotMeasured };
const char* toString(CheckState state);  // "passed", "failed", "not measured"

struct CheckResult {
  CheckSpec spec;
  CheckState state = CheckState::NotMeasured;
  std::optional<double> figure;  // what was measured
  // The figure in words ("32 sectors in warp 0's worst load of A"), or why it was not measured
  // here ("needs a GPU").
  std::string detail;
  std::optional<CheckPicture> picture;  // where a failing trace check's picture is
};

// One verification run.
struct ShapeCheck {
  Shape shape;
  bool passed = false;
  std::string detail;  // "max error 3.1e-07", or why it failed or did not run
};

struct SubmissionReport {
  std::string exercise;  // its id
  std::string source;
  bool compiled = false;
  std::vector<CompileDiagnostic> diagnostics;  // the compiler's errors and warnings
  // What stopped checking before its end (the grader: a child that crashed, ran out of time or
  // memory), empty if nothing.
  std::string error;
  std::vector<ShapeCheck> verification;
  std::vector<CheckResult> checks;   // the exercise's, in its order
  std::optional<KernelTrace> trace;  // the traced launch the trace checks read
  std::string backend, device;       // where it ran
  std::string checkedAt;             // UTC, ISO 8601
  double seconds = 0;                // how long checking took
  // Compiled, checked to the end, and every check measured here passed.
  bool passed() const;
  // The first failing check, or null.
  const CheckResult* firstFailure() const;
};

struct CheckOptions {
  std::string kernelName = "submission";  // the user kernel's name: user:<name>
  int device = 0;
  int raceRounds = 3;  // the time check alternates the submission and the rung this many times
  // Registers and occupancy from an NVRTC compile the caller made already (nullopt inside where
  // it gave none): a grader's child compiles before it shuts file access off, and NVRTC reads
  // files. Unset, checkSubmission compiles with NVRTC itself where it is installed.
  std::optional<std::optional<KernelResources>> knownResources;
};

// Checks `source` as a submission of `exercise` on `backend`. Never throws for what the source
// does wrong (that is the report), only Error(Cancelled) when `cancel` is set.
SubmissionReport checkSubmission(const Exercise& exercise, const std::string& source,
                                 Backend& backend, const CheckOptions& options,
                                 const ProgressFn& progress, const std::atomic<bool>* cancel);

// The figure of a trace check (SectorsPerLoad ... SharedStages) on a traced kernel's Mapping, with
// its words and picture; the state says whether the spec's threshold holds.
CheckResult measureTraceCheck(const CheckSpec& spec, const Mapping& traced);

// A report as the hand-in file and the grader's child carry it ("tilescope-hand-in", version 1),
// and back; the reader validates every field (Error(InvalidArgument) naming its path).
// `withTrace`: the trace too (a hand-in; the grader's table needs none).
nlohmann::json toJson(const SubmissionReport& report, bool withTrace = true);
SubmissionReport reportFromJson(const nlohmann::json& json);

}  // namespace tilescope::exercise
