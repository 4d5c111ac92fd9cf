// SPDX-License-Identifier: GPL-3.0-or-later
// The catalogue: ids, parameters and their refusals, defaults, and the parameter text format.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/families.hpp"

namespace tilescope {
namespace {

// The error kind a call throws; fails the test if it throws none.
template <typename Fn>
ErrorKind thrownKind(Fn&& fn) {
  try {
    fn();
  } catch (const Error& error) {
    return error.kind();
  }
  ADD_FAILURE() << "no tilescope::Error thrown";
  return ErrorKind::DeviceLost;
}

bool mentions(const std::optional<std::string>& text, const std::string& part) {
  return text && text->find(part) != std::string::npos;
}

TEST(Catalogue, ListsTheFoundationKernels) {
  std::vector<std::string> ids;
  for (const KernelInfo& info : catalogue()) ids.push_back(info.id);
  const std::vector<std::string> expected = {"serial",       "row-per-thread", "naive",  "shared-a",
                                             "shared-tiled", "register-tiled", "library"};
  for (const std::string& id : expected)
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
}

TEST(Catalogue, EveryEntryIsComplete) {
  for (const KernelInfo& info : catalogue()) {
    SCOPED_TRACE(info.id);
    EXPECT_FALSE(info.displayName.empty());
    EXPECT_FALSE(info.seed.empty());
    EXPECT_FALSE(info.teaching.empty());
    // Whatever multiplies fp32 runs on the CPU backend too; tensor-core kernels need a GPU.
    const bool fp32 = !elementRefusal(info, ElementType::F32);
    EXPECT_EQ(std::find(info.backends.begin(), info.backends.end(), "cpu") != info.backends.end(),
              fp32);
    EXPECT_NE(std::find(info.backends.begin(), info.backends.end(), "cuda"), info.backends.end());
    EXPECT_FALSE(info.types.empty());
    EXPECT_EQ(findKernel(info.id), &info);
    for (const ParamSpec& spec : info.params) {
      EXPECT_FALSE(spec.allowed.empty());
      EXPECT_TRUE(std::is_sorted(spec.allowed.begin(), spec.allowed.end()));
      EXPECT_TRUE(std::binary_search(spec.allowed.begin(), spec.allowed.end(), spec.defaultValue));
      EXPECT_FALSE(spec.refusal.empty());
      EXPECT_FALSE(spec.description.empty());
    }
  }
  EXPECT_FALSE(kernelInfo("library").hasMapping);
  EXPECT_TRUE(kernelInfo("shared-tiled").hasMapping);
}

TEST(Catalogue, ARunServersBackendRunsTheKernelsOfTheBackendItStandsFor) {
  EXPECT_EQ(implementationOf("cuda"), "cuda");
  EXPECT_EQ(implementationOf("cuda@gpu1"), "cuda");
  EXPECT_TRUE(implements(kernelInfo("naive"), "cpu@lab"));
  EXPECT_FALSE(implements(kernelInfo("tensor-mma"), "cpu@lab"));
  EXPECT_TRUE(implements(kernelInfo("tensor-mma"), "cuda@gpu1"));
  // The work bound of the backend it stands for applies.
  EXPECT_TRUE(workLimitRefusal(kernelInfo("serial"), "cpu@lab", {4096, 4096, 4096}).has_value());
}

TEST(Catalogue, TileRangesMatchTheKernels) {
  const std::vector<int> oneTo32 = [] {
    std::vector<int> values(32);
    for (int i = 0; i < 32; ++i) values[std::size_t(i)] = i + 1;
    return values;
  }();
  for (const char* id : {"row-per-thread", "naive", "shared-a", "shared-tiled"})
    EXPECT_EQ(kernelInfo(id).param("tile")->allowed, oneTo32) << id;
  EXPECT_EQ(kernelInfo("register-tiled").param("tile")->allowed,
            (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_TRUE(kernelInfo("serial").params.empty());
  EXPECT_TRUE(kernelInfo("library").params.empty());
}

TEST(Catalogue, RefusesBadTilesWithTheSpecsReason) {
  EXPECT_FALSE(refusal({"shared-tiled", {{"tile", 7}}}).has_value());
  EXPECT_FALSE(refusal({"register-tiled", {{"tile", 64}}}).has_value());
  for (int tile : {0, -1, 33}) {
    const auto reason = refusal({"naive", {{"tile", tile}}});
    EXPECT_TRUE(mentions(reason, "tile = " + std::to_string(tile))) << reason.value_or("");
    EXPECT_TRUE(mentions(reason, kernelInfo("naive").param("tile")->refusal));
  }
  for (int tile : {3, 12, 128}) {
    const auto reason = refusal({"register-tiled", {{"tile", tile}}});
    EXPECT_TRUE(mentions(reason, kernelInfo("register-tiled").param("tile")->refusal))
        << reason.value_or("");
  }
}

TEST(Catalogue, RefusesUnknownKernelsAndParameters) {
  EXPECT_TRUE(mentions(refusal({"nope", {}}), "unknown kernel 'nope'"));
  EXPECT_TRUE(mentions(refusal({"nope", {}}), "shared-tiled"));  // lists the known ids
  EXPECT_TRUE(mentions(refusal({"naive", {{"BM", 64}}}), "'BM'"));
  EXPECT_TRUE(mentions(refusal({"serial", {{"tile", 4}}}), "takes no parameters"));
  EXPECT_EQ(thrownKind([] { kernelInfo("nope"); }), ErrorKind::InvalidArgument);
  EXPECT_EQ(findKernel("nope"), nullptr);
}

TEST(Catalogue, ResolveFillsDefaultsAndKeepsGivenValues) {
  EXPECT_EQ(resolve({"row-per-thread", {}}).params(), (Params{{"tile", 32}}));
  EXPECT_EQ(resolve({"naive", {}}).params(), (Params{{"tile", 16}}));
  EXPECT_EQ(resolve({"shared-a", {}}).params(), (Params{{"tile", 16}}));
  EXPECT_EQ(resolve({"shared-tiled", {}}).params(), (Params{{"tile", 16}}));
  EXPECT_EQ(resolve({"register-tiled", {}}).params(), (Params{{"tile", 8}}));
  EXPECT_TRUE(resolve({"serial", {}}).params().empty());
  EXPECT_EQ(resolve({"shared-tiled", {{"tile", 7}}}).params(), (Params{{"tile", 7}}));
  // The resolved configuration carries its catalogue entry: nothing looks it up again.
  EXPECT_EQ(&resolve({"warptile", {}}).info(), &kernelInfo("warptile"));
  EXPECT_EQ(thrownKind([] {
              resolve({"shared-tiled", {{"tile", 33}}});
            }),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(thrownKind([] { resolve({"nope", {}}); }), ErrorKind::InvalidArgument);
}

// The ladder: what the catalogue accepts is exactly the set the maps declare valid (and the CUDA
// backend compiles), with each refusal naming the broken rule in the configuration's numbers.
template <typename Map>
void expectCatalogueMatchesTheMap(const std::string& id) {
  SCOPED_TRACE(id);
  const KernelInfo& info = kernelInfo(id);
  ASSERT_EQ(info.params.size(), Map::kAxes.size());
  for (std::size_t a = 0; a < info.params.size(); ++a) {
    EXPECT_EQ(info.params[a].name, Map::kAxes[a].name);
    EXPECT_EQ(int(info.params[a].allowed.size()), Map::kAxes[a].count);
  }
  const std::vector<KernelConfig> valid = validConfigurations(info);
  const auto compiled = maps::validConfigs<Map>();
  ASSERT_EQ(valid.size(), compiled.size());
  for (std::size_t i = 0; i < valid.size(); ++i)
    EXPECT_EQ(ladderMap<Map>(valid[i].params).values(), compiled[i].values()) << i;
  EXPECT_LT(valid.size(), std::size_t(maps::candidateCount<Map>()) + 1);
  // The default is one of them.
  EXPECT_FALSE(refusal({id, {}}).has_value()) << refusal({id, {}}).value_or("");
  EXPECT_FALSE(info.constraints.empty());
}

TEST(Catalogue, LadderConfigurationsAreExactlyTheMapsValidOnes) {
  expectCatalogueMatchesTheMap<maps::BlockTile1D>("blocktile-1d");
  expectCatalogueMatchesTheMap<maps::BlockTile2D>("blocktile-2d");
  expectCatalogueMatchesTheMap<maps::Vectorized>("vectorized");
  expectCatalogueMatchesTheMap<maps::Warptile>("warptile");
  expectCatalogueMatchesTheMap<maps::Pipelined>("pipelined");
  expectCatalogueMatchesTheMap<maps::Prefetched>("prefetched");
  expectCatalogueMatchesTheMap<maps::Tma>("tensor-tma");
  expectCatalogueMatchesTheMap<maps::Persistent>("tensor-persistent");
  expectCatalogueMatchesTheMap<maps::PersistentTf32>("tensor-tf32");
  expectCatalogueMatchesTheMap<maps::PersistentFp8>("tensor-fp8");
}

// The server packages carry machine code for sm_75 (Turing) and up: cp.async exists from sm_80,
// so the kernels built on it are refused on Turing (ptxas refuses to assemble them for sm_75,
// where they are left as a trap); the rest of the SIMT ladder runs there.
TEST(Catalogue, CpAsyncKernelsNeedAmpere) {
  for (const char* id : {"pipelined", "tensor-mma"}) {
    EXPECT_EQ(kernelInfo(id).cudaArchitecture.minimum, 80) << id;
    EXPECT_FALSE(kernelInfo(id).cudaArchitecture.only) << id;
  }
  for (const char* id :
       {"serial", "row-per-thread", "naive", "shared-a", "shared-tiled", "shared-tiled-padded",
        "register-tiled", "blocktile-1d", "blocktile-2d", "vectorized", "warptile", "prefetched"})
    EXPECT_EQ(kernelInfo(id).cudaArchitecture.minimum, 75) << id;
}

// tensor-persistent: a ladder rung of its own after tensor-tma, in the 16-bit types, on the GPU
// only, with its launch parameters (cluster, group) as autotune axes beside the tile's.
TEST(Catalogue, TensorPersistentIsTheRungAfterTensorTma) {
  const KernelInfo& info = kernelInfo("tensor-persistent");
  EXPECT_EQ(info.cudaArchitecture.minimum, 90);
  EXPECT_TRUE(info.cudaArchitecture.only) << "wgmma is built for sm_90a alone";
  EXPECT_EQ(info.backends, std::vector<std::string>{"cuda"});
  EXPECT_EQ(info.types, (std::vector<ElementType>{ElementType::F16, ElementType::BF16}));
  std::vector<std::string> names;
  for (const ParamSpec& spec : info.params) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"BM", "BN", "BK", "stages", "cluster", "group"}));
  EXPECT_EQ(info.param("cluster")->allowed, (std::vector<int>{1, 2}));
  EXPECT_EQ(info.param("group")->allowed, (std::vector<int>{8, 16}));
  // BN 128 with 4 or 6 stages, BN 256 with 4 (6 would take 288 KiB), each with every cluster and
  // group.
  EXPECT_EQ(validConfigurations(info).size(), 3u * 2u * 2u);
  const auto tooDeep = refusal({"tensor-persistent", {{"BN", 256}, {"stages", 6}}});
  EXPECT_TRUE(mentions(tooDeep, "227 KiB")) << tooDeep.value_or("");
  EXPECT_TRUE(mentions(refusal({"tensor-persistent", {{"cluster", 4}}}), "cluster is 1 or 2"));
  EXPECT_TRUE(elementRefusal(info, ElementType::F32).has_value());
  std::vector<std::string> ids;
  for (const KernelInfo& entry : catalogue()) ids.push_back(entry.id);
  const auto tma = std::find(ids.begin(), ids.end(), "tensor-tma");
  ASSERT_NE(tma, ids.end());
  ASSERT_NE(tma + 1, ids.end());
  EXPECT_EQ(*(tma + 1), "tensor-persistent");
}

// tensor-tf32: tensor-persistent's rung for tf32 alone, right after it, with its own tile (256 x
// 128, 32-deep) and the same launch parameters; tensor-persistent's tf32 refusal points to it.
TEST(Catalogue, TensorTf32IsTensorPersistentForTf32) {
  const KernelInfo& info = kernelInfo("tensor-tf32");
  EXPECT_EQ(info.cudaArchitecture.minimum, 90);
  EXPECT_TRUE(info.cudaArchitecture.only) << "wgmma is built for sm_90a alone";
  EXPECT_EQ(info.backends, std::vector<std::string>{"cuda"});
  EXPECT_EQ(info.types, std::vector<ElementType>{ElementType::TF32});
  EXPECT_EQ(info.param("BM")->defaultValue, 256);
  EXPECT_EQ(info.param("BN")->defaultValue, 128);
  EXPECT_EQ(info.param("BK")->defaultValue, 32);
  // 3 or 4 stages of 48 KiB, each with every cluster and group.
  EXPECT_EQ(validConfigurations(info).size(), 2u * 2u * 2u);
  EXPECT_TRUE(elementRefusal(info, ElementType::BF16).has_value());
  const auto persistentTf32 = elementRefusal(kernelInfo("tensor-persistent"), ElementType::TF32);
  EXPECT_TRUE(mentions(persistentTf32, "tensor-tf32")) << persistentTf32.value_or("");
  std::vector<std::string> ids;
  for (const KernelInfo& entry : catalogue()) ids.push_back(entry.id);
  const auto persistent = std::find(ids.begin(), ids.end(), "tensor-persistent");
  ASSERT_NE(persistent, ids.end());
  ASSERT_NE(persistent + 1, ids.end());
  EXPECT_EQ(*(persistent + 1), "tensor-tf32");
}

// tensor-fp8: tensor-persistent for the two FP8 types, the top of the ladder after tensor-tf32,
// with 128-deep k-steps (128 bytes of FP8); the 16-bit rungs' FP8 refusals point to it.
TEST(Catalogue, TensorFp8IsTheTopRung) {
  const KernelInfo& info = kernelInfo("tensor-fp8");
  EXPECT_EQ(info.cudaArchitecture.minimum, 90);
  EXPECT_TRUE(info.cudaArchitecture.only) << "wgmma is built for sm_90a alone";
  EXPECT_EQ(info.backends, std::vector<std::string>{"cuda"});
  EXPECT_EQ(info.types, (std::vector<ElementType>{ElementType::E4M3, ElementType::E5M2}));
  EXPECT_EQ(info.param("BM")->defaultValue, 128);
  EXPECT_EQ(info.param("BN")->defaultValue, 256);
  EXPECT_EQ(info.param("BK")->defaultValue, 128);
  // BN 128 with 4 or 6 stages of 32 KiB, BN 256 with 4 of 48 KiB, each with every cluster and
  // group.
  EXPECT_EQ(validConfigurations(info).size(), 3u * 2u * 2u);
  const auto tooDeep = refusal({"tensor-fp8", {{"stages", 6}}});
  EXPECT_TRUE(mentions(tooDeep, "227 KiB")) << tooDeep.value_or("");
  for (const ElementType other :
       {ElementType::F32, ElementType::TF32, ElementType::F16, ElementType::BF16})
    EXPECT_TRUE(elementRefusal(info, other).has_value()) << toString(other);
  const auto persistentFp8 = elementRefusal(kernelInfo("tensor-persistent"), ElementType::E4M3);
  EXPECT_TRUE(mentions(persistentFp8, "tensor-fp8")) << persistentFp8.value_or("");
  EXPECT_FALSE(elementRefusal(kernelInfo("library"), ElementType::E4M3).has_value());
  // cuBLASLt multiplies e5m2 only by e4m3: the library refuses e5m2 and names tensor-fp8.
  const auto libraryE5m2 = elementRefusal(kernelInfo("library"), ElementType::E5M2);
  EXPECT_TRUE(mentions(libraryE5m2, "tensor-fp8")) << libraryE5m2.value_or("");
  std::vector<std::string> ids;
  for (const KernelInfo& entry : catalogue()) ids.push_back(entry.id);
  const auto tf32 = std::find(ids.begin(), ids.end(), "tensor-tf32");
  ASSERT_NE(tf32, ids.end());
  ASSERT_NE(tf32 + 1, ids.end());
  EXPECT_EQ(*(tf32 + 1), "tensor-fp8");
}

TEST(Catalogue, LadderRefusalsNameTheBrokenRule) {
  // 128 x 128 / 4 threads is 4096: more than a block may hold.
  const auto tooMany = refusal({"blocktile-1d", {{"BM", 128}, {"BN", 128}, {"TM", 4}}});
  EXPECT_TRUE(mentions(tooMany, "4096 threads")) << tooMany.value_or("");
  // 256 threads cannot share the 64 x 8 A tile's 128 float4s evenly.
  const auto uneven =
      refusal({"vectorized", {{"BM", 64}, {"BN", 128}, {"BK", 8}, {"TM", 4}, {"TN", 8}}});
  EXPECT_TRUE(mentions(uneven, "256 threads")) << uneven.value_or("");
  EXPECT_TRUE(mentions(uneven, "128 and 256 float4s")) << uneven.value_or("");
  // One 64 x 64 warp tile in a 64 x 64 block: a single warp.
  const auto oneWarp =
      refusal({"warptile", {{"BM", 64}, {"BN", 64}, {"WM", 64}, {"WN", 64}, {"TM", 8}, {"TN", 4}}});
  EXPECT_TRUE(mentions(oneWarp, "= 1 warps")) << oneWarp.value_or("");
  // 8 lanes of TN = 8 cover 64 columns, more than WN = 32.
  const auto shape = refusal({"warptile", {{"WM", 64}, {"WN", 32}, {"TN", 8}}});
  EXPECT_TRUE(mentions(shape, "4TM x 8TN = 32 x 64")) << shape.value_or("");
  // A value outside the compiled set gets the axis's own reason.
  const auto unlisted = refusal({"warptile", {{"BM", 96}}});
  EXPECT_TRUE(mentions(unlisted, "BM is 64 or 128")) << unlisted.value_or("");
  EXPECT_EQ(thrownKind([] {
              resolve({"warptile", {{"WM", 64}, {"WN", 32}, {"TN", 8}}});
            }),
            ErrorKind::InvalidArgument);
}

TEST(Catalogue, ValidConfigurationsOfASeedKernelAreItsTiles) {
  const std::vector<KernelConfig> configs = validConfigurations(kernelInfo("register-tiled"));
  ASSERT_EQ(configs.size(), 7u);
  EXPECT_EQ(configs.front(), (KernelConfig{"register-tiled", {{"tile", 1}}}));
  EXPECT_EQ(configs.back(), (KernelConfig{"register-tiled", {{"tile", 64}}}));
  EXPECT_EQ(validConfigurations(kernelInfo("serial")).size(), 1u);
}

TEST(Catalogue, SerialWorkIsBoundedOnEveryBackend) {
  const KernelInfo& serial = kernelInfo("serial");
  for (const std::string& backend : serial.backends) {
    ASSERT_TRUE(serial.maxWork.count(backend)) << backend;
    EXPECT_GT(serial.maxWork.at(backend), 0) << backend;
  }
}

TEST(Catalogue, WorkLimitRefusalNamesTheBoundAndTheShape) {
  const KernelInfo& serial = kernelInfo("serial");
  const double bound = serial.maxWork.at("cuda");
  EXPECT_FALSE(workLimitRefusal(serial, "cuda", {1, 1, std::int64_t(bound)}).has_value());
  const auto why = workLimitRefusal(serial, "cuda", {1, 2, std::int64_t(bound)});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find(std::to_string(std::int64_t(bound))), std::string::npos) << *why;
  EXPECT_NE(why->find(std::to_string(2 * std::int64_t(bound))), std::string::npos) << *why;
  EXPECT_NE(why->find("cuda"), std::string::npos) << *why;
  // Kernels without a bound, and backends a bound does not name, are never refused.
  EXPECT_FALSE(workLimitRefusal(kernelInfo("naive"), "cuda", {8192, 8192, 8192}).has_value());
  EXPECT_FALSE(workLimitRefusal(serial, "no-such-backend", {8192, 8192, 8192}).has_value());
}

TEST(ParseParams, ReadsNamedValues) {
  EXPECT_EQ(parseParams(""), Params{});  // none (the front ends refuse an empty --param)
  EXPECT_EQ(parseParams("BM=128,TM=8"), (Params{{"BM", 128}, {"TM", 8}}));
  EXPECT_EQ(parseParams("tile=7"), (Params{{"tile", 7}}));
  EXPECT_EQ(parseParams("tile=-3"), (Params{{"tile", -3}}));  // refused later, by refusal()
}

TEST(ParseParams, RejectsMalformedText) {
  for (const char* text :
       {"BM", "=3", "BM=", "BM=x", "BM=12abc", "BM=1.5", "BM=1,BM=2", "BM=99999999999",
        // Issue #12: empty items were dropped ("tile=8," read as "tile=8").
        "tile=8,", ",tile=8", "tile=8,,BM=64"}) {
    EXPECT_EQ(thrownKind([&] { parseParams(text); }), ErrorKind::InvalidArgument) << text;
  }
}

TEST(ParseParams, MessagesQuoteTheTextAndSayWhatIsAllowed) {
  const auto message = [](const std::string& text) {
    try {
      parseParams(text);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("tile=8,"),
            "empty parameter in 'tile=8,': expected NAME=VALUE,..., e.g. BM=128,TM=8");
  EXPECT_EQ(message("tile=2147483648"),
            "parameter 'tile' = '2147483648' is out of range: a parameter is a whole number from "
            "-2147483648 to 2147483647");
  EXPECT_EQ(message("tile=\x1b"), "parameter 'tile' = '\\x1b' is not a whole number");
}

TEST(FormatParams, FollowsTheCatalogueOrderAndRoundTrips) {
  EXPECT_EQ(formatParams({"shared-tiled", {{"tile", 16}}}), "tile=16");
  EXPECT_EQ(formatParams(resolve({"warptile", {}})), "BM=128,BN=128,BK=16,WM=32,WN=64,TM=8,TN=4");
  EXPECT_EQ(formatParams({"serial", {}}), "");
  const KernelConfig config{"naive", {{"tile", 5}}};
  EXPECT_EQ(parseParams(formatParams(config)), config.params);
}

TEST(Catalogue, ElementRefusalNamesTheKernelsThatMultiplyTheType) {
  EXPECT_FALSE(elementRefusal(kernelInfo("naive"), ElementType::F32));
  EXPECT_FALSE(elementRefusal(kernelInfo("tensor-mma"), ElementType::BF16));
  EXPECT_FALSE(elementRefusal(kernelInfo("library"), ElementType::TF32));
  const auto why = elementRefusal(kernelInfo("naive"), ElementType::F16);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("tensor-mma"), std::string::npos) << *why;
  EXPECT_NE(why->find("library"), std::string::npos) << *why;
  EXPECT_TRUE(elementRefusal(kernelInfo("tensor-mma"), ElementType::F32));
}

}  // namespace
}  // namespace tilescope
