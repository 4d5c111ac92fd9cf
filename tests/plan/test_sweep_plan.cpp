// SPDX-License-Identifier: GPL-3.0-or-later
// The sweep planner both front ends use: axis parsing and checking, the expansion order, kernel
// switching, remembered parameters, and the messages of every refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/plan/autotune.hpp"
#include "tilescope/plan/sweep.hpp"

namespace tilescope::plan {
namespace {

Start startAt(const std::string& kernel, Params params = {}, Dimensions dims = {64, 64, 64}) {
  Start start;
  start.base.kernel = {kernel, std::move(params)};
  start.dims = dims;
  start.backend = "cpu";
  return start;
}

std::vector<RunRequest> expand(const std::string& kernel, const std::vector<std::string>& axes) {
  return planRuns(Sweep::parse(axes), startAt(kernel));
}

// The message of the tilescope::Error that `fn` throws; fails the test if it throws none or
// one of another kind.
template <typename Fn>
std::string refusalOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "no tilescope::Error thrown";
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SweepPlan, NoAxisIsOneResolvedRunWithTheBaseSettings) {
  Start start = startAt("shared-tiled", {}, {64, 32, 16});
  start.base.device = 1;
  start.base.fill = Fill::Integer;
  start.base.seed = 7;
  start.base.verify = false;
  const auto runs = planRuns(Sweep(), start);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kernel, resolve({"shared-tiled", {}}));
  EXPECT_EQ(runs[0].shape, (Shape{64, 32, 16}));
  EXPECT_EQ(runs[0].device, 1);
  EXPECT_EQ(runs[0].fill, Fill::Integer);
  EXPECT_EQ(runs[0].seed, 7u);
  EXPECT_FALSE(runs[0].verify);
}

TEST(SweepPlan, ParameterAllRunsEveryValueTheKernelAllows) {
  for (const char* kernel : {"shared-tiled", "register-tiled", "naive"}) {
    const auto runs = expand(kernel, {"tile=all"});
    const std::vector<int>& allowed = kernelInfo(kernel).param("tile")->allowed;
    ASSERT_EQ(runs.size(), allowed.size()) << kernel;
    for (std::size_t i = 0; i < runs.size(); ++i)
      EXPECT_EQ(runs[i].kernel.params.at("tile"), allowed[i]) << kernel;
  }
}

TEST(SweepPlan, KernelAxisIsOutermostAndAKernelWithoutTheParameterRunsOnce) {
  const auto runs = expand("naive", {"tile=8,16", "kernel=naive,library"});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].kernel, (KernelConfig{"naive", {{"tile", 8}}}));
  EXPECT_EQ(runs[1].kernel, (KernelConfig{"naive", {{"tile", 16}}}));
  EXPECT_EQ(runs[2].kernel, (KernelConfig{"library", {}}));
}

TEST(SweepPlan, AxesCombineInTheOrderGivenTheFirstOutermost) {
  const auto runs = planRuns(Sweep::parse({"size=16,24", "kernel=naive,shared-tiled", "tile=4,8"}),
                             startAt("naive"));
  ASSERT_EQ(runs.size(), 8u);
  std::size_t i = 0;
  for (const char* kernel : {"naive", "shared-tiled"})
    for (std::int64_t size : {16, 24})
      for (int tile : {4, 8}) {
        EXPECT_EQ(runs[i].kernel, (KernelConfig{kernel, {{"tile", tile}}})) << "run " << i;
        EXPECT_EQ(runs[i].shape, (Shape{size, size, size})) << "run " << i;
        ++i;
      }
}

TEST(SweepPlan, KernelAllRunsTheKernelsOfTheBackendInCatalogueOrder) {
  const auto runs = expand("naive", {"kernel=all"});
  std::vector<std::string> expected;
  for (const KernelInfo& info : catalogue())
    if (std::find(info.backends.begin(), info.backends.end(), "cpu") != info.backends.end())
      expected.push_back(info.id);
  ASSERT_EQ(runs.size(), expected.size());
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].kernel.kernel, expected[i]);
  EXPECT_TRUE(plannedKernels(Sweep::parse({"kernel=all"}), {"naive", {}}, "opencl").empty());
}

