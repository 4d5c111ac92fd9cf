// SPDX-License-Identifier: GPL-3.0-or-later
// Every built-in exercise as a course uses it: its model solution passes every check measured
// where it runs, and its starting file works (it compiles and multiplies right) but fails at least
// one check. On the CPU backend, and on a GPU where there is one (the GPU machine's suite).
#include <gtest/gtest.h>

#include "tilescope/backend.hpp"
#include "tilescope/exercise/check.hpp"
#include "tilescope/host_kernel.hpp"

namespace tilescope::exercise {
namespace {

std::string failures(const SubmissionReport& report) {
  std::string text;
  for (const ShapeCheck& shape : report.verification)
    if (!shape.passed) text += "\n  verification: " + shape.detail;
  for (const CheckResult& check : report.checks)
    text += "\n  " + check.spec.title() + ": " + toString(check.state) + ", " + check.detail;
  return text;
}

class BuiltInExercise : public ::testing::TestWithParam<std::string> {
 protected:
  void checkOn(Backend& backend) {
    const Exercise* exercise = findBuiltInExercise(GetParam());
    ASSERT_NE(exercise, nullptr);
    const SubmissionReport solution =
        checkSubmission(*exercise, exercise->solution, backend, {}, {}, nullptr);
    EXPECT_TRUE(solution.passed())
        << exercise->id << "'s solution on " << backend.id() << ":" << failures(solution);
    const SubmissionReport start =
        checkSubmission(*exercise, exercise->start, backend, {}, {}, nullptr);
    EXPECT_TRUE(start.compiled) << failures(start);
    for (const ShapeCheck& shape : start.verification)
      EXPECT_TRUE(shape.passed) << exercise->id << "'s start is wrong: " << shape.detail;
    EXPECT_NE(start.firstFailure(), nullptr) << exercise->id << "'s start passes every check on "
                                             << backend.id() << ":" << failures(start);
  }
};

class BuiltInExerciseOnCpu : public BuiltInExercise {
  void SetUp() override {
    if (const auto missing = hostCompilerUnavailable()) GTEST_SKIP() << *missing;
  }
};

class BuiltInExerciseOnGpu : public BuiltInExercise {
  void SetUp() override {
    backend_ = makeBackend("cuda");
    if (const auto why = backend_->unavailableReason()) GTEST_SKIP() << "no CUDA GPU: " << *why;
  }

 protected:
  std::unique_ptr<Backend> backend_;
};

TEST_P(BuiltInExerciseOnCpu, SolutionPassesAndStartFails) {
  const auto backend = makeCpuBackend();
  checkOn(*backend);
}

TEST_P(BuiltInExerciseOnGpu, SolutionPassesAndStartFails) {
  checkOn(*backend_);
}

std::vector<std::string> builtInIds() {
  std::vector<std::string> ids;
  for (const Exercise& exercise : builtInExercises()) ids.push_back(exercise.id);
  return ids;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return "e" + name;
}

INSTANTIATE_TEST_SUITE_P(Course, BuiltInExerciseOnCpu, ::testing::ValuesIn(builtInIds()), testName);
INSTANTIATE_TEST_SUITE_P(Course, BuiltInExerciseOnGpu, ::testing::ValuesIn(builtInIds()), testName);

TEST(BuiltInExercises, ACourseOfEightAlongTheLadder) {
  const std::vector<Exercise>& exercises = builtInExercises();
  ASSERT_GE(exercises.size(), 8u);
  for (std::size_t i = 1; i < exercises.size(); ++i)
    EXPECT_LT(exercises[i - 1].id, exercises[i].id);  // in the order of their numbers
  for (const Exercise& exercise : exercises) {
    EXPECT_EQ(exercise.origin, "built in");
    EXPECT_FALSE(exercise.hints.empty()) << exercise.id;
    EXPECT_EQ(findBuiltInExercise(exercise.id), &exercise);
    EXPECT_EQ(findBuiltInExercise(exercise.id.substr(exercise.id.find('-') + 1)), &exercise);
  }
}

}  // namespace
}  // namespace tilescope::exercise
