// SPDX-License-Identifier: GPL-3.0-or-later
// The checks' figures, measured on the CPU backend from the catalogue's templates, whose
// mappings fix them exactly; and whole submissions checked as a student's would be.
#include <gtest/gtest.h>

#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"
#include "tilescope/exercise/check.hpp"
#include "tilescope/host_kernel.hpp"

namespace tilescope::exercise {
namespace {

class ExerciseChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto missing = hostCompilerUnavailable()) GTEST_SKIP() << *missing;
    backend_ = makeCpuBackend();
  }

  // The Mapping of a template's trace at `shape`.
  Mapping traced(const std::string& kernel, const Params& params, const Shape& shape) {
    const UserKernelTemplate* found = userKernelTemplate(kernel);
    EXPECT_NE(found, nullptr) << kernel;
    const KernelConfig config{userKernelId(kernel), params, found->source};
    return Mapping(backend_->trace({config, shape, 0, {0, 0}, ElementType::F32}, {}, nullptr));
  }

  // The figure of check `name` (its threshold is not the point here).
  double figure(const Mapping& mapping, const char* name,
                OperandChoice operand = OperandChoice::Both) {
    CheckSpec spec;
    spec.kind = *checkKindFromName(name);
    spec.operand = operand;
    spec.threshold = 1;
    const CheckResult result = measureTraceCheck(spec, mapping);
    EXPECT_TRUE(result.figure) << name << ": " << result.detail;
    return result.figure.value_or(-1);
  }

  static Exercise exercise(std::vector<CheckSpec> checks) {
    Exercise e;
    e.id = "01-test";
    e.title = "test";
    e.rung = "naive";
    e.params = {{"TILE", 16}};
    e.verifyShapes = {{1, 1, 1}, {33, 17, 9}};
    e.traceShape = {64, 64, 32};
    e.checks = std::move(checks);
    return e;
  }

  static CheckSpec spec(const char* name, Bound bound, double threshold,
                        OperandChoice operand = OperandChoice::Both) {
    CheckSpec s;
    s.kind = *checkKindFromName(name);
    s.bound = bound;
    s.threshold = threshold;
    s.operand = operand;
    return s;
  }

  std::unique_ptr<Backend> backend_;
};

TEST_F(ExerciseChecks, SectorsPerLoadCountWhatAWarpTouches) {
  // row-per-thread: 32 lanes on 32 rows of A (32 sectors), one element of B (a broadcast).
  const Mapping rows = traced("row-per-thread", {{"TILE", 32}}, {64, 64, 16});
  EXPECT_DOUBLE_EQ(figure(rows, "sectors-per-load", OperandChoice::A), 32);
  EXPECT_DOUBLE_EQ(figure(rows, "sectors-per-load", OperandChoice::B), 1);
  // naive at TILE 32: one element of A, 32 consecutive floats of B (4 sectors).
  const Mapping naive = traced("naive", {{"TILE", 32}}, {64, 64, 16});
  EXPECT_DOUBLE_EQ(figure(naive, "sectors-per-load", OperandChoice::A), 1);
  EXPECT_DOUBLE_EQ(figure(naive, "sectors-per-load", OperandChoice::B), 4);
  EXPECT_DOUBLE_EQ(figure(naive, "sectors-per-load"), 2.5);
  // Every thread loads a row of A and a column of B for its one output.
  EXPECT_DOUBLE_EQ(figure(naive, "global-loads-per-fma"), 2);
  EXPECT_DOUBLE_EQ(figure(naive, "outputs-per-thread"), 1);
  EXPECT_DOUBLE_EQ(figure(naive, "load-width"), 1);
}

TEST_F(ExerciseChecks, StagedTilesCutGlobalLoadsByTheTile) {
  const Mapping sharedA = traced("shared-a", {{"TILE", 16}}, {64, 64, 32});
  EXPECT_DOUBLE_EQ(figure(sharedA, "global-loads-per-fma", OperandChoice::A), 1.0 / 16);
  EXPECT_DOUBLE_EQ(figure(sharedA, "global-loads-per-fma", OperandChoice::B), 1);
  const Mapping tiled = traced("shared-tiled", {{"TILE", 16}}, {64, 64, 32});
  EXPECT_DOUBLE_EQ(figure(tiled, "global-loads-per-fma"), 2.0 / 16);
  EXPECT_DOUBLE_EQ(figure(tiled, "shared-reads-per-fma"), 2);
  EXPECT_DOUBLE_EQ(figure(tiled, "shared-passes"), 1);
  EXPECT_DOUBLE_EQ(figure(tiled, "shared-stages"), 1);
}