TEST(SweepPlan, KernelAllWithParameterAllRunsKernelsWithoutItOnceAtTheirDefaults) {
  const auto runs = expand("naive", {"kernel=all", "tile=all"});
  std::vector<KernelConfig> expected;
  for (const KernelInfo& kernel : catalogue()) {
    if (std::find(kernel.backends.begin(), kernel.backends.end(), "cpu") == kernel.backends.end())
      continue;  // expand() plans for the CPU backend
    if (const ParamSpec* tile = kernel.param("tile")) {
      for (int value : tile->allowed) expected.push_back(resolve({kernel.id, {{"tile", value}}}));
    } else {
      expected.push_back(resolve({kernel.id, {}}));
    }
  }
  ASSERT_EQ(runs.size(), expected.size());
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].kernel, expected[i]);
}

TEST(SweepPlan, SwitchingKernelsKeepsOnlyTheParametersTheKernelHas) {
  const auto runs = planRuns(Sweep::parse({"kernel=naive,library,blocktile-1d"}),
                             startAt("register-tiled", {{"tile", 4}, {"BM", 128}}));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].kernel, (KernelConfig{"naive", {{"tile", 4}}}));
  EXPECT_EQ(runs[1].kernel, (KernelConfig{"library", {}}));
  EXPECT_EQ(runs[2].kernel, resolve({"blocktile-1d", {{"BM", 128}}}));
}

TEST(SweepPlan, KernelParamsReplaceTheCarriedOverOnesForThatKernelOnly) {
  Start start = startAt("", {{"tile", 4}});
  start.kernelParams["shared-tiled"] = {{"tile", 32}};
  const auto runs = planRuns(Sweep::parse({"kernel=naive,shared-tiled"}), start);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].kernel, (KernelConfig{"naive", {{"tile", 4}}}));
  EXPECT_EQ(runs[1].kernel, (KernelConfig{"shared-tiled", {{"tile", 32}}}));
}

TEST(SweepPlan, SizeAxisTakesCubesAndShapesAndDimensionAxesSetOne) {
  const auto runs = expand("naive", {"size=32,48x16x8"});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].shape, (Shape{32, 32, 32}));
  EXPECT_EQ(runs[1].shape, (Shape{48, 16, 8}));
  const auto ks = expand("naive", {"k=1,7"});
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].shape, (Shape{64, 64, 1}));
  EXPECT_EQ(ks[1].shape, (Shape{64, 64, 7}));
}

TEST(SweepPlan, ASweepCompletesTheDimensionsTheStartLacks) {
  const auto runs = planRuns(Sweep::parse({"size=16,33"}), startAt("naive", {}, {}));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].shape, (Shape{33, 33, 33}));
  const auto ns = planRuns(Sweep::parse({"n=5"}), startAt("naive", {}, {3, std::nullopt, 4}));
  ASSERT_EQ(ns.size(), 1u);
  EXPECT_EQ(ns[0].shape, (Shape{3, 5, 4}));
  const std::string missing = refusalOf([] {
    planRuns(Sweep::parse({"m=8"}), startAt("naive", {}, {std::nullopt, 2, std::nullopt}));
  });
  EXPECT_TRUE(contains(missing, "no problem size")) << missing;
  EXPECT_TRUE(contains(missing, "(missing --k)")) << missing;
}

TEST(SweepPlan, ProductOfAxes) {
  EXPECT_EQ(expand("shared-tiled", {"tile=4,8,16", "size=32,64"}).size(), 6u);
}

// Issue #12: m, n and k of a thousand values each built 10^9 runs (12 GB) before saying anything.
TEST(SweepPlan, ASweepIsCountedBeforeItIsBuilt) {
  std::string m = "m=1", n = "n=1", k = "k=1";
  for (int value = 2; value <= 1000; ++value) {
    m += "," + std::to_string(value);
    n += "," + std::to_string(value);
    k += "," + std::to_string(value);
  }
  Start start = startAt("naive", {}, {});
  EXPECT_EQ(refusalOf([&] {
              planRuns(Sweep::parse({m, n, k}), start);
            }),
            "--sweep: the sweep has 1000000000 runs, more than the 100000 one plan may hold; "
            "sweep fewer values or split it");
  // Exactly the limit is fine: 100 x 1000.
  std::string hundred = "n=1";
  for (int value = 2; value <= 100; ++value) hundred += "," + std::to_string(value);
  start.dims.k = 8;
  EXPECT_EQ(planRuns(Sweep::parse({m, hundred}), start).size(), kMaxRuns);
}

