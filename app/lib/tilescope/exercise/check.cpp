// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/exercise/check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tilescope/error.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/report/report.hpp"

namespace tilescope::exercise {
namespace {

using nlohmann::json;

constexpr const char* kHandInFormat = "tilescope-hand-in";
constexpr std::int64_t kHandInVersion = 1;

bool onCpu(const Backend& backend) {
  return backend.id() == "cpu";
}

std::string shapeText(const Shape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

// A backend's message for a source that did not compile ("mine.cu did not compile for the CPU,
// line 12: ..."): the line and message as a diagnostic, or nullopt for any other error.
std::optional<CompileDiagnostic> compileFailure(const std::string& message) {
  if (message.find(" did not compile") == std::string::npos) return std::nullopt;
  CompileDiagnostic diagnostic;
  diagnostic.message = message;
  const std::size_t line = message.find(", line ");
  if (line != std::string::npos) {
    diagnostic.line = std::atoi(message.c_str() + line + 7);
    if (const std::size_t colon = message.find(": ", line); colon != std::string::npos)
      diagnostic.message = message.substr(colon + 2);
  }
  return diagnostic;
}

bool isTraceCheck(CheckKind kind) {
  return kind != CheckKind::Verified && kind != CheckKind::SanitizerClean &&
         kind != CheckKind::Registers && kind != CheckKind::Occupancy &&
         kind != CheckKind::TimeVsRung;
}

RunRequest requestFor(const KernelConfig& kernel, const Shape& shape, const CheckOptions& options,
                      bool timed) {
  RunRequest request;
  request.kernel = kernel;
  request.shape = shape;
  request.device = options.device;
  request.verify = !timed;
  if (!timed) {
    request.sampling.warmups = 0;
    request.sampling.fixedReps = 1;
  } else {
    request.sampling.budgetMs = 500;
  }
  return request;
}

// The median time of the rung's kernel over the submission's, the two alternated.
double raceAgainstRung(const Exercise& exercise, const KernelConfig& submission, Backend& backend,
                       const CheckOptions& options, const std::atomic<bool>* cancel) {
  const KernelConfig rung{exercise.rung, {}};
  std::vector<double> rungMs, submissionMs;
  for (int round = 0; round < std::max(1, options.raceRounds); ++round) {
    rungMs.push_back(backend.run(requestFor(rung, exercise.timeShape, options, true), {}, cancel)
                         .stats.medianMs);
    submissionMs.push_back(
        backend.run(requestFor(submission, exercise.timeShape, options, true), {}, cancel)
            .stats.medianMs);
  }
  return summarize(rungMs).medianMs / summarize(submissionMs).medianMs;
}

// Registers and occupancy: the run's, where the backend reports them (CUDA), else NVRTC's compile
// where this machine has it (no GPU needed).
std::optional<KernelResources> resourcesOf(const Exercise& exercise, const std::string& source,
                                           const CheckOptions& options,
                                           const std::optional<KernelResources>& fromRun) {
  if (fromRun) return fromRun;
  if (options.knownResources) return *options.knownResources;
  if (userKernelCompilerUnavailable()) return std::nullopt;
  CompileOptions compile;
  compile.params = exercise.params;
  const CompileResult compiled = compileUserKernel({options.kernelName, source}, compile);
  return compiled.ok ? compiled.resources : std::nullopt;
}

void measureResources(CheckResult& check, const std::optional<KernelResources>& resources) {
  if (!resources) {
    check.detail = "needs NVRTC (the CUDA Toolkit) or a GPU: not measured here";
    return;
  }
  if (check.spec.kind == CheckKind::Registers) {
    check.figure = resources->registersPerThread;
    check.detail = std::to_string(resources->registersPerThread) + " registers per thread";
  } else {
    check.figure = resources->occupancy;
    check.detail = numberText(resources->occupancy * 100, "%.0f") +
                   " % occupancy: " + std::to_string(resources->blocksPerSM) + " blocks of " +
                   std::to_string(resources->threadsPerBlock) + " threads per SM";
  }
  check.state = check.spec.passes(*check.figure) ? CheckState::Passed : CheckState::Failed;
}

// Called in a handler: a cancel, and a run that ran out of memory, end the whole check (the
// caller says why); any other failure fails the one check it happened in.
void rethrowIfItEndsTheCheck(const Error& error) {
  if (error.kind() == ErrorKind::Cancelled || error.kind() == ErrorKind::OutOfMemory) throw;
}

}  // namespace

const char* toString(CheckState state) {
  switch (state) {
    case CheckState::Passed:
      return "passed";
    case CheckState::Failed:
      return "failed";
    case CheckState::NotMeasured:
      break;
  }
  return "not measured";
}

bool SubmissionReport::passed() const {
  return compiled && error.empty() &&
         std::none_of(checks.begin(), checks.end(),
                      [](const CheckResult& c) { return c.state == CheckState::Failed; });
}

const CheckResult* SubmissionReport::firstFailure() const {
  const auto found = std::find_if(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.state == CheckState::Failed;
  });
  return found == checks.end() ? nullptr : &*found;
}

SubmissionReport checkSubmission(const Exercise& exercise, const std::string& source,
                                 Backend& backend, const CheckOptions& options,
                                 const ProgressFn& progress, const std::atomic<bool>* cancel) {
  const auto began = std::chrono::steady_clock::now();
  const auto report = [&](double fraction, const std::string& stage) {
    if (progress) progress(fraction, stage);
  };
  SubmissionReport out;
  out.exercise = exercise.id;
  out.source = source;
  out.backend = backend.id();
  out.checkedAt = io::utcNow();
  if (const auto devices = backend.devices(); std::size_t(options.device) < devices.size())
    out.device = devices[std::size_t(options.device)].name;
  const KernelConfig kernel{userKernelId(options.kernelName), exercise.params, source};
  const auto cancelled = [&] { return cancel && cancel->load(); };
  const auto throwIfCancelled = [&] {
    if (cancelled()) throw Error(ErrorKind::Cancelled, "checking was cancelled");
  };

  // Verification: every shape, so a student sees all that fail.
  out.compiled = true;
  std::optional<KernelResources> runResources;
  const std::size_t shapes = exercise.verifyShapes.size();
  for (std::size_t i = 0; i < shapes && out.compiled; ++i) {
    throwIfCancelled();
    const Shape& shape = exercise.verifyShapes[i];
    report(0.6 * double(i) / double(shapes), "verifying at " + shapeText(shape));
    ShapeCheck check{shape, false, {}};
    try {
      const RunRequest request = requestFor(kernel, shape, options, false);
      if (const auto refused = backend.refusal(request)) {
        // A source that does not compile is refused before it runs.
        if (const auto diagnostic = compileFailure(*refused)) {
          out.compiled = false;
          out.diagnostics.push_back(*diagnostic);
        }
        check.detail = *refused;
      } else {
        const RunResult result = backend.run(request, {}, cancel);
        if (result.resources) runResources = result.resources;
        check.passed = result.verified();
        const Verification& v = *result.verification;
        check.detail =
            v.nonFinite > 0
                ? std::to_string(v.nonFinite) + " elements of C not written (NaN)"
                : "max error " + numberText(v.maxAbsError, "%.2g") +
                      (check.passed ? ""
                                    : " (relative " + numberText(v.relError, "%.2g") + "): wrong");
      }
    } catch (const Error& error) {
      rethrowIfItEndsTheCheck(error);
      if (const auto diagnostic = compileFailure(error.what())) {
        out.compiled = false;
        out.diagnostics.push_back(*diagnostic);
      }
      check.detail = error.what();
    }
    out.verification.push_back(check);
  }
  if (!out.compiled) {
    for (const CheckSpec& spec : exercise.checks)
      out.checks.push_back({spec, CheckState::Failed, std::nullopt, "did not compile", {}});
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return out;
  }

  // The trace, where a check reads it.
  std::optional<Mapping> traced;
  std::string traceProblem;
  const bool wantsTrace = std::any_of(exercise.checks.begin(), exercise.checks.end(), [](auto& c) {
    return isTraceCheck(c.kind) || c.kind == CheckKind::SanitizerClean;
  });
  if (wantsTrace) {
    throwIfCancelled();
    report(0.6, "tracing at " + shapeText(exercise.traceShape));
    try {
      TraceRequest request{kernel, exercise.traceShape, options.device, exercise.traceBlock,
                           ElementType::F32};
      if (const auto refused = traceRefusal(request))
        throw Error(ErrorKind::InvalidArgument, *refused);
      out.trace = backend.trace(request, {}, cancel);
      if (out.trace->sanitizer.clean())
        traced.emplace(*out.trace);
      else
        traceProblem = "the sanitizer stopped the traced launch: " + out.trace->sanitizer.text();
    } catch (const Error& error) {
      rethrowIfItEndsTheCheck(error);
      traceProblem = std::string("the trace failed: ") + error.what();
    }
  }

  std::optional<std::optional<KernelResources>> resources;  // found once, where asked for
  for (const CheckSpec& spec : exercise.checks) {
    throwIfCancelled();
    CheckResult check;
    check.spec = spec;
    if (spec.kind == CheckKind::Verified) {
      const auto failed = std::count_if(out.verification.begin(), out.verification.end(),
                                        [](const ShapeCheck& s) { return !s.passed; });
      check.figure = double(failed);
      check.state = failed == 0 ? CheckState::Passed : CheckState::Failed;
      const auto first = std::find_if(out.verification.begin(), out.verification.end(),
                                      [](const ShapeCheck& s) { return !s.passed; });
      check.detail = failed == 0 ? "right at " + std::to_string(shapes) + " shapes"
                                 : std::to_string(failed) + " of " + std::to_string(shapes) +
                                       " shapes wrong; at " + shapeText(first->shape) + ": " +
                                       first->detail;
    } else if (spec.kind == CheckKind::SanitizerClean) {
      if (!onCpu(backend)) {
        check.detail = "the sanitizer runs in a trace on the CPU: not measured here";
      } else if (!out.trace) {
        check.state = CheckState::Failed;
        check.detail = traceProblem;
      } else {
        check.figure = double(out.trace->sanitizer.total);
        check.state = out.trace->sanitizer.clean() ? CheckState::Passed : CheckState::Failed;
        check.detail = out.trace->sanitizer.clean() ? "no findings"
                                                    : out.trace->sanitizer.findings[0].summary();
        if (!out.trace->sanitizer.clean()) {
          const SanitizerFinding& finding = out.trace->sanitizer.findings[0];
          CheckPicture picture;
          picture.block = finding.block;
          picture.warp = (finding.thread.x + finding.thread.y * out.trace->block.x) / kWarpSize;
          check.picture = picture;
        }
      }
    } else if (isTraceCheck(spec.kind)) {
      if (!traced) {
        check.state = CheckState::Failed;
        check.detail = traceProblem;
      } else {
        try {
          check = measureTraceCheck(spec, *traced);
        } catch (const Error& error) {
          check.state = CheckState::Failed;
          check.detail = std::string("the trace cannot be read: ") + error.what();
        }
      }
    } else if (spec.kind == CheckKind::Registers || spec.kind == CheckKind::Occupancy) {
      if (!resources) {
        report(0.75, "compiling with NVRTC");
        resources = resourcesOf(exercise, source, options, runResources);
      }
      measureResources(check, *resources);
    } else if (spec.kind == CheckKind::TimeVsRung) {
      if (onCpu(backend)) {
        check.detail = "needs a GPU: on the CPU the schedule, not the memory system, sets the time";
      } else {
        report(0.8, "racing " + exercise.rung + " at " + shapeText(exercise.timeShape));
        try {
          check.figure = raceAgainstRung(exercise, kernel, backend, options, cancel);
          check.state = spec.passes(*check.figure) ? CheckState::Passed : CheckState::Failed;
          check.detail = numberText(*check.figure, "%.2f") + "x the speed of " + exercise.rung +
                         " at " + shapeText(exercise.timeShape);
        } catch (const Error& error) {
          rethrowIfItEndsTheCheck(error);
          check.state = CheckState::Failed;
          check.detail = std::string("the race failed: ") + error.what();
        }
      }
    }
    out.checks.push_back(std::move(check));
  }
  report(1.0, "checked");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return out;
}

json toJson(const SubmissionReport& report, bool withTrace) {
  json document{{"format", kHandInFormat},     {"version", kHandInVersion},
                {"exercise", report.exercise}, {"source", report.source},
                {"compiled", report.compiled}, {"passed", report.passed()},
                {"error", report.error},       {"backend", report.backend},
                {"device", report.device},     {"checked_at", report.checkedAt},
                {"seconds", report.seconds}};
  json diagnostics = json::array();
  for (const CompileDiagnostic& d : report.diagnostics)
    diagnostics.push_back(
        {{"line", d.line}, {"column", d.column}, {"error", d.error}, {"message", d.message}});
  document["diagnostics"] = diagnostics;
  json verification = json::array();
  for (const ShapeCheck& s : report.verification)
    verification.push_back(
        {{"shape", shapeText(s.shape)}, {"passed", s.passed}, {"detail", s.detail}});
  document["verification"] = verification;
  json checks = json::array();
  for (const CheckResult& c : report.checks) {
    json check{{"check", checkName(c.spec.kind)},
               {"operand", c.spec.operand == OperandChoice::A   ? "A"
                           : c.spec.operand == OperandChoice::B ? "B"
                                                                : "both"},
               {"bound", c.spec.bound == Bound::AtMost ? "at-most" : "at-least"},
               {"threshold", c.spec.threshold},
               {"why", c.spec.why},
               {"title", c.spec.title()},
               {"state", toString(c.state)},
               {"figure", c.figure ? json(*c.figure) : json(nullptr)},
               {"detail", c.detail}};
    if (c.picture) {
      const CheckPicture& p = *c.picture;
      check["picture"] = {{"block", {p.block.x, p.block.y}},
                          {"warp", p.warp},
                          {"step", p.step},
                          {"access", toString(p.access)},
                          {"instr", p.instr},
                          {"shared", p.shared},
                          {"shared_operand", p.sharedOperand == Operand::A ? "A" : "B"},
                          {"shared_write", p.sharedWrite},
                          {"inner_k", p.innerK},
                          {"slot", p.slot}};
    }
    checks.push_back(check);
  }
  document["checks"] = checks;
  if (withTrace && report.trace) document["trace"] = report::toJson(*report.trace);
  return document;
}

namespace {

Shape shapeFrom(const json& object, const std::string& path) {
  const std::string text = io::stringField(object, "shape", path);
  Shape shape;
  long long m = 0, n = 0, k = 0;
  char end = 0;
  if (std::sscanf(text.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &end) != 3 || m < 1 || n < 1 ||
      k < 1 || m > io::kMaxStoredSize || n > io::kMaxStoredSize || k > io::kMaxStoredSize)
    io::refuseAt(io::memberPath(path, "shape"), io::shownValue(text) + " is not a shape MxNxK");
  shape = {m, n, k};
  return shape;
}

int intIn(const json& object, const char* name, const std::string& path, std::int64_t maximum) {
  return int(io::integerField(object, name, path, 0, maximum, "index"));
}

}  // namespace

SubmissionReport reportFromJson(const json& document) {
  io::objectAt(document, "");
  if (io::stringField(document, "format", "") != kHandInFormat)
    io::refuseAt("format",
                 io::shownValue(document["format"]) + " is not \"" + kHandInFormat + "\"");
  io::versionField(document, "version", "", kHandInVersion);
  SubmissionReport report;
  report.exercise = io::stringField(document, "exercise", "");
  report.source = io::stringField(document, "source", "");
  report.compiled = io::booleanField(document, "compiled", "");
  report.error = io::stringField(document, "error", "");
  report.backend = io::stringField(document, "backend", "");
  report.device = io::stringField(document, "device", "");
  report.checkedAt = io::stringField(document, "checked_at", "");
  report.seconds = io::numberField(document, "seconds", "", io::Sign::NonNegative);
  const json& diagnostics =
      io::arrayAt(io::requiredField(document, "diagnostics", ""), "diagnostics");
  for (std::size_t i = 0; i < diagnostics.size(); ++i) {
    const std::string path = io::elementPath("diagnostics", i);
    const json& d = io::objectAt(diagnostics[i], path);
    report.diagnostics.push_back(
        {intIn(d, "line", path, 1 << 24), intIn(d, "column", path, 1 << 24),
         io::booleanField(d, "error", path), io::stringField(d, "message", path)});
  }
  const json& verification =
      io::arrayAt(io::requiredField(document, "verification", ""), "verification");
  for (std::size_t i = 0; i < verification.size(); ++i) {
    const std::string path = io::elementPath("verification", i);
    const json& s = io::objectAt(verification[i], path);
    report.verification.push_back({shapeFrom(s, path), io::booleanField(s, "passed", path),
                                   io::stringField(s, "detail", path)});
  }
  const json& checks = io::arrayAt(io::requiredField(document, "checks", ""), "checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string path = io::elementPath("checks", i);
    const json& c = io::objectAt(checks[i], path);
    CheckResult check;
    const std::string name = io::stringField(c, "check", path);
    const auto kind = checkKindFromName(name);
    if (!kind)
      io::refuseAt(io::memberPath(path, "check"), io::shownValue(name) + " is not a check");
    check.spec.kind = *kind;
    const std::string operand = io::stringField(c, "operand", path);
    if (operand != "A" && operand != "B" && operand != "both")
      io::refuseAt(io::memberPath(path, "operand"),
                   io::shownValue(operand) + " is not A, B or both");
    check.spec.operand = operand == "A"   ? OperandChoice::A
                         : operand == "B" ? OperandChoice::B
                                          : OperandChoice::Both;
    const std::string bound = io::stringField(c, "bound", path);
    if (bound != "at-most" && bound != "at-least")
      io::refuseAt(io::memberPath(path, "bound"),
                   io::shownValue(bound) + " is not at-most or at-least");
    check.spec.bound = bound == "at-most" ? Bound::AtMost : Bound::AtLeast;
    check.spec.threshold = io::numberField(c, "threshold", path, io::Sign::NonNegative);
    check.spec.why = io::stringField(c, "why", path);
    const std::string state = io::stringField(c, "state", path);
    if (state == "passed")
      check.state = CheckState::Passed;
    else if (state == "failed")
      check.state = CheckState::Failed;
    else if (state == "not measured")
      check.state = CheckState::NotMeasured;
    else
      io::refuseAt(io::memberPath(path, "state"),
                   io::shownValue(state) + " is not a check's state");
    if (const json* figure = io::optionalField(c, "figure"); figure) {
      if (!figure->is_number() || !std::isfinite(figure->get<double>()))
        io::refuseAt(io::memberPath(path, "figure"), io::shownValue(*figure) + " is not a number");
      check.figure = figure->get<double>();
    }
    check.detail = io::stringField(c, "detail", path);
    if (const json* p = io::optionalField(c, "picture")) {
      const std::string at = io::memberPath(path, "picture");
      io::objectAt(*p, at);
      CheckPicture picture;
      const json& block =
          io::arrayAt(io::requiredField(*p, "block", at), io::memberPath(at, "block"));
      if (block.size() != 2 || !block[0].is_number_integer() || !block[1].is_number_integer() ||
          block[0].get<std::int64_t>() < 0 || block[1].get<std::int64_t>() < 0 ||
          block[0].get<std::int64_t>() > 1 << 30 || block[1].get<std::int64_t>() > 1 << 30)
        io::refuseAt(io::memberPath(at, "block"), io::shownValue(block) + " is not a block [x, y]");
      picture.block = {block[0].get<int>(), block[1].get<int>()};
      picture.warp = intIn(*p, "warp", at, 1 << 20);
      picture.step = io::integerField(*p, "step", at, 0, io::kMaxStoredSize, "k-step");
      const std::string access = io::stringField(*p, "access", at);
      if (access != toString(Access::LoadA) && access != toString(Access::LoadB))
        io::refuseAt(io::memberPath(at, "access"),
                     io::shownValue(access) + " is not a load of A or B");
      picture.access = access == toString(Access::LoadA) ? Access::LoadA : Access::LoadB;
      picture.instr = io::integerField(*p, "instr", at, 0, io::kMaxStoredSize, "instruction");
      picture.shared = io::booleanField(*p, "shared", at);
      const std::string tile = io::stringField(*p, "shared_operand", at);
      if (tile != "A" && tile != "B")
        io::refuseAt(io::memberPath(at, "shared_operand"), io::shownValue(tile) + " is not A or B");
      picture.sharedOperand = tile == "A" ? Operand::A : Operand::B;
      picture.sharedWrite = io::booleanField(*p, "shared_write", at);
      picture.innerK = intIn(*p, "inner_k", at, 1 << 20);
      picture.slot = intIn(*p, "slot", at, 1 << 20);
      check.picture = picture;
    }
    report.checks.push_back(std::move(check));
  }
  if (const json* trace = io::optionalField(document, "trace"))
    report.trace = report::traceFromJson(*trace, "trace");
  return report;
}

}  // namespace tilescope::exercise
