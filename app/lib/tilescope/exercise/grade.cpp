// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/exercise/grade.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tilescope/error.hpp"
#include "tilescope/exercise/sandbox.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::exercise {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kChildFormat = "tilescope-grade-child";
constexpr const char* kPhasePrefix = "tilescope-grade-child: ";
constexpr const char* kSubmissionFile = "submission.cu";
constexpr const char* kKernelName = "submission";

// "20 s", "2.5 s".
std::string secondsText(double seconds) {
  return numberText(seconds, "%g") + " s";
}

// A phase line on stderr, written at once (the parent reads the last one after a timeout).
void announce(const std::string& phase) {
  const std::string line = kPhasePrefix + phase + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

// --- The child ----------------------------------------------------------------------------------

// The report of a source that did not build: what checkSubmission says of one, with every error
// the compiler gave.
SubmissionReport notCompiled(const Exercise& exercise, const std::string& source,
                             const Backend& backend, const std::vector<CompileDiagnostic>& said,
                             double seconds) {
  SubmissionReport report;
  report.exercise = exercise.id;
  report.source = source;
  report.compiled = false;
  report.backend = backend.id();
  report.checkedAt = io::utcNow();
  report.seconds = seconds;
  for (const CompileDiagnostic& d : said)
    if (d.error) report.diagnostics.push_back(d);
  for (const CheckSpec& spec : exercise.checks)
    report.checks.push_back({spec, CheckState::Failed, std::nullopt, "did not compile", {}});
  return report;
}

// The folders a compile reads: the system's (the compiler, its headers and libraries) and the
// compiler's own installation where it lives elsewhere (/opt/gcc). Nothing of the user's.
std::vector<std::string> systemFolders() {
  std::vector<std::string> folders = {"/usr",
                                      "/bin",
                                      "/sbin",
                                      "/lib",
                                      "/lib32",
                                      "/lib64",
                                      "/libx32",
                                      "/etc/ld.so.cache",
                                      "/etc/alternatives"};
  if (const auto installation = hostCompilerInstallation();
      installation && std::find(folders.begin(), folders.end(), *installation) == folders.end())
    folders.push_back(*installation);
  return folders;
}

// How many threads this process has: Landlock covers the calling thread and those it starts.
int threadCount() {
  int count = 0;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(tasks))
      if (entry->d_name[0] != '.') ++count;
    closedir(tasks);
  }
  return count;
}

}  // namespace