TEST(SweepPlan, NumbersAreRangeCheckedNeverTruncated) {
  EXPECT_EQ(parseIntegerIn("7", "--reps", 1, kMaxFixedReps), 7);
  EXPECT_EQ(refusalOf([] { parseIntegerIn("4294967297", "--reps", 1, kMaxFixedReps); }),
            "--reps = 4294967297 is out of range: a whole number from 1 to 100000");
  EXPECT_EQ(parsePositiveNumber("2.5", "--budget"), 2.5);
  for (const char* text : {"inf", "-inf", "nan", "0", "-1", "1e999"})
    EXPECT_TRUE(contains(refusalOf([&] { parsePositiveNumber(text, "--budget"); }), "--budget"))
        << text;
  EXPECT_EQ(refusalOf([] { parsePositiveNumber("fast", "--budget-ms"); }),
            "--budget-ms: 'fast' is not a number");
  const std::string longText(100000, '9');
  EXPECT_LT(refusalOf([&] { parseInteger(longText, "--size"); }).size(), 150u);
}

TEST(SweepPlan, SweepRemembersItsAxesInOrder) {
  const Sweep sweep = Sweep::parse({"tile=all", "size=32,64"});
  ASSERT_EQ(sweep.axes().size(), 2u);
  EXPECT_EQ(sweep.axes()[0].key, "tile");
  EXPECT_TRUE(sweep.axes()[0].all());
  EXPECT_EQ(sweep.axes()[1].values, (std::vector<std::string>{"32", "64"}));
  EXPECT_FALSE(sweep.axes()[1].all());
  ASSERT_NE(sweep.find("size"), nullptr);
  EXPECT_EQ(sweep.find("kernel"), nullptr);
  EXPECT_TRUE(sweep.sweepsParameterOf(kernelInfo("naive")));
  EXPECT_FALSE(sweep.sweepsParameterOf(kernelInfo("blocktile-1d")));
}

TEST(SweepPlan, ListedValuesOfAParameterNoPlannedKernelHasAreRefused) {
  const std::string message = refusalOf([] { expand("library", {"tile=8,16"}); });
  EXPECT_TRUE(contains(message, "--sweep tile: kernel 'library' takes no parameters")) << message;
  const std::string ladder = refusalOf([] { expand("naive", {"BM=64"}); });
  EXPECT_TRUE(contains(ladder, "kernel 'naive' has no parameter 'BM'")) << ladder;
  EXPECT_EQ(expand("library", {"tile=all"}).size(), 1u) << "'all' asks only for what there is";
}

TEST(SweepPlan, NumbersAreParsedWithMessagesThatQuoteThem) {
  EXPECT_EQ(parseInteger("-12", "--seed"), -12);
  EXPECT_EQ(refusalOf([] { parseInteger("3.5", "--m"); }), "--m: '3.5' is not a whole number");
  EXPECT_EQ(refusalOf([] { parseInteger("", "--m"); }), "--m: '' is not a whole number");
  EXPECT_EQ(refusalOf([] { parseInteger("99999999999999999999", "--reps"); }),
            "--reps = '99999999999999999999' is out of range");
  EXPECT_EQ(parseDimension("1", "--size"), 1);
  EXPECT_EQ(parseDimension(std::to_string(kMaxDimension), "--size"), kMaxDimension);
  EXPECT_EQ(refusalOf([] { parseDimension("0", "--size"); }),
            "--size = 0 is out of range: sizes must be 1.." + std::to_string(kMaxDimension));
  EXPECT_TRUE(contains(refusalOf([] { parseDimension("2000000", "--n"); }), "out of range"));
  EXPECT_EQ(parseParameterValue("-3", "--tile"), -3);
  EXPECT_EQ(refusalOf([] { parseParameterValue("4294967296", "--tile"); }),
            "--tile = 4294967296 is out of range: a whole number from -2147483648 to 2147483647");
}

TEST(SweepPlan, CompleteShapeNamesEveryMissingDimension) {
  EXPECT_EQ(completeShape({2, 3, 4}), (Shape{2, 3, 4}));
  EXPECT_EQ(refusalOf([] { completeShape({}); }),
            "no problem size: give --size S, or --m, --n and --k (missing --m, --n, --k)");
  EXPECT_TRUE(contains(refusalOf([] { completeShape({1, std::nullopt, 1}); }), "(missing --n)"));
}

