// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A backend runs catalogue kernels on its devices. CpuBackend and CudaBackend implement it; the
// CLI and the app only see this interface.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/ceilings.hpp"
#include "tilescope/measurement.hpp"
#include "tilescope/problem.hpp"

namespace tilescope {

struct DeviceInfo {
  int index = 0;
  std::string name;
  // Ordered facts for display and sessions: "compute capability" -> "9.0", "SMs" -> "132", ...
  std::vector<std::pair<std::string, std::string>> facts;
};

struct RunRequest {
  KernelConfig kernel;
  Shape shape;
  ElementType element = ElementType::F32;
  int device = 0;
  Fill fill = Fill::Random;
  std::uint64_t seed = 42;
  SamplingPolicy sampling;
  bool verify = true;
  // Lifts the kernel's work bound (KernelInfo::maxWork). Such a run cannot be cancelled once
  // launched, so only a user who asked for it gets it (tilescope-bench --allow-long-runs).
  bool allowLongRuns = false;
  // Replays the kernel once more under the profiler for its hardware counters (RunResult::
  // counters); the timed repetitions stay clean runs (tilescope-bench --counters).
  bool collectCounters = false;
};

// Time of each phase of one repetition, where the backend has phases (CUDA: copies and kernel).
struct Phases {
  double h2dMs = 0, kernelMs = 0, d2hMs = 0;
};

// What one compiled kernel variant takes from an SM, and how many of its blocks fit on one at
// once: cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor (CUDA backend).
struct KernelResources {
  int registersPerThread = 0;
  std::int64_t sharedBytesPerBlock = 0;  // static and dynamic shared memory
  std::int64_t localBytesPerThread = 0;  // local memory: register spills and stack arrays
  int threadsPerBlock = 0;
  int blocksPerSM = 0;   // the most resident at once (registers, shared memory, threads)
  double occupancy = 0;  // resident warps over the SM's maximum, in [0, 1]
  bool operator==(const KernelResources&) const = default;
};

// What the hardware counted in one replay of the kernel (CUDA backend, CUPTI), beside what the
// traffic model predicts. Totals are over the whole launch; a per-request figure is its sectors
// (or wavefronts) over its requests, so 1 sector per request is a fully coalesced 4-byte warp
// access and 1 shared wavefront per request is a conflict-free one.
struct HardwareCounters {
  double dramReadBytes = 0, dramWriteBytes = 0;
  double l2SectorsFromL1 = 0;  // 32-byte sectors L1 asked of L2 (reads and writes)
  double globalLoadRequests = 0, globalLoadSectors = 0;
  double globalStoreRequests = 0, globalStoreSectors = 0;
  double sharedLoadRequests = 0, sharedLoadWavefronts = 0;
  double sharedStoreRequests = 0, sharedStoreWavefronts = 0;
  double sharedBankConflicts = 0;               // extra wavefronts the banks cost, loads and stores
  double achievedOccupancy = 0;                 // active warps over the SM's maximum, in [0, 1]
  std::optional<double> tensorPipeUtilisation;  // in [0, 1], for the tensor-core kernels
  std::string source;  // how they were collected, e.g. "CUPTI range profiler, CUDA 13.0"
  bool operator==(const HardwareCounters&) const = default;
};

struct RunResult {
  std::string backend, device;
  KernelConfig kernel;  // resolved: every parameter present
  Shape shape;
  ElementType element = ElementType::F32;
  Stats stats;
  double gflops = 0;  // 2MNK / median
  std::optional<Verification> verification;
  std::optional<Phases> phases;
  // What a host clock reads around the launch without synchronising (seed 002's pitfall).
  std::optional<double> unsyncedHostMs;
  // The launched kernel's registers, memory and theoretical occupancy, where the backend knows.
  std::optional<KernelResources> resources;
  // Counters of a run that asked for them (RunRequest::collectCounters); when the backend could
  // not collect them, countersUnavailable says why and the timing stays.
  std::optional<HardwareCounters> counters;
  std::optional<std::string> countersUnavailable;
  bool verified() const { return verification && verification->passed; }
};

struct KernelTrace;   // user_kernel.hpp
struct TraceRequest;  // user_kernel.hpp

// Progress of one run: fraction in [0, 1] and what is happening ("warm-up", "timing 4/10", ...).
using ProgressFn = std::function<void(double fraction, const std::string& stage)>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string id() const = 0;  // "cpu", "cuda"
  // nullopt when usable; otherwise why not (no driver, no device, not compiled in, ...).
  virtual std::optional<std::string> unavailableReason() const = 0;
  virtual std::vector<DeviceInfo> devices() const = 0;
  // Why this backend refuses a configuration on this shape and element type, or nullopt: what
  // the backend cannot do, then the kernel's work bound (workLimitRefusal).
  std::optional<std::string> refusal(const KernelConfig& kernel, const Shape& shape,
                                     ElementType element = ElementType::F32) const;
  // The same for a request, whose allowLongRuns lifts the work bound, and whose memory must fit
  // now (memoryRefusal): a plan checks every run with it before the first one starts.
  std::optional<std::string> refusal(const RunRequest& request) const;
  // Runs, times and verifies. Throws tilescope::Error; never exits, never prints.
  virtual RunResult run(const RunRequest& request, const ProgressFn& progress,
                        const std::atomic<bool>* cancel) = 0;
  // Measures the device's ceilings for the roofline (peak arithmetic rates, memory bandwidth),
  // with their datasheet figures where known. Takes a few seconds; `cancel` is honoured between
  // repetitions. Throws tilescope::Error like run().
  virtual DeviceCeilings measureCeilings(int device, const ProgressFn& progress,
                                         const std::atomic<bool>* cancel) = 0;
  // Launches a user kernel once with its accessors recording (user_kernel.hpp): who stores each
  // element of C, and what each thread of one block loads. Throws tilescope::Error like run();
  // Unsupported on a backend that cannot (tracing runs CUDA source on a CUDA GPU). `cancel`
  // stops what can be stopped (a remote server's traced launch: the server is stopped).
  virtual KernelTrace trace(const TraceRequest& request, const ProgressFn& progress,
                            const std::atomic<bool>* cancel);

 protected:
  // What this backend cannot run at all (unknown kernel, refused parameters, shape or element
  // type, no device).
  virtual std::optional<std::string> capabilityRefusal(const KernelConfig& kernel,
                                                       const Shape& shape,
                                                       ElementType element) const = 0;
  // Why the memory the request needs is not there now, or nullopt (also where unknown).
  virtual std::optional<std::string> memoryRefusal(const RunRequest&) const { return std::nullopt; }
};

std::unique_ptr<Backend> makeCpuBackend();
// Always returns a backend; without CUDA compiled in or without a usable GPU it reports why in
// unavailableReason().
std::unique_ptr<Backend> makeCudaBackend();
std::unique_ptr<Backend> makeBackend(const std::string& id);  // throws on an unknown id
std::vector<std::string> backendIds();

}  // namespace tilescope
