// SPDX-License-Identifier: GPL-3.0-or-later
// The remembered autotune results: one entry per backend, device, kernel, element type and size,
// the entry tuned nearest a run's size found for it, files written before the type was
// remembered still read (as the kernel's default type), and a bad type named in the error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tilescope/error.hpp"
#include "tilescope/plan/tuned_store.hpp"

namespace tilescope::plan {
namespace {

class TunedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::path(::testing::TempDir()) /
                 (std::string("tilescope-tuned-") +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string path() const { return (directory_ / "tuned.json").string(); }
  void write(const std::string& text) const { std::ofstream(path()) << text; }

  std::filesystem::path directory_;
};

const Params kFp16Best = {{"BM", 128}, {"BN", 256}, {"BK", 32},
                          {"WM", 64},  {"WN", 64},  {"stages", 4}};
const Params kTf32Best = {{"BM", 64}, {"BN", 128}, {"BK", 32},
                          {"WM", 32}, {"WN", 32},  {"stages", 3}};
const Shape kSize = {4096, 4096, 4096};

TEST_F(TunedStoreTest, KeepsOneEntryPerElementType) {
  {
    TunedStore store(path());
    store.remember(
        {"cuda", "H200", "tensor-mma", kFp16Best, {4096, 4096, 4096}, 600000, ElementType::F16});
    store.remember(
        {"cuda", "H200", "tensor-mma", kTf32Best, {4096, 4096, 4096}, 300000, ElementType::TF32});
    store.save();
  }
  const TunedStore reread(path());
  const auto fp16 = reread.find("cuda", "H200", "tensor-mma", ElementType::F16, kSize);
  const auto tf32 = reread.find("cuda", "H200", "tensor-mma", ElementType::TF32, kSize);
  ASSERT_TRUE(fp16 && tf32);
  EXPECT_EQ(fp16->params, kFp16Best);
  EXPECT_EQ(tf32->params, kTf32Best);
  EXPECT_EQ(tf32->element, ElementType::TF32);
  EXPECT_FALSE(reread.find("cuda", "H200", "tensor-mma", ElementType::BF16, kSize));

  // A new best in one type and size replaces that entry alone.
  TunedStore store(path());
  store.remember({"cuda", "H200", "tensor-mma", kTf32Best, kSize, 650000, ElementType::F16});
  EXPECT_EQ(store.find("cuda", "H200", "tensor-mma", ElementType::F16, kSize)->params, kTf32Best);
  EXPECT_EQ(store.find("cuda", "H200", "tensor-mma", ElementType::TF32, kSize)->gflops, 300000);
}

// Written before element types were remembered: every entry has no "element".
TEST_F(TunedStoreTest, ReadsEntriesWithoutATypeAsTheKernelsDefault) {
  write(R"({"format_version": 1, "entries": [
    {"backend": "cuda", "device": "H200", "kernel": "warptile", "params": {"BM": 128},
     "m": 4096, "n": 4096, "k": 4096, "gflops": 40000},
    {"backend": "cuda", "device": "H200", "kernel": "tensor-mma", "params": {"stages": 4},
     "m": 4096, "n": 4096, "k": 4096, "gflops": 500000}]})");
  const TunedStore store(path());
  EXPECT_TRUE(store.find("cuda", "H200", "warptile", ElementType::F32, kSize));
  ASSERT_TRUE(store.find("cuda", "H200", "tensor-mma", ElementType::F16, kSize));
  EXPECT_EQ(store.find("cuda", "H200", "tensor-mma", ElementType::F16, kSize)->params.at("stages"),
            4);
  EXPECT_FALSE(store.find("cuda", "H200", "tensor-mma", ElementType::BF16, kSize));
}

TEST_F(TunedStoreTest, SkipsAnEntryOfAnUnknownTypeWithAWarning) {
  write(R"({"format_version": 1, "entries": [
    {"backend": "cuda", "device": "H200", "kernel": "tensor-mma", "params": {}, "m": 1, "n": 1,
     "k": 1, "gflops": 1, "element": "fp8"}]})");
  const TunedStore store(path());
  EXPECT_FALSE(store.find("cuda", "H200", "tensor-mma", ElementType::F16, kSize));
  ASSERT_EQ(store.warnings().size(), 1u);
  EXPECT_NE(store.warnings().front().find("entries[0].element: 'fp8' is not an element type"),
            std::string::npos)
      << store.warnings().front();
}