std::string runGradeChild(const std::string& exerciseName, const std::string& submission,
                          Backend& backend) {
  const auto began = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  const Exercise exercise = findExercise(exerciseName);
  const std::string source =
      *io::readFile(submission, kMaxUserSourceBytes, "the submission", false);
  CheckOptions options;
  options.kernelName = kKernelName;
  std::vector<std::string> shutIn;  // how the child was shut in, in words
  std::vector<std::shared_ptr<const HostModule>> held;

  if (backend.id() == "cpu") {
    // What the backend asks of files, asked now: the CPU's name, the compiler's place.
    backend.devices();
    hostCompilerUnavailable();
    tzset();  // the time zone, read once: a report's time is UTC, but the C library looks
    announce("compiling");
    const std::string folder = fs::current_path().string();
    const bool landlock = sandbox::landlockVersion() > 0;
    if (landlock) {
      // Landlock covers the calling thread and those it starts: there must be no other.
      if (const int threads = threadCount(); threads != 1)
        throw Error(ErrorKind::Unavailable,
                    "the sandbox: " + std::to_string(threads) +
                        " threads run already, and Landlock would not cover the others");
      std::vector<std::string> readable = systemFolders();
      readable.push_back("/proc/self/task");  // this process's threads, counted again below
      if (const auto why = sandbox::restrictFiles(readable, {folder, "/dev/null"}))
        throw Error(ErrorKind::Unavailable, "the sandbox: " + *why);
      shutIn.push_back("the compiler saw the system's folders and this one only (Landlock " +
                       std::to_string(sandbox::landlockVersion()) + ")");
    } else {
      shutIn.push_back(
          "no Landlock on this kernel: a global's constructor in the submission "
          "runs when it is loaded, before the system-call filter");
    }
    // Registers and occupancy come from NVRTC's compile, made now: NVRTC reads files.
    const bool wantsResources =
        std::any_of(exercise.checks.begin(), exercise.checks.end(), [](const CheckSpec& c) {
          return c.kind == CheckKind::Registers || c.kind == CheckKind::Occupancy;
        });
    if (wantsResources) {
      options.knownResources.emplace();
      if (!userKernelCompilerUnavailable()) {
        CompileOptions compile;
        compile.params = exercise.params;
        const CompileResult compiled = compileUserKernel({kKernelName, source}, compile);
        if (compiled.ok) options.knownResources = compiled.resources;
      }
    }
    // Both variants the CPU backend runs: plain for verification, traced and sanitized.
    const std::vector<std::pair<bool, bool>> variants = {{false, false}, {true, true}};
    for (const auto& [trace, sanitize] : variants) {
      const CompileResult built = buildUserKernelForHost(
          {kKernelName, source}, {"host", exercise.params, ElementType::F32, trace}, sanitize);
      if (!built.ok)
        return json{
            {"format", kChildFormat},
            {"version", 1},
            {"report",
             toJson(notCompiled(exercise, source, backend, built.diagnostics, elapsed()), false)},
            {"refused", json::array()},
            {"sandbox", shutIn}}
            .dump(-1, ' ', false, json::error_handler_t::replace);
    }
    // Loading runs the kernel's load-time code: from here on it is shut in.
    announce("loading");
    if (landlock) {
      if (const int threads = threadCount(); threads != 1)
        throw Error(ErrorKind::Unavailable, "the sandbox: the compile left " +
                                                std::to_string(threads) +
                                                " threads, and Landlock would not cover them");
      if (const auto why = sandbox::restrictFiles({folder}, {}))
        throw Error(ErrorKind::Unavailable, "the sandbox: " + *why);
      shutIn.push_back("loaded reading this folder only");
    }
    if (const auto why = sandbox::restrictSystemCalls(sandbox::Stage::Loading))
      throw Error(ErrorKind::Unavailable, "the sandbox: " + *why);
    for (const auto& [trace, sanitize] : variants) {
      HostCompileResult loaded = compileUserKernelForHost(
          {kKernelName, source}, {"host", exercise.params, ElementType::F32, trace}, sanitize);
      if (!loaded.module) {
        const sandbox::Refused refused = sandbox::refusedCalls();
        return json{{"format", kChildFormat},
                    {"version", 1},
                    {"report", toJson(notCompiled(exercise, source, backend,
                                                  loaded.result.diagnostics, elapsed()),
                                      false)},
                    {"refused", refused.calls},
                    {"refused_total", refused.total},
                    {"sandbox", shutIn}}
            .dump(-1, ' ', false, json::error_handler_t::replace);
      }
      held.push_back(std::move(loaded.module));
    }
    if (const auto why = sandbox::restrictSystemCalls(sandbox::Stage::Running))
      throw Error(ErrorKind::Unavailable, "the sandbox: " + *why);
    shutIn.push_back("checked with system calls for memory, threads and time only (seccomp)");
  } else {
    shutIn.push_back("no system-call filter on " + backend.id() +
                     ": device code makes no system calls, and the driver needs its own");
  }

  announce("checking");
  SubmissionReport report = checkSubmission(exercise, source, backend, options, {}, nullptr);
  report.seconds = elapsed();
  const sandbox::Refused refused = sandbox::refusedCalls();
  return json{{"format", kChildFormat},          {"version", 1},
              {"report", toJson(report, false)}, {"refused", refused.calls},
              {"refused_total", refused.total},  {"sandbox", shutIn}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

// --- The parent ---------------------------------------------------------------------------------

std::vector<std::string> listSubmissions(const std::vector<std::string>& named) {
  std::vector<std::string> files;
  for (const std::string& name : named) {
    std::error_code error;
    const fs::file_status status = fs::status(name, error);
    if (fs::is_regular_file(status)) {
      files.push_back(name);
    } else if (fs::is_directory(status)) {
      std::vector<std::string> inFolder;
      for (const fs::directory_entry& entry : fs::directory_iterator(name, error))
        // Not a link: a folder of hand-ins may not point the grader at other files.
        if (entry.path().extension() == ".cu" && !entry.is_symlink(error) &&
            entry.is_regular_file(error))
          inFolder.push_back(entry.path().string());
      if (inFolder.empty())
        throw Error(ErrorKind::InvalidArgument, "submission folder '" + name + "' has no .cu file");
      std::sort(inFolder.begin(), inFolder.end());
      files.insert(files.end(), inFolder.begin(), inFolder.end());
    } else {
      throw Error(ErrorKind::InvalidArgument,
                  "submission '" + name + "' is neither a .cu file nor a folder of them");
    }
  }
  if (files.empty()) throw Error(ErrorKind::InvalidArgument, "no submission to grade");
  return files;
}

std::string exerciseArgument(const Exercise& exercise, const std::string& named) {
  if (findBuiltInExercise(named)) return exercise.id;
  std::error_code error;
  const fs::path absolute = fs::absolute(named, error);
  return error ? named : absolute.string();
}

namespace {

// The last phase the child announced on stderr: "compiling", "loading", "checking", or "".
std::string lastPhase(const std::string& err) {
  std::string phase;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(kPhasePrefix, 0) == 0) phase = line.substr(std::string(kPhasePrefix).size());
  return phase;
}

// The child's last line on stderr that is not a phase.
std::string lastWords(const std::string& err) {
  std::string last;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line.rfind(kPhasePrefix, 0) != 0) last = line;
  return last.size() > 300 ? last.substr(0, 300) + "..." : last;
}

std::string memoryText(std::uint64_t bytes) {
  return bytes % (std::uint64_t(1) << 30) == 0 ? std::to_string(bytes >> 30) + " GiB"
                                               : std::to_string(bytes >> 20) + " MiB";
}

// Why a report did not pass, in one line.
std::string failureOf(const SubmissionReport& report) {
  if (!report.compiled) {
    if (report.diagnostics.empty()) return "did not compile";
    const CompileDiagnostic& first = report.diagnostics.front();
    return "did not compile: " +
           (first.line > 0 ? "line " + std::to_string(first.line) + ": " : std::string()) +
           first.message;
  }
  if (!report.error.empty()) return report.error;
  if (const CheckResult* failed = report.firstFailure())
    return failed->spec.title() + ": " + failed->detail;
  return "";
}

GradeRow rowOf(const std::string& name, sandbox::ChildOutcome&& outcome,
               const GradeOptions& options, bool memoryLimited);

// rowOf, its reason on one line.
GradeRow oneLineRowOf(const std::string& name, sandbox::ChildOutcome&& outcome,
                      const GradeOptions& options, bool memoryLimited) {
  GradeRow row = rowOf(name, std::move(outcome), options, memoryLimited);
  for (std::size_t at; (at = row.reason.find_first_of("\r\n")) != std::string::npos;)
    row.reason.replace(at, 1, at + 1 < row.reason.size() ? "; " : "");
  return row;
}

GradeRow rowOf(const std::string& name, sandbox::ChildOutcome&& outcome,
               const GradeOptions& options, bool memoryLimited) {
  using End = sandbox::ChildOutcome::End;
  GradeRow row;
  row.submission = name;
  row.seconds = outcome.seconds;
  const std::string phase = lastPhase(outcome.err);
  // It compiled once the child went on to load it.
  row.compiled = phase == "loading" || phase == "checking";
  const std::string during = phase.empty() ? "" : " while " + phase;
  switch (outcome.end) {
    case End::TimedOut:
      row.reason = "timed out after " + secondsText(options.timeLimitSeconds) + during;
      return row;
    case End::OutputTooLarge:
      row.reason = "wrote more than its output may hold" + during;
      return row;
    case End::Cancelled:
      row.reason = "cancelled";
      return row;
    case End::NotStarted:
      row.reason = "could not start its check: " + outcome.why;
      return row;
    case End::Signalled:
      row.reason = "crashed" + during + ": " + sandbox::signalDescription(outcome.code);
      if (const std::string last = lastWords(outcome.err); !last.empty() && outcome.code != SIGKILL)
        row.reason += " (" + last + ")";
      return row;
    case End::Exited:
      break;
  }
  if (outcome.code == kGradeChildOutOfMemory) {
    row.reason = "ran out of memory" + during +
                 (memoryLimited ? " (limit " + memoryText(options.memoryLimitBytes) + ")" : "");
    return row;
  }
  if (outcome.code != 0) {
    const std::string last = lastWords(outcome.err);
    row.reason = "its check failed" + during + " (exit status " + std::to_string(outcome.code) +
                 ")" + (last.empty() ? "" : ": " + last);
    return row;
  }
  try {
    const json document = io::parseJson(outcome.out, "the child's report");
    if (!document.is_object() || document.value("format", "") != kChildFormat)
      throw Error(ErrorKind::InvalidArgument, "it is not a tilescope-grade-child document");
    SubmissionReport report = reportFromJson(io::requiredField(document, "report", ""));
    for (const json& call : io::arrayAt(io::requiredField(document, "refused", ""), "refused"))
      if (call.is_string()) row.refused.push_back(call.get<std::string>());
    row.compiled = report.compiled;
    row.verified = !report.verification.empty() &&
                   std::all_of(report.verification.begin(), report.verification.end(),
                               [](const ShapeCheck& s) { return s.passed; });
    row.checks = report.checks;
    row.passed = report.passed() && row.refused.empty();
    row.reason = failureOf(report);
    if (!row.refused.empty()) {
      std::string calls;
      for (const std::string& call : row.refused) calls += (calls.empty() ? "" : ", ") + call;
      const std::string refused = "made system calls the sandbox refused: " + calls;
      row.reason = row.reason.empty() ? refused : refused + "; " + row.reason;
    }
    row.report = std::move(report);
  } catch (const std::exception& error) {
    row.reason = std::string("its report could not be read: ") + error.what();
  }
  return row;
}

// A folder's name for submission `index`: its number and the file's stem, in safe characters.
std::string folderName(std::size_t index, const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  char number[24];  // 20 digits at most, the dash and the end
  std::snprintf(number, sizeof number, "%04zu-", index + 1);
  return number + stem.substr(0, 60);
}

void keepVariable(std::vector<std::string>& environment, const char* name) {
  if (const char* value = std::getenv(name)) environment.push_back(std::string(name) + "=" + value);
}

}  // namespace