TEST_F(ExerciseChecks, ATransposedTileConflictsUntilItIsPadded) {
  const Mapping unpadded = traced("shared-tiled-padded", {{"TILE", 32}, {"PAD", 0}}, {64, 64, 64});
  CheckSpec spec = ExerciseChecks::spec("shared-passes", Bound::AtMost, 1);
  const CheckResult conflicted = measureTraceCheck(spec, unpadded);
  EXPECT_EQ(conflicted.state, CheckState::Failed);
  EXPECT_DOUBLE_EQ(*conflicted.figure, 32);
  // The picture: a write of A's tile (the transposed store), by a warp of the traced block.
  ASSERT_TRUE(conflicted.picture);
  EXPECT_TRUE(conflicted.picture->shared);
  EXPECT_TRUE(conflicted.picture->sharedWrite);
  EXPECT_EQ(conflicted.picture->sharedOperand, Operand::A);
  const Mapping padded = traced("shared-tiled-padded", {{"TILE", 32}, {"PAD", 1}}, {64, 64, 64});
  const CheckResult clean = measureTraceCheck(spec, padded);
  EXPECT_EQ(clean.state, CheckState::Passed);
  EXPECT_DOUBLE_EQ(*clean.figure, 1);
}

TEST_F(ExerciseChecks, ARegisterTileIsCounted) {
  const Mapping oneD =
      traced("blocktile-1d", {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 8}}, {64, 64, 32});
  EXPECT_DOUBLE_EQ(figure(oneD, "outputs-per-thread"), 8);
  // Per inner index a thread reads one value of B and TM of A for TM multiply-adds.
  EXPECT_DOUBLE_EQ(figure(oneD, "shared-reads-per-fma"), 9.0 / 8);
}

TEST_F(ExerciseChecks, Float4LoadsAreCounted) {
  const Mapping vectorized = traced("vectorized", {}, {128, 128, 32});
  EXPECT_DOUBLE_EQ(figure(vectorized, "load-width"), 4);
}

TEST_F(ExerciseChecks, TwoStagesAreCounted) {
  const Mapping prefetched = traced("prefetched", {}, {128, 128, 32});
  EXPECT_DOUBLE_EQ(figure(prefetched, "shared-stages"), 2);
}

TEST_F(ExerciseChecks, ASubmissionIsVerifiedTracedAndMeasured) {
  const Exercise e =
      exercise({spec("verified", Bound::AtMost, 0), spec("sanitizer-clean", Bound::AtMost, 0),
                spec("sectors-per-load", Bound::AtMost, 4, OperandChoice::B),
                spec("global-loads-per-fma", Bound::AtMost, 0.25),
                spec("time-vs-rung", Bound::AtLeast, 0.8)});
  const SubmissionReport report =
      checkSubmission(e, userKernelTemplate("naive")->source, *backend_, {}, {}, nullptr);
  ASSERT_TRUE(report.compiled);
  EXPECT_EQ(report.backend, "cpu");
  ASSERT_EQ(report.verification.size(), 2u);
  EXPECT_TRUE(report.verification[0].passed) << report.verification[0].detail;
  EXPECT_TRUE(report.verification[1].passed) << report.verification[1].detail;
  ASSERT_EQ(report.checks.size(), 5u);
  EXPECT_EQ(report.checks[0].state, CheckState::Passed);
  EXPECT_EQ(report.checks[1].state, CheckState::Passed);
  EXPECT_EQ(report.checks[2].state, CheckState::Passed) << report.checks[2].detail;
  EXPECT_EQ(report.checks[3].state, CheckState::Failed);
  EXPECT_DOUBLE_EQ(*report.checks[3].figure, 2);
  ASSERT_TRUE(report.checks[3].picture);
  EXPECT_FALSE(report.checks[3].picture->shared);
  EXPECT_EQ(report.checks[4].state, CheckState::NotMeasured);  // a race needs a GPU
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.firstFailure(), &report.checks[3]);
  ASSERT_TRUE(report.trace);
}

