// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/exercise/exercise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "tilescope/embedded_files.hpp"
#include "tilescope/error.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::embedded {
const std::vector<EmbeddedFile>& exerciseFiles();
}

namespace tilescope::exercise {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "tilescope-exercise";
constexpr std::int64_t kVersion = 1;
// An exercise's files are a page of text and two kernels; anything larger is a mistake.
constexpr std::size_t kMaxFileBytes = std::size_t(256) << 10;
// Verification and tracing run on a student's CPU: shapes stay small.
constexpr std::int64_t kMaxCheckedSize = 8192;
constexpr std::size_t kMaxHints = 20, kMaxChecks = 30, kMaxShapes = 20;

struct KindName {
  CheckKind kind;
  const char* name;
  bool countsOperand;  // takes "operand"
  bool hasThreshold;   // "verified" and "sanitizer-clean" have none: all must pass
  const char* why;     // the default sentence
};
constexpr std::array<KindName, 12> kKinds{{
    {CheckKind::Verified, "verified", false, false,
     "C must be right at every shape, odd ones too: edges are where tiled kernels go wrong."},
    {CheckKind::SanitizerClean, "sanitizer-clean", false, false,
     "No races, no missing barriers, no __shared__ index out of bounds, no read of an "
     "unwritten word: such a kernel may work today and fail on the next GPU."},
    {CheckKind::SectorsPerLoad, "sectors-per-load", true, true,
     "Global memory is read in 32-byte sectors: a warp reading 32 consecutive floats needs 4, "
     "one reading 32 different rows needs 32."},
    {CheckKind::SharedPasses, "shared-passes", false, true,
     "Shared memory has 32 banks; lanes that hit different words of one bank wait for each "
     "other, one pass of the banks each."},
    {CheckKind::GlobalLoadsPerFma, "global-loads-per-fma", true, true,
     "Each element a block stages in shared memory serves a whole tile of multiply-adds: the "
     "fewer global loads per multiply-add, the less the kernel waits on memory."},
    {CheckKind::SharedReadsPerFma, "shared-reads-per-fma", false, true,
     "A value held in a register serves several multiply-adds: a register tile reads shared "
     "memory less often."},
    {CheckKind::OutputsPerThread, "outputs-per-thread", false, true,
     "A thread that computes several elements of C reuses each value it reads for all of them."},
    {CheckKind::LoadWidth, "load-width", true, true,
     "A float4 load moves 16 bytes per lane in one instruction, four times a float's."},
    {CheckKind::SharedStages, "shared-stages", false, true,
     "With two stages the block loads the next k-step while it multiplies this one, and needs one "
     "barrier per k-step instead of two."},
    {CheckKind::Registers, "registers", false, true,
     "Registers are shared by the SM's threads: more per thread, fewer blocks at once."},
    {CheckKind::Occupancy, "occupancy", false, true,
     "The share of the SM's warps that can be resident: enough of them hide memory latency."},
    {CheckKind::TimeVsRung, "time-vs-rung", false, true,
     "On the GPU, your kernel against the catalogue's kernel of the same rung, in the same run."},
}};

const KindName& kindName(CheckKind kind) {
  return *std::find_if(kKinds.begin(), kKinds.end(),
                       [&](const KindName& k) { return k.kind == kind; });
}

const char* operandName(OperandChoice operand) {
  switch (operand) {
    case OperandChoice::A:
      return "A";
    case OperandChoice::B:
      return "B";
    case OperandChoice::Both:
      break;
  }
  return "both";
}

// "33x17x9": M x N x K, each 1..kMaxCheckedSize.
Shape shapeAt(const json& value, const std::string& path) {
  if (!value.is_string()) io::refuseAt(path, io::shownValue(value) + " is not a shape MxNxK");
  const std::string text = value.get<std::string>();
  std::array<std::int64_t, 3> sizes{};
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::size_t end = i + 1 < sizes.size() ? text.find('x', at) : text.size();
    const std::string part = text.substr(at, end == std::string::npos ? end : end - at);
    const bool digits =
        !part.empty() && part.size() <= 6 &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (end == std::string::npos || !digits)
      io::refuseAt(path, io::shownValue(value) + " is not a shape MxNxK, e.g. \"33x17x9\"");
    sizes[i] = std::stoll(part);
    if (sizes[i] < 1 || sizes[i] > kMaxCheckedSize)
      io::refuseAt(path, io::shownValue(value) + " has a size outside 1.." +
                             std::to_string(kMaxCheckedSize));
    at = end + 1;
  }
  return {sizes[0], sizes[1], sizes[2]};
}

