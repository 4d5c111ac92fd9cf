// SPDX-License-Identifier: GPL-3.0-or-later
// tilescope-bench: runs catalogue kernels on a backend and prints or writes the measurements.
// No Qt. Every input is validated before the first run; errors are one line on stderr.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <new>
#include <sstream>

#include "command_line.hpp"
#include "console.hpp"
#include "grading.hpp"
#include "listing.hpp"
#include "plan.hpp"
#include "tilescope/compile/compile_child.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/interrupt.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/plan/autotune.hpp"
#include "tilescope/plan/spread.hpp"
#include "tilescope/plan/sweep.hpp"
#include "tilescope/plan/tuned_store.hpp"
#include "tilescope/remote/reconnect.hpp"
#include "tilescope/remote/remote_backend.hpp"
#include "tilescope/remote/server.hpp"
#include "tilescope/remote/server_list.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

namespace {

using namespace tilescope;
using bench::CommandLine;
using namespace bench;

// How long a sweep waits for a run server whose connection was lost before it gives up.
constexpr std::chrono::minutes kServerComebackLimit{10};

std::string formatResults(const std::string& format, const Backend& backend,
                          const DeviceInfo& device, const std::vector<RunResult>& results,
                          const std::vector<DeviceCeilings>& ceilings = {}) {
  std::ostringstream out;
  if (format == "json") {
    // The same document the app exports and opens as a session, so runs made on a GPU machine
    // without Qt open in the app on another machine.
    const report::ResultsDocument document{{{backend.id(), device}}, results, ceilings};
    out << report::toJson(document, io::utcNow(), "tilescope-bench " TILESCOPE_VERSION).dump(2)
        << '\n';
  } else if (format == "csv") {
    // One CSV holds one kind of row: the command line refuses runs and ceilings together.
    if (ceilings.empty())
      report::writeCsv(out, results);
    else
      report::writeCeilingsCsv(out, ceilings);
  } else {
    if (!results.empty()) report::writeTable(out, results);
    if (!results.empty() && !ceilings.empty()) out << '\n';
    if (!ceilings.empty()) report::writeCeilingsTable(out, ceilings);
  }
  return out.str();
}

// What every run shares: device, fill, seed, sampling and verification.
RunRequest baseRequest(const CommandLine& cl, std::size_t deviceCount) {
  RunRequest base;
  if (cl.device) {
    const std::int64_t index =
        plan::parseIntegerIn(*cl.device, "--device", 0, std::numeric_limits<int>::max());
    if (index < 0 || index >= std::int64_t(deviceCount)) {
      throw Error(ErrorKind::InvalidArgument, "--device " + *cl.device + ": the " + cl.backend +
                                                  " backend has " + std::to_string(deviceCount) +
                                                  " device(s), numbered from 0");
    }
    base.device = int(index);
  }
  base.fill = cl.fill == "integer" ? Fill::Integer : Fill::Random;
  base.element = *parseElementType(cl.type);  // CLI11 has checked the name
  if (cl.seed) {
    const std::int64_t value = plan::parseInteger(*cl.seed, "--seed");
    if (value < 0) throw Error(ErrorKind::InvalidArgument, "--seed " + *cl.seed + " is negative");
    base.seed = std::uint64_t(value);
  }
  if (cl.reps) {
    base.sampling.fixedReps = int(plan::parseIntegerIn(*cl.reps, "--reps", 1, kMaxFixedReps));
  }
  if (cl.budgetMs) base.sampling.budgetMs = plan::parsePositiveNumber(*cl.budgetMs, "--budget-ms");
  base.verify = !cl.noVerify;
  base.allowLongRuns = cl.allowLongRuns;
  base.collectCounters = cl.counters;
  return base;
}

// --kernel-file: the file's source is the kernel "user:" + its name, which every run not on a
// kernel sweep runs (a kernel sweep may list it beside catalogue kernels).
void loadKernelFile(CommandLine& cl) {
  const std::string& path = *cl.kernelFile;
  const std::string name = std::filesystem::path(path).stem().string();
  if (const auto why = userKernelNameProblem(name))
    throw Error(ErrorKind::InvalidArgument, "--kernel-file " + path + ": " + *why);
  const std::string id = userKernelId(name);
  cl.plan.base.kernel = {id, {}, io::readFile(path, kMaxUserSourceBytes, "--kernel-file")};
  if (cl.autotune && *cl.autotune != id)
    throw Error(ErrorKind::InvalidArgument, "--autotune " + *cl.autotune + " with --kernel-file " +
                                                path + ": autotune " + id + ", the file's kernel");
  const bool kernelSweep =
      std::any_of(cl.plan.sweeps.begin(), cl.plan.sweeps.end(),
                  [](const std::string& axis) { return axis.rfind("kernel=", 0) == 0; });
  if (!cl.autotune && !kernelSweep) cl.plan.kernel = id;
}

// --trace: one traced launch of the --kernel-file kernel, written as a trace file; a line on
// stdout says what was traced.
int runTrace(CommandLine& cl, Backend& backend) {
  for (const auto* given : {&cl.output, &cl.reps, &cl.budgetMs})
    if (*given)
      throw Error(ErrorKind::InvalidArgument,
                  "--trace writes its FILE and times nothing: --output, --reps and --budget-ms "
                  "do not apply");
  if (cl.counters)
    throw Error(ErrorKind::InvalidArgument, "--trace times nothing: --counters does not apply");
  const bench::Plan plan = bench::buildPlan(cl.plan, backend);
  TraceRequest request{plan.runs.front().kernel,
                       plan.runs.front().shape,
                       cl.plan.base.device,
                       {0, 0},
                       plan.runs.front().element};
  if (cl.traceBlock) {
    const std::size_t comma = cl.traceBlock->find(',');
    if (comma == std::string::npos)
      throw Error(ErrorKind::InvalidArgument,
                  "--trace-block " + *cl.traceBlock + ": give the block as X,Y");
    const std::string x = cl.traceBlock->substr(0, comma), y = cl.traceBlock->substr(comma + 1);
    const int most = std::numeric_limits<int>::max();
    request.block = {int(plan::parseIntegerIn(x, "--trace-block's x", 0, most)),
                     int(plan::parseIntegerIn(y, "--trace-block's y", 0, most))};
  }
  if (const auto why = traceRefusal(request)) throw Error(ErrorKind::InvalidArgument, *why);
  io::FileWriter file(*cl.trace, "--trace");
  const KernelTrace traced = backend.trace(request, {}, &interruptRequested);
  file.commit(
      report::traceDocumentToJson(traced, io::utcNow(), "tilescope-bench " TILESCOPE_VERSION)
          .dump() +
      "\n");
  std::size_t loads = 0, sharedWords = 0;
  for (const auto* list : {&traced.loadsA, &traced.loadsB})
    for (const auto& thread : *list) loads += thread.size();
  for (const SharedTrace* tile : {&traced.sharedA, &traced.sharedB})
    for (const auto* list : {&tile->reads, &tile->writes})
      for (const auto& thread : *list) sharedWords += thread.size();
  writeStdout(
      "traced " + traced.kernel.kernel + " (" + formatParams(traced.kernel) + ") at " +
      std::to_string(traced.shape.m) + " x " + std::to_string(traced.shape.n) + " x " +
      std::to_string(traced.shape.k) + " on " + traced.device + ": block (" +
      std::to_string(traced.tracedBlock.x) + "," + std::to_string(traced.tracedBlock.y) +
      ") of a grid of " + std::to_string(traced.grid.x) + " x " + std::to_string(traced.grid.y) +
      (traced.launchGrid ? " tiles (launched as " + std::to_string(traced.launchGrid->x) +
                               " blocks, in clusters of " + std::to_string(traced.cluster.x) + ")"
                         : std::string()) +
      ", " + std::to_string(loads) + " loads, " + std::to_string(sharedWords) + " shared words" +
      (traced.truncated ? " (truncated: some thread made more accesses than the trace holds)"
                        : "") +
      " -> " + *cl.trace + "\n");
  if (traced.sanitizer.clean()) return kExitOk;
  // As compute-sanitizer reports, on stderr; the trace holds the accesses up to the finding.
  std::string found;
  for (const SanitizerFinding& finding : traced.sanitizer.findings)
    found += "sanitizer: " + traced.kernel.kernel + ".cu " + finding.message + "\n";
  if (traced.sanitizer.total > int(traced.sanitizer.findings.size()))
    found += "sanitizer: and " +
             std::to_string(traced.sanitizer.total - int(traced.sanitizer.findings.size())) +
             " more\n";
  std::fputs(found.c_str(), stderr);
  return kExitUnverified;
}

struct Measured {
  std::vector<RunResult> results;
  std::vector<std::string> failures;  // each run that failed and why
  bool interrupted = false;
};

// The devices the runs go to: --device's one, or --devices' several, each with a backend of its
// own.
struct RunDevices {
  std::vector<std::unique_ptr<Backend>> extra;  // the backends of the devices after the first
  std::vector<Backend*> backends;
  std::vector<int> devices;
};

// Runs in order until the user interrupts, and until one fails unless `keepGoing`, spread over
// the devices. Progress goes to stderr, and only when it is a terminal.
Measured runAll(const RunDevices& on, const std::vector<RunRequest>& runs, bool keepGoing) {
  const bool showProgress = ::isatty(STDERR_FILENO) == 1;
  std::mutex printing;
  const plan::SpreadProgress progress = [&](std::size_t i, int device, double,
                                            const std::string& stage) {
    if (!showProgress) return;
    const std::lock_guard<std::mutex> lock(printing);
    std::fprintf(stderr, "\r\033[K[%zu/%zu%s] %s: %s", i + 1, runs.size(),
                 on.devices.size() > 1 ? (" on device " + std::to_string(device)).c_str() : "",
                 plan::describe(runs[i]).c_str(), stage.c_str());
  };
  const auto waiting = [&](const std::string& why, int attempt, std::chrono::seconds pause) {
    const std::lock_guard<std::mutex> lock(printing);
    // ssh's last words end in a full stop; the note goes on as a sentence of its own.
    printNote(why + (why.ends_with('.') ? " " : ". ") + "Connecting again in " +
              std::to_string(pause.count()) + " s (try " + std::to_string(attempt) +
              "; Ctrl+C stops, keeping what was measured).");
  };
  const std::vector<plan::RunOutcome> outcomes = plan::runSpread(
      on.backends, on.devices, runs, keepGoing, progress, &interruptRequested,
      remote::recoverLostServers(kServerComebackLimit, &interruptRequested, waiting));
  Measured measured;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (outcomes[i].result) measured.results.push_back(*outcomes[i].result);
    if (outcomes[i].failure)
      measured.failures.push_back(plan::describe(runs[i]) + ": " + *outcomes[i].failure);
  }
  measured.interrupted = interruptRequested.load();
  if (showProgress) std::fprintf(stderr, "\r\033[K");
  return measured;
}

