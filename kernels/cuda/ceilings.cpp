// SPDX-License-Identifier: GPL-3.0-or-later
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <vector>

#include "cuda_ceilings.hpp"
#include "device_memory.hpp"
#include "host_operand.hpp"
#include "tilescope/error.hpp"

namespace tilescope::cuda {

namespace {

// 8192^3 keeps every SM busy for tens of milliseconds: cuBLAS runs at its peak, and the launch
// overhead is lost in the noise.
constexpr std::int64_t kGemmSize = 8192;
// Far beyond the L2 cache (50-60 MB on Hopper), so the copy streams from and to HBM.
constexpr std::int64_t kCopyBytes = std::int64_t(1) << 30;

// How a ceiling is timed so that two measurements agree (issue 13: two medians of ten launches
// gave 422.6 and 370 TFLOP/s for TF32). Each launch is timed alone, as tilescope-bench times the
// kernels placed under the ceiling; a warm-up lets the clocks rise, then several rounds of
// launches follow, and the ceiling is the fastest launch: the rate at full clocks. Back-to-back
// launches would measure the power limit instead (a fifth lower on an H200, rounds 7 % apart).
constexpr double kWarmUpMs = 300;
constexpr double kRoundMs = 300;
constexpr int kRounds = 5;

void requireFree(std::int64_t bytes, const std::string& what) {
  std::size_t freeBytes = 0, totalBytes = 0;
  TS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  if (bytes > std::int64_t(freeBytes))
    throw Error(ErrorKind::OutOfMemory, what + " needs " + std::to_string(bytes >> 20) +
                                            " MiB of GPU memory, but only " +
                                            std::to_string(freeBytes >> 20) + " MiB are free");
}

struct Rounds {
  double bestMs = 0;    // the fastest launch
  double medianMs = 0;  // the median launch of the rounds
  int launches = 0;     // timed, warm-up excluded
};

// Milliseconds one launch takes, by events around it.
double timeOne(const std::function<void()>& launch) {
  Event start, stop;
  start.record();
  launch();
  stop.record();
  stop.synchronize();
  return double(stop.since(start));
}

// Times `launch` as kWarmUpMs..kRounds above say, reporting progress inside [from, to).
Rounds timed(const std::string& what, double from, double to, const ProgressFn& progress,
             const std::atomic<bool>* cancel, const std::function<void()>& launch) {
  const auto report = [&](double done, const std::string& stage) {
    if (progress) progress(from + (to - from) * done, what + ": " + stage);
  };
  const auto checkCancel = [&] {
    if (cancel && cancel->load()) throw Error(ErrorKind::Cancelled, "cancelled");
  };
  report(0, "warm-up");
  // The first launch also picks cuBLAS's kernel.
  for (double spentMs = 0; spentMs < kWarmUpMs;) {
    checkCancel();
    spentMs += timeOne(launch);
  }
  std::vector<double> times;
  for (int round = 0; round < kRounds; ++round) {
    report((round + 1.0) / (kRounds + 1), "round " + std::to_string(round + 1));
    for (double spentMs = 0; spentMs < kRoundMs;) {
      checkCancel();
      times.push_back(timeOne(launch));
      spentMs += times.back();
    }
  }
  std::sort(times.begin(), times.end());
  return {times.front(), times[times.size() / 2], int(times.size())};
}

// How the figure was taken, for the method line.
std::string describe(const Rounds& rounds) {
  char slower[32];
  std::snprintf(slower, sizeof slower, "%.1f", 100.0 * (rounds.medianMs / rounds.bestMs - 1));
  return "fastest of " + std::to_string(rounds.launches) + " launches, each timed alone, in " +
         std::to_string(kRounds) + " rounds of " + std::to_string(int(kRoundMs)) + " ms after a " +
         std::to_string(int(kWarmUpMs)) + " ms warm-up (the median " + slower + " % slower)";
}

// Each input type cuBLAS multiplies, with FP32 accumulation for the tensor-core types.
struct ComputeKind {
  ElementType element;
  const char* library;  // what the method line says ran
};
constexpr ComputeKind kComputeKinds[] = {
    {ElementType::F32, "cuBLAS SGEMM"},
    {ElementType::TF32, "cuBLAS GemmEx, tf32 inputs, FP32 accumulation"},
    {ElementType::F16, "cuBLAS GemmEx, fp16 inputs, FP32 accumulation"},
    {ElementType::BF16, "cuBLAS GemmEx, bf16 inputs, FP32 accumulation"},
    {ElementType::E4M3, "cuBLASLt matmul, e4m3 inputs, FP32 accumulation"},
};
// The share of the progress bar the arithmetic takes; the copy takes the rest.
constexpr double kComputeProgress = 0.75;

std::vector<Ceiling> measureCompute(CublasGemm& gemm, const ProgressFn& progress,
                                    const std::atomic<bool>* cancel) {
  const Shape shape{kGemmSize, kGemmSize, kGemmSize};
  // Float A, B and C, and packed copies of A and B for fp16, bf16 and FP8 (2 bytes at most).
  requireFree(problemBytes(shape, ElementType::F32) + 2 * (shape.elementsA() + shape.elementsB()),
              "the arithmetic measurements (cuBLAS at 8192^3)");
  // Random operands (never zeros: they draw less power and run faster). One matrix serves as
  // both A and B; the rate does not depend on which values are multiplied.
  const Matrix operand = makeMatrix(kGemmSize, kGemmSize, Fill::Random, 42);
  DeviceBuffer<float> a32(shape.elementsA()), b32(shape.elementsB()), c(shape.elementsC());
  DeviceBuffer<std::uint16_t> aPacked(shape.elementsA()), bPacked(shape.elementsB());
  TS_CUDA_CHECK(cudaMemcpy(a32.get(), operand.data.data(), a32.bytes(), cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(b32.get(), operand.data.data(), b32.bytes(), cudaMemcpyHostToDevice));

  std::vector<Ceiling> ceilings;
  const double step = kComputeProgress / double(std::size(kComputeKinds));
  double from = 0;
  for (const ComputeKind& kind : kComputeKinds) {
    ProductArgs args;
    args.c = c.get();
    args.m = shape.m;
    args.n = shape.n;
    args.k = shape.k;
    args.element = kind.element;
    if (storageBytes(kind.element) < 4) {
      const HostOperand a(operand, kind.element, Operand::A), b(operand, kind.element, Operand::B);
      TS_CUDA_CHECK(cudaMemcpy(aPacked.get(), a.data(), a.bytes(), cudaMemcpyHostToDevice));
      TS_CUDA_CHECK(cudaMemcpy(bPacked.get(), b.data(), b.bytes(), cudaMemcpyHostToDevice));
      args.a = aPacked.get();
      args.b = bPacked.get();
    } else {
      args.a = a32.get();
      args.b = b32.get();
    }
    const char* name = computeCeilingFor(kind.element);
    try {
      const Rounds rounds = timed(std::string(name) + " (" + kind.library + ")", from, from + step,
                                  progress, cancel, [&] { gemm.multiply(args); });
      ceilings.push_back({name, kComputeUnit, shape.flops() / (rounds.bestMs * 1e6), std::nullopt,
                          std::string(kind.library) + " 8192x8192x8192, " + describe(rounds)});
    } catch (const Error& error) {
      // A GPU whose tensor cores lack this type (bf16 and tf32 before sm_80, FP8 before sm_89) has
      // no such ceiling; the others stand.
      if (error.kind() != ErrorKind::Unsupported || kind.element == ElementType::F32) throw;
    }
    from += step;
  }
  return ceilings;
}

Ceiling measureCopy(const ProgressFn& progress, const std::atomic<bool>* cancel) {
  requireFree(2 * kCopyBytes, "the bandwidth measurement (a copy of 1 GiB)");
  DeviceBuffer<unsigned char> source(kCopyBytes), destination(kCopyBytes);
  TS_CUDA_CHECK(cudaMemset(source.get(), 0x5a, source.bytes()));
  TS_CUDA_CHECK(cudaMemset(destination.get(), 0x33, destination.bytes()));
  const Rounds rounds = timed(
      "memory bandwidth (device-to-device copy)", kComputeProgress, 1.0, progress, cancel, [&] {
        TS_CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), source.bytes(),
                                      cudaMemcpyDeviceToDevice));
      });
  // Every byte is read once and written once.
  return {kBandwidthCeiling, kBandwidthUnit, 2.0 * double(kCopyBytes) / (rounds.bestMs * 1e6),
          std::nullopt,
          "cudaMemcpy device to device of 1 GiB, bytes read + written, " + describe(rounds)};
}

}  // namespace

DeviceCeilings measureCeilings(const std::string& device, CublasGemm& gemm,
                               const ProgressFn& progress, const std::atomic<bool>* cancel) {
  DeviceCeilings ceilings;
  ceilings.backend = "cuda";
  ceilings.device = device;
  ceilings.compute = measureCompute(gemm, progress, cancel);
  ceilings.bandwidth = measureCopy(progress, cancel);
  attachDatasheet(ceilings);
  if (progress) progress(1.0, "done");
  return ceilings;
}

}  // namespace tilescope::cuda