CheckSpec checkAt(const json& object, const std::string& path) {
  io::objectAt(object, path);
  const std::string name = io::stringField(object, "check", path);
  const std::optional<CheckKind> kind = checkKindFromName(name);
  if (!kind) {
    std::string known;
    for (const KindName& k : kKinds) known += (known.empty() ? "" : ", ") + std::string(k.name);
    io::refuseAt(io::memberPath(path, "check"),
                 io::shownValue(name) + " is not a check (" + known + ")");
  }
  const KindName& info = kindName(*kind);
  CheckSpec spec;
  spec.kind = *kind;
  for (const auto& [key, value] : object.items()) {
    if (key != "check" && key != "operand" && key != "at-most" && key != "at-least" && key != "why")
      io::refuseAt(io::memberPath(path, key),
                   "is not a field of a check (check, operand, at-most, "
                   "at-least, why)");
  }
  const json* atMost = io::optionalField(object, "at-most");
  const json* atLeast = io::optionalField(object, "at-least");
  if (!info.hasThreshold) {
    if (atMost || atLeast)
      io::refuseAt(path,
                   std::string("\"") + info.name + "\" has no threshold: every one must pass");
    spec.bound = Bound::AtMost;
    spec.threshold = 0;
  } else {
    if (bool(atMost) == bool(atLeast))
      io::refuseAt(path, std::string("\"") + info.name + "\" needs one bound: at-most or at-least");
    spec.bound = atMost ? Bound::AtMost : Bound::AtLeast;
    spec.threshold =
        io::numberField(object, atMost ? "at-most" : "at-least", path, io::Sign::Positive);
  }
  if (const json* operand = io::optionalField(object, "operand")) {
    if (!info.countsOperand)
      io::refuseAt(io::memberPath(path, "operand"),
                   std::string("\"") + info.name + "\" counts no single operand");
    const std::string text = io::stringField(object, "operand", path);
    if (text == "A")
      spec.operand = OperandChoice::A;
    else if (text == "B")
      spec.operand = OperandChoice::B;
    else if (text == "both")
      spec.operand = OperandChoice::Both;
    else
      io::refuseAt(io::memberPath(path, "operand"),
                   io::shownValue(*operand) + " is not \"A\", \"B\" or \"both\"");
  }
  spec.why = io::optionalField(object, "why") ? io::stringField(object, "why", path) : info.why;
  return spec;
}

// The exercise's id as a folder name: letters, digits, '-' and '_'.
void checkId(const std::string& id) {
  const bool ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!ok)
    throw Error(ErrorKind::InvalidArgument,
                "exercise folder '" + id +
                    "': its name is the exercise's id: letters, digits, '-' and '_', at most 64");
}

// A kernel file's problems: empty, too large, or parameters the exercise sets that it lacks.
void checkKernelFile(const std::string& file, const std::string& source, const Params& params) {
  if (source.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(ErrorKind::InvalidArgument, file + " is empty");
  if (source.size() > kMaxUserSourceBytes)
    throw Error(ErrorKind::InvalidArgument, file + " is larger than a kernel may be");
  std::vector<CompileDiagnostic> problems;
  const std::vector<ParamSpec> declared = declaredParams(source, &problems);
  if (!problems.empty())
    throw Error(ErrorKind::InvalidArgument,
                file + ", line " + std::to_string(problems[0].line) + ": " + problems[0].message);
  for (const auto& param : params) {
    const std::string& name = param.first;
    if (std::none_of(declared.begin(), declared.end(),
                     [&](const ParamSpec& p) { return p.name == name; }))
      throw Error(ErrorKind::InvalidArgument,
                  "exercise.json: params." + name + " is not a TS_PARAM of " + file);
  }
}

}  // namespace

