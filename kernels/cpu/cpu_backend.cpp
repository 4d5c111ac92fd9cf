// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: runs the catalogue kernels of kernels/cpu with the shared measurement
// discipline (poisoned output, warm-up, adaptive repetitions, verification).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "core/registry.hpp"
#include "cpu_ceilings.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"
#include "tilescope/host_kernel.hpp"

namespace tilescope {

namespace {

constexpr const char* kBackendId = "cpu";

// A field of /proc/meminfo ("MemAvailable", "MemTotal") in bytes, or -1 when it cannot be read.
std::int64_t memInfoBytes(const std::string& field) {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string name;
    std::int64_t kib = 0;
    if (fields >> name >> kib && name == field + ":") return kib * 1024;
  }
  return -1;
}

// Read once: a grader's child asks before it shuts file access off.
const std::string& cpuModelName() {
  static const std::string name = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.rfind("model name", 0) != 0) continue;
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
    return std::string("CPU");
  }();
  return name;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[unit]);
  return text;
}

// Refuses a run whose matrices (and the double reference, when verifying) would not fit in the
// memory available now, before anything is allocated.
std::optional<std::string> hostMemoryRefusal(const Shape& shape, bool verify) {
  const std::int64_t available = memInfoBytes("MemAvailable");
  // Unknown: allocation failures still become Error(OutOfMemory).
  if (available < 0) return std::nullopt;
  const double a = 4.0 * double(shape.elementsA()), b = 4.0 * double(shape.elementsB()),
               c = 4.0 * double(shape.elementsC());
  // referenceProduct() holds double copies of A and B besides its double result.
  const double reference = verify ? 2.0 * (a + b + c) : 0.0;
  const double needed = a + b + c + reference;
  if (needed <= double(available)) return std::nullopt;
  std::string message = "M=" + std::to_string(shape.m) + ", N=" + std::to_string(shape.n) +
                        ", K=" + std::to_string(shape.k) + " needs " + formatBytes(needed) +
                        " of host memory (A " + formatBytes(a) + ", B " + formatBytes(b) + ", C " +
                        formatBytes(c);
  if (verify) message += ", double reference " + formatBytes(reference);
  message += ") but only " + formatBytes(double(available)) + " is available";
  return message;
}

void checkDevice(int device) {
  if (device != 0) {
    throw Error(ErrorKind::InvalidArgument,
                "cpu device " + std::to_string(device) +
                    " does not exist: the cpu backend has one device, 0");
  }
}

// A user kernel compiled for the CPU; throws Error(InvalidArgument) with its first error where it
// does not compile, Error(Cancelled) where `cancel` stopped the compile. `traced`: with the
// accessors recording, and the sanitizer's checks.
std::shared_ptr<const HostModule> compiledForCpu(const KernelConfig& config, bool traced,
                                                 const std::atomic<bool>* cancel) {
  const std::string name = userKernelName(config.kernel);
  const HostCompileResult compiled =
      compileUserKernelForHost({name, config.source.value_or("")},
                               {"host", config.params, ElementType::F32, traced}, traced, cancel);
  if (!compiled.module && cancel && cancel->load())
    throw Error(ErrorKind::Cancelled, "cancelled by the user");
  if (!compiled.module) {
    std::string why = name + ".cu did not compile for the CPU";
    const auto error =
        std::find_if(compiled.result.diagnostics.begin(), compiled.result.diagnostics.end(),
                     [](const CompileDiagnostic& d) { return d.error; });
    if (error != compiled.result.diagnostics.end())
      why += (error->line > 0 ? ", line " + std::to_string(error->line) : std::string()) + ": " +
             error->message;
    throw Error(ErrorKind::InvalidArgument, why);
  }
  return compiled.module;
}

class CpuBackend final : public Backend {
 public:
  std::string id() const override { return kBackendId; }
  std::optional<std::string> unavailableReason() const override { return std::nullopt; }

  std::vector<DeviceInfo> devices() const override {
    DeviceInfo device{0, cpuModelName(), {}};
    device.facts.emplace_back("logical cores", std::to_string(std::thread::hardware_concurrency()));
    if (const std::int64_t total = memInfoBytes("MemTotal"); total >= 0)
      device.facts.emplace_back("memory", formatBytes(double(total)));
    device.facts.emplace_back("BLAS", openblas_get_config());
    return {device};
  }

  RunResult run(const RunRequest& request, const ProgressFn& progress,
                const std::atomic<bool>* cancel) override;
  KernelTrace trace(const TraceRequest& request, const ProgressFn& progress,
                    const std::atomic<bool>* cancel) override;

  DeviceCeilings measureCeilings(int device, const ProgressFn& progress,
                                 const std::atomic<bool>* cancel) override {
    checkDevice(device);
    return cpu::measureCeilings(cpuModelName(), cpu::CeilingPlan{}, progress, cancel);
  }

 protected:
  std::optional<std::string> capabilityRefusal(const KernelConfig& kernel, const Shape& shape,
                                               ElementType element) const override {
    if (auto reason = tilescope::refusal(kernel)) return reason;
    if (element != ElementType::F32)
      return std::string("the CPU backend multiplies fp32 only: ") + toString(element) +
             " needs tensor cores (the CUDA backend)";
    const KernelInfo& info = kernelInfo(kernel);
    if (isUserKernelId(info.id)) {
      if (auto why = hostCompilerUnavailable()) return info.displayName + ": " + *why;
    } else if (std::find(info.backends.begin(), info.backends.end(), kBackendId) ==
                   info.backends.end() ||
               !registrationOf(info.id).runOnCpu) {
      return info.id + " has no CPU implementation";
    }
    try {
      validateShape(shape);
    } catch (const Error& error) {
      return error.what();
    }
    return std::nullopt;
  }