// A sweep that is refused: its axes, the kernel it starts from, and a part of the message.
struct BadSweep {
  const char* name;
  std::vector<std::string> axes;
  const char* kernel;
  const char* message;
};

void PrintTo(const BadSweep& sweep, std::ostream* out) {
  *out << sweep.name;
}

class SweepPlanRefuses : public testing::TestWithParam<BadSweep> {};

TEST_P(SweepPlanRefuses, WithAMessageThatSaysWhy) {
  const std::string message = refusalOf([] { expand(GetParam().kernel, GetParam().axes); });
  EXPECT_TRUE(contains(message, GetParam().message)) << message;
}

const BadSweep kBadSweeps[] = {
    {"no_equals", {"tile"}, "naive", "--sweep 'tile': expected KEY=V1,V2,..."},
    {"no_key", {"=8"}, "naive", "--sweep '=8': expected KEY=V1,V2,..."},
    {"no_values", {"tile="}, "naive", "--sweep tile: empty value in 'tile='"},
    {"empty_value", {"tile=8,,16"}, "naive", "--sweep tile: empty value in 'tile=8,,16'"},
    {"trailing_comma", {"tile=8,"}, "naive", "--sweep tile: empty value in 'tile=8,'"},
    {"unknown_key", {"tiles=4"}, "naive", "--sweep: unknown key 'tiles'"},
    {"unknown_axis", {"colour=1"}, "naive", "unknown key 'colour'"},
    {"refused_tile", {"tile=7"}, "register-tiled", "register-tiled: tile = 7 is refused"},
    {"not_a_number", {"tile=4,x"}, "naive", "--sweep tile: 'x' is not a whole number"},
    {"not_a_number_nobody_reads", {"kernel=library", "tile=big"}, "naive", "'big'"},
    {"zero_size", {"size=32,0"}, "naive", "--sweep size = 0 is out of range"},
    {"bad_shape", {"size=4x4"}, "naive", "--sweep size: '4x4' is neither S nor MxNxK"},
    {"zero_in_shape", {"size=4x0x4"}, "naive", "--sweep size = 0 is out of range"},
    {"huge_k", {"k=2000000"}, "naive", "--sweep k = 2000000 is out of range"},
    {"all_with_others", {"tile=all,8"}, "naive", "--sweep tile: 'all' stands alone"},
    {"all_sizes", {"size=all"}, "naive", "'all' applies to kernel and parameter sweeps only"},
    {"unknown_kernel", {"kernel=naive,nosuch"}, "naive", "unknown kernel 'nosuch'"},
    {"unknown_start_kernel", {}, "nosuch", "unknown kernel 'nosuch'"},
    {"key_twice", {"tile=4", "tile=8"}, "naive", "--sweep tile is given twice"},
    {"kernel_twice", {"kernel=naive", "kernel=library"}, "naive", "--sweep kernel is given twice"},
    {"size_and_m", {"size=8", "m=4"}, "naive", "--sweep size conflicts with --sweep m, n or k"},
    {"ladder_value_refused", {"TM=4,16"}, "blocktile-2d", "blocktile-2d: TM = 16 is refused"},
};

INSTANTIATE_TEST_SUITE_P(Each, SweepPlanRefuses, testing::ValuesIn(kBadSweeps),
                         [](const testing::TestParamInfo<BadSweep>& info) {
                           return std::string(info.param.name);
                         });

// A user kernel from the Kernel Editor: its TS_PARAM parameters sweep and autotune like a
// catalogue kernel's, and every run carries its source.
const std::string kUserSource =
    "TS_PARAM(TILE, 16, 8, 16, 32)\nTS_PARAM(PAD, 0, 0, 1)\nTS_LAUNCH(TILE, TILE, 1, 1, 0)\n"
    "TS_KERNEL {}\n";