TEST_F(ExerciseChecks, WrongRacyAndBrokenSourcesFailTheirChecks) {
  const Exercise e =
      exercise({spec("verified", Bound::AtMost, 0), spec("sanitizer-clean", Bound::AtMost, 0)});
  std::string wrong = userKernelTemplate("naive")->source;
  wrong.replace(wrong.find("ts::storeC(p, i, j, sum)"), 24, "ts::storeC(p, i, j, sum + 1)");
  const SubmissionReport wrongReport = checkSubmission(e, wrong, *backend_, {}, {}, nullptr);
  EXPECT_EQ(wrongReport.checks[0].state, CheckState::Failed);
  EXPECT_DOUBLE_EQ(*wrongReport.checks[0].figure, 2);

  // shared-tiled without its second barrier: the next k-step's stores race the reads.
  Exercise tiled = e;
  tiled.rung = "shared-tiled";
  std::string racy = userKernelTemplate("shared-tiled")->source;
  const std::size_t last = racy.rfind("__syncthreads();");
  racy.erase(last, std::string("__syncthreads();").size());
  const SubmissionReport racyReport = checkSubmission(tiled, racy, *backend_, {}, {}, nullptr);
  ASSERT_TRUE(racyReport.compiled);
  EXPECT_EQ(racyReport.checks[1].state, CheckState::Failed);
  EXPECT_GE(*racyReport.checks[1].figure, 1);
  EXPECT_NE(racyReport.checks[1].detail.find("race"), std::string::npos)
      << racyReport.checks[1].detail;
  ASSERT_TRUE(racyReport.checks[1].picture);

  const SubmissionReport broken = checkSubmission(
      e, "TS_PARAM(TILE, 16, 16)\nTS_LAUNCH(1, 1, 1, 1, 0)\nTS_KERNEL { undefined_name; }\n",
      *backend_, {}, {}, nullptr);
  EXPECT_FALSE(broken.compiled) << broken.verification[0].detail;
  EXPECT_EQ(broken.verification.size(), 1u);  // checking stops at the compiler
  ASSERT_FALSE(broken.diagnostics.empty());
  EXPECT_EQ(broken.diagnostics[0].line, 3);
  EXPECT_EQ(broken.checks[0].state, CheckState::Failed);
  EXPECT_FALSE(broken.passed());
}

TEST_F(ExerciseChecks, AReportRoundTripsThroughItsHandInJson) {
  const Exercise e = exercise({spec("verified", Bound::AtMost, 0),
                               spec("sectors-per-load", Bound::AtMost, 4, OperandChoice::A),
                               spec("global-loads-per-fma", Bound::AtMost, 0.25)});
  const SubmissionReport report =
      checkSubmission(e, userKernelTemplate("naive")->source, *backend_, {}, {}, nullptr);
  const SubmissionReport back = reportFromJson(toJson(report));
  EXPECT_EQ(back.exercise, report.exercise);
  EXPECT_EQ(back.source, report.source);
  EXPECT_EQ(back.compiled, report.compiled);
  EXPECT_EQ(back.device, report.device);
  ASSERT_EQ(back.checks.size(), report.checks.size());
  for (std::size_t i = 0; i < back.checks.size(); ++i) {
    EXPECT_EQ(back.checks[i].state, report.checks[i].state);
    EXPECT_EQ(back.checks[i].figure, report.checks[i].figure);
    EXPECT_EQ(back.checks[i].picture, report.checks[i].picture);
    EXPECT_EQ(back.checks[i].spec.title(), report.checks[i].spec.title());
  }
  ASSERT_TRUE(back.trace);
  EXPECT_EQ(back.trace->loadsA, report.trace->loadsA);
  EXPECT_FALSE(toJson(report, false).contains("trace"));
  nlohmann::json bad = toJson(report, false);
  bad["checks"][1]["state"] = "maybe";
  try {
    reportFromJson(bad);
    FAIL() << "a bad state was read";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("checks[1].state"), std::string::npos);
  }
}

}  // namespace
}  // namespace tilescope::exercise
