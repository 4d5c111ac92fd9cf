// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA backend: discovers the GPUs, runs one catalogue kernel per request with the
// measurement discipline of seed 002 (events, warm-up, separate copy and kernel phases, output
// poisoned before every repetition) and verifies the result.
#include "cuda_backend.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <type_traits>

#include "counters.hpp"
#include "cublas_gemm.hpp"
#include "cublas_library.hpp"
#include "cuda_ceilings.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "host_operand.hpp"
#include "kernel_resources.hpp"
#include "launch.hpp"
#include "tilescope/device_lock.hpp"
#include "tilescope/error.hpp"
#include "tilescope/user_kernel.hpp"
#include "user_module.hpp"

namespace tilescope {

namespace {

// Up to this many multiply-adds the result is checked against the CPU double reference (about a
// second of OpenBLAS dgemm on a few cores); beyond it against cuBLAS on the GPU.
constexpr double kCpuReferenceMaxWork = double(1LL << 31);
// How many rows of a large cuBLAS result are checked against the CPU double reference (cuBLAS
// cannot be its own reference).
constexpr std::int64_t kSampledRows = 8;

std::string formatBytes(double bytes) {
  char text[32];
  if (bytes >= double(1LL << 30))
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(1LL << 30));
  else
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / double(1LL << 20));
  return text;
}

// The loaded NVIDIA kernel module's release ("580.65.06"), or "" where Linux does not say.
std::string installedDriverRelease() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string firstLine;
  std::getline(file, firstLine);
  return cuda::driverReleaseIn(firstLine);
}

int deviceAttribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  cuda::check(cudaDeviceGetAttribute(&value, attribute, device), "reading a device attribute");
  return value;
}