  std::optional<std::string> memoryRefusal(const RunRequest& request) const override {
    return hostMemoryRefusal(request.shape, request.verify);
  }
};

RunResult CpuBackend::run(const RunRequest& request, const ProgressFn& progress,
                          const std::atomic<bool>* cancel) {
  const ResolvedKernel config = resolve(request.kernel);
  const Shape& shape = request.shape;
  validateShape(shape);
  checkDevice(request.device);
  // Memory first: it is the one refusal a later run may not meet (Error(OutOfMemory) is
  // recoverable).
  if (auto why = hostMemoryRefusal(shape, request.verify))
    throw Error(ErrorKind::OutOfMemory, *why);
  if (auto reason = refusal(request)) throw Error(ErrorKind::Unsupported, *reason);

  auto report = [&](double fraction, const std::string& stage) {
    if (progress) progress(fraction, stage);
  };
  const Operands operands = makeOperands(shape, request.fill, request.seed);
  Matrix c = makePoisonedMatrix(shape.m, shape.n);
  const cpu::Gemm gemm{
      operands.a.data.data(), operands.b.data.data(), c.data.data(), shape.m, shape.n, shape.k};
  // A catalogue kernel's schedule, or a user kernel compiled for the CPU; a divergent barrier
  // stops the run with what was found.
  std::function<void()> kernel;
  std::shared_ptr<const HostModule> user;
  HostLaunch userLaunch;
  if (isUserKernelId(config.id())) {
    report(0.0, "compiling " + userKernelName(config.id()) + " for the CPU");
    user = compiledForCpu(request.kernel, false, cancel);
    userLaunch = user->launchFor(shape);
    kernel = [&] {
      const SanitizerReport found = user->launch(gemm.a, gemm.b, gemm.c, shape, userLaunch, cancel);
      if (!found.clean())
        throw Error(ErrorKind::LaunchFailed,
                    userKernelName(config.id()) + ".cu went wrong on the CPU:\n" + found.text());
    };
  } else {
    kernel = [&, schedule = registrationOf(config.id()).runOnCpu] {
      schedule(gemm, config.params(), cancel);
    };
  }

  const SamplingPolicy& policy = request.sampling;
  const int plannedReps = std::max(1, policy.fixedReps.value_or(policy.maxReps));
  int calls = 0;  // sample() runs the warm-ups through the same function first
  auto timeOnceMs = [&] {
    const int rep = calls++ - policy.warmups;
    if (rep < 0)
      report(0.0, "warm-up");
    else
      report(0.9 * rep / plannedReps,
             "timing " + std::to_string(rep + 1) + "/" + std::to_string(plannedReps));
    poison(c);
    const auto start = std::chrono::steady_clock::now();
    kernel();
    const auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(stop - start).count();
  };

  RunResult result;
  result.backend = kBackendId;
  result.device = cpuModelName();
  result.kernel = config;
  result.shape = shape;
  result.stats = sample(policy, timeOnceMs, cancel);
  result.gflops = result.stats.medianMs > 0 ? shape.flops() / (result.stats.medianMs * 1e6) : 0;
  if (request.verify) {
    report(0.9, "verifying");
    result.verification =
        verify(c, referenceProduct(operands.a, operands.b), operands.a, operands.b);
  }
  if (request.collectCounters)
    result.countersUnavailable =
        "the CPU backend has no hardware counters: they come from a CUDA GPU's profiler";
  report(1.0, "done");
  return result;
}

KernelTrace CpuBackend::trace(const TraceRequest& request, const ProgressFn& progress,
                              const std::atomic<bool>* cancel) {
  validateShape(request.shape);
  checkDevice(request.device);
  if (auto why = traceRefusal(request)) throw Error(ErrorKind::Unsupported, *why);
  if (auto why = capabilityRefusal(request.kernel, request.shape, request.element))
    throw Error(ErrorKind::Unsupported, *why);
  const KernelConfig config = resolve(request.kernel);
  const auto report = [&](double fraction, const std::string& stage) {
    if (progress) progress(fraction, stage);
  };
  report(0.0, "compiling " + userKernelName(config.kernel) +
                  " for the CPU, with its accessors "
                  "recording and the sanitizer");
  const std::shared_ptr<const HostModule> module = compiledForCpu(config, true, cancel);
  const HostLaunch launch = module->launchFor(request.shape);
  const Operands operands = makeOperands(request.shape, Fill::Random, 42);
  Matrix c = makePoisonedMatrix(request.shape.m, request.shape.n);
  report(0.5, "running the traced launch");
  // As many accesses as the CUDA backend records (2^24 for the whole block).
  const auto traceAt = [&](Dim2 block) {
    return module->trace(operands.a.data.data(), operands.b.data.data(), c.data.data(),
                         request.shape, launch, block,
                         (1 << 24) / (launch.block.x * launch.block.y));
  };
  KernelTrace traced = traceAt(request.block);
  // The sanitizer stops the launch at its first finding, which another block may have made: the
  // pictures then show that block, whose accesses lead up to the finding.
  if (!traced.sanitizer.clean() && traced.sanitizer.findings.front().block != traced.tracedBlock) {
    report(0.75, "tracing block " + std::to_string(traced.sanitizer.findings.front().block.x) +
                     "," + std::to_string(traced.sanitizer.findings.front().block.y) +
                     ", where the sanitizer found something");
    traced = traceAt(traced.sanitizer.findings.front().block);
  }
  traced.kernel = config;
  traced.device = cpuModelName();
  report(1.0, "done");
  return traced;
}

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace tilescope
