// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tilescope/error.hpp"
#include "tilescope/exercise/exercise.hpp"

namespace tilescope::exercise {
namespace {

using nlohmann::json;

const char* kKernel = R"(TS_PARAM(TILE, 16, 8, 16)
TS_LAUNCH(TILE, TILE, ts::ceilDiv(N, TILE), ts::ceilDiv(M, TILE), 0)
TS_KERNEL {
  const int i = blockIdx.y * TILE + threadIdx.y, j = blockIdx.x * TILE + threadIdx.x;
  if (i >= p.M || j >= p.N) return;
  float sum = 0.0f;
  for (int k = 0; k < p.K; ++k) sum += ts::loadA(p, i, k) * ts::loadB(p, k, j);
  ts::storeC(p, i, j, sum);
}
)";

json validDocument() {
  return {{"format", "tilescope-exercise"},
          {"version", 1},
          {"title", "Stage A"},
          {"rung", "shared-a"},
          {"params", {{"TILE", 8}}},
          {"verify", {"1x1x1", "33x17x9"}},
          {"trace", {{"shape", "64x64x32"}, {"block", {1, 0}}}},
          {"checks",
           {{{"check", "verified"}},
            {{"check", "global-loads-per-fma"}, {"operand", "A"}, {"at-most", 0.125}},
            {{"check", "outputs-per-thread"}, {"at-least", 4}, {"why", "Reuse."}}}},
          {"hints", {"one", "two"}}};
}

Exercise parsed(const json& document) {
  return parseExercise("02-stage-a", document.dump(), "Stage A in shared memory.", kKernel, kKernel,
                       "test");
}

// The message a document with one change is refused with.
std::string refusal(const std::function<void(json&)>& change) {
  json document = validDocument();
  change(document);
  try {
    parsed(document);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ExerciseFormat, AValidFolderReadsEveryField) {
  const Exercise exercise = parsed(validDocument());
  EXPECT_EQ(exercise.id, "02-stage-a");
  EXPECT_EQ(exercise.title, "Stage A");
  EXPECT_EQ(exercise.rung, "shared-a");
  EXPECT_EQ(exercise.params.at("TILE"), 8);
  ASSERT_EQ(exercise.verifyShapes.size(), 2u);
  EXPECT_EQ(exercise.verifyShapes[1], (Shape{33, 17, 9}));
  EXPECT_EQ(exercise.traceShape, (Shape{64, 64, 32}));
  EXPECT_EQ(exercise.traceBlock.x, 1);
  EXPECT_EQ(exercise.timeShape, (Shape{2048, 2048, 2048}));
  ASSERT_EQ(exercise.checks.size(), 3u);
  EXPECT_EQ(exercise.checks[1].kind, CheckKind::GlobalLoadsPerFma);
  EXPECT_EQ(exercise.checks[1].operand, OperandChoice::A);
  EXPECT_EQ(exercise.checks[1].bound, Bound::AtMost);
  EXPECT_EQ(exercise.checks[1].title(), "global loads per fma of A at most 0.125");
  EXPECT_TRUE(exercise.checks[1].passes(0.125));
  EXPECT_FALSE(exercise.checks[1].passes(0.126));
  EXPECT_EQ(exercise.checks[2].why, "Reuse.");
  EXPECT_FALSE(exercise.checks[1].why.empty());  // the default sentence
  EXPECT_EQ(exercise.hints, (std::vector<std::string>{"one", "two"}));
}

TEST(ExerciseFormat, DefaultsWhereTheFileIsSilent) {
  json document = validDocument();
  document.erase("verify");
  document.erase("params");
  document.erase("hints");
  const Exercise exercise = parsed(document);
  EXPECT_EQ(exercise.verifyShapes, defaultVerifyShapes());
  EXPECT_TRUE(exercise.params.empty());
  EXPECT_TRUE(exercise.hints.empty());
}

TEST(ExerciseFormat, EveryFieldIsRefusedByName) {
  EXPECT_NE(
      refusal([](json& d) { d["format"] = "tilescope-session"; }).find("exercise.json: format"),
      std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["version"] = 2; }).find("version"), std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["title"] = 7; }).find("title"), std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["rung"] = "warp-magic"; }).find("rung"), std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["params"]["TILE"] = -1; }).find("params.TILE"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["params"]["BM"] = 64; }).find("params.BM is not a TS_PARAM"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["verify"][1] = "33x17"; }).find("verify[1]"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["verify"][0] = "0x1x1"; }).find("verify[0]"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["trace"]["shape"] = "2048x2048x8"; }).find("trace.shape"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["trace"]["block"] = {1}; }).find("trace.block"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d.erase("trace"); }).find("trace"), std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"] = json::array(); }).find("checks"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][1]["check"] = "speed"; }).find("checks[1].check"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][1]["at-most"] = -1; }).find("checks[1].at-most"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][1]["at-least"] = 1; }).find("checks[1]: "),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][0]["at-most"] = 1; }).find("has no threshold"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][2]["operand"] = "A"; }).find("checks[2].operand"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][1]["operand"] = "C"; }).find("checks[1].operand"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["checks"][1]["tolerance"] = 1; }).find("checks[1].tolerance"),
            std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["hints"][1] = ""; }).find("hints[1]"), std::string::npos);
  EXPECT_NE(refusal([](json& d) { d["colour"] = "red"; }).find("colour"), std::string::npos);
  // Every message names the exercise.
  EXPECT_EQ(refusal([](json& d) {
              d["title"] = "";
            }).rfind("exercise 02-stage-a: exercise.json: title", 0),
            0u);
}

TEST(ExerciseFormat, BrokenFilesBesideTheJsonAreRefused) {
  EXPECT_THROW(parseExercise("x", "{", "t", kKernel, kKernel, "test"), Error);
  EXPECT_THROW(parseExercise("x", validDocument().dump(), " \n", kKernel, kKernel, "test"), Error);
  try {
    parseExercise("x", validDocument().dump(), "t", "", kKernel, "test");
    FAIL() << "an empty start.cu was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("start.cu is empty"), std::string::npos);
  }
  EXPECT_THROW(parseExercise("bad name!", validDocument().dump(), "t", kKernel, kKernel, "test"),
               Error);
}

TEST(ExerciseFormat, AMissingFolderOrFileIsAClearError) {
  try {
    loadExercise("/nonexistent/exercise");
    FAIL() << "a missing folder was read";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos);
  }
  EXPECT_THROW(findExercise("no-such-exercise"), Error);
}

TEST(ExerciseFormat, CheckNamesRoundTrip) {
  for (const char* name :
       {"verified", "sanitizer-clean", "sectors-per-load", "shared-passes", "global-loads-per-fma",
        "shared-reads-per-fma", "outputs-per-thread", "load-width", "shared-stages", "registers",
        "occupancy", "time-vs-rung"}) {
    const auto kind = checkKindFromName(name);
    ASSERT_TRUE(kind) << name;
    EXPECT_STREQ(checkName(*kind), name);
  }
  EXPECT_FALSE(checkKindFromName("fast"));
}

}  // namespace
}  // namespace tilescope::exercise