std::vector<GradeRow> gradeSubmissions(const std::string& exerciseName,
                                       const std::vector<std::string>& submissions,
                                       const GradeOptions& options, const GradeProgressFn& progress,
                                       const std::atomic<bool>* cancel) {
  // The scratch folder: given, or made here and removed at the end.
  std::error_code error;
  fs::path scratch;
  bool madeScratch = false;
  if (!options.scratch.empty()) {
    scratch = fs::absolute(options.scratch, error);
    fs::create_directories(scratch, error);
    if (!fs::is_directory(scratch))
      throw Error(ErrorKind::InvalidArgument,
                  "--scratch " + options.scratch + ": cannot make the folder");
  } else {
    std::string pattern = (fs::temp_directory_path() / "tilescope-grade-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error(ErrorKind::InvalidArgument,
                  "cannot make a scratch folder under " + fs::temp_directory_path().string());
    scratch = pattern;
    madeScratch = true;
  }
  struct RemoveScratch {
    fs::path path;
    bool active;
    ~RemoveScratch() {
      std::error_code ignored;
      if (active) fs::remove_all(path, ignored);
    }
  } removeScratch{scratch, madeScratch};

  const int cores = std::max<int>(1, int(sandbox::allowedCpus().size()));
  // On a GPU the children take turns at it (a run waits for the device's lock, within its own
  // time limit): one at a time unless asked.
  const int jobs = options.jobs > 0 ? options.jobs : options.backend == "cpu" ? cores : 1;
  const int coresEach =
      std::max(1, cores / std::max(1, std::min<int>(jobs, int(submissions.size()))));
  const bool memoryLimited = options.backend == "cpu" && sandbox::addressSpaceLimitWorks();
  std::vector<sandbox::ChildSpec> children;
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const fs::path folder = scratch / folderName(i, submissions[i]);
    for (const char* sub : {"home", "tmp", "cache"}) fs::create_directories(folder / sub, error);
    fs::copy_file(submissions[i], folder / kSubmissionFile, fs::copy_options::overwrite_existing,
                  error);
    sandbox::ChildSpec child;
    child.argv = {options.childProgram, "--grade-child", exerciseName,
                  kSubmissionFile,      "--backend",     options.backend};
    child.directory = folder.string();
    child.environment = {"HOME=" + (folder / "home").string(),
                         "TMPDIR=" + (folder / "tmp").string(),
                         "XDG_CACHE_HOME=" + (folder / "cache").string(),
                         "XDG_CONFIG_HOME=" + (folder / "home").string(), "LC_ALL=C"};
    // No BLAS threads either: the child's threads must all be shut in.
    sandbox::setVariables(child.environment, sandbox::boundedMemoryVariables());
    for (const char* name : {"PATH", "CXX", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                             "TILESCOPE_LOCK_DIR", "TILESCOPE_CPU_THREADS"})
      keepVariable(child.environment, name);
    // A sanitizer build's leak check stops the world with a process of its own at exit, which
    // the filter refuses: the leaks are the test suite's to find, not the child's. A fault stays
    // the signal it is, as in a release build.
    if (!sandbox::addressSpaceLimitWorks()) {
      const char* asan = std::getenv("ASAN_OPTIONS");
      child.environment.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") +
                                  (asan && *asan ? ":" : "") +
                                  "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0");
      keepVariable(child.environment, "UBSAN_OPTIONS");
    }
    child.limits.seconds = options.timeLimitSeconds;
    if (memoryLimited) child.limits.memoryBytes = options.memoryLimitBytes;
    // CPU time: every core of its share busy the whole time, and a margin.
    child.limits.cpuSeconds = options.timeLimitSeconds * coresEach + 5;
    child.limits.fileBytes = std::uint64_t(256) << 20;
    children.push_back(std::move(child));
  }

  std::vector<GradeRow> rows(submissions.size());
  std::size_t done = 0;
  sandbox::runChildren(
      children, jobs,
      [&](std::size_t index, sandbox::ChildOutcome&& outcome) {
        rows[index] = oneLineRowOf(submissions[index], std::move(outcome), options, memoryLimited);
        if (progress) progress(++done, submissions.size(), rows[index]);
      },
      cancel);
  return rows;
}

