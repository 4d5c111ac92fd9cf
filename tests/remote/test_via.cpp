// SPDX-License-Identifier: GPL-3.0-or-later
// tilescope-bench --via COMMAND: a CLI job run through a server the command starts, and the
// messages when the command does not start a server; --backend KIND@SERVER: the same through a
// server the app keeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

// A settings file of the app's, under `dir`, with one server "here" whose command is `command`.
void configureServer(const ScratchDir& dir, const std::string& command) {
  std::filesystem::create_directories(dir.file("TileScope"));
  std::ofstream(dir.file("TileScope/TileScope.json"))
      << nlohmann::json{{"servers",
                         {{{"name", "here"}, {"command", command}, {"backend", "cuda"}}}}}
             .dump();
}

TEST(Via, BackendAtServerRunsOnAServerTheAppKeeps) {
  ScratchDir config;
  configureServer(config, serverCommand());
  // The server is configured for cuda; cpu@here runs the CPU backend of the same server.
  const BenchOutcome outcome = runBench({"--backend", "cpu@here", "--kernel", "naive", "--size",
                                         "16", "--reps", "2", "--format", "json"},
                                        config.path());
  ASSERT_EQ(outcome.exitCode, 0) << outcome.err;
  const nlohmann::json document = nlohmann::json::parse(outcome.out);
  ASSERT_EQ(document.at("results").size(), 1u);
  EXPECT_EQ(document.at("results").at(0).at("backend"), "cpu@here");
  EXPECT_TRUE(document.at("results").at(0).at("verified").get<bool>());
  EXPECT_EQ(document.at("devices").at(0).at("facts").back().at("value"),
            "here: " + serverCommand());
}

TEST(Via, BackendAtAnUnknownServerIsRefusedNamingIt) {
  ScratchDir config;
  configureServer(config, serverCommand());
  const BenchOutcome outcome = runBench(
      {"--backend", "cuda@nosuchserver", "--kernel", "naive", "--size", "8"}, config.path());
  EXPECT_EQ(outcome.exitCode, 2);
  EXPECT_EQ(outcome.err,
            "tilescope-bench: error: --backend 'cuda@nosuchserver': no run server named "
            "'nosuchserver' (configured: here; add one in tilescope: Backend > GPU Server...)\n");
  const BenchOutcome both = runBench(
      {"--backend", "cpu@here", "--via", serverCommand(), "--kernel", "naive", "--size", "8"},
      config.path());
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_NE(both.err.find("give one of them"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace tilescope::e2e