DeviceInfo describeDevice(int device, int driverVersion, int runtimeVersion) {
  cudaDeviceProp prop{};
  cuda::check(cudaGetDeviceProperties(&prop, device),
              "reading the properties of GPU " + std::to_string(device));
  // The cuBLAS version, or why the library kernel and the GPU reference cannot run here.
  std::string cublasVersion;
  try {
    int major = 0, minor = 0, patch = 0;
    cuda::cublas().getProperty(MAJOR_VERSION, &major);
    cuda::cublas().getProperty(MINOR_VERSION, &minor);
    cuda::cublas().getProperty(PATCH_LEVEL, &patch);
    cublasVersion =
        std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  } catch (const Error& error) {
    cublasVersion = error.what();
  }
  const auto mhz = [&](cudaDeviceAttr attribute) {
    return std::to_string(deviceAttribute(attribute, device) / 1000) + " MHz";
  };
  DeviceInfo info;
  info.index = device;
  info.name = prop.name;
  info.facts = {
      {"compute capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"SMs", std::to_string(prop.multiProcessorCount)},
      {"memory", formatBytes(double(prop.totalGlobalMem))},
      {"SM clock (peak)", mhz(cudaDevAttrClockRate)},
      {"memory clock (peak)", mhz(cudaDevAttrMemoryClockRate)},
      {"memory bus", std::to_string(prop.memoryBusWidth) + "-bit"},
      {"L2 cache", formatBytes(double(prop.l2CacheSize))},
      {"registers per SM", std::to_string(prop.regsPerMultiprocessor)},
      {"shared memory per SM", std::to_string(prop.sharedMemPerMultiprocessor / 1024) + " KiB"},
      {"max threads per SM", std::to_string(prop.maxThreadsPerMultiProcessor)},
      {"driver supports CUDA", cuda::formatCudaVersion(driverVersion)},
      {"CUDA runtime", cuda::formatCudaVersion(runtimeVersion)},
      {"cuBLAS", cublasVersion},
  };
  return info;
}

Matrix copyRows(const Matrix& source, const std::vector<std::int64_t>& rows) {
  Matrix picked{std::int64_t(rows.size()), source.cols, {}};
  picked.data.reserve(std::size_t(picked.rows * picked.cols));
  for (const std::int64_t row : rows)
    picked.data.insert(picked.data.end(), source.data.begin() + row * source.cols,
                       source.data.begin() + (row + 1) * source.cols);
  return picked;
}

// cuBLAS checked on evenly spread rows: the double reference of a few rows is cheap at any size.
Verification verifySampledRows(const Matrix& c, const Operands& operands, ElementType element) {
  const std::int64_t count = std::min(kSampledRows, c.rows);
  std::vector<std::int64_t> rows;
  for (std::int64_t s = 0; s < count; ++s)
    rows.push_back(count == 1 ? 0 : s * (c.rows - 1) / (count - 1));
  const Matrix aRows = copyRows(operands.a, rows);
  return verify(copyRows(c, rows), referenceProduct(aRows, operands.b), aRows, operands.b,
                verificationTolerance(element));
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    try {
      discoverDevices();
    } catch (const Error& error) {
      unavailable_ = error.what();
      devices_.clear();
    }
  }

  std::string id() const override { return "cuda"; }

  std::optional<std::string> unavailableReason() const override {
    return lost_ ? lost_ : unavailable_;
  }

  std::vector<DeviceInfo> devices() const override { return devices_; }

 protected:
  std::optional<std::string> capabilityRefusal(const KernelConfig& kernel, const Shape&,
                                               ElementType) const override {
    if (auto why = unavailableReason()) return why;
    if (auto why = tilescope::refusal(kernel)) return why;
    const KernelInfo& info = kernelInfo(kernel);
    if (isUserKernelId(info.id)) return userKernelCompilerUnavailable();
    if (std::find(info.backends.begin(), info.backends.end(), id()) == info.backends.end())
      return "'" + info.id + "' is not implemented by the CUDA backend";
    return architectureRefusal(info, 0);
  }

  // What the GPU lacks for a kernel (KernelInfo::cudaArchitecture): pipelined needs sm_80
  // (cp.async), tensor-mma too (mma.sync on fp16, bf16 and tf32, cp.async), the wgmma kernels
  // exactly sm_90 (they are compiled for sm_90a alone).
  std::optional<std::string> architectureRefusal(const KernelInfo& info, int device) const {
    if (device < 0 || device >= int(capabilities_.size())) return std::nullopt;
    const int capability = capabilities_[std::size_t(device)];
    const std::string gpu = devices_[std::size_t(device)].name + " (compute capability " +
                            std::to_string(capability / 10) + "." +
                            std::to_string(capability % 10) + ")";
    const KernelInfo::CudaArchitecture& needed = info.cudaArchitecture;
    if (needed.only && capability != needed.minimum)
      return "'" + info.id + "' uses " + needed.needs + ", which only sm_" +
             std::to_string(needed.minimum) + " GPUs have; " + gpu + " is not one: use tensor-mma";
    if (capability < needed.minimum)
      return "'" + info.id + "' needs compute capability " + std::to_string(needed.minimum / 10) +
             "." + std::to_string(needed.minimum % 10) + " or newer; " + gpu + " is older";
    return std::nullopt;
  }

 public:
  RunResult run(const RunRequest& request, const ProgressFn& progress,
                const std::atomic<bool>* cancel) override {
    requireUsable();
    validateShape(request.shape);
    const ResolvedKernel config = resolve(request.kernel);
    if (auto why = refusal(request)) throw Error(ErrorKind::Unsupported, *why);
    requireDevice(request.device);
    if (auto why = architectureRefusal(config.info(), request.device))
      throw Error(ErrorKind::Unsupported, *why);
    makeContext(request.device, progress, cancel);
    return rememberingFaults([&] { return runOnDevice(request, config, progress, cancel); });
  }

  DeviceCeilings measureCeilings(int device, const ProgressFn& progress,
                                 const std::atomic<bool>* cancel) override {
    requireUsable();
    requireDevice(device);
    makeContext(device, progress, cancel);
    return rememberingFaults([&] {
      TS_CUDA_CHECK(cudaSetDevice(device));
      const DeviceLock lock = lockDevice(device, progress, cancel);
      return cuda::measureCeilings(devices_[std::size_t(device)].name, cublasFor(device), progress,
                                   cancel);
    });
  }

  // One launch, which cannot be stopped once started: `cancel` stops the compile before it.
  KernelTrace trace(const TraceRequest& request, const ProgressFn& progress,
                    const std::atomic<bool>* cancel) override {
    requireUsable();
    validateShape(request.shape);
    if (auto why = traceRefusal(request)) throw Error(ErrorKind::Unsupported, *why);
    requireDevice(request.device);
    makeContext(request.device, progress, nullptr);
    const KernelConfig config = resolve(request.kernel);
    return rememberingFaults([&] {
      const auto report = [&](double fraction, const std::string& stage) {
        if (progress) progress(fraction, stage);
      };
      const Shape& shape = request.shape;
      TS_CUDA_CHECK(cudaSetDevice(request.device));
      ensureFits(shape, request.element, false);
      report(0.0, "compiling " + userKernelName(config.kernel) + " with its accessors recording");
      const cuda::UserModule& module =
          userModule(config, request.device, request.element, cancel, /*traced=*/true);
      const cuda::UserLaunch launch = module.launchFor(shape);
      const Operands operands = makeOperands(shape, Fill::Random, 42, request.element);
      const cuda::HostOperand hostA(operands.a, request.element, Operand::A),
          hostB(operands.b, request.element, Operand::B);
      const DeviceLock lock = lockDevice(request.device, progress, nullptr);
      cuda::DeviceBuffer<std::byte> a(std::int64_t(hostA.bytes())), b(std::int64_t(hostB.bytes()));
      cuda::DeviceBuffer<float> c(shape.elementsC());
      TS_CUDA_CHECK(cudaMemcpy(a.get(), hostA.data(), a.bytes(), cudaMemcpyHostToDevice));
      TS_CUDA_CHECK(cudaMemcpy(b.get(), hostB.data(), b.bytes(), cudaMemcpyHostToDevice));
      report(0.5, "running the traced launch");
      // 2^24 accesses in all (128 MiB of GPU memory: loads and shared-memory words) shared by
      // the block's threads, 16384 each in a block of 1024; a thread that makes more marks the
      // trace truncated.
      const int capacity = (1 << 24) / (launch.block.x * launch.block.y);
      cuda::ProductArgs args{a.get(), b.get(), c.get(), shape.m, shape.n, shape.k};
      args.element = request.element;
      KernelTrace traced = module.trace(args, launch, request.block, capacity);
      traced.kernel = config;
      traced.device = devices_[std::size_t(request.device)].name;
      report(1.0, "done");
      return traced;
    });
  }

 private:
  void requireUsable() const {
    if (lost_)
      throw Error(ErrorKind::DeviceLost,
                  "the CUDA backend stopped after an earlier GPU fault: " + *lost_);
    if (unavailable_) throw Error(ErrorKind::Unavailable, *unavailable_);
  }

  // Waits for the machine-wide lock of `device` (DeviceLock), saying so in the progress.
  DeviceLock lockDevice(int device, const ProgressFn& progress, const std::atomic<bool>* cancel) {
    return DeviceLock(
        lockKeys_[std::size_t(device)],
        [&](int ahead) {
          if (progress)
            progress(0.0, "waiting for the GPU: " + std::to_string(ahead) +
                              (ahead == 1 ? " run" : " runs") + " ahead");
        },
        cancel);
  }

  // Creates this process's context on `device` once, under the GPU's lock: making one works the
  // GPU (20 processes starting at once slowed another's timed naive kernel by 12 %).
  void makeContext(int device, const ProgressFn& progress, const std::atomic<bool>* cancel) {
    if (contextMade_[std::size_t(device)]) return;
    const DeviceLock lock = lockDevice(device, progress, cancel);
    TS_CUDA_CHECK(cudaSetDevice(device));
    TS_CUDA_CHECK(cudaFree(nullptr));
    contextMade_[std::size_t(device)] = true;
  }

  void requireDevice(int device) const {
    if (device < 0 || device >= int(devices_.size()))
      throw Error(ErrorKind::InvalidArgument, "no CUDA device " + std::to_string(device) +
                                                  " (there are " + std::to_string(devices_.size()) +
                                                  ")");
  }

  // Runs `work` on the GPU; a sticky fault it meets marks the backend lost for good.
  template <typename Work>
  std::invoke_result_t<Work> rememberingFaults(Work&& work) {
    try {
      return work();
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::DeviceLost) lost_ = error.what();
      throw;
    }
  }

  void discoverDevices() {
    int count = 0;
    // With no driver, or one older than the runtime, this fails (error 35) and leaves `count`
    // unwritten; cudaDriverGetVersion then still says which CUDA the driver supports (0: none).
    const cudaError_t found = cudaGetDeviceCount(&count);
    if (found == cudaErrorInsufficientDriver) {
      int driverVersion = 0;
      cudaDriverGetVersion(&driverVersion);
      cudaGetLastError();
      throw Error(ErrorKind::Unavailable,
                  cuda::insufficientDriverMessage(driverVersion, installedDriverRelease(),
                                                  CUDART_VERSION, TILESCOPE_CUDA_MINIMUM_DRIVER));
    }
    cuda::check(found, "looking for CUDA GPUs (cudaGetDeviceCount)");
    if (count == 0) {
      unavailable_ = "the CUDA driver reports no GPU";
      return;
    }
    int driverVersion = 0, runtimeVersion = 0;
    TS_CUDA_CHECK(cudaDriverGetVersion(&driverVersion));
    TS_CUDA_CHECK(cudaRuntimeGetVersion(&runtimeVersion));
    for (int device = 0; device < count; ++device) {
      devices_.push_back(describeDevice(device, driverVersion, runtimeVersion));
      // Its PCI address names the GPU alike in every process, whatever CUDA_VISIBLE_DEVICES says.
      char bus[32] = {};
      TS_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
      std::string key = std::string("gpu-") + bus;
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return c == ':' ? '-' : char(std::tolower(c)); });
      lockKeys_.push_back(key);
      contextMade_.push_back(false);
      capabilities_.push_back(10 * deviceAttribute(cudaDevAttrComputeCapabilityMajor, device) +
                              deviceAttribute(cudaDevAttrComputeCapabilityMinor, device));
    }
  }

  // Refuses, before anything is allocated, a problem that would not fit in free GPU memory.
  static void ensureFits(const Shape& shape, ElementType element, bool withReference) {
    std::size_t freeBytes = 0, totalBytes = 0;
    TS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const std::int64_t needed =
        problemBytes(shape, element) + (withReference ? 4 * shape.elementsC() : 0);
    if (needed > std::int64_t(freeBytes))
      throw Error(ErrorKind::OutOfMemory, "the problem needs " + formatBytes(double(needed)) +
                                              " (" + std::to_string(needed) + " bytes: A, B, C" +
                                              (withReference ? " and the cuBLAS reference C" : "") +
                                              ") of GPU memory, but only " +
                                              formatBytes(double(freeBytes)) + " of " +
                                              formatBytes(double(totalBytes)) + " are free");
  }

  cuda::CublasGemm& cublasFor(int device) {
    auto& gemm = cublas_[device];
    if (!gemm) gemm = std::make_unique<cuda::CublasGemm>();
    return *gemm;
  }

  RunResult runOnDevice(const RunRequest& request, const ResolvedKernel& config,
                        const ProgressFn& progress, const std::atomic<bool>* cancel) {
    const auto report = [&](double fraction, const std::string& stage) {
      if (progress) progress(fraction, stage);
    };
    const Shape& shape = request.shape;
    // The closed library reference runs through cuBLAS; user kernels through their module.
    const bool isUser = isUserKernelId(config.id());
    const bool isLibrary = !isUser && !config.info().hasMapping;
    const bool cpuReference = request.verify && shape.flops() / 2 <= kCpuReferenceMaxWork;
    // FP8's library has no e5m2 x e5m2 product: FP8 runs check sampled rows on the CPU instead.
    const bool gpuReference =
        request.verify && !cpuReference && !isLibrary && !isFp8(request.element);

    TS_CUDA_CHECK(cudaSetDevice(request.device));
    ensureFits(shape, request.element, gpuReference);
    report(0.0, "preparing operands");
    const Operands operands = makeOperands(shape, request.fill, request.seed, request.element);
    const cuda::HostOperand hostA(operands.a, request.element, Operand::A),
        hostB(operands.b, request.element, Operand::B);
    cuda::CublasGemm* gemm = isLibrary || gpuReference ? &cublasFor(request.device) : nullptr;
    const cuda::UserModule* user = nullptr;
    cuda::UserLaunch userLaunch;
    if (isUser) {
      report(0.03, "compiling " + userKernelName(config.id()) + " with NVRTC");
      user = &userModule(config, request.device, request.element, cancel);
      userLaunch = user->launchFor(shape);
    }

    // From here on the GPU is this run's alone, verification included: another process's work
    // would slow down the kernels timed here, as this run's would slow down theirs.
    const DeviceLock lock = lockDevice(request.device, progress, cancel);
    cuda::DeviceBuffer<std::byte> a(std::int64_t(hostA.bytes())), b(std::int64_t(hostB.bytes()));
    cuda::DeviceBuffer<float> c(shape.elementsC());
    cuda::Event start, stop;
    Phases phases;
    report(0.05, "copying A and B to the GPU");
    start.record();
    TS_CUDA_CHECK(cudaMemcpy(a.get(), hostA.data(), a.bytes(), cudaMemcpyHostToDevice));
    TS_CUDA_CHECK(cudaMemcpy(b.get(), hostB.data(), b.bytes(), cudaMemcpyHostToDevice));
    stop.record();
    stop.synchronize();
    phases.h2dMs = stop.since(start);

    cuda::ProductArgs args{a.get(), b.get(), c.get(), shape.m, shape.n, shape.k};
    args.element = request.element;
    const auto launch = [&] {
      if (isLibrary)
        gemm->multiply(args);
      else if (user)
        user->launch(args, userLaunch);
      else
        cuda::launchMapped(config, args);
    };
    // 0xFF bytes are a NaN in float32: an element the kernel does not write cannot pass.
    const auto poisonC = [&] { TS_CUDA_CHECK(cudaMemsetAsync(c.get(), 0xFF, c.bytes())); };

    const SamplingPolicy& policy = request.sampling;
    const int expectedRuns =
        std::max(1, policy.warmups + policy.fixedReps.value_or(policy.minReps));
    int runs = 0;
    const auto timeOnce = [&] {
      poisonC();
      start.record();
      launch();
      stop.record();
      stop.synchronize();
      ++runs;
      report(0.1 + 0.7 * std::min(1.0, double(runs) / expectedRuns),
             runs <= policy.warmups ? "warm-up"
                                    : "timing repetition " + std::to_string(runs - policy.warmups));
      return double(stop.since(start));
    };
    const Stats stats = sample(policy, timeOnce, cancel);

    // Seed 002's pitfall: a host clock read right after the launch returns measures only the
    // launch, because the kernel runs asynchronously.
    poisonC();
    TS_CUDA_CHECK(cudaDeviceSynchronize());
    const auto hostStart = std::chrono::steady_clock::now();
    launch();
    const auto hostStop = std::chrono::steady_clock::now();
    TS_CUDA_CHECK(cudaDeviceSynchronize());
    const double unsyncedHostMs =
        std::chrono::duration<double, std::milli>(hostStop - hostStart).count();

    report(0.85, "copying C back");
    Matrix result = makePoisonedMatrix(shape.m, shape.n);
    start.record();
    TS_CUDA_CHECK(cudaMemcpy(result.data.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost));
    stop.record();
    stop.synchronize();
    phases.d2hMs = stop.since(start);
    phases.kernelMs = stats.medianMs;

    RunResult out;
    if (request.collectCounters) {
      // After the timed repetitions, so the profiler's replays never touch a timing.
      report(0.87, "counting: the profiler replays the kernel");
      poisonC();
      cuda::CounterCollection counted =
          cuda::collectCounters(launch, request.element != ElementType::F32);
      out.counters = std::move(counted.counters);
      out.countersUnavailable = std::move(counted.unavailable);
    }
    if (request.verify) {
      report(0.9, "verifying");
      if (cpuReference)
        out.verification = verify(result, referenceProduct(operands.a, operands.b), operands.a,
                                  operands.b, verificationTolerance(request.element));
      else if (gpuReference)
        out.verification = verifyAgainstCublas(*gemm, args, result, operands);
      else
        out.verification = verifySampledRows(result, operands, request.element);
    }
    out.backend = id();
    out.device = devices_[std::size_t(request.device)].name;
    out.kernel = config;
    out.shape = shape;
    out.element = request.element;
    out.stats = stats;
    out.gflops = stats.medianMs > 0 ? shape.flops() / (stats.medianMs * 1e6) : 0.0;
    out.phases = phases;
    out.unsyncedHostMs = unsyncedHostMs;
    if (user)
      out.resources = user->resources(userLaunch);
    else if (!isLibrary)
      out.resources = cuda::resourcesOf(cuda::plannedLaunch(config, args));
    report(1.0, "done");
    return out;
  }

  // A user kernel compiled for `device` and loaded there, once per source and parameters. Throws
  // Error(InvalidArgument) with the compiler's first error when the source does not compile.
  // `traced`: compiled with the accessors recording (CompileOptions::trace). Throws
  // Error(Cancelled) where `cancel` stopped the compile.
  const cuda::UserModule& userModule(const KernelConfig& config, int device, ElementType element,
                                     const std::atomic<bool>* cancel, bool traced = false) {
    const int capability = capabilities_[std::size_t(device)];
    const std::string arch = userKernelArchitecture(capability);
    const std::string key = std::to_string(device) + (traced ? " traced " : " ") +
                            toString(element) + "\n" + formatParams(config) + "\n" + config.kernel +
                            "\n" + config.source.value_or("");
    auto found = userModules_.find(key);
    if (found != userModules_.end()) return *found->second;
    const std::string name = userKernelName(config.kernel);
    const CompileResult compiled = compileUserKernel(
        {name, config.source.value_or("")}, {arch, config.params, element, traced}, cancel);
    if (!compiled.ok && cancel && cancel->load())
      throw Error(ErrorKind::Cancelled, "cancelled by the user");
    if (!compiled.ok) {
      std::string why = name + ".cu did not compile for " + arch;
      const auto error = std::find_if(compiled.diagnostics.begin(), compiled.diagnostics.end(),
                                      [](const CompileDiagnostic& d) { return d.error; });
      if (error != compiled.diagnostics.end())
        why += (error->line > 0 ? ", line " + std::to_string(error->line) : std::string()) + ": " +
               error->message;
      throw Error(ErrorKind::InvalidArgument, why);
    }
    // Each variant is a loaded module: past kUserModulesKept (a long autotuning session) the
    // cache starts over.
    if (userModules_.size() >= kUserModulesKept) userModules_.clear();
    return *userModules_.emplace(key, std::make_unique<cuda::UserModule>(compiled)).first->second;
  }

  // The kernel's result against cuBLAS's on the same device operands.
  static Verification verifyAgainstCublas(cuda::CublasGemm& gemm, const cuda::ProductArgs& args,
                                          const Matrix& result, const Operands& operands) {
    cuda::DeviceBuffer<float> reference(args.m * args.n);
    TS_CUDA_CHECK(cudaMemsetAsync(reference.get(), 0xFF, reference.bytes()));
    cuda::ProductArgs referenceArgs = args;
    referenceArgs.c = reference.get();
    gemm.multiply(referenceArgs);
    Matrix referenceHost = makePoisonedMatrix(args.m, args.n);
    TS_CUDA_CHECK(cudaMemcpy(referenceHost.data.data(), reference.get(), reference.bytes(),
                             cudaMemcpyDeviceToHost));
    const std::vector<double> reference64(referenceHost.data.begin(), referenceHost.data.end());
    return verify(result, reference64, operands.a, operands.b);
  }

  std::optional<std::string> unavailable_;
  // Set by the first sticky fault; the CUDA context stays broken until the process ends.
  std::optional<std::string> lost_;
  std::vector<DeviceInfo> devices_;
  std::vector<std::string> lockKeys_;  // per device, its DeviceLock's key
  std::vector<bool> contextMade_;      // per device
  std::vector<int> capabilities_;      // 10 * major + minor, per device
  // Created on first use, on the thread that runs (the worker owns all CUDA state).
  std::map<int, std::unique_ptr<cuda::CublasGemm>> cublas_;
  // User kernels loaded, by device, parameters, name and source (userModule()).
  static constexpr std::size_t kUserModulesKept = 64;
  std::map<std::string, std::unique_ptr<cuda::UserModule>> userModules_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackendImpl() {
  return std::make_unique<CudaBackend>();
}

}  // namespace tilescope