// --- Writing the rows ---------------------------------------------------------------------------

namespace {

// "sectors-per-load(A)": a check's column; the verified check's, whose figure counts the shapes
// that came out wrong, "wrong-shapes" (the verified column says yes or no).
std::string columnOf(const CheckSpec& spec) {
  if (spec.kind == CheckKind::Verified) return "wrong-shapes";
  std::string name = checkName(spec.kind);
  if (spec.operand == OperandChoice::A) name += "(A)";
  if (spec.operand == OperandChoice::B) name += "(B)";
  return name;
}

std::string figureText(const CheckResult& check) {
  return check.figure ? numberText(*check.figure, "%.4g") : "";
}

// A check's cell: its figure and whether it passed.
std::string cellOf(const std::vector<CheckResult>& checks, std::size_t i) {
  if (i >= checks.size()) return "-";
  const CheckResult& check = checks[i];
  switch (check.state) {
    case CheckState::Passed:
      return figureText(check) + (check.figure ? " " : "") + "ok";
    case CheckState::Failed:
      return figureText(check) + (check.figure ? " " : "") + "FAIL";
    case CheckState::NotMeasured:
      break;
  }
  return "n/m";
}

std::string yesNo(bool value) {
  return value ? "yes" : "no";
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string gradesTable(const Exercise& exercise, const std::vector<GradeRow>& rows) {
  std::vector<std::string> header = {"submission", "compiled", "verified"};
  for (const CheckSpec& spec : exercise.checks) header.push_back(columnOf(spec));
  for (const char* name : {"passed", "seconds", "reason"}) header.push_back(name);
  std::vector<std::vector<std::string>> cells;
  for (const GradeRow& row : rows) {
    std::vector<std::string> line = {row.submission, yesNo(row.compiled), yesNo(row.verified)};
    for (std::size_t i = 0; i < exercise.checks.size(); ++i) line.push_back(cellOf(row.checks, i));
    line.push_back(yesNo(row.passed));
    line.push_back(numberText(row.seconds, "%.1f"));
    line.push_back(row.reason);
    cells.push_back(std::move(line));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : cells) width[c] = std::max(width[c], line[c].size());
  }
  std::ostringstream out;
  const auto write = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      const bool last = c + 1 == line.size();
      text += line[c] + (last ? "" : std::string(width[c] - line[c].size() + 2, ' '));
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << '\n';
  };
  write(header);
  for (const auto& line : cells) write(line);
  const auto passed = std::count_if(rows.begin(), rows.end(), [](auto& r) { return r.passed; });
  out << passed << " of " << rows.size() << " passed " << exercise.id << '\n';
  return out.str();
}

