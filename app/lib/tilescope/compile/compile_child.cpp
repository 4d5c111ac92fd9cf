// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/compile/compile_child.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tilescope/error.hpp"
#include "tilescope/exercise/sandbox.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/io/file_io.hpp"
#include "tilescope/io/json_fields.hpp"

extern char** environ;

namespace tilescope::compile {
namespace {

using nlohmann::json;
namespace sandbox = exercise::sandbox;

constexpr const char* kRequestFormat = "tilescope-compile-request";
constexpr const char* kReplyFormat = "tilescope-compile-result";
// A request holds a source of at most kMaxUserSourceBytes, escaped.
constexpr std::size_t kMaxRequestBytes = std::size_t(1) << 20;

// A positive number in environment variable `name`, else nullopt.
std::optional<double> positiveVariable(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (*end != '\0' || !std::isfinite(value) || value <= 0) return std::nullopt;
  return value;
}

std::string bytesText(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (std::uint64_t(1) << 30) && bytes % (std::uint64_t(1) << 30) == 0)
    std::snprintf(text, sizeof text, "%llu GiB", static_cast<unsigned long long>(bytes >> 30));
  else
    std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  return text;
}

std::string toHex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const unsigned char c : bytes) {
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  return hex;
}

std::string fromHex(const std::string& hex, const std::string& path) {
  const auto value = [&](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    io::refuseAt(path, "holds a character that is no hexadecimal digit");
  };
  if (hex.size() % 2 != 0) io::refuseAt(path, "has an odd number of hexadecimal digits");
  std::string bytes(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = char(value(hex[2 * i]) * 16 + value(hex[2 * i + 1]));
  return bytes;
}

json paramsJson(const Params& params) {
  json out = json::object();
  for (const auto& [name, value] : params) out[name] = value;
  return out;
}

Params paramsFrom(const json& object, const std::string& path) {
  Params params;
  for (const auto& [name, value] : io::objectAt(object, path).items())
    params[name] = int(io::integerField(object, name.c_str(), path, INT32_MIN, INT32_MAX, "value"));
  return params;
}

json resultJson(const CompileResult& r) {
  json diagnostics = json::array();
  for (const CompileDiagnostic& d : r.diagnostics)
    diagnostics.push_back(
        {{"line", d.line}, {"column", d.column}, {"error", d.error}, {"message", d.message}});
  json params = json::array();
  for (const ParamSpec& p : r.params)
    params.push_back({{"name", p.name},
                      {"description", p.description},
                      {"default", p.defaultValue},
                      {"allowed", p.allowed},
                      {"refusal", p.refusal}});
  json resources = nullptr;
  if (r.resources)
    resources = {{"registers", r.resources->registersPerThread},
                 {"shared_bytes", r.resources->sharedBytesPerBlock},
                 {"local_bytes", r.resources->localBytesPerThread},
                 {"threads", r.resources->threadsPerBlock},
                 {"blocks_per_sm", r.resources->blocksPerSM},
                 {"occupancy", r.resources->occupancy}};
  return {{"format", kReplyFormat},
          {"ok", r.ok},
          {"diagnostics", diagnostics},
          {"log", r.log},
          {"arch", r.arch},
          {"params", params},
          {"values", paramsJson(r.values)},
          {"resources", resources},
          {"image", toHex(r.image)},
          {"declares_kstep", r.declaresKStep},
          {"declares_tensor_maps", r.declaresTensorMaps},
          {"declares_cluster", r.declaresCluster},
          {"declares_persistent", r.declaresPersistent}};
}

CompileResult resultFrom(const json& reply) {
  using io::booleanField, io::integerField, io::stringField;
  constexpr std::int64_t kMost = INT64_MAX;
  io::objectAt(reply, "");
  if (stringField(reply, "format", "") != kReplyFormat)
    io::refuseAt("format", "is not " + std::string(kReplyFormat));
  CompileResult r;
  r.ok = booleanField(reply, "ok", "");
  const json& diagnostics = io::arrayAt(io::requiredField(reply, "diagnostics", ""), "diagnostics");
  for (std::size_t i = 0; i < diagnostics.size(); ++i) {
    const std::string at = io::elementPath("diagnostics", i);
    r.diagnostics.push_back(
        {int(integerField(diagnostics[i], "line", at, 0, INT32_MAX, "line")),
         int(integerField(diagnostics[i], "column", at, 0, INT32_MAX, "column")),
         booleanField(diagnostics[i], "error", at), stringField(diagnostics[i], "message", at)});
  }
  r.log = stringField(reply, "log", "");
  r.arch = stringField(reply, "arch", "");
  const json& params = io::arrayAt(io::requiredField(reply, "params", ""), "params");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string at = io::elementPath("params", i);
    ParamSpec spec;
    spec.name = stringField(params[i], "name", at);
    spec.description = stringField(params[i], "description", at);
    spec.defaultValue = int(integerField(params[i], "default", at, INT32_MIN, INT32_MAX, "value"));
    const json& allowed = io::arrayAt(io::requiredField(params[i], "allowed", at), at);
    for (const json& value : allowed) {
      if (!value.is_number_integer()) io::refuseAt(at + ".allowed", "holds a non-integer");
      spec.allowed.push_back(value.get<int>());
    }
    spec.refusal = stringField(params[i], "refusal", at);
    r.params.push_back(std::move(spec));
  }
  r.values = paramsFrom(io::requiredField(reply, "values", ""), "values");
  if (const json* resources = io::optionalField(reply, "resources")) {
    KernelResources k;
    k.registersPerThread =
        int(integerField(*resources, "registers", "resources", 0, INT32_MAX, "count"));
    k.sharedBytesPerBlock = integerField(*resources, "shared_bytes", "resources", 0, kMost, "size");
    k.localBytesPerThread = integerField(*resources, "local_bytes", "resources", 0, kMost, "size");
    k.threadsPerBlock =
        int(integerField(*resources, "threads", "resources", 0, INT32_MAX, "count"));
    k.blocksPerSM =
        int(integerField(*resources, "blocks_per_sm", "resources", 0, INT32_MAX, "count"));
    k.occupancy = io::numberField(*resources, "occupancy", "resources", io::Sign::NonNegative);
    r.resources = k;
  }
  r.image = fromHex(stringField(reply, "image", ""), "image");
  r.declaresKStep = booleanField(reply, "declares_kstep", "");
  r.declaresTensorMaps = booleanField(reply, "declares_tensor_maps", "");
  r.declaresCluster = booleanField(reply, "declares_cluster", "");
  r.declaresPersistent = booleanField(reply, "declares_persistent", "");
  return r;
}

