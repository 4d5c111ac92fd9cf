// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end tests of tilescope-bench: the built executable, run as a user would run it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench_process.hpp"
#include "tilescope/backend.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

namespace {

using tilescope::RunResult;
using tilescope::e2e::BenchOutcome;
using tilescope::e2e::runBench;
using tilescope::e2e::ScratchDir;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<RunResult> parseCsv(const std::string& text) {
  std::istringstream in(text);
  return tilescope::report::readCsv(in);
}

TEST(BenchCli, OneRunPrintsOneVerifiedTableRow) {
  const BenchOutcome r = runBench(
      {"--backend", "cpu", "--kernel", "naive", "--tile", "8", "--size", "64", "--reps", "3"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "") << "progress goes to stderr only when it is a terminal";
  const auto table = lines(r.out);
  ASSERT_EQ(table.size(), 2u) << r.out;
  for (const char* column : {"backend", "device", "kernel", "params", "median ms", "min ms",
                             "max ms", "GFLOP/s", "rel error", "verified", "reps"})
    EXPECT_TRUE(contains(table[0], column)) << column;
  EXPECT_TRUE(contains(table[1], "cpu"));
  EXPECT_TRUE(contains(table[1], "naive"));
  EXPECT_TRUE(contains(table[1], "tile=8"));
  EXPECT_TRUE(contains(table[1], "true"));
}

TEST(BenchCli, AllowLongRunsRunsSerialPastItsWorkBound) {
  // The smallest step past the CPU bound of 2^30 multiply-adds: refused, then run on request.
  const std::vector<std::string> beyond = {"--kernel", "serial", "--m",        "1024",
                                           "--n",      "1024",   "--k",        "1025",
                                           "--reps",   "1",      "--no-verify"};
  const BenchOutcome refused = runBench(beyond);
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_TRUE(contains(refused.err, "--allow-long-runs")) << refused.err;
  std::vector<std::string> allowed = beyond;
  allowed.push_back("--allow-long-runs");
  const BenchOutcome ran = runBench(allowed);
  ASSERT_EQ(ran.exitCode, 0) << ran.err;
  const auto table = lines(ran.out);
  ASSERT_EQ(table.size(), 2u) << ran.out;
  EXPECT_TRUE(contains(table[1], "serial"));
  EXPECT_TRUE(contains(table[1], "1025"));
}

TEST(BenchCli, TileSweepGivesOneRowPerTileInOrder) {
  const BenchOutcome r = runBench({"--kernel", "shared-tiled", "--sweep", "tile=1,2,4,7", "--size",
                                   "48", "--reps", "2", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  ASSERT_EQ(results.size(), 4u);
  const int tiles[] = {1, 2, 4, 7};
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].kernel.kernel, "shared-tiled");
    EXPECT_EQ(results[i].kernel.params.at("tile"), tiles[i]);
    EXPECT_EQ(results[i].shape, (tilescope::Shape{48, 48, 48}));
    EXPECT_EQ(results[i].stats.reps, 2);
    EXPECT_TRUE(results[i].verified());
  }
}

TEST(BenchCli, TileSweepAllRunsEveryValidTile) {
  const BenchOutcome r = runBench({"--kernel", "register-tiled", "--sweep", "tile=all", "--size",
                                   "40", "--reps", "1", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  const auto& allowed = tilescope::kernelInfo("register-tiled").param("tile")->allowed;
  ASSERT_EQ(results.size(), allowed.size());
  for (std::size_t i = 0; i < results.size(); ++i)
    EXPECT_EQ(results[i].kernel.params.at("tile"), allowed[i]);
}

TEST(BenchCli, KernelAllWithTileAllRunsKernelsWithoutATileOnce) {
  const BenchOutcome r = runBench({"--sweep", "kernel=all", "--sweep", "tile=all", "--size", "8",
                                   "--reps", "1", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Catalogue order; every valid tile of a tiled kernel (its other parameters at their
  // defaults), one run of a kernel without a tile (at its defaults: the ladder kernels have other
  // parameters).
  std::vector<tilescope::KernelConfig> expected;
  for (const tilescope::KernelInfo& kernel : tilescope::catalogue()) {
    if (std::find(kernel.backends.begin(), kernel.backends.end(), "cpu") == kernel.backends.end())
      continue;  // the default backend is the CPU
    if (const tilescope::ParamSpec* tile = kernel.param("tile")) {
      for (int value : tile->allowed)
        expected.push_back(tilescope::resolve({kernel.id, {{"tile", value}}}));
    } else {
      expected.push_back(tilescope::resolve({kernel.id, {}}));
    }
  }
  const auto results = parseCsv(r.out);
  ASSERT_EQ(results.size(), expected.size());
  for (std::size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i].kernel, expected[i]);
}

TEST(BenchCli, SweepsCombineWithTheKernelOutermost) {
  const BenchOutcome r = runBench({"--sweep", "kernel=naive,shared-tiled", "--sweep", "size=16,24",
                                   "--sweep", "tile=4,8", "--reps", "1", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  ASSERT_EQ(results.size(), 8u);
  std::size_t i = 0;
  for (const char* kernel : {"naive", "shared-tiled"})
    for (std::int64_t size : {16, 24})
      for (int tile : {4, 8}) {
        EXPECT_EQ(results[i].kernel.kernel, kernel) << "row " << i;
        EXPECT_EQ(results[i].shape.m, size) << "row " << i;
        EXPECT_EQ(results[i].kernel.params.at("tile"), tile) << "row " << i;
        ++i;
      }
}

TEST(BenchCli, SizeSweepTakesShapesAndAKernelWithoutTheSweptParameterRunsOnce) {
  const BenchOutcome r = runBench({"--sweep", "kernel=library,naive", "--sweep", "size=16,24x8x40",
                                   "--sweep", "tile=4,8", "--reps", "1", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].kernel, (tilescope::KernelConfig{"library", {}}));
  EXPECT_EQ(results[0].shape, (tilescope::Shape{16, 16, 16}));
  EXPECT_EQ(results[1].kernel, (tilescope::KernelConfig{"library", {}}));
  EXPECT_EQ(results[1].shape, (tilescope::Shape{24, 8, 40}));
  EXPECT_EQ(results[5].kernel, (tilescope::KernelConfig{"naive", {{"tile", 8}}}));
  EXPECT_EQ(results[5].shape, (tilescope::Shape{24, 8, 40}));
  for (const RunResult& result : results) EXPECT_TRUE(result.verified());
}

TEST(BenchCli, AcceptanceRunPrintsAVerifiedJsonResult) {
  const BenchOutcome r = runBench({"--backend", "cpu", "--kernel", "shared-tiled", "--tile", "16",
                                   "--size", "512", "--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  // The results document the app exports and opens.
  EXPECT_EQ(doc.at("format"), tilescope::report::kResultsFormat);
  EXPECT_EQ(doc.at("version"), tilescope::report::kFormatVersion);
  ASSERT_EQ(doc.at("devices").size(), 1u);
  EXPECT_EQ(doc.at("devices")[0].at("backend"), "cpu");
  EXPECT_FALSE(doc.at("devices")[0].at("name").get<std::string>().empty());
  EXPECT_FALSE(doc.at("devices")[0].at("facts").empty());
  ASSERT_EQ(doc.at("results").size(), 1u);
  const tilescope::report::ResultsDocument read = tilescope::report::resultsDocumentFromJson(doc);
  ASSERT_EQ(read.results.size(), 1u);
  EXPECT_TRUE(read.results[0].verified());

  const nlohmann::json& result = doc.at("results")[0];
  EXPECT_EQ(result.at("backend"), "cpu");
  EXPECT_EQ(result.at("kernel"), "shared-tiled");
  EXPECT_EQ(result.at("params"), (nlohmann::json{{"tile", 16}}));
  EXPECT_EQ(result.at("m"), 512);
  EXPECT_EQ(result.at("n"), 512);
  EXPECT_EQ(result.at("k"), 512);
  const nlohmann::json& stats = result.at("stats");
  EXPECT_GE(stats.at("reps").get<int>(), 1);
  EXPECT_LE(stats.at("min_ms").get<double>(), stats.at("median_ms").get<double>());
  EXPECT_LE(stats.at("median_ms").get<double>(), stats.at("max_ms").get<double>());
  EXPECT_GT(stats.at("min_ms").get<double>(), 0.0);
  EXPECT_GT(result.at("gflops").get<double>(), 0.0);
  EXPECT_EQ(result.at("verified"), true);
  EXPECT_EQ(result.at("verification").at("passed"), true);
  EXPECT_EQ(result.at("verification").at("non_finite"), 0);
  EXPECT_LT(result.at("verification").at("rel_error").get<double>(), 1e-5);

  const RunResult parsed = tilescope::report::resultFromJson(result);
  EXPECT_TRUE(parsed.verified());
  EXPECT_EQ(parsed.kernel.params.at("tile"), 16);
}

TEST(BenchCli, IntegerFillOnARectangularShapeIsExact) {
  const BenchOutcome r =
      runBench({"--kernel", "shared-tiled", "--tile", "7", "--m", "33", "--n", "17", "--k", "45",
                "--fill", "integer", "--reps", "2", "--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json result = nlohmann::json::parse(r.out).at("results").at(0);
  EXPECT_EQ(result.at("m"), 33);
  EXPECT_EQ(result.at("n"), 17);
  EXPECT_EQ(result.at("k"), 45);
  EXPECT_EQ(result.at("verification").at("max_abs_error").get<double>(), 0.0);
  EXPECT_EQ(result.at("verified"), true);
}

TEST(BenchCli, CsvOutputFileIsWrittenWholeAndRoundTrips) {
  ScratchDir dir;
  const std::string path = dir.file("runs.csv");
  const BenchOutcome r = runBench({"--kernel", "naive", "--sweep", "size=16,33", "--reps", "2",
                                   "--format", "csv", "--output", path});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "") << "with --output nothing goes to stdout";
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"runs.csv"}) << "no temporary file is left";

  const std::string text = tilescope::e2e::readFile(path);
  const auto results = parseCsv(text);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].shape, (tilescope::Shape{16, 16, 16}));
  EXPECT_EQ(results[1].shape, (tilescope::Shape{33, 33, 33}));
  for (const RunResult& result : results) {
    EXPECT_EQ(result.backend, "cpu");
    EXPECT_EQ(result.kernel.params.at("tile"), 16);
    EXPECT_TRUE(result.verified());
    EXPECT_GT(result.gflops, 0.0);
  }
  // Writing what was read gives back the same text: nothing is lost or reformatted.
  std::ostringstream rewritten;
  tilescope::report::writeCsv(rewritten, results);
  EXPECT_EQ(rewritten.str(), text);
}

TEST(BenchCli, NoVerifyLeavesTheResultUnverifiedAndStillSucceeds) {
  const BenchOutcome r = runBench(
      {"--kernel", "library", "--size", "32", "--no-verify", "--reps", "2", "--format", "csv"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].verification.has_value());
  EXPECT_FALSE(results[0].verified());
  EXPECT_TRUE(results[0].kernel.params.empty());
}

TEST(BenchCli, ListNamesEveryKernelAndBackend) {
  const BenchOutcome r = runBench({"--list"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const tilescope::KernelInfo& kernel : tilescope::catalogue()) {
    EXPECT_TRUE(contains(r.out, "  " + kernel.id + ": ")) << kernel.id;
    EXPECT_TRUE(contains(r.out, kernel.seed)) << kernel.id;
  }
  EXPECT_TRUE(contains(r.out, "parameter tile = 1..32 (default 16)"));
  EXPECT_TRUE(contains(r.out, "parameter tile = 1,2,4,8,16,32,64 (default 8)"));
  EXPECT_TRUE(contains(r.out, "parameter stages = 2..4 (default 2)"));
  EXPECT_TRUE(contains(
      r.out, "valid configurations: " +
                 std::to_string(
                     tilescope::validConfigurations(tilescope::kernelInfo("warptile")).size())));
  EXPECT_TRUE(contains(r.out, "  cpu:\n    device 0: "));
  EXPECT_TRUE(contains(r.out, "  cuda:"));
}

TEST(BenchCli, HelpDocumentsTheExitStatus) {
  const BenchOutcome r = runBench({"--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.out, "Exit status"));
  EXPECT_TRUE(contains(r.out, "--sweep"));
}

// A bad input: the arguments ("{dir}" stands for a scratch directory) and a part of the message.
struct BadInput {
  const char* name;
  std::vector<std::string> args;
  const char* message;
};

// gtest prints a parameter in failure messages and in ctest's test list.
void PrintTo(const BadInput& input, std::ostream* out) {
  *out << input.name;
}

class BenchCliBadInput : public testing::TestWithParam<BadInput> {};

TEST_P(BenchCliBadInput, ExitsTwoWithOneLineAndNoOutputFile) {
  ScratchDir dir;
  std::vector<std::string> args;
  bool namesOutput = false;
  for (std::string arg : GetParam().args) {
    if (const auto at = arg.find("{dir}"); at != std::string::npos) arg.replace(at, 5, dir.path());
    namesOutput = namesOutput || arg == "--output";
    args.push_back(arg);
  }
  if (!namesOutput) args.insert(args.end(), {"--output", dir.file("out.txt")});

  const BenchOutcome r = runBench(args);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.out, "");
  const auto errorLines = lines(r.err);
  ASSERT_EQ(errorLines.size(), 1u) << r.err;
  EXPECT_EQ(errorLines[0].rfind("tilescope-bench: error: ", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, GetParam().message)) << r.err;
  EXPECT_TRUE(dir.entries().empty()) << "an output file was left behind";
}

const BadInput kBadInputs[] = {
    {"unknown_kernel", {"--kernel", "nosuch", "--size", "32"}, "unknown kernel 'nosuch'"},
    {"unknown_backend",
     {"--backend", "opencl", "--kernel", "naive", "--size", "32"},
     "unknown backend 'opencl'"},
    {"size_zero", {"--kernel", "naive", "--size", "0"}, "--size = 0 is out of range"},
    {"size_negative", {"--kernel", "naive", "--size", "-5"}, "--size = -5 is out of range"},
    {"size_not_a_number", {"--kernel", "naive", "--size", "abc"}, "'abc' is not a whole number"},
    {"size_fractional",
     {"--kernel", "naive", "--m", "3.5", "--n", "4", "--k", "4"},
     "--m: '3.5' is not a whole number"},
    {"size_above_limit", {"--kernel", "naive", "--size", "2000000"}, "is out of range"},
    {"tile_too_large",
     {"--kernel", "shared-tiled", "--tile", "33", "--size", "32"},
     "tile = 33 is refused"},
    {"tile_not_power_of_two",
     {"--kernel", "register-tiled", "--tile", "3", "--size", "32"},
     "tile = 3 is refused"},
    {"unknown_param",
     {"--kernel", "naive", "--param", "foo=3", "--size", "32"},
     "no parameter 'foo'"},
    {"tile_on_kernel_without_tile",
     {"--kernel", "serial", "--tile", "4", "--size", "32"},
     "kernel 'serial' has no tile parameter"},
    {"too_large_for_memory", {"--kernel", "library", "--size", "1048576"}, "memory"},
    {"serial_work_bound", {"--kernel", "serial", "--size", "2048"}, "limited to M*N*K"},
    {"tile_and_param",
     {"--kernel", "naive", "--tile", "8", "--param", "tile=8", "--size", "32"},
     "excludes"},
    {"size_and_m", {"--kernel", "naive", "--size", "32", "--m", "32"}, "excludes"},
    {"tile_and_tile_sweep",
     {"--kernel", "naive", "--tile", "8", "--sweep", "tile=4,8", "--size", "32"},
     "--tile conflicts with --sweep tile"},
    {"no_size", {"--kernel", "naive"}, "no problem size"},
    {"no_kernel", {"--size", "32"}, "no kernel"},
    {"bad_sweep_value",
     {"--kernel", "naive", "--sweep", "tile=4,x", "--size", "32"},
     "'x' is not a whole number"},
    {"unknown_sweep_key",
     {"--kernel", "naive", "--sweep", "tiles=4", "--size", "32"},
     "unknown key 'tiles'"},
    {"size_sweep_zero", {"--kernel", "naive", "--sweep", "size=32,0"}, "= 0 is out of range"},
    {"unknown_kernel_in_sweep",
     {"--sweep", "kernel=naive,nosuch", "--size", "32"},
     "unknown kernel 'nosuch'"},
    {"param_a_swept_kernel_lacks",
     {"--sweep", "kernel=warptile,naive", "--param", "BM=64", "--size", "32"},
     "kernel 'naive' has no parameter 'BM'"},
    {"sweep_of_a_parameter_no_kernel_has",
     {"--kernel", "library", "--sweep", "tile=8,16", "--size", "32"},
     "--sweep tile: kernel 'library' takes no parameters"},
    {"size_sweep_bad_shape", {"--kernel", "naive", "--sweep", "size=8x8"}, "neither S nor MxNxK"},
    {"unknown_format", {"--kernel", "naive", "--size", "32", "--format", "xml"}, "xml"},
    {"zero_reps",
     {"--kernel", "naive", "--size", "32", "--reps", "0"},
     "--reps = 0 is out of range"},
    {"missing_device", {"--kernel", "naive", "--size", "32", "--device", "7"}, "--device 7"},
    {"output_in_missing_directory",
     {"--kernel", "naive", "--size", "32", "--output", "{dir}/missing/out.csv"},
     "cannot write --output"},
    {"output_is_a_directory",
     {"--kernel", "naive", "--size", "32", "--output", "{dir}"},
     "is a directory"},
    {"unexpected_argument", {"--kernel", "naive", "--size", "32", "extra"}, "extra"},
    {"list_with_run_options", {"--list", "--kernel", "naive"}, "--list takes no other options"},
    {"autotune_and_kernel",
     {"--autotune", "warptile", "--kernel", "naive", "--size", "32"},
     "excludes"},
    {"autotune_and_param",
     {"--autotune", "warptile", "--param", "BM=64", "--size", "32"},
     "excludes"},
    {"autotune_unknown_kernel",
     {"--autotune", "nosuch", "--size", "32"},
     "unknown kernel 'nosuch'"},
    {"autotune_without_size", {"--autotune", "warptile"}, "no problem size"},
    {"tuned_and_no_tuned",
     {"--kernel", "warptile", "--size", "32", "--tuned", "--no-tuned"},
     "excludes"},
    {"tuned_with_nothing_remembered",
     {"--kernel", "warptile", "--size", "32", "--tuned"},
     "no usable parameters remembered for warptile"},
    {"ceilings_and_runs_in_one_csv",
     {"--ceilings", "--kernel", "naive", "--size", "32", "--format", "csv"},
     "cannot be one CSV file"},
    {"ceilings_alone_with_a_size",
     {"--ceilings", "--size", "32"},
     "--ceilings alone runs no kernel"},
    {"ceilings_and_autotune", {"--ceilings", "--autotune", "warptile", "--size", "32"}, "excludes"},
    {"ceilings_on_a_missing_device", {"--ceilings", "--device", "3"}, "--device 3"},
    {"kernel_file_missing",
     {"--kernel-file", "{dir}/none.cu", "--size", "32"},
     "cannot read --kernel-file"},
    {"kernel_file_and_kernel",
     {"--kernel-file", "{dir}/none.cu", "--kernel", "naive", "--size", "32"},
     "excludes"},
    {"trace_without_kernel_file",
     {"--kernel", "naive", "--size", "32", "--trace", "{dir}/trace.json"},
     "--trace requires --kernel-file"},
    {"trace_with_a_sweep",
     {"--kernel-file", "{dir}/none.cu", "--sweep", "size=16,32", "--trace", "{dir}/trace.json"},
     "--trace excludes --sweep"},
    {"trace_block_without_trace",
     {"--kernel-file", "{dir}/none.cu", "--size", "32", "--trace-block", "1,1"},
     "--trace-block requires --trace"},
};

INSTANTIATE_TEST_SUITE_P(Each, BenchCliBadInput, testing::ValuesIn(kBadInputs),
                         [](const testing::TestParamInfo<BadInput>& info) {
                           return std::string(info.param.name);
                         });

// --autotune on the CPU at a tiny size: every valid configuration once, fastest first, all
// verified, and the fastest remembered for this device.
TEST(BenchCli, AutotuneRunsEveryValidConfigurationFastestFirstAndRemembersTheBest) {
  ScratchDir config;
  const BenchOutcome r =
      runBench({"--autotune", "blocktile-1d", "--size", "24", "--reps", "1", "--format", "csv"},
               config.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto results = parseCsv(r.out);
  const auto valid = tilescope::validConfigurations(tilescope::kernelInfo("blocktile-1d"));
  ASSERT_EQ(results.size(), valid.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(results[i].verified()) << i;
    EXPECT_NE(std::find(valid.begin(), valid.end(), results[i].kernel), valid.end()) << i;
    if (i > 0) {
      EXPECT_GE(results[i - 1].gflops, results[i].gflops) << "row " << i;
    }
  }
  EXPECT_TRUE(contains(r.err, "best " + tilescope::formatParams(results[0].kernel))) << r.err;

  const nlohmann::json tuned =
      nlohmann::json::parse(tilescope::e2e::readFile(config.file("tilescope/tuned.json")));
  ASSERT_EQ(tuned.at("entries").size(), 1u);
  const nlohmann::json& entry = tuned.at("entries")[0];
  EXPECT_EQ(entry.at("backend"), "cpu");
  EXPECT_EQ(entry.at("device"), tilescope::makeCpuBackend()->devices().front().name);
  EXPECT_EQ(entry.at("kernel"), "blocktile-1d");
  EXPECT_EQ(entry.at("m"), 24);
  for (const auto& [name, value] : results[0].kernel.params)
    EXPECT_EQ(entry.at("params").at(name), value);
}

// Tuned at two sizes, a run takes the entry tuned nearest its own size.
TEST(BenchCli, ARunTakesTheParametersTunedNearestItsSize) {
  ScratchDir config;
  const std::string device = tilescope::makeCpuBackend()->devices().front().name;
  const tilescope::Params small = {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 8}};
  const tilescope::Params large = {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"TM", 8}};
  ASSERT_FALSE(tilescope::refusal({"blocktile-1d", small}));
  ASSERT_FALSE(tilescope::refusal({"blocktile-1d", large}));
  const auto entry = [&](const tilescope::Params& params, int size) {
    return nlohmann::json{{"backend", "cpu"}, {"device", device}, {"kernel", "blocktile-1d"},
                          {"params", params}, {"m", size},        {"n", size},
                          {"k", size},        {"gflops", 12.5}};
  };
  std::filesystem::create_directories(config.file("tilescope"));
  std::ofstream(config.file("tilescope/tuned.json")) << nlohmann::json{
      {"format_version", 1},
      {"entries", {entry(small, 24), entry(large, 512)}}}.dump();
  for (const auto& [size, expected, at] : {std::tuple{"20", small, "autotuned at 24x24x24"},
                                           std::tuple{"400", large, "autotuned at 512x512x512"}}) {
    const BenchOutcome run =
        runBench({"--kernel", "blocktile-1d", "--size", size, "--reps", "1", "--format", "csv"},
                 config.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(parseCsv(run.out).at(0).kernel.params, expected) << size;
    EXPECT_TRUE(contains(run.err, at)) << run.err;
  }
}

TEST(BenchCli, RememberedParametersAreUsedByDefaultAndSaidSo) {
  ScratchDir config;
  const std::string device = tilescope::makeCpuBackend()->devices().front().name;
  const tilescope::Params remembered = {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"TM", 8}};
  ASSERT_FALSE(tilescope::refusal({"blocktile-1d", remembered}));
  std::filesystem::create_directories(config.file("tilescope"));
  std::ofstream(config.file("tilescope/tuned.json")) << nlohmann::json{
      {"format_version", 1},
      {"entries",
       {{{"backend", "cpu"},
         {"device", device},
         {"kernel", "blocktile-1d"},
         {"params", remembered},
         {"m", 512},
         {"n", 512},
         {"k", 512},
         {"gflops", 12.5}}}}}.dump();
  const std::vector<std::string> run = {"--kernel", "blocktile-1d", "--size", "20", "--reps",
                                        "1",        "--format",     "csv"};

  const BenchOutcome tuned = runBench(run, config.path());
  ASSERT_EQ(tuned.exitCode, 0) << tuned.err;
  EXPECT_EQ(parseCsv(tuned.out).at(0).kernel.params, remembered);
  EXPECT_TRUE(contains(tuned.err, "using the parameters remembered for blocktile-1d")) << tuned.err;
  EXPECT_TRUE(contains(tuned.err, "autotuned at 512x512x512")) << tuned.err;

  auto withOption = [&](const std::vector<std::string>& more) {
    std::vector<std::string> args = run;
    args.insert(args.end(), more.begin(), more.end());
    return runBench(args, config.path());
  };
  const BenchOutcome defaults = withOption({"--no-tuned"});
  ASSERT_EQ(defaults.exitCode, 0) << defaults.err;
  EXPECT_EQ(parseCsv(defaults.out).at(0).kernel, tilescope::resolve({"blocktile-1d", {}}));
  EXPECT_EQ(defaults.err, "");

  const BenchOutcome given = withOption({"--param", "TM=16"});
  ASSERT_EQ(given.exitCode, 0) << given.err;
  EXPECT_EQ(parseCsv(given.out).at(0).kernel, tilescope::resolve({"blocktile-1d", {{"TM", 16}}}));
  EXPECT_EQ(given.err, "") << "the user's own parameters need no note";

  EXPECT_EQ(withOption({"--tuned"}).exitCode, 0);
  // Another kernel has nothing remembered: its defaults, or an error with --tuned.
  const BenchOutcome other =
      runBench({"--kernel", "warptile", "--size", "20", "--reps", "1", "--tuned"}, config.path());
  EXPECT_EQ(other.exitCode, 2);
  EXPECT_TRUE(contains(other.err, "run --autotune warptile first")) << other.err;
}

TEST(BenchCli, ADamagedTunedFileIsReportedNotIgnored) {
  ScratchDir config;
  std::filesystem::create_directories(config.file("tilescope"));
  std::ofstream(config.file("tilescope/tuned.json")) << "{ not json";
  const BenchOutcome r =
      runBench({"--kernel", "warptile", "--size", "20", "--reps", "1"}, config.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "tuned.json': it is not valid JSON")) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

// --ceilings on the CPU measures at its real (about one second) size: the table, then the same
// as a results document with runs beside it.
TEST(BenchCli, CeilingsPrintATableOfMeasuredAndDatasheetFigures) {
  const BenchOutcome r = runBench({"--ceilings"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto table = lines(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  for (const char* column : {"backend", "device", "ceiling", "measured", "datasheet", "method"})
    EXPECT_TRUE(contains(table[0], column)) << column;
  EXPECT_TRUE(contains(table[1], "FP32")) << table[1];
  EXPECT_TRUE(contains(table[1], "GFLOP/s")) << table[1];
  EXPECT_TRUE(contains(table[1], "OpenBLAS sgemm")) << table[1];
  EXPECT_TRUE(contains(table[2], "memory bandwidth")) << table[2];
  EXPECT_TRUE(contains(table[2], "GB/s")) << table[2];
}

TEST(BenchCli, CeilingsWithARunMakeOneResultsDocument) {
  const BenchOutcome r = runBench({"--ceilings", "--kernel", "shared-tiled", "--tile", "8",
                                   "--size", "64", "--reps", "2", "--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const tilescope::report::ResultsDocument document =
      tilescope::report::resultsDocumentFromJson(nlohmann::json::parse(r.out));
  ASSERT_EQ(document.results.size(), 1u);
  ASSERT_EQ(document.ceilings.size(), 1u);
  const tilescope::DeviceCeilings& ceilings = document.ceilings.front();
  EXPECT_EQ(ceilings.backend, "cpu");
  EXPECT_EQ(ceilings.device, document.results.front().device) << "results find their ceilings";
  ASSERT_EQ(ceilings.compute.size(), 1u);
  EXPECT_EQ(ceilings.compute[0].name, tilescope::kFp32Ceiling);
  EXPECT_GT(ceilings.compute[0].measured, 0);
  EXPECT_FALSE(ceilings.compute[0].datasheet) << "no datasheet figure for a CPU";
  EXPECT_GT(ceilings.bandwidth.measured, 0);
}

// --kernel-file: the user's CUDA source, run as user:NAME (on the CPU, compiled for the host).
TEST(BenchCli, AKernelFileIsRefusedWhereItCannotRunWithTheReason) {
  ScratchDir dir;
  const std::string source = tilescope::userKernelTemplate("row-per-thread")->source;
  for (const char* name : {"mine.cu", "my kernel.cu"}) {
    std::ofstream(dir.file(name)) << source;
  }
  const BenchOutcome onCpu =
      runBench({"--backend", "cpu", "--kernel-file", dir.file("mine.cu"), "--size", "32"});
  EXPECT_EQ(onCpu.exitCode, 0) << onCpu.err;  // compiled for the CPU
  const BenchOutcome badName =
      runBench({"--backend", "cpu", "--kernel-file", dir.file("my kernel.cu"), "--size", "32"});
  EXPECT_EQ(badName.exitCode, 2);
  EXPECT_TRUE(contains(badName.err, "the name 'my kernel' may hold only letters")) << badName.err;
  const BenchOutcome otherAutotune =
      runBench({"--kernel-file", dir.file("mine.cu"), "--autotune", "naive", "--size", "32"});
  EXPECT_EQ(otherAutotune.exitCode, 2);
  EXPECT_TRUE(contains(otherAutotune.err, "autotune user:mine, the file's kernel"))
      << otherAutotune.err;
}

// A kernel file whose code allocates more than the machine has ends its run with the reason, as
// any failed run does: the bad_alloc once unwound past a fiber's first frame and aborted.
TEST(BenchCli, AKernelFileThatRunsOutOfMemoryIsToldSoAndNothingCrashes) {
#if defined(TILESCOPE_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer reports a 4 PiB allocation and stops, where malloc fails";
#endif
  if (const auto why = tilescope::hostCompilerUnavailable()) GTEST_SKIP() << *why;
  ScratchDir dir;
  std::ofstream(dir.file("greedy.cu"))
      << "TS_LAUNCH(8, 8, ts::ceilDiv(N, 8), ts::ceilDiv(M, 8), 0)\n"
         "TS_KERNEL {\n"
         "  float* scratch = new float[std::size_t(1) << 50];  // 4 PiB\n"
         "  scratch[threadIdx.x] = 0.0f;\n"
         "  const int i = blockIdx.y * 8 + threadIdx.y, j = blockIdx.x * 8 + threadIdx.x;\n"
         "  if (i < p.M && j < p.N) ts::storeC(p, i, j, scratch[threadIdx.x]);\n"
         "  delete[] scratch;\n"
         "}\n";
  const BenchOutcome r = runBench({"--backend", "cpu", "--kernel-file", dir.file("greedy.cu"),
                                   "--size", "32", "--output", dir.file("out.json")});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, "user:greedy 32x32x32: the kernel's code in block (")) << r.err;
  EXPECT_TRUE(contains(r.err, ") ran out of memory: an allocation failed")) << r.err;
}

TEST(BenchCli, CudaWithoutAUsableGpuIsRefused) {
  if (!tilescope::makeCudaBackend()->unavailableReason()) GTEST_SKIP() << "a usable GPU is present";
  ScratchDir dir;
  const BenchOutcome r = runBench(
      {"--backend", "cuda", "--kernel", "naive", "--size", "32", "--output", dir.file("out.json")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(contains(r.err, "--backend cuda is unavailable")) << r.err;
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace

// Issue #12: nothing lost, nothing clobbered.
namespace {

using tilescope::e2e::BenchLaunch;

// A sweep of many short runs, interrupted after the first ones finish: each run of 256^3 takes
// about 50 ms on one CI core, so the whole sweep takes about 20 s and the signal at 1.5 s always
// comes mid-sweep (401 runs of 128^3 finished in 1.5 s on a fast machine).
std::vector<std::string> longSweep(const std::string& output) {
  std::string sizes = "size=256";
  for (int i = 0; i < 400; ++i) sizes += ",256";
  return {"--kernel", "naive",    "--sweep", sizes,      "--reps",
          "3",        "--format", "csv",     "--output", output};
}

}  // namespace

TEST(BenchCliFiles, ADeviceNodeAsOutputIsRefusedAndLeftAlone) {
  ScratchDir dir;
  // Our own /dev/null twin: the old code replaced the device node with a regular file.
  const std::string node = dir.file("null-device");
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
  const BenchOutcome r =
      runBench({"--kernel", "naive", "--size", "16", "--reps", "1", "--output", node});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "cannot write --output '" + node + "': it is a character device"))
      << r.err;
  EXPECT_TRUE(std::filesystem::is_character_file(node));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"null-device"});
}

TEST(BenchCliFiles, TheFullDeviceAsOutputIsRefusedBeforeAnyRun) {
  const BenchOutcome r =
      runBench({"--kernel", "naive", "--size", "16", "--reps", "1", "--output", "/dev/full"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "'/dev/full': it is a character device")) << r.err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
}

// /dev/stdout resolves to whatever stdout is (here a regular file): renaming over it would lose
// the output.
TEST(BenchCliFiles, DevStdoutAsOutputIsRefused) {
  const BenchOutcome r =
      runBench({"--kernel", "naive", "--size", "16", "--reps", "1", "--output", "/dev/stdout"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "it is a link to a special file")) << r.err;
}

// A FIFO as tuned.json blocked forever.
TEST(BenchCliFiles, AFifoAsTheTunedFileIsRefusedAtOnce) {
  ScratchDir config;
  std::filesystem::create_directories(config.file("tilescope"));
  ASSERT_EQ(::mkfifo(config.file("tilescope/tuned.json").c_str(), 0644), 0);
  const BenchOutcome r =
      runBench({"--kernel", "warptile", "--size", "20", "--reps", "1"}, config.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "tuned.json': it is a FIFO")) << r.err;
}

TEST(BenchCliFiles, AReadOnlyOutputIsRefusedAndKept) {
  ScratchDir dir;
  const std::string path = dir.file("kept.csv");
  std::ofstream(path) << "old\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::group_read |
                                         std::filesystem::perms::others_read);
  const BenchOutcome r =
      runBench({"--kernel", "naive", "--size", "16", "--reps", "1", "--output", path});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "the file is read-only")) << r.err;
  EXPECT_EQ(tilescope::e2e::readFile(path), "old\n");
}

TEST(BenchCliFiles, AFullStdoutIsAnError) {
  BenchLaunch launch;
  launch.args = {"--kernel", "naive", "--size", "16", "--reps", "1"};
  launch.stdoutPath = "/dev/full";
  const BenchOutcome r = runBench(launch);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(
      contains(r.err, "cannot write the results to standard output: No space left on device"))
      << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

TEST(BenchCliFiles, AClosedStdoutIsAnError) {
  BenchLaunch launch;
  launch.args = {"--kernel", "naive", "--size", "16", "--reps", "1"};
  launch.closeStdout = true;
  const BenchOutcome r = runBench(launch);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "cannot write the results to standard output")) << r.err;
}

class BenchCliSignals : public testing::TestWithParam<std::vector<int>> {};

// The first signal stops after the current run; what was measured is written whole; a second
// one soon after changes nothing; no temporary file is left.
TEST_P(BenchCliSignals, StopAfterTheCurrentRunAndWriteWhatWasMeasured) {
  ScratchDir dir;
  const std::string path = dir.file("out.csv");
  BenchLaunch launch;
  launch.args = longSweep(path);
  launch.signals = GetParam();
  launch.signalAfterCpuMs = 1500;
  launch.signalGapMs = 50;
  const BenchOutcome r = runBench(launch);
  EXPECT_EQ(r.exitCode, 128 + GetParam().front()) << r.err;
  EXPECT_TRUE(contains(r.err, "interrupted")) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.csv"}) << "a temporary file was left";
  const std::vector<RunResult> rows = parseCsv(tilescope::e2e::readFile(path));
  EXPECT_GE(rows.size(), 1u);
  EXPECT_LT(rows.size(), 401u);
  for (const RunResult& row : rows) EXPECT_TRUE(row.verified());
}

INSTANTIATE_TEST_SUITE_P(Each, BenchCliSignals,
                         testing::Values(std::vector<int>{SIGINT}, std::vector<int>{SIGTERM},
                                         std::vector<int>{SIGHUP}, std::vector<int>{SIGINT, SIGINT},
                                         std::vector<int>{SIGINT, SIGHUP},
                                         std::vector<int>{SIGTERM, SIGQUIT}),
                         [](const testing::TestParamInfo<std::vector<int>>& info) {
                           std::string name;
                           for (int signal : info.param)
                             name +=
                                 (name.empty() ? "" : "_then_") + std::string(sigabbrev_np(signal));
                           return name;
                         });

TEST(BenchCliSweeps, ASweepTooLargeToBuildIsRefusedWithItsCount) {
  std::string m = "m=1", n = "n=1", k = "k=1";
  for (int value = 2; value <= 1000; ++value) {
    m += "," + std::to_string(value);
    n += "," + std::to_string(value);
    k += "," + std::to_string(value);
  }
  const BenchOutcome r = runBench({"--kernel", "naive", "--sweep", m, "--sweep", n, "--sweep", k});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "the sweep has 1000000000 runs, more than the 100000")) << r.err;
}

// The second size needs more host memory than this machine has free: refused before 16 runs.
TEST(BenchCliSweeps, EveryRunIsCheckedBeforeTheFirstStarts) {
  const BenchOutcome r =
      runBench({"--kernel", "naive", "--sweep", "size=16,1048576", "--reps", "1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.out, "") << "nothing ran";
  EXPECT_TRUE(contains(r.err, "cannot run naive tile=16 1048576x1048576x1048576")) << r.err;
  EXPECT_TRUE(contains(r.err, "host memory")) << r.err;
}

TEST(BenchCliNumbers, ValuesAreRangeCheckedNeverTruncated) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--kernel", "naive", "--size", "16", "--device", "4294967296"},
       "--device = 4294967296 is out of range"},
      {{"--kernel", "naive", "--size", "16", "--reps", "4294967297"},
       "--reps = 4294967297 is out of range"},
      {{"--kernel", "shared-tiled", "--size", "16", "--tile", "4294967312"},
       "--tile = 4294967312 is out of range"},
      {{"--kernel", "naive", "--size", "16", "--budget-ms", "inf"},
       "--budget-ms = 'inf' is out of range: a finite number above 0"},
      {{"--kernel", "naive", "--size", "16", "--param", ""}, "no parameters given"},
      {{"--kernel", "naive", "--size", "16", "--param", "tile=8,"}, "empty parameter in 'tile=8,'"},
      {{"--kernel", "naive", "--size", "16", "--param", "tile=2147483648"},
       "parameter 'tile' = '2147483648' is out of range"},
      {{"--kernel", "naive\x1b[31m", "--size", "16"}, "unknown kernel 'naive\\x1b[31m'"},
      {{"--kernel", std::string(100000, 'k'), "--size", "16"}, "(100000 characters)"},
      {{"--kernel", "naive", "--size", "16", "--size", "32"}, "--size is given 2 times"},
  };
  for (const auto& [args, message] : cases) {
    const BenchOutcome r = runBench(args);
    EXPECT_EQ(r.exitCode, 2) << message;
    EXPECT_TRUE(contains(r.err, message)) << r.err.substr(0, 300);
    EXPECT_EQ(lines(r.err).size(), 1u) << message;
    EXPECT_LT(r.err.size(), 1000u) << message;
  }
}
