// SPDX-License-Identifier: GPL-3.0-or-later
// The roofline: its arithmetic, the datasheet table, where a result sits on the intensity axis,
// and the CPU ceilings measured for real at a small size.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_ceilings.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/ceilings.hpp"
#include "tilescope/error.hpp"

namespace tilescope {
namespace {

// Small and quick: a fraction of a second in all, even under the sanitizers.
cpu::CeilingPlan quickPlan() {
  cpu::CeilingPlan plan;
  plan.gemmSize = 192;
  plan.copyBytes = std::int64_t(8) << 20;
  plan.sampling = {
      .warmups = 1, .minReps = 3, .maxReps = 5, .budgetMs = 150, .fixedReps = std::nullopt};
  return plan;
}

ErrorKind errorKindOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.kind();
  }
  ADD_FAILURE() << "no tilescope::Error thrown";
  return ErrorKind::DeviceLost;
}

TEST(Roofline, AttainableRateIsTheLowerOfTheSlopeAndTheRoof) {
  // 100 GFLOP/s under 20 GB/s: the ridge point is 5 FLOP/byte.
  EXPECT_DOUBLE_EQ(ridgePoint(100, 20), 5.0);
  EXPECT_DOUBLE_EQ(attainableGflops(0.25, 100, 20), 5.0);
  EXPECT_DOUBLE_EQ(attainableGflops(2.0, 100, 20), 40.0);
  EXPECT_DOUBLE_EQ(attainableGflops(5.0, 100, 20), 100.0);
  EXPECT_DOUBLE_EQ(attainableGflops(1000.0, 100, 20), 100.0);
  EXPECT_EQ(errorKindOf([] { ridgePoint(100, 0); }), ErrorKind::InvalidArgument);
}