// The words of a compiler or process that ran out of memory: NVRTC's front end and its LLVM,
// GCC's cc1plus, NVRTC's status, the C++ runtime (tilescope-bench prints what() of bad_alloc).
bool saysOutOfMemory(const std::string& text) {
  for (const char* words : {"catastrophic error: out of memory", "LLVM ERROR: out of memory",
                            "virtual memory exhausted", "cc1plus: out of memory",
                            "NVRTC_ERROR_OUT_OF_MEMORY", "std::bad_alloc"})
    if (text.find(words) != std::string::npos) return true;
  return false;
}

// The last line of `text` that says something.
std::string lastLine(const std::string& text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  const std::size_t begin = text.rfind('\n', end);
  return text.substr(
      begin == std::string::npos ? 0 : begin + 1,
      std::min<std::size_t>(end + 1 - (begin == std::string::npos ? 0 : begin + 1), 300));
}

CompileResult failed(const CompileOptions& options, const CompileTarget& target,
                     const std::string& why) {
  CompileResult result;
  result.arch = target.host ? "host" : options.arch;
  result.diagnostics.push_back({0, 0, true, why});
  return result;
}

// A folder of its own under $TMPDIR for one request; removed when it goes.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tilescope-compile-XXXXXX").string();
    if (mkdtemp(pattern.data())) path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

Limits limitsFromEnvironment() {
  Limits limits;
  if (const auto seconds = positiveVariable("TILESCOPE_COMPILE_SECONDS")) limits.seconds = *seconds;
  if (const auto mib = positiveVariable("TILESCOPE_COMPILE_MEMORY_MIB"))
    limits.memoryBytes = std::uint64_t(*mib) << 20;
  return limits;
}

std::string timeLimitMessage(const Limits& limits) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", limits.seconds);
  return std::string("the compiler took longer than ") + seconds +
         " s, the limit of one compile: the source makes it work too hard (set "
         "TILESCOPE_COMPILE_SECONDS for another limit)";
}

std::string memoryLimitMessage(const Limits& limits) {
  return "the compiler ran out of its " + bytesText(limits.memoryBytes) +
         " memory limit: the source makes it work too hard (set TILESCOPE_COMPILE_MEMORY_MIB for "
         "another limit)";
}

