#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_ceilings.hpp"
#include "device_memory.hpp"
#include "tilescope/error.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope::cuda {

namespace {

// 8192^3 keeps every SM busy for tens of milliseconds: cuBLAS runs at its peak, and the launch
// overhead is lost in the noise.
constexpr std::int64_t kGemmSize = 8192;
// Far beyond the L2 cache (50-60 MB on Hopper), so the copy streams from and to HBM.
constexpr std::int64_t kCopyBytes = std::int64_t(1) << 30;

// Two warm-ups: the first cuBLAS call picks its kernel and the clocks ramp up.
const SamplingPolicy kSampling{
    .warmups = 2, .minReps = 10, .maxReps = 100, .budgetMs = 1500, .fixedReps = std::nullopt};

void requireFree(std::int64_t bytes, const std::string& what) {
  std::size_t freeBytes = 0, totalBytes = 0;
  TS_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  if (bytes > std::int64_t(freeBytes))
    throw Error(ErrorKind::OutOfMemory, what + " needs " + std::to_string(bytes >> 20) +
                                            " MiB of GPU memory, but only " +
                                            std::to_string(freeBytes >> 20) + " MiB are free");
}

// Times `launch` with events under kSampling, reporting progress inside [from, to).
Stats timed(const std::string& what, double from, double to, const ProgressFn& progress,
            const std::atomic<bool>* cancel, const std::function<void()>& launch) {
  Event start, stop;
  int calls = 0;
  return sample(
      kSampling,
      [&] {
        const int rep = calls++ - kSampling.warmups;
        if (progress) {
          const double done = double(std::max(rep, 0)) / kSampling.minReps;
          progress(from + (to - from) * std::min(done, 1.0),
                   what + (rep < 0 ? ": warm-up" : ": timing " + std::to_string(rep + 1)));
        }
        start.record();
        launch();
        stop.record();
        stop.synchronize();
        return double(stop.since(start));
      },
      cancel);
}

std::string medianOf(const Stats& stats) {
  return "median of " + std::to_string(stats.reps);
}

Ceiling measureSgemm(CublasGemm& gemm, const ProgressFn& progress,
                     const std::atomic<bool>* cancel) {
  const Shape shape{kGemmSize, kGemmSize, kGemmSize};
  requireFree(problemBytes(shape, ElementType::F32),
              "the FP32 measurement (cuBLAS SGEMM at 8192^3)");
  // Random operands (never zeros: they draw less power and run faster). One matrix serves as
  // both A and B; the rate does not depend on which values are multiplied.
  const Matrix operand = makeMatrix(kGemmSize, kGemmSize, Fill::Random, 42);
  DeviceBuffer<float> a(shape.elementsA()), b(shape.elementsB()), c(shape.elementsC());
  TS_CUDA_CHECK(cudaMemcpy(a.get(), operand.data.data(), a.bytes(), cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(b.get(), operand.data.data(), b.bytes(), cudaMemcpyHostToDevice));
  const ProductArgs args{a.get(), b.get(), c.get(), shape.m, shape.n, shape.k};
  const Stats stats =
      timed("FP32 (cuBLAS SGEMM)", 0.0, 0.5, progress, cancel, [&] { gemm.multiply(args); });
  return {kFp32Ceiling, kComputeUnit, shape.flops() / (stats.medianMs * 1e6), std::nullopt,
          "cuBLAS SGEMM 8192x8192x8192, " + medianOf(stats)};
}

Ceiling measureCopy(const ProgressFn& progress, const std::atomic<bool>* cancel) {
  requireFree(2 * kCopyBytes, "the bandwidth measurement (a copy of 1 GiB)");
  DeviceBuffer<unsigned char> source(kCopyBytes), destination(kCopyBytes);
  TS_CUDA_CHECK(cudaMemset(source.get(), 0x5a, source.bytes()));
  TS_CUDA_CHECK(cudaMemset(destination.get(), 0x33, destination.bytes()));
  const Stats stats =
      timed("memory bandwidth (device-to-device copy)", 0.5, 1.0, progress, cancel, [&] {
        TS_CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), source.bytes(),
                                      cudaMemcpyDeviceToDevice));
      });
  // Every byte is read once and written once.
  return {kBandwidthCeiling, kBandwidthUnit, 2.0 * double(kCopyBytes) / (stats.medianMs * 1e6),
          std::nullopt,
          "cudaMemcpy device to device of 1 GiB, bytes read + written, " + medianOf(stats)};
}

}  // namespace

DeviceCeilings measureCeilings(const std::string& device, CublasGemm& gemm,
                               const ProgressFn& progress, const std::atomic<bool>* cancel) {
  DeviceCeilings ceilings;
  ceilings.backend = "cuda";
  ceilings.device = device;
  ceilings.compute.push_back(measureSgemm(gemm, progress, cancel));
  ceilings.bandwidth = measureCopy(progress, cancel);
  attachDatasheet(ceilings);
  if (progress) progress(1.0, "done");
  return ceilings;
}

}  // namespace tilescope::cuda