std::string numberText(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

const char* checkName(CheckKind kind) {
  return kindName(kind).name;
}

std::optional<CheckKind> checkKindFromName(const std::string& name) {
  for (const KindName& k : kKinds)
    if (name == k.name) return k.kind;
  return std::nullopt;
}

std::string CheckSpec::title() const {
  const KindName& info = kindName(kind);
  std::string text = info.name;
  std::replace(text.begin(), text.end(), '-', ' ');
  if (info.countsOperand && operand != OperandChoice::Both)
    text += std::string(" of ") + operandName(operand);
  if (!info.hasThreshold) return text;
  char number[32];
  std::snprintf(number, sizeof number, "%g", threshold);
  return text + (bound == Bound::AtMost ? " at most " : " at least ") + number;
}

bool CheckSpec::passes(double figure) const {
  if (!kindName(kind).hasThreshold) return figure == 0;
  return bound == Bound::AtMost ? figure <= threshold : figure >= threshold;
}

const std::vector<Shape>& defaultVerifyShapes() {
  static const std::vector<Shape> shapes{{1, 1, 1}, {33, 17, 9}, {1025, 65, 33}, {128, 128, 128}};
  return shapes;
}

Exercise parseExercise(const std::string& id, const std::string& jsonText, const std::string& text,
                       const std::string& start, const std::string& solution,
                       const std::string& origin) {
  checkId(id);
  const std::string path = "exercise.json";
  Exercise exercise;
  exercise.id = id;
  exercise.origin = origin;
  try {
    const json document = io::parseJson(jsonText, path);
    io::objectAt(document, "");
    if (io::stringField(document, "format", "") != kFormat)
      io::refuseAt("format", io::shownValue(document["format"]) + " is not \"" + kFormat + "\"");
    io::versionField(document, "version", "", kVersion);
    static const std::vector<std::string> fields{"format", "version", "title", "rung",   "params",
                                                 "verify", "trace",   "time",  "checks", "hints"};
    for (const auto& [key, value] : document.items())
      if (std::find(fields.begin(), fields.end(), key) == fields.end())
        io::refuseAt(key, "is not a field of an exercise");
    exercise.title = io::stringField(document, "title", "");
    if (exercise.title.empty() || exercise.title.size() > 120)
      io::refuseAt("title", "must be one line of 1 to 120 characters");
    exercise.rung = io::stringField(document, "rung", "");
    if (!findKernel(exercise.rung) || isUserKernelId(exercise.rung))
      io::refuseAt("rung", io::shownValue(document["rung"]) +
                               " is not a catalogue kernel (tilescope-bench --list)");
    if (const json* params = io::optionalField(document, "params")) {
      io::objectAt(*params, "params");
      for (const auto& [name, value] : params->items()) {
        (void)value;
        exercise.params[name] =
            int(io::integerField(*params, name.c_str(), "params", 1, 1 << 20, "parameter value"));
      }
    }
    exercise.verifyShapes = defaultVerifyShapes();
    if (const json* verify = io::optionalField(document, "verify")) {
      io::arrayAt(*verify, "verify");
      if (verify->empty() || verify->size() > kMaxShapes)
        io::refuseAt("verify", "must list 1 to " + std::to_string(kMaxShapes) + " shapes");
      exercise.verifyShapes.clear();
      for (std::size_t i = 0; i < verify->size(); ++i)
        exercise.verifyShapes.push_back(shapeAt((*verify)[i], io::elementPath("verify", i)));
    }
    const json& trace = io::objectAt(io::requiredField(document, "trace", ""), "trace");
    exercise.traceShape = shapeAt(io::requiredField(trace, "shape", "trace"), "trace.shape");
    if (exercise.traceShape.m * exercise.traceShape.n > kMaxTracedElements)
      io::refuseAt("trace.shape", "has more elements of C than a trace records (1024 x 1024)");
    if (const json* block = io::optionalField(trace, "block")) {
      io::arrayAt(*block, "trace.block");
      if (block->size() != 2 || !(*block)[0].is_number_integer() ||
          !(*block)[1].is_number_integer() || (*block)[0].get<std::int64_t>() < 0 ||
          (*block)[1].get<std::int64_t>() < 0 || (*block)[0].get<std::int64_t>() > 65535 ||
          (*block)[1].get<std::int64_t>() > 65535)
        io::refuseAt("trace.block", io::shownValue(*block) + " is not a block [x, y]");
      exercise.traceBlock = {(*block)[0].get<int>(), (*block)[1].get<int>()};
    }
    exercise.timeShape = {2048, 2048, 2048};
    if (const json* time = io::optionalField(document, "time")) {
      io::objectAt(*time, "time");
      exercise.timeShape = shapeAt(io::requiredField(*time, "shape", "time"), "time.shape");
    }
    const json& checks = io::arrayAt(io::requiredField(document, "checks", ""), "checks");
    if (checks.empty() || checks.size() > kMaxChecks)
      io::refuseAt("checks", "must list 1 to " + std::to_string(kMaxChecks) + " checks");
    for (std::size_t i = 0; i < checks.size(); ++i)
      exercise.checks.push_back(checkAt(checks[i], io::elementPath("checks", i)));
    if (const json* hints = io::optionalField(document, "hints")) {
      io::arrayAt(*hints, "hints");
      if (hints->size() > kMaxHints)
        io::refuseAt("hints", "has more than " + std::to_string(kMaxHints) + " hints");
      for (std::size_t i = 0; i < hints->size(); ++i) {
        const std::string at = io::elementPath("hints", i);
        if (!(*hints)[i].is_string() || (*hints)[i].get<std::string>().empty())
          io::refuseAt(at, io::shownValue((*hints)[i]) + " is not a hint (a non-empty string)");
        exercise.hints.push_back((*hints)[i].get<std::string>());
      }
    }
  } catch (const Error& error) {
    throw Error(ErrorKind::InvalidArgument, "exercise " + id + ": " +
                                                (std::string_view(error.what()).rfind(path, 0) == 0
                                                     ? std::string(error.what())
                                                     : path + ": " + error.what()));
  }
  exercise.text = text;
  exercise.start = start;
  exercise.solution = solution;
  try {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
      throw Error(ErrorKind::InvalidArgument, "text.md is empty");
    checkKernelFile("start.cu", start, exercise.params);
    checkKernelFile("solution.cu", solution, exercise.params);
  } catch (const Error& error) {
    throw Error(ErrorKind::InvalidArgument, "exercise " + id + ": " + error.what());
  }
  return exercise;
}

Exercise loadExercise(const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path directory(folder);
  std::string id = directory.filename().string();
  if (id.empty()) id = directory.parent_path().filename().string();  // "folder/"
  std::error_code error;
  if (!fs::is_directory(directory, error))
    throw Error(ErrorKind::InvalidArgument, "exercise folder '" + folder + "' does not exist");
  const auto read = [&](const char* name) {
    return *io::readFile((directory / name).string(), kMaxFileBytes,
                         std::string("exercise ") + id + "'s " + name);
  };
  return parseExercise(id, read("exercise.json"), read("text.md"), read("start.cu"),
                       read("solution.cu"), fs::absolute(directory, error).string());
}

const std::vector<Exercise>& builtInExercises() {
  static const std::vector<Exercise> exercises = [] {
    // Folder -> file -> text, sorted by folder: the leading numbers order them.
    std::map<std::string, std::map<std::string, std::string>> folders;
    for (const EmbeddedFile& file : embedded::exerciseFiles()) {
      const std::size_t slash = file.path.find('/');
      if (slash == std::string_view::npos) continue;  // the README beside the folders
      folders[std::string(file.path.substr(0, slash))][std::string(file.path.substr(slash + 1))] =
          std::string(file.text);
    }
    std::vector<Exercise> list;
    for (auto& [id, files] : folders)
      list.push_back(parseExercise(id, files["exercise.json"], files["text.md"], files["start.cu"],
                                   files["solution.cu"], "built in"));
    return list;
  }();
  return exercises;
}

const Exercise* findBuiltInExercise(const std::string& id) {
  for (const Exercise& exercise : builtInExercises()) {
    if (exercise.id == id) return &exercise;
    // "03-stage-a-and-b" answers to "stage-a-and-b".
    const std::size_t dash = exercise.id.find('-');
    if (dash != std::string::npos &&
        std::all_of(exercise.id.begin(), exercise.id.begin() + std::ptrdiff_t(dash),
                    [](char c) { return c >= '0' && c <= '9'; }) &&
        exercise.id.substr(dash + 1) == id)
      return &exercise;
  }
  return nullptr;
}

Exercise findExercise(const std::string& idOrFolder) {
  if (const Exercise* builtIn = findBuiltInExercise(idOrFolder)) return *builtIn;
  std::error_code error;
  if (std::filesystem::is_directory(idOrFolder, error)) return loadExercise(idOrFolder);
  std::string known;
  for (const Exercise& exercise : builtInExercises())
    known += (known.empty() ? "" : ", ") + exercise.id;
  throw Error(ErrorKind::InvalidArgument, "'" + idOrFolder + "' is neither a built-in exercise (" +
                                              (known.empty() ? std::string("none") : known) +
                                              ") nor an exercise folder");
}

}  // namespace tilescope::exercise