// Measures the ceilings of one device, with progress on stderr when it is a terminal.
// Throws tilescope::Error, Cancelled when the user interrupts.
DeviceCeilings measureCeilings(Backend& backend, int device) {
  const bool showProgress = ::isatty(STDERR_FILENO) == 1;
  const ProgressFn progress = [&](double, const std::string& stage) {
    if (showProgress) std::fprintf(stderr, "\r\033[Kceilings: %s", stage.c_str());
  };
  struct ClearLine {
    bool active;
    ~ClearLine() {
      if (active) std::fprintf(stderr, "\r\033[K");
    }
  } clearLine{showProgress};
  return backend.measureCeilings(device, progress, &interruptRequested);
}

std::string shapeText(const Shape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

std::string formatGflops(double gflops) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", gflops);
  return text;
}

// The size whose tuned parameters a run takes: the one the options give; a size sweep has none
// of its own, and its runs take the entry tuned at the largest size, the one autotune is for.
Shape tunedFor(const bench::PlanInput& input) {
  try {
    return bench::problemShape(input);
  } catch (const Error&) {
    constexpr std::int64_t kLargest = std::int64_t(1) << 20;
    return {kLargest, kLargest, kLargest};
  }
}

// The parameters --autotune remembered on this device for every kernel, where they are still
// valid (a note says which are not). Empty with --no-tuned.
std::map<std::string, Params> rememberedParams(const CommandLine& cl, const Backend& backend,
                                               const DeviceInfo& device) {
  std::map<std::string, Params> remembered;
  if (cl.noTuned) return remembered;
  const plan::TunedStore store(plan::TunedStore::defaultPath());
  for (const std::string& warning : store.warnings()) printNote("warning: " + warning);
  for (const KernelInfo& info : catalogue()) {
    const std::optional<plan::TunedEntry> entry =
        store.find(backend.id(), device.name, info.id, cl.plan.base.element, tunedFor(cl.plan));
    if (!entry) continue;
    if (const auto why = refusal({info.id, entry->params}))
      printNote("ignoring the parameters remembered for " + info.id + ": " + *why);
    else
      remembered[info.id] = entry->params;
  }
  return remembered;
}