// Issue #12: 8.7, 2^32+8 and true were read as tiles, 2^63 as a negative size.
TEST_F(TunedStoreTest, SkipsEntriesWithBadFieldsNamingTheirPath) {
  write(R"({"format_version": 1, "entries": [
    {"backend": "cpu", "device": "d", "kernel": "shared-tiled", "params": {"tile": 8.7},
     "m": 64, "n": 64, "k": 64, "gflops": 1},
    {"backend": "cpu", "device": "d", "kernel": "shared-tiled", "params": {"tile": 4294967304},
     "m": 64, "n": 64, "k": 64, "gflops": 1},
    {"backend": "cpu", "device": "d", "kernel": "shared-tiled", "params": {"tile": true},
     "m": 64, "n": 64, "k": 64, "gflops": 1},
    {"backend": "cpu", "device": "d", "kernel": "shared-tiled", "params": {"tile": 16},
     "m": 9223372036854775808, "n": 64, "k": 64, "gflops": 1},
    {"backend": "cpu", "device": "d", "kernel": "naive", "params": {},
     "m": 64, "n": 64, "k": 64, "gflops": -1},
    {"backend": "cpu", "device": "d", "kernel": "register-tiled", "params": {"tile": 16},
     "m": 64, "n": 64, "k": 64, "gflops": 12.5}]})");
  const TunedStore store(path());
  EXPECT_TRUE(store.find("cpu", "d", "register-tiled", ElementType::F32, kSize));
  EXPECT_FALSE(store.find("cpu", "d", "shared-tiled", ElementType::F32, kSize));
  EXPECT_FALSE(store.find("cpu", "d", "naive", ElementType::F32, kSize));
  const std::vector<std::string> expected = {
      "entries[0].params.tile: 8.7 is not a whole number",
      "entries[1].params.tile: 4294967304 is not a valid parameter value",
      "entries[2].params.tile: true is not a whole number",
      "entries[3].m: 9223372036854775808 is not a valid size",
      "entries[4].gflops: -1 is out of range"};
  ASSERT_EQ(store.warnings().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NE(store.warnings()[i].find(expected[i]), std::string::npos) << store.warnings()[i];
}

TEST_F(TunedStoreTest, RefusesAStringVersionAndAFutureOne) {
  for (const char* version : {R"("1")", "9223372036854775808", "2"}) {
    write(std::string(R"({"format_version": )") + version + R"(, "entries": []})");
    EXPECT_THROW(TunedStore{path()}, Error) << version;
  }
}

// Each size keeps its own best; a run takes the entry tuned nearest its own size (by the ratio
// of M * N * K), so prefetched at 1024^3 runs the 1024-tuned tile, not the 4096 one.
TEST_F(TunedStoreTest, ARunTakesTheEntryTunedNearestItsSize) {
  const Params small = {{"BM", 64}}, large = {{"BM", 256}};
  {
    TunedStore store(path());
    store.remember({"cuda", "H200", "prefetched", small, {1024, 1024, 1024}, 40000});
    store.remember({"cuda", "H200", "prefetched", large, {4096, 4096, 4096}, 46000});
    store.save();
  }
  const TunedStore store(path());
  const auto at = [&](Shape shape) {
    return store.find("cuda", "H200", "prefetched", ElementType::F32, shape)->params;
  };
  EXPECT_EQ(at({1024, 1024, 1024}), small);
  EXPECT_EQ(at({512, 512, 512}), small);
  EXPECT_EQ(at({4096, 4096, 4096}), large);
  EXPECT_EQ(at({8192, 8192, 8192}), large);
  EXPECT_EQ(at({3000, 3000, 3000}), large);  // 3000^3 is nearer 4096^3 than 1024^3 by ratio
  EXPECT_EQ(at({1536, 1536, 1536}), small);
  EXPECT_EQ(at({2048, 2048, 2048}), large);  // a tie: the larger entry
  EXPECT_EQ(at({4096, 4096, 64}), small);    // flat: 1 G multiply-adds, as 1024^3
  EXPECT_FALSE(store.find("cuda", "H100", "prefetched", ElementType::F32, {1024, 1024, 1024}));
}

}  // namespace
}  // namespace tilescope::plan