CompileResult compileInChild(const std::string& program, const UserKernelSource& kernel,
                             const CompileOptions& options, const CompileTarget& target,
                             const Limits& limits, const std::atomic<bool>* cancel) {
  const ScratchFolder folder;
  if (folder.path.empty())
    return failed(options, target,
                  "cannot make a folder for the compile in " +
                      std::filesystem::temp_directory_path().string() + ": " +
                      std::strerror(errno));
  const std::string request = (folder.path / "request.json").string();
  try {
    io::writeFile(request,
                  json{{"format", kRequestFormat},
                       {"name", kernel.name},
                       {"source", kernel.source},
                       {"arch", options.arch},
                       {"params", paramsJson(options.params)},
                       {"element", toString(options.element)},
                       {"trace", options.trace},
                       {"host", target.host},
                       {"sanitize", target.sanitize}}
                      .dump(-1, ' ', false, json::error_handler_t::replace),
                  "the compile request");
  } catch (const Error& e) {
    return failed(options, target, e.what());
  }
  sandbox::ChildSpec spec;
  spec.argv = {program, "--compile-kernel", request};
  spec.directory = folder.path.string();
  for (char** variable = environ; variable && *variable; ++variable)
    spec.environment.emplace_back(*variable);
  sandbox::setVariables(spec.environment, sandbox::boundedMemoryVariables());
  spec.limits.seconds = limits.seconds;
  spec.limits.cpuSeconds = limits.seconds;
  const bool memoryLimited = limits.memoryBytes > 0 && sandbox::addressSpaceLimitWorks();
  if (memoryLimited) spec.limits.memoryBytes = limits.memoryBytes;
  sandbox::ChildOutcome outcome;
  sandbox::runChildren(
      {spec}, 1, [&](std::size_t, sandbox::ChildOutcome&& ended) { outcome = std::move(ended); },
      cancel);

  using End = sandbox::ChildOutcome::End;
  const bool outOfMemory = memoryLimited && saysOutOfMemory(outcome.err);
  switch (outcome.end) {
    case End::NotStarted:
      return failed(options, target, "cannot start the compiler's process: " + outcome.why);
    case End::Cancelled:
      return failed(options, target, "the compile was cancelled");
    case End::TimedOut:
      return failed(options, target, timeLimitMessage(limits));
    case End::OutputTooLarge:
      return failed(options, target, "the compiler's process wrote more than it may");
    case End::Signalled:
      if (outcome.code == SIGXCPU) return failed(options, target, timeLimitMessage(limits));
      if (outOfMemory) return failed(options, target, memoryLimitMessage(limits));
      return failed(options, target,
                    "the compiler crashed (" + sandbox::signalDescription(outcome.code) + ")" +
                        (lastLine(outcome.err).empty() ? "" : ": " + lastLine(outcome.err)));
    case End::Exited:
      break;
  }
  if (outcome.code != 0) {
    if (outOfMemory) return failed(options, target, memoryLimitMessage(limits));
    return failed(options, target,
                  "the compiler's process failed (exit status " + std::to_string(outcome.code) +
                      ")" + (lastLine(outcome.err).empty() ? "" : ": " + lastLine(outcome.err)));
  }
  CompileResult result;
  try {
    result = resultFrom(io::parseJson(outcome.out, "the compiler's reply"));
  } catch (const Error& e) {
    return failed(options, target, e.what());
  }
  // A compiler that the limit stopped and said so (cc1plus, NVRTC's status): the limit first.
  if (!result.ok && memoryLimited) {
    const bool said = saysOutOfMemory(result.log) ||
                      std::any_of(result.diagnostics.begin(), result.diagnostics.end(),
                                  [](const CompileDiagnostic& d) {
                                    return d.line == 0 && saysOutOfMemory(d.message);
                                  });
    if (said)
      result.diagnostics.insert(result.diagnostics.begin(),
                                {0, 0, true, memoryLimitMessage(limits)});
  }
  return result;
}

void isolateCompiles(const std::string& program, const Limits& limits) {
  setIsolatedCompiler([program, limits](const UserKernelSource& kernel,
                                        const CompileOptions& options, const CompileTarget& target,
                                        const std::atomic<bool>* cancel) {
    return compileInChild(program, kernel, options, target, limits, cancel);
  });
}

std::string answerCompileRequest(const std::string& path) {
  using io::booleanField, io::stringField;
  const json request =
      io::parseJson(*io::readFile(path, kMaxRequestBytes, "--compile-kernel"), "--compile-kernel");
  io::objectAt(request, "");
  if (stringField(request, "format", "") != kRequestFormat)
    io::refuseAt("format", "is not " + std::string(kRequestFormat));
  const UserKernelSource kernel{stringField(request, "name", ""),
                                stringField(request, "source", "")};
  CompileOptions options;
  options.arch = stringField(request, "arch", "");
  options.params = paramsFrom(io::requiredField(request, "params", ""), "params");
  options.element = io::elementTypeField(request, "element", "");
  options.trace = booleanField(request, "trace", "");
  const CompileResult result =
      booleanField(request, "host", "")
          ? buildUserKernelForHost(kernel, options, booleanField(request, "sanitize", ""))
          : compileUserKernelHere(kernel, options);
  return resultJson(result).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tilescope::compile
