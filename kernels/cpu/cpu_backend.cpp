// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU backend: runs the catalogue kernels of kernels/cpu with the shared measurement
// discipline (poisoned output, warm-up, adaptive repetitions, verification).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/registry.hpp"
#include "cpu_ceilings.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"

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

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "CPU";
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
    if (isUserKernelId(info.id))
      return info.displayName +
             " is CUDA source: it runs on a CUDA GPU, this machine's or a GPU server's (Backend > "
             "GPU Server...), not on the CPU backend";
    if (std::find(info.backends.begin(), info.backends.end(), kBackendId) == info.backends.end() ||
        !registrationOf(info.id).runOnCpu)
      return info.id + " has no CPU implementation";
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

  const cpu::KernelFn kernel = registrationOf(config.id()).runOnCpu;
  const Operands operands = makeOperands(shape, request.fill, request.seed);
  Matrix c = makePoisonedMatrix(shape.m, shape.n);
  const cpu::Gemm gemm{
      operands.a.data.data(), operands.b.data.data(), c.data.data(), shape.m, shape.n, shape.k};

  auto report = [&](double fraction, const std::string& stage) {
    if (progress) progress(fraction, stage);
  };
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
    kernel(gemm, config.params(), cancel);
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

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace tilescope