// Says which kernels run with remembered parameters; with --tuned, fails when a kernel that has
// parameters does not.
void reportRemembered(const CommandLine& cl, const bench::Plan& plan, const DeviceInfo& device) {
  const plan::TunedStore store(plan::TunedStore::defaultPath());
  for (const std::string& id : plan.usedRemembered) {
    const plan::TunedEntry entry =
        *store.find(cl.backend, device.name, id, cl.plan.base.element, tunedFor(cl.plan));
    printNote("using the parameters remembered for " + id + " on " + device.name + ": " +
              formatParams({id, entry.params}) + " (autotuned at " + shapeText(entry.shape) + ", " +
              formatGflops(entry.gflops) + " GFLOP/s; --no-tuned for the catalogue's defaults)");
  }
  if (!cl.tuned) return;
  for (const RunRequest& run : plan.runs) {
    const auto& used = plan.usedRemembered;
    if (!kernelInfo(run.kernel).params.empty() &&
        std::find(used.begin(), used.end(), run.kernel.kernel) == used.end())
      throw Error(ErrorKind::InvalidArgument, "--tuned: no usable parameters remembered for " +
                                                  run.kernel.kernel + " on " + device.name +
                                                  ": run --autotune " + run.kernel.kernel +
                                                  " first (or drop --tuned)");
  }
}

