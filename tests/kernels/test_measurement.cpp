// SPDX-License-Identifier: GPL-3.0-or-later
// Measurement: statistics on known samples, the sampling policy, and verification where NaN and
// unwritten outputs never pass.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "scoped_settings.hpp"
#include "tilescope/error.hpp"
#include "tilescope/measurement.hpp"

namespace tilescope {
namespace {

TEST(Summarize, MedianMinMaxAndSpreadOfKnownSamples) {
  const Stats odd = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(odd.reps, 5);
  EXPECT_DOUBLE_EQ(odd.medianMs, 3);
  EXPECT_DOUBLE_EQ(odd.minMs, 1);
  EXPECT_DOUBLE_EQ(odd.maxMs, 5);
  EXPECT_DOUBLE_EQ(odd.spread, (4.0 - 2.0) / 3.0);  // (q3 - q1) / median

  const Stats even = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.medianMs, 2.5);
  EXPECT_DOUBLE_EQ(even.spread, (3.25 - 1.75) / 2.5);

  const Stats flat = summarize({2, 2, 2});
  EXPECT_DOUBLE_EQ(flat.medianMs, 2);
  EXPECT_DOUBLE_EQ(flat.spread, 0);

  EXPECT_EQ(summarize({}).reps, 0);
}

TEST(Sample, FixedPolicyRunsWarmupsThenExactlyThatManyReps) {
  SamplingPolicy policy;
  policy.warmups = 2;
  policy.fixedReps = 5;
  policy.targetSpread = 1e9;  // would stop at once if the fixed count were ignored
  int calls = 0;
  const Stats stats = sample(policy, [&] { return double(++calls); });
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(stats.reps, 5);
  EXPECT_DOUBLE_EQ(stats.minMs, 3);  // the two warm-ups (1 and 2) are not samples
  EXPECT_DOUBLE_EQ(stats.maxMs, 7);
}

TEST(Sample, StopsOnceTheSpreadIsSmallAfterMinReps) {
  SamplingPolicy policy;
  policy.warmups = 0;
  policy.minReps = 10;
  policy.budgetMs = 1e9;
  int calls = 0;
  const Stats stats = sample(policy, [&] {
    ++calls;
    return 1.0;
  });
  EXPECT_EQ(stats.reps, 10);
  EXPECT_EQ(calls, 10);
}

TEST(Sample, NeverExceedsMaxReps) {
  SamplingPolicy policy;
  policy.warmups = 0;
  policy.maxReps = 12;
  policy.budgetMs = 1e9;
  int calls = 0;
  const Stats stats = sample(policy, [&] { return ++calls % 2 ? 1.0 : 100.0; });  // never steady
  EXPECT_EQ(stats.reps, 12);
}

TEST(Sample, StopsWhenTheTimeBudgetIsSpent) {
  SamplingPolicy policy;
  policy.warmups = 0;
  policy.budgetMs = 0;  // spent after the first sample
  int calls = 0;
  const Stats stats = sample(policy, [&] { return ++calls % 2 ? 1.0 : 100.0; });
  EXPECT_EQ(stats.reps, 1);
  EXPECT_EQ(calls, 1);
}

TEST(Sample, ThrowsCancelledBetweenRepetitions) {
  SamplingPolicy policy;
  policy.warmups = 1;
  policy.fixedReps = 10;
  std::atomic<bool> cancel{false};
  int calls = 0;
  try {
    sample(
        policy,
        [&] {
          if (++calls == 3) cancel = true;
          return 1.0;
        },
        &cancel);
    FAIL() << "sample() did not stop";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cancelled);
  }
  EXPECT_EQ(calls, 3);
}

// OpenBLAS's first call reserves a 128 MiB buffer and, where an address-space limit leaves no room
// for it, retries forever: a grader's child verifying under its limit hung until its deadline. A
// small reference needs no such room. (Under ctest this test has its process to itself, so OpenBLAS
// has reserved nothing yet.)
TEST(ReferenceProduct, ASmallOneIsSummedWithoutRoomForOpenBlasBuffer) {
#if defined(TILESCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer's shadow memory leaves no room for an address-space limit";
#endif
  const Operands operands = makeOperands({64, 48, 40}, Fill::Integer, 3);
  std::vector<double> expected(64 * 48, 0.0);
  for (std::int64_t i = 0; i < 64; ++i)
    for (std::int64_t j = 0; j < 48; ++j)
      for (std::int64_t p = 0; p < 40; ++p)
        expected[std::size_t(i * 48 + j)] += double(operands.a.at(i, p)) * operands.b.at(p, j);
  std::vector<double> c;
  std::string failed;
  {
    const test::ScopedAddressSpaceRoom room(std::uint64_t(64) << 20);
    ASSERT_TRUE(room.lowered());
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      for (int i = 0; i < 200 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (done) return;
      std::fputs("referenceProduct did not return within 10 s under the limit\n", stderr);
      std::_Exit(1);
    });
    try {
      c = referenceProduct(operands.a, operands.b);
    } catch (const std::exception& e) {
      failed = e.what();
    }
    done = true;
    watchdog.join();
  }
  EXPECT_EQ(failed, "");
  EXPECT_EQ(c, expected);
}

