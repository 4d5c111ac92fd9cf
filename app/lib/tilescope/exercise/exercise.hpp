// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An exercise of a lab course: a starting kernel a student improves, the checks that say when it
// is done (computed from runs and a trace, never from the source's text), hints and a model
// solution. Exercises are data: a folder each (docs/exercises.md), the built-in ones under
// resources/exercises/ compiled in, any other read from its folder at run time, so a lecturer adds
// one without building TileScope.
#include <optional>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/problem.hpp"

namespace tilescope::exercise {

// What a check measures. Each has a figure and a threshold the exercise sets (at most or at
// least); checkName() is its name in exercise.json.
enum class CheckKind {
  Verified,           // every verification shape multiplies right: figure = shapes that failed
  SanitizerClean,     // the sanitizer (a trace on the CPU) finds nothing: figure = findings
  SectorsPerLoad,     // mean 32-byte sectors per warp load instruction of the operand
  SharedPasses,       // the most passes of the banks one warp's shared access takes, per phase
  GlobalLoadsPerFma,  // elements loaded from global memory per multiply-add of the block
  SharedReadsPerFma,  // words read from shared memory per multiply-add
  OutputsPerThread,   // elements of C each thread stores (the register tile), the mean
  LoadWidth,          // elements per global load instruction of a lane (4: float4)
  SharedStages,       // copies of the staged tiles in shared memory (2: double buffering)
  Registers,          // registers per thread, from the compile (NVRTC)
  Occupancy,          // theoretical occupancy in [0, 1], from the compile (NVRTC)
  TimeVsRung,         // the rung's catalogue kernel's median time over the submission's (GPU)
};
const char* checkName(CheckKind kind);  // "verified", "sectors-per-load", ...
std::optional<CheckKind> checkKindFromName(const std::string& name);

enum class Bound { AtMost, AtLeast };
// Which global operand a check counts: A, B, or both together.
enum class OperandChoice { A, B, Both };

struct CheckSpec {
  CheckKind kind = CheckKind::Verified;
  OperandChoice operand = OperandChoice::Both;
  Bound bound = Bound::AtMost;
  double threshold = 0;
  // The sentence the panel and the table show for it; a default per kind when the file has none.
  std::string why;
  // "sectors per load of A at most 4": the check as a student reads it.
  std::string title() const;
  bool passes(double figure) const;
};

struct Exercise {
  std::string id;     // the folder's name, e.g. "03-stage-a-and-b": its order too
  std::string title;  // "Stage A and B in shared memory"
  // The catalogue kernel of the same rung: the time check races it, the panel offers its
  // diagrams beside the submission's.
  std::string rung;
  std::string text;                // text.md: the task, and what each check's threshold means
  std::string start;               // start.cu: what the student begins from
  std::string solution;            // solution.cu: the model solution, shown only on request
  std::vector<std::string> hints;  // revealed one at a time
  Params params;  // parameter values to compile with; the source's defaults for the others
  std::vector<Shape> verifyShapes;  // odd ones: 1x1x1, 33x17x9, ...
  Shape traceShape;                 // the traced launch the trace checks read
  Dim2 traceBlock{0, 0};
  Shape timeShape;  // the GPU race against the rung
  std::vector<CheckSpec> checks;
  std::string origin;  // where it was read from: "built in" or its folder
};

// The verification shapes an exercise has when its file names none.
const std::vector<Shape>& defaultVerifyShapes();

// Reads the exercise in `folder` (exercise.json, text.md, start.cu, solution.cu). Throws
// Error(InvalidArgument) naming the file and the field: "exercise.json: checks[2].at-most: -1 is
// not a number above 0".
Exercise loadExercise(const std::string& folder);
// The same from the files' texts (the built-in exercises are compiled in). `id` is the folder's
// name, `origin` where it came from.
Exercise parseExercise(const std::string& id, const std::string& json, const std::string& text,
                       const std::string& start, const std::string& solution,
                       const std::string& origin);

// The exercises compiled in (resources/exercises/), in order.
const std::vector<Exercise>& builtInExercises();
// A built-in exercise by id, or by its id without the number ("stage-a-and-b"); null if none.
const Exercise* findBuiltInExercise(const std::string& id);
// An exercise by name: a built-in one, else a folder. Throws Error(InvalidArgument) for neither.
Exercise findExercise(const std::string& idOrFolder);

// `value` as printf's `format` prints it: the figures in the checks' and the grader's messages.
std::string numberText(double value, const char* format = "%.3g");

}  // namespace tilescope::exercise