std::string gradesCsv(const Exercise& exercise, const std::vector<GradeRow>& rows) {
  std::vector<std::string> header = {"submission", "compiled", "verified"};
  for (const CheckSpec& spec : exercise.checks) {
    header.push_back(columnOf(spec));
    header.push_back(columnOf(spec) + " result");
  }
  for (const char* name : {"passed", "seconds", "reason"}) header.push_back(name);
  std::ostringstream out;
  const auto write = [&](const std::vector<std::string>& line) {
    for (std::size_t c = 0; c < line.size(); ++c) out << (c ? "," : "") << csvField(line[c]);
    out << '\n';
  };
  write(header);
  for (const GradeRow& row : rows) {
    std::vector<std::string> line = {row.submission, row.compiled ? "true" : "false",
                                     row.verified ? "true" : "false"};
    for (std::size_t i = 0; i < exercise.checks.size(); ++i) {
      const bool measured = i < row.checks.size();
      line.push_back(measured ? figureText(row.checks[i]) : "");
      line.push_back(measured ? toString(row.checks[i].state) : "");
    }
    line.push_back(row.passed ? "true" : "false");
    line.push_back(numberText(row.seconds, "%.3f"));
    line.push_back(row.reason);
    write(line);
  }
  return out.str();
}

json gradesJson(const Exercise& exercise, const std::vector<GradeRow>& rows,
                const GradeOptions& options, const std::string& gradedAt) {
  json out{{"format", "tilescope-grades"},
           {"version", 1},
           {"exercise", exercise.id},
           {"title", exercise.title},
           {"graded_at", gradedAt},
           {"backend", options.backend},
           {"time_limit_s", options.timeLimitSeconds},
           {"memory_limit_mib", options.memoryLimitBytes >> 20}};
  json list = json::array();
  for (const GradeRow& row : rows) {
    json checks = json::array();
    for (const CheckResult& check : row.checks)
      checks.push_back({{"check", checkName(check.spec.kind)},
                        {"column", columnOf(check.spec)},
                        {"title", check.spec.title()},
                        {"state", toString(check.state)},
                        {"figure", check.figure ? json(*check.figure) : json(nullptr)},
                        {"detail", check.detail}});
    json entry{{"submission", row.submission}, {"compiled", row.compiled},
               {"verified", row.verified},     {"checks", checks},
               {"passed", row.passed},         {"seconds", row.seconds},
               {"reason", row.reason},         {"refused", row.refused}};
    if (row.report) {
      json diagnostics = json::array();
      for (const CompileDiagnostic& d : row.report->diagnostics)
        diagnostics.push_back({{"line", d.line}, {"column", d.column}, {"message", d.message}});
      entry["diagnostics"] = diagnostics;
      json verification = json::array();
      for (const ShapeCheck& s : row.report->verification)
        verification.push_back(
            {{"shape", std::to_string(s.shape.m) + "x" + std::to_string(s.shape.n) + "x" +
                           std::to_string(s.shape.k)},
             {"passed", s.passed},
             {"detail", s.detail}});
      entry["verification"] = verification;
    }
    list.push_back(std::move(entry));
  }
  out["rows"] = std::move(list);
  return out;
}

}  // namespace tilescope::exercise