// A small integer-valued problem whose float product is exact.
struct Exact {
  Operands operands = makeOperands({6, 5, 4}, Fill::Integer, 3);
  std::vector<double> reference = referenceProduct(operands.a, operands.b);
  Matrix product() const {
    Matrix c = makePoisonedMatrix(6, 5);
    for (std::size_t i = 0; i < c.data.size(); ++i) c.data[i] = float(reference[i]);
    return c;
  }
};

TEST(Verify, ReferenceIsTheDoubleProduct) {
  const Exact exact;
  const Matrix& a = exact.operands.a;
  const Matrix& b = exact.operands.b;
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < 4; ++k) sum += double(a.at(i, k)) * double(b.at(k, j));
      EXPECT_EQ(exact.reference[std::size_t(i * 5 + j)], sum);
    }
}

TEST(Verify, PassesAnExactMatch) {
  const Exact exact;
  const Verification v =
      verify(exact.product(), exact.reference, exact.operands.a, exact.operands.b);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.maxAbsError, 0);
  EXPECT_EQ(v.relError, 0);
  EXPECT_EQ(v.nonFinite, 0);
  EXPECT_EQ(v.tolerance, kFloat32Tolerance);
}

// FP8 products are held to a 14-bit sum's few epsilons (the tensor cores' FP8 accumulation),
// every other type to float32's; an FP8 result with one element off by two still fails.
TEST(Verify, Fp8KeepsItsSumsWidthAndStillCatchesAWrongElement) {
  for (const ElementType type : kElementTypes)
    EXPECT_EQ(verificationTolerance(type), isFp8(type) ? 8.0 * 0x1p-14 : kFloat32Tolerance)
        << toString(type);
  const Exact exact;
  Matrix c = exact.product();
  c.data[3] += 2.0f;
  const Verification v = verify(c, exact.reference, exact.operands.a, exact.operands.b,
                                verificationTolerance(ElementType::E4M3));
  EXPECT_FALSE(v.passed) << v.normalizedError;
}

TEST(Verify, FailsOnANaN) {
  const Exact exact;
  Matrix c = exact.product();
  c.at(2, 3) = std::numeric_limits<float>::quiet_NaN();
  const Verification v = verify(c, exact.reference, exact.operands.a, exact.operands.b);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.nonFinite, 1);
}

TEST(Verify, FailsOnAnUnwrittenElement) {
  const Exact exact;
  const Matrix full = exact.product();
  Matrix c = makePoisonedMatrix(6, 5);  // as a kernel finds it before running
  for (std::size_t i = 0; i + 1 < c.data.size(); ++i) c.data[i] = full.data[i];
  const Verification v = verify(c, exact.reference, exact.operands.a, exact.operands.b);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.nonFinite, 1);
}

TEST(Verify, FailsOnAWrongValueAndMeasuresIt) {
  const Exact exact;
  Matrix c = exact.product();
  c.at(0, 0) += 1.0f;
  const Verification v = verify(c, exact.reference, exact.operands.a, exact.operands.b);
  EXPECT_FALSE(v.passed);
  EXPECT_DOUBLE_EQ(v.maxAbsError, 1.0);
  EXPECT_GT(v.normalizedError, kFloat32Tolerance);
}

TEST(Verify, ToleratesFloatRoundingOnRandomInputs) {
  const Operands operands = makeOperands({20, 30, 500}, Fill::Random, 11);
  const std::vector<double> reference = referenceProduct(operands.a, operands.b);
  Matrix c = makePoisonedMatrix(20, 30);
  for (std::int64_t i = 0; i < 20; ++i)
    for (std::int64_t j = 0; j < 30; ++j) {
      float sum = 0;  // a float accumulation in k order, as every kernel does
      for (std::int64_t k = 0; k < 500; ++k) sum += operands.a.at(i, k) * operands.b.at(k, j);
      c.at(i, j) = sum;
    }
  const Verification v = verify(c, reference, operands.a, operands.b);
  EXPECT_TRUE(v.passed) << v.normalizedError;
  EXPECT_GT(v.maxAbsError, 0);  // rounding happened and was accepted
}

}  // namespace
}  // namespace tilescope