TEST(SweepPlan, AUserKernelSweepsItsOwnParametersBesideCatalogueKernels) {
  Start start = startAt("user:mine");
  start.base.kernel.source = kUserSource;
  const auto runs = planRuns(Sweep::parse({"kernel=user:mine,naive", "TILE=8,32"}), start);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].kernel, (KernelConfig{"user:mine", {{"TILE", 8}, {"PAD", 0}}, kUserSource}));
  EXPECT_EQ(runs[1].kernel, (KernelConfig{"user:mine", {{"TILE", 32}, {"PAD", 0}}, kUserSource}));
  EXPECT_EQ(runs[2].kernel, resolve({"naive", {}}));  // no TILE: once, and no source
  EXPECT_TRUE(contains(refusalOf([&] { planRuns(Sweep::parse({"WIDTH=4"}), start); }),
                       "--sweep: unknown key 'WIDTH'"));
  EXPECT_TRUE(contains(refusalOf([&] { planRuns(Sweep::parse({"TILE=12"}), start); }),
                       "user:mine: TILE = 12 is refused"));
}

TEST(SweepPlan, AUserKernelAutotunesOverEveryDeclaredValue) {
  RunRequest base;
  base.kernel = {"user:mine", {}, kUserSource};
  const AutotunePlan plan =
      planAutotune("user:mine", {64, 64, 64}, base, "cuda", catalogueRefusal("cuda"));
  ASSERT_EQ(plan.runs.size(), 6u);  // TILE 8, 16, 32 by PAD 0, 1
  for (const RunRequest& run : plan.runs) EXPECT_EQ(run.kernel.source, kUserSource);
  EXPECT_EQ(plan.runs.back().kernel.params, (Params{{"TILE", 32}, {"PAD", 1}}));
  EXPECT_TRUE(plan.refused.empty());
}

// 40 two-valued TS_PARAMs are 2^40 configurations: refused with the count before any is made
// (enumerating them took 24 GB). The limit is a sweep's.
std::string twoValuedParams(int count) {
  std::string source;
  for (int p = 0; p < count; ++p) source += "TS_PARAM(P" + std::to_string(p) + ", 0, 0, 1)\n";
  return source + "TS_LAUNCH(32, 1, 1, 1, 0)\nTS_KERNEL {}\n";
}

TEST(SweepPlan, AnAutotuneOfMoreConfigurationsThanAPlanHoldsIsRefusedWithItsCount) {
  RunRequest base;
  base.kernel = {"user:m", {}, twoValuedParams(40)};
  EXPECT_EQ(configurationCount(kernelInfo(base.kernel)), std::uint64_t(1) << 40);
  const std::string refused = refusalOf([&] {
    planAutotune("user:m", {64, 64, 64}, base, "cpu", catalogueRefusal("cpu"));
  });
  EXPECT_TRUE(contains(refused, "--autotune user:m: the kernel has 1099511627776 configurations"))
      << refused;
  EXPECT_TRUE(contains(refused, "more than the 100000 one autotune may run")) << refused;
  // 200 of them saturate the count.
  base.kernel.source = twoValuedParams(200);
  EXPECT_EQ(configurationCount(kernelInfo(base.kernel)), std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(contains(refusalOf([&] {
                         planAutotune("user:m", {64, 64, 64}, base, "cpu", catalogueRefusal("cpu"));
                       }),
                       "has more than 18446744073709551615 configurations"));
  // 2^12 = 4,096 stay within the limit and are made, the last parameter turning fastest.
  base.kernel.source = twoValuedParams(12);
  const AutotunePlan plan =
      planAutotune("user:m", {64, 64, 64}, base, "cpu", catalogueRefusal("cpu"));
  ASSERT_EQ(plan.runs.size(), 4096u);
  EXPECT_EQ(plan.runs[1].kernel.params.at("P11"), 1);
  EXPECT_EQ(plan.runs[1].kernel.params.at("P10"), 0);
  EXPECT_EQ(plan.runs.back().kernel.params.at("P0"), 1);
}

TEST(SweepPlan, AxesBuiltInCodeAreCheckedLikeParsedOnes) {
  EXPECT_TRUE(contains(refusalOf([] {
                         Sweep({{"kernel", {"naive", "nosuch"}}});
                       }),
                       "unknown kernel 'nosuch'"));
  EXPECT_TRUE(contains(refusalOf([] {
                         Sweep(std::vector<SweepAxis>{{"kernel", {}}});
                       }),
                       "empty value"));
  EXPECT_EQ(Sweep({{"kernel", {"naive", "library"}}}).axes().size(), 1u);
}

}  // namespace
}  // namespace tilescope::plan
