// tilescope-bench --via COMMAND: a CLI job run through a server the command starts, and the
// messages when the command does not start a server.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../e2e/bench_process.hpp"

namespace tilescope::e2e {
namespace {

std::string serverCommand() {
  return std::string("'") + TILESCOPE_BENCH + "' --serve";
}

TEST(Via, RunsTheJobOnTheServerAndWritesTheSameDocument) {
  const BenchOutcome outcome =
      runBench({"--via", serverCommand(), "--sweep", "tile=4,8", "--kernel", "shared-tiled",
                "--size", "32", "--reps", "2", "--format", "json"});
  ASSERT_EQ(outcome.exitCode, 0) << outcome.err;
  const nlohmann::json document = nlohmann::json::parse(outcome.out);
  ASSERT_EQ(document.at("results").size(), 2u);
  EXPECT_EQ(document.at("results").at(1).at("params").at("tile"), 8);
  EXPECT_EQ(document.at("results").at(0).at("backend"), "cpu");
  EXPECT_TRUE(document.at("results").at(0).at("verified").get<bool>());
  // The device records the server it ran on.
  const nlohmann::json& facts = document.at("devices").at(0).at("facts");
  EXPECT_EQ(facts.back().at("name"), "server");
  EXPECT_EQ(facts.back().at("value"), serverCommand());
}

TEST(Via, ACommandThatIsNotFoundSaysSoWithTheShellsMessage) {
  const BenchOutcome outcome =
      runBench({"--via", "no-such-tilescope-server --serve", "--kernel", "naive", "--size", "8"});
  EXPECT_EQ(outcome.exitCode, 2);
  EXPECT_NE(outcome.err.find("status 127"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("no-such-tilescope-server"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("not found"), std::string::npos) << outcome.err;
}

TEST(Via, AServerThatIsNotTileScopeIsNamedWithWhatItWrote) {
  const BenchOutcome outcome = runBench(
      {"--via", "echo 'Welcome to gpu1'; cat >/dev/null", "--kernel", "naive", "--size", "8"});
  EXPECT_EQ(outcome.exitCode, 2);
  EXPECT_NE(outcome.err.find("does not speak the TileScope protocol"), std::string::npos)
      << outcome.err;
  EXPECT_NE(outcome.err.find("Welcome to gpu1"), std::string::npos) << outcome.err;
}

TEST(Via, ARefusedRequestIsRefusedBeforeAnythingRuns) {
  const BenchOutcome outcome = runBench(
      {"--via", serverCommand(), "--kernel", "shared-tiled", "--tile", "1000", "--size", "8"});
  EXPECT_EQ(outcome.exitCode, 2);
  EXPECT_NE(outcome.err.find("tile"), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace tilescope::e2e