// --autotune: every valid configuration, fastest first, the fastest verified one remembered.
int runAutotune(const CommandLine& cl, const RunDevices& on, const DeviceInfo& device) {
  Backend& backend = *on.backends.front();
  const Shape shape = bench::problemShape(cl.plan);
  const plan::AutotunePlan plan =
      plan::planAutotune(*cl.autotune, shape, cl.plan.base, backend.id(),
                         [&backend](const RunRequest& run) { return backend.refusal(run); });
  std::optional<io::FileWriter> outputFile;
  if (cl.output) outputFile.emplace(*cl.output, "--output");
  // The store is read before the runs, so a damaged file is reported before minutes of work.
  plan::TunedStore store(plan::TunedStore::defaultPath());
  for (const std::string& warning : store.warnings()) printNote("warning: " + warning);
  for (const std::string& refused : plan.refused) printNote("skipped " + refused);

  const Measured measured = runAll(on, plan.runs, /*keepGoing=*/true);
  const std::vector<RunResult> landscape = plan::byThroughput(measured.results);
  if (!landscape.empty()) {
    const std::string text = formatResults(cl.format, backend, device, landscape);
    if (outputFile)
      outputFile->commit(text);
    else
      writeStdout(text);
  }
  for (const std::string& failure : measured.failures) printError(failure);

  std::string summary = "autotune " + *cl.autotune + " at " + shapeText(shape) + " on " +
                        device.name + ": " + std::to_string(measured.results.size()) + " of " +
                        std::to_string(plan.runs.size()) + " configurations measured";
  const std::optional<RunResult> best = plan::fastestVerified(landscape);
  if (best && !measured.interrupted) {
    store.remember({backend.id(), device.name, best->kernel.kernel, best->kernel.params, shape,
                    best->gflops, best->element});
    store.save();
    summary += "; best " + formatParams(best->kernel) + " at " + formatGflops(best->gflops) +
               " GFLOP/s, remembered in " + store.path();
  } else if (!best) {
    summary += "; none verified, nothing remembered";
  }
  // The table's reader sees the verdict under it; CSV and JSON stay machine-readable.
  if (cl.format == "table" && !outputFile)
    writeStdout(summary + '\n');
  else
    printNote(summary);

  if (measured.interrupted) {
    printError("interrupted");
    return io::interruptedExitCode(io::interruptSignal());
  }
  if (!measured.failures.empty()) return kExitError;
  const bool anyUnverified =
      std::any_of(landscape.begin(), landscape.end(),
                  [](const RunResult& r) { return r.verification && !r.verification->passed; });
  return anyUnverified ? kExitUnverified : kExitOk;
}

