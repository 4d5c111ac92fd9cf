// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measurement discipline shared by every backend: warm-up, adaptive repetitions, robust
// statistics, and verification against a reference where NaN never passes.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tilescope/problem.hpp"

namespace tilescope {

// The most repetitions a fixed count may ask for (tilescope-bench --reps, a remote request).
inline constexpr int kMaxFixedReps = 100000;

struct SamplingPolicy {
  int warmups = 1;
  int minReps = 10;            // at least this many samples unless the time budget ends first
  int maxReps = 200;           // never more than this many
  double targetSpread = 0.02;  // stop once the relative spread (IQR / median) is below this
  double budgetMs = 2000.0;    // stop sampling once this much time has been spent timing
  // A fixed repetition count (the CLI's --reps): exactly this many samples, no early stop.
  std::optional<int> fixedReps;
};

struct Stats {
  double medianMs = 0, minMs = 0, maxMs = 0;
  double spread = 0;  // (q3 - q1) / median
  int reps = 0;
};

Stats summarize(std::vector<double> samplesMs);

// Calls `timeOnceMs` (which runs one repetition and returns its duration in ms) under the policy.
// `cancel`, when set, is checked between repetitions and throws Error(Cancelled).
Stats sample(const SamplingPolicy& policy, const std::function<double()>& timeOnceMs,
             const std::atomic<bool>* cancel = nullptr);

struct Verification {
  double relError = 0;         // ||C - ref||_F / ||ref||_F (0 when both are zero)
  double normalizedError = 0;  // ||C - ref||_F / (sqrt(K + 2) ||A||_F ||B||_F)
  double maxAbsError = 0;
  std::int64_t nonFinite = 0;  // NaN or infinite elements (unwritten outputs stay NaN)
  double tolerance = 0;        // the bound normalizedError had to meet
  bool passed = false;
};

// The float32 tolerance on normalizedError: a few float epsilons, the K scaling being in the
// normalisation itself.
inline constexpr double kFloat32Tolerance = 8.0 * 1.1920929e-7;
// The tolerance a product of `element` inputs is held to: the float32 one, but for FP8. Hopper's
// FP8 tensor cores keep about 14 bits of their running sums, not float32's 24 (DeepSeek-V3
// technical report, section 3.3.2; cuBLASLt's fast accumulation gives the same results as
// tensor-fp8): the same few epsilons of a 14-bit sum.
double verificationTolerance(ElementType element);

// The double-precision reference C = A B on upcast inputs: OpenBLAS dgemm, and a plain loop up to
// 256^3 (OpenBLAS's first call reserves 128 MiB).
std::vector<double> referenceProduct(const Matrix& a, const Matrix& b);
Verification verify(const Matrix& c, const std::vector<double>& reference, const Matrix& a,
                    const Matrix& b, double tolerance = kFloat32Tolerance);

}  // namespace tilescope
