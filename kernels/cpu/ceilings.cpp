// SPDX-License-Identifier: GPL-3.0-or-later
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include "cpu_ceilings.hpp"
#include "tilescope/error.hpp"

namespace tilescope::cpu {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Times `once` under the plan's sampling, reporting progress inside [from, to) of the whole.
Stats timed(const CeilingPlan& plan, const std::string& what, double from, double to,
            const ProgressFn& progress, const std::atomic<bool>* cancel,
            const std::function<void()>& once) {
  const SamplingPolicy& policy = plan.sampling;
  int calls = 0;
  return sample(
      policy,
      [&] {
        const int rep = calls++ - policy.warmups;
        if (progress) {
          const double done = double(std::max(rep, 0)) / std::max(policy.minReps, 1);
          progress(from + (to - from) * std::min(done, 1.0),
                   what + (rep < 0 ? ": warm-up" : ": timing " + std::to_string(rep + 1)));
        }
        const auto start = Clock::now();
        once();
        return millisecondsSince(start);
      },
      cancel);
}

std::string medianOf(const Stats& stats) {
  return "median of " + std::to_string(stats.reps);
}

Ceiling measureSgemm(const CeilingPlan& plan, const ProgressFn& progress,
                     const std::atomic<bool>* cancel) {
  const std::int64_t n = plan.gemmSize;
  const Shape shape{n, n, n};
  validateShape(shape);
  const Operands operands = makeOperands(shape, Fill::Random, 42);
  Matrix c = makePoisonedMatrix(n, n);
  const int size = int(n);  // validateShape() bounds it by kMaxDimension
  const Stats stats = timed(plan, "FP32 (OpenBLAS sgemm)", 0.0, 0.5, progress, cancel, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, size, size, size, 1.0f,
                operands.a.data.data(), size, operands.b.data.data(), size, 0.0f, c.data.data(),
                size);
  });
  const std::string sizeText = std::to_string(n);
  return {kFp32Ceiling, kComputeUnit, shape.flops() / (stats.medianMs * 1e6), std::nullopt,
          "OpenBLAS sgemm " + sizeText + "x" + sizeText + "x" + sizeText + " on " +
              std::to_string(openblas_get_num_threads()) + " threads, " + medianOf(stats)};
}

// Copies `bytes` from `from` to `to`, a contiguous slice per hardware thread: one core alone
// cannot draw the whole bandwidth of the memory system.
void parallelCopy(char* to, const char* from, std::int64_t bytes, int threads) {
  const std::int64_t slice = (bytes + threads - 1) / threads;
  std::vector<std::thread> helpers;
  std::int64_t offset = slice;  // the calling thread copies the first slice
  for (int t = 1; t < threads && offset < bytes; ++t, offset += slice) {
    const std::int64_t count = std::min(slice, bytes - offset);
    try {
      helpers.emplace_back([=] { std::memcpy(to + offset, from + offset, std::size_t(count)); });
    } catch (const std::system_error&) {
      std::memcpy(to + offset, from + offset, std::size_t(count));  // no thread: copy it here
    }
  }
  std::memcpy(to, from, std::size_t(std::min(slice, bytes)));
  for (std::thread& helper : helpers) helper.join();
}

Ceiling measureCopy(const CeilingPlan& plan, const ProgressFn& progress,
                    const std::atomic<bool>* cancel) {
  const std::int64_t bytes = plan.copyBytes;
  if (bytes <= 0) throw Error(ErrorKind::InvalidArgument, "the copy size must be positive");
  std::vector<char> source, destination;
  try {
    // Both written before timing (nonzero bytes), so no page is first touched inside a copy.
    source.assign(std::size_t(bytes), char(0x5a));
    destination.assign(std::size_t(bytes), char(0x33));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::OutOfMemory, "not enough host memory for two buffers of " +
                                            std::to_string(bytes >> 20) +
                                            " MiB (the bandwidth measurement)");
  }
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  const Stats stats = timed(plan, "memory bandwidth (copy)", 0.5, 1.0, progress, cancel, [&] {
    parallelCopy(destination.data(), source.data(), bytes, threads);
  });
  // Every byte is read once and written once.
  return {kBandwidthCeiling, kBandwidthUnit, 2.0 * double(bytes) / (stats.medianMs * 1e6),
          std::nullopt,
          "memcpy of " + std::to_string(bytes >> 20) + " MiB over " + std::to_string(threads) +
              " threads, bytes read + written, " + medianOf(stats)};
}

}  // namespace

DeviceCeilings measureCeilings(const std::string& device, const CeilingPlan& plan,
                               const ProgressFn& progress, const std::atomic<bool>* cancel) {
  DeviceCeilings ceilings;
  ceilings.backend = "cpu";
  ceilings.device = device;
  ceilings.compute.push_back(measureSgemm(plan, progress, cancel));
  ceilings.bandwidth = measureCopy(plan, progress, cancel);
  attachDatasheet(ceilings);
  if (progress) progress(1.0, "done");
  return ceilings;
}

}  // namespace tilescope::cpu