// --backend KIND@SERVER: a run server the app keeps; --via COMMAND: the server COMMAND starts.
std::unique_ptr<Backend> makeBackendFor(const CommandLine& cl) {
  const bool named = cl.backend.find('@') != std::string::npos;
  if (named && cl.via)
    throw Error(ErrorKind::InvalidArgument,
                "--via and --backend " + cl.backend + " both name a server: give one of them");
  if (named) {
    const remote::ConfiguredServers configured =
        remote::readConfiguredServers(remote::appSettingsPath());
    for (const std::string& problem : configured.problems) printNote("warning: " + problem);
    return std::make_unique<remote::RemoteBackend>(
        *remote::serverBackend(cl.backend, configured.servers));
  }
  if (cl.via)
    return std::make_unique<remote::RemoteBackend>(remote::ServerAddress{"", *cl.via, cl.backend});
  return makeBackend(cl.backend);
}

int runBench(int argc, char** argv) {
  CLI::App app{
      "tilescope-bench: run, time and verify TileScope's matrix-multiplication kernels.\n"
      "One run, or a sweep over kernels, tile sizes and problem sizes."};
  CommandLine cl;
  const CLI::Option* list = bench::declareOptions(app, cl);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11 says "At Most 1 required but received 2" for an option given twice.
    for (const CLI::Option* option : app.get_options()) {
      if (option->get_multi_option_policy() != CLI::MultiOptionPolicy::TakeAll &&
          option->count() > 1 && option->get_expected_max() == 1) {
        printError(option->get_name() + " is given " + std::to_string(option->count()) +
                   " times: give it once");
        return kExitError;
      }
    }
    printError(e.what());
    return kExitError;
  }

  if (cl.compileKernel) {
    writeStdout(compile::answerCompileRequest(*cl.compileKernel) + "\n");
    return kExitOk;
  }
  // Every compile of a user kernel (a run's, a server's, a check's) in a child with limits; a
  // grader's child compiles under its own.
  if (!cl.gradeChild) compile::isolateCompiles("/proc/self/exe", compile::limitsFromEnvironment());

  if (cl.serve) {
    for (const CLI::Option* option : app.get_options()) {
      if (option->get_name() != "--serve" && option->count() > 0)
        throw Error(ErrorKind::InvalidArgument,
                    "--serve takes no other options (got " + option->get_name() + ")");
    }
    // A client that goes away mid-reply must not kill the server with SIGPIPE; a signal ends it.
    ::signal(SIGPIPE, SIG_IGN);
    const int status = remote::serve(STDIN_FILENO, STDOUT_FILENO,
                                     "tilescope-bench " TILESCOPE_VERSION, &interruptRequested);
    return io::interruptSignal() ? io::interruptedExitCode(io::interruptSignal()) : status;
  }

  if (cl.gradeChild) return runGradeChild(cl);
  if (cl.grade) return runGrade(app, cl);
  if (cl.checkExercise) return runCheckExercise(app, cl);
  if (!cl.submissions.empty())
    throw Error(ErrorKind::InvalidArgument,
                "'" + cl.submissions.front() + "' is no option: submissions go with --grade");
  for (const auto* given : {&cl.timeLimit, &cl.memoryLimit, &cl.jobs, &cl.scratch})
    if (*given)
      throw Error(ErrorKind::InvalidArgument,
                  "--time-limit, --memory-limit, --jobs and --scratch go with --grade or "
                  "--check-exercise");

  if (cl.list) {
    for (const CLI::Option* option : app.get_options()) {
      if (option != list && option->count() > 0)
        throw Error(ErrorKind::InvalidArgument,
                    "--list takes no other options (got " + option->get_name() + ")");
    }
    std::ostringstream listing;
    bench::writeListing(listing);
    writeStdout(listing.str());
    return kExitOk;
  }

  for (const std::string& note : bench::applyDeprecatedSpellings(app, cl)) printNote(note);
  // Validate everything before the first run.
  const std::unique_ptr<Backend> backend = makeBackendFor(cl);
  if (const auto why = backend->unavailableReason())
    throw Error(ErrorKind::Unavailable, "--backend " + cl.backend + " is unavailable: " + *why);
  const std::vector<DeviceInfo> devices = backend->devices();
  if (devices.empty())
    throw Error(ErrorKind::Unavailable, "the " + cl.backend + " backend reports no device");
  cl.plan.base = baseRequest(cl, devices.size());
  if (cl.kernelFile) loadKernelFile(cl);
  RunDevices on;
  on.backends.push_back(backend.get());
  on.devices.push_back(cl.plan.base.device);
  if (cl.devices) {
    on.devices = plan::parseDevices(*cl.devices, devices.size());
    cl.plan.base.device = on.devices.front();
    // Each further device gets a backend of its own: its own CUDA state, or server.
    for (std::size_t i = 1; i < on.devices.size(); ++i)
      on.backends.push_back(on.extra.emplace_back(makeBackendFor(cl)).get());
  }
  const DeviceInfo& device = devices[std::size_t(cl.plan.base.device)];
  if (cl.autotune) return runAutotune(cl, on, device);
  if (cl.trace) return runTrace(cl, *backend);
  const bool runsKernels = cl.plan.kernel || !cl.plan.sweeps.empty();
  if (cl.ceilings && runsKernels && cl.format == "csv")
    throw Error(ErrorKind::InvalidArgument,
                "--ceilings with runs cannot be one CSV file: use --format json or table, or "
                "measure the ceilings alone");
  bench::Plan plan;
  if (runsKernels || !cl.ceilings) {
    cl.plan.remembered = rememberedParams(cl, *backend, device);
    plan = bench::buildPlan(cl.plan, *backend);
    reportRemembered(cl, plan, device);
  } else {
    for (const auto* given :
         {&cl.plan.tile, &cl.plan.params, &cl.plan.size, &cl.plan.m, &cl.plan.n, &cl.plan.k}) {
      if (*given)
        throw Error(ErrorKind::InvalidArgument,
                    "--ceilings alone runs no kernel: --tile, --param and sizes need --kernel "
                    "or --sweep");
    }
  }
  const std::vector<RunRequest>& runs = plan.runs;
  std::optional<io::FileWriter> outputFile;
  if (cl.output) outputFile.emplace(*cl.output, "--output");

  Measured measured = runAll(on, runs, /*keepGoing=*/false);
  std::vector<DeviceCeilings> ceilings;
  std::optional<std::string> ceilingsFailure;
  if (cl.ceilings && !measured.interrupted && measured.failures.empty()) {
    try {
      ceilings.push_back(measureCeilings(*backend, cl.plan.base.device));
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Cancelled)
        measured.interrupted = true;
      else
        ceilingsFailure = std::string("measuring the ceilings: ") + e.what();
    }
  }

  // What was measured is written even when a later run failed.
  if (!measured.results.empty() || !ceilings.empty()) {
    const std::string text = formatResults(cl.format, *backend, device, measured.results, ceilings);
    if (outputFile)
      outputFile->commit(text);
    else
      writeStdout(text);
  }
  // In a sweep, say how far it got.
  const std::string howFar = runs.size() <= 1
                                 ? std::string()
                                 : " (" + std::to_string(measured.results.size()) + " of " +
                                       std::to_string(runs.size()) + " runs finished)";
  if (measured.interrupted) {
    printError("interrupted" + howFar +
               (measured.results.empty() ? "" : "; the runs measured were written"));
    return io::interruptedExitCode(io::interruptSignal());
  }
  if (!measured.failures.empty()) {
    printError(measured.failures.front() + howFar);
    return kExitError;
  }
  if (ceilingsFailure) {
    printError(*ceilingsFailure);
    return kExitError;
  }
  const auto unverified =
      std::count_if(measured.results.begin(), measured.results.end(),
                    [](const RunResult& r) { return r.verification && !r.verification->passed; });
  if (unverified > 0) {
    printError(std::to_string(unverified) + " of " + std::to_string(measured.results.size()) +
               " run(s) failed verification");
    return kExitUnverified;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  holdClosedStandardStreams();
  // From the start: a signal during planning or the first run stops cleanly as well.
  io::installInterruptHandlers(&interruptRequested);
  try {
    return runBench(argc, argv);
  } catch (const std::exception& e) {
    printError(e.what());
    return kExitError;
  }
}