TEST(Roofline, DatasheetKnowsTheHopperParts) {
  const auto h200 = datasheetFor("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->bandwidthGBs, 4800);
  ASSERT_EQ(h200->compute.size(), 5u);
  EXPECT_EQ(h200->compute[0].first, kFp32Ceiling);
  EXPECT_DOUBLE_EQ(h200->compute[0].second, 66900);
  // FP8 dense: twice the 16-bit tensor rate.
  EXPECT_EQ(h200->compute[4].first, kFp8Ceiling);
  EXPECT_DOUBLE_EQ(h200->compute[4].second, 1978900);

  const auto sxm = datasheetFor("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(sxm);
  EXPECT_DOUBLE_EQ(sxm->bandwidthGBs, 3350);
  const auto pcie = datasheetFor("NVIDIA H100 PCIe");
  ASSERT_TRUE(pcie);
  EXPECT_DOUBLE_EQ(pcie->bandwidthGBs, 2000);
  EXPECT_DOUBLE_EQ(pcie->compute[0].second, 51200);
  const auto nvl = datasheetFor("NVIDIA H100 NVL");
  ASSERT_TRUE(nvl);
  EXPECT_DOUBLE_EQ(nvl->bandwidthGBs, 3900);

  // Exact names only: a prefix or a CPU is not in the table.
  EXPECT_FALSE(datasheetFor("NVIDIA H100"));
  EXPECT_FALSE(datasheetFor("AMD EPYC 7B13 64-Core Processor"));
}

TEST(Roofline, AttachDatasheetFillsKnownCeilingsOnly) {
  DeviceCeilings ceilings{"cuda",
                          "NVIDIA H200",
                          {{kFp32Ceiling, kComputeUnit, 50000, std::nullopt, "m"},
                           {"FP64", kComputeUnit, 30000, 1.0, "m"}},
                          {kBandwidthCeiling, kBandwidthUnit, 4200, std::nullopt, "m"}};
  attachDatasheet(ceilings);
  EXPECT_EQ(ceilings.compute[0].datasheet, 66900);
  EXPECT_FALSE(ceilings.compute[1].datasheet) << "the table has no FP64 figure";
  EXPECT_EQ(ceilings.bandwidth.datasheet, 4800);
  ASSERT_TRUE(ceilings.bandwidth.fractionOfDatasheet());
  EXPECT_DOUBLE_EQ(*ceilings.bandwidth.fractionOfDatasheet(), 4200.0 / 4800.0);

  ceilings.device = "Some CPU";
  attachDatasheet(ceilings);
  EXPECT_FALSE(ceilings.compute[0].datasheet);
  EXPECT_FALSE(ceilings.bandwidth.datasheet);
  EXPECT_FALSE(ceilings.bandwidth.fractionOfDatasheet());
}

TEST(Roofline, CompulsoryIntensityMovesEveryOperandOnce) {
  // 2 * 512^3 FLOP over 4 * 3 * 512^2 bytes.
  EXPECT_DOUBLE_EQ(compulsoryIntensity({512, 512, 512}), 512.0 / 6.0);
  // 2 * 64 * 32 * 16 over 4 * (64*16 + 16*32 + 64*32).
  EXPECT_DOUBLE_EQ(compulsoryIntensity({64, 32, 16}), 65536.0 / 14336.0);
}

TEST(Roofline, EachElementTypeHasItsComputeCeiling) {
  EXPECT_STREQ(computeCeilingFor(ElementType::F32), kFp32Ceiling);
  EXPECT_STREQ(computeCeilingFor(ElementType::TF32), kTf32Ceiling);
  EXPECT_STREQ(computeCeilingFor(ElementType::F16), kFp16Ceiling);
  EXPECT_STREQ(computeCeilingFor(ElementType::BF16), kBf16Ceiling);
  EXPECT_STREQ(computeCeilingFor(ElementType::E4M3), kFp8Ceiling);
  EXPECT_STREQ(computeCeilingFor(ElementType::E5M2), kFp8Ceiling);
  // Every compute ceiling of the datasheet is one an element type is held to.
  const std::optional<DatasheetCeilings> sheet = datasheetFor("NVIDIA H200");
  ASSERT_TRUE(sheet);
  for (const auto& [name, gflops] : sheet->compute) {
    bool used = false;
    for (ElementType element : kElementTypes) used = used || name == computeCeilingFor(element);
    EXPECT_TRUE(used) << name;
  }
}

TEST(Roofline, SixteenBitOperandsRaiseTheCompulsoryIntensity) {
  // 2 * 512^3 FLOP over (2 + 2 + 4) * 512^2 bytes: A and B in 16 bits, C in float32.
  EXPECT_DOUBLE_EQ(compulsoryIntensity({512, 512, 512}, ElementType::F16), 128.0);
  EXPECT_DOUBLE_EQ(compulsoryIntensity({512, 512, 512}, ElementType::TF32),
                   compulsoryIntensity({512, 512, 512}));
  const Shape shape{256, 256, 256};
  const Intensity library = arithmeticIntensity({"library", {}}, shape, ElementType::BF16);
  EXPECT_TRUE(library.compulsory);
  EXPECT_DOUBLE_EQ(library.flopsPerByte, compulsoryIntensity(shape, ElementType::BF16));
  const Intensity tensor = arithmeticIntensity({"tensor-mma", {}}, shape, ElementType::F16);
  EXPECT_FALSE(tensor.compulsory);
  EXPECT_GT(tensor.flopsPerByte, 0);
  EXPECT_LE(tensor.flopsPerByte, library.flopsPerByte);
  // A kernel that does not multiply the type is refused, not placed.
  EXPECT_EQ(errorKindOf([&] {
              arithmeticIntensity({"naive", {}}, shape, ElementType::F16);
            }),
            ErrorKind::InvalidArgument);
}

TEST(Roofline, IntensityGrowsWithReuseAndNeverPassesTheCompulsory) {
  const Shape shape{256, 256, 256};
  const Intensity library = arithmeticIntensity({"library", {}}, shape);
  EXPECT_TRUE(library.compulsory);
  EXPECT_DOUBLE_EQ(library.flopsPerByte, compulsoryIntensity(shape));

  const Intensity naive = arithmeticIntensity({"naive", {{"tile", 16}}}, shape);
  const Intensity shared = arithmeticIntensity({"shared-tiled", {{"tile", 16}}}, shape);
  const Intensity registers = arithmeticIntensity({"register-tiled", {{"tile", 4}}}, shape);
  for (const Intensity& modelled : {naive, shared, registers}) {
    EXPECT_FALSE(modelled.compulsory);
    EXPECT_GT(modelled.flopsPerByte, 0);
    EXPECT_LE(modelled.flopsPerByte, library.flopsPerByte);
  }
  // Shared tiles reuse each element T times from shared memory instead of global memory.
  EXPECT_GT(shared.flopsPerByte, 4 * naive.flopsPerByte);

  EXPECT_EQ(errorKindOf([&] {
              arithmeticIntensity({"shared-tiled", {{"tile", 99}}}, shape);
            }),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(errorKindOf([] {
              arithmeticIntensity({"naive", {}}, {0, 4, 4});
            }),
            ErrorKind::InvalidArgument);
}

TEST(CpuCeilings, MeasuresPositiveFiniteCeilingsWithProgress) {
  std::vector<double> fractions;
  const DeviceCeilings ceilings = cpu::measureCeilings(
      "Test CPU", quickPlan(),
      [&](double fraction, const std::string&) { fractions.push_back(fraction); }, nullptr);
  EXPECT_EQ(ceilings.backend, "cpu");
  EXPECT_EQ(ceilings.device, "Test CPU");
  ASSERT_EQ(ceilings.compute.size(), 1u);
  const Ceiling& fp32 = ceilings.compute.front();
  EXPECT_EQ(fp32.name, kFp32Ceiling);
  EXPECT_EQ(fp32.unit, kComputeUnit);
  EXPECT_TRUE(std::isfinite(fp32.measured) && fp32.measured > 0) << fp32.measured;
  EXPECT_NE(fp32.method.find("sgemm 192x192x192"), std::string::npos) << fp32.method;
  EXPECT_FALSE(fp32.datasheet);
  EXPECT_EQ(ceilings.bandwidth.name, kBandwidthCeiling);
  EXPECT_EQ(ceilings.bandwidth.unit, kBandwidthUnit);
  EXPECT_TRUE(std::isfinite(ceilings.bandwidth.measured) && ceilings.bandwidth.measured > 0);
  EXPECT_NE(ceilings.bandwidth.method.find("8 MiB"), std::string::npos);
  ASSERT_FALSE(fractions.empty());
  EXPECT_EQ(fractions.back(), 1.0);
  for (std::size_t i = 1; i < fractions.size(); ++i) EXPECT_GE(fractions[i], fractions[i - 1]);
}

TEST(CpuCeilings, CancelStopsBetweenRepetitions) {
  std::atomic<bool> cancel{true};
  EXPECT_EQ(errorKindOf([&] { cpu::measureCeilings("Test CPU", quickPlan(), {}, &cancel); }),
            ErrorKind::Cancelled);
  // Set while timing: the measurement stops at the next repetition.
  cancel = false;
  int calls = 0;
  const ProgressFn cancelSoon = [&](double, const std::string&) {
    if (++calls == 3) cancel = true;
  };
  EXPECT_EQ(
      errorKindOf([&] { cpu::measureCeilings("Test CPU", quickPlan(), cancelSoon, &cancel); }),
      ErrorKind::Cancelled);
  EXPECT_LE(calls, 4);
}

TEST(CpuCeilings, TheBackendHasOneDevice) {
  EXPECT_EQ(errorKindOf([] { makeCpuBackend()->measureCeilings(1, {}, nullptr); }),
            ErrorKind::InvalidArgument);
}

}  // namespace
}  // namespace tilescope
