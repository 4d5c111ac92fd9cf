// SPDX-License-Identifier: GPL-3.0-or-later
// The report library: JSON and CSV round trips, RFC 4180 quoting, and clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

namespace {

using tilescope::RunResult;
namespace report = tilescope::report;

// Every field set, with text that needs CSV quoting and numbers that need every digit.
RunResult fullResult() {
  RunResult r;
  r.backend = "cuda";
  r.device = "NVIDIA \"H100\", 80GB\nHBM3";
  r.kernel = {"block-tiled", {{"BM", 128}, {"TM", 8}}};
  r.shape = {1000, 33, 4097};
  r.stats = {1.0 / 3.0, 0.25, 2.5e-3 + 1.0, 0.015625, 17};
  r.gflops = 12345.678901234567;
  r.verification = tilescope::Verification{1.5e-7, 2.25e-8, 3.0e-5, 0, 9.5367431640625e-7, true};
  r.phases = tilescope::Phases{0.125, 1.0 / 7.0, 0.0625};
  r.unsyncedHostMs = 0.0078125;
  r.resources = tilescope::KernelResources{168, 49920, 16, 256, 1, 0.125};
  r.element = tilescope::ElementType::BF16;
  r.counters =
      tilescope::HardwareCounters{1.5e9, 2.5e8, 3e7,    4096,    16384,
                                  512,   2048,  8192,   9216,    1024,
                                  1280,  17,    0.4375, 0.71875, "CUPTI range profiler (GH100)"};
  return r;
}

// Only what every run has: no verification, phases or host reading.
RunResult minimalResult() {
  RunResult r;
  r.backend = "cpu";
  r.device = "Some CPU";
  r.kernel = {"serial", {}};
  r.shape = {1, 2, 3};
  r.stats = {4.0, 3.0, 5.0, 0.5, 10};
  r.gflops = 0.5;
  return r;
}

// A run that failed verification: an element stayed NaN.
RunResult failedResult() {
  RunResult r = minimalResult();
  r.kernel = {"shared-tiled", {{"tile", 16}}};
  r.countersUnavailable = "profiling is reserved to administrators, \"quoted\", on two\nlines";
  r.verification = tilescope::Verification{std::nan(""), std::nan(""), 0.0, 3, 1e-6, false};
  return r;
}

// Equal, or both NaN: an unwritten output makes the error NaN, and NaN must survive a round trip.
void expectSameNumber(double a, double b) {
  EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << a << " vs " << b;
}

void expectSameCsvFields(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.kernel, b.kernel);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.element, b.element);
  EXPECT_EQ(a.stats.medianMs, b.stats.medianMs);
  EXPECT_EQ(a.stats.minMs, b.stats.minMs);
  EXPECT_EQ(a.stats.maxMs, b.stats.maxMs);
  EXPECT_EQ(a.stats.reps, b.stats.reps);
  EXPECT_EQ(a.gflops, b.gflops);
  EXPECT_EQ(a.verified(), b.verified());
  ASSERT_EQ(a.verification.has_value(), b.verification.has_value());
  if (a.verification) expectSameNumber(a.verification->relError, b.verification->relError);
  ASSERT_EQ(a.phases.has_value(), b.phases.has_value());
  if (a.phases) {
    EXPECT_EQ(a.phases->h2dMs, b.phases->h2dMs);
    EXPECT_EQ(a.phases->kernelMs, b.phases->kernelMs);
    EXPECT_EQ(a.phases->d2hMs, b.phases->d2hMs);
  }
  EXPECT_EQ(a.unsyncedHostMs, b.unsyncedHostMs);
  EXPECT_EQ(a.resources, b.resources);
  EXPECT_EQ(a.counters, b.counters);
  EXPECT_EQ(a.countersUnavailable, b.countersUnavailable);
}

void expectSameEveryField(const RunResult& a, const RunResult& b) {
  expectSameCsvFields(a, b);
  EXPECT_EQ(a.stats.spread, b.stats.spread);
  if (a.verification && b.verification) {
    expectSameNumber(a.verification->normalizedError, b.verification->normalizedError);
    EXPECT_EQ(a.verification->maxAbsError, b.verification->maxAbsError);
    EXPECT_EQ(a.verification->nonFinite, b.verification->nonFinite);
    EXPECT_EQ(a.verification->tolerance, b.verification->tolerance);
    EXPECT_EQ(a.verification->passed, b.verification->passed);
  }
}

// Expects `action` to throw tilescope::Error(InvalidArgument) whose message contains `part`.
template <typename Action>
void expectInvalid(Action action, const std::string& part) {
  try {
    action();
    ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
  } catch (const tilescope::Error& e) {
    EXPECT_EQ(e.kind(), tilescope::ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::vector<RunResult> readCsvText(const std::string& text) {
  std::istringstream in(text);
  return report::readCsv(in);
}

TEST(ReportJson, RoundTripKeepsEveryField) {
  for (const RunResult& original : {fullResult(), minimalResult(), failedResult()}) {
    // Through text, as a session file or --format json would carry it.
    const nlohmann::json parsed = nlohmann::json::parse(report::toJson(original).dump());
    expectSameEveryField(report::resultFromJson(parsed), original);
  }
}

TEST(ReportJson, AUserKernelsResultKeepsItsSource) {
  RunResult mine = minimalResult();
  mine.backend = "cuda";
  mine.kernel = {"user:mine", {{"TILE", 16}}, "TS_PARAM(TILE, 16, 8, 16)\n// \"quoted\"\n"};
  const nlohmann::json written = report::toJson(mine);
  EXPECT_EQ(written.at("kernel"), "user:mine");
  EXPECT_EQ(written.at("source"), *mine.kernel.source);
  const RunResult back = report::resultFromJson(nlohmann::json::parse(written.dump()));
  EXPECT_EQ(back.kernel, mine.kernel);
  // A catalogue kernel's result has no source member at all.
  EXPECT_FALSE(report::toJson(minimalResult()).contains("source"));
  EXPECT_FALSE(report::resultFromJson(report::toJson(minimalResult())).kernel.source);
}

// A result (from a server, a session or a file) whose source holds a TS_PARAM line 61,440
// characters long (issue #37): read whole, shown with its parameters, refused to run with the
// line's length, never a crash.
TEST(ReportJson, AResultWhoseSourceHoldsALineTensOfKilobytesLongIsReadAndRefusedToRun) {
  std::string line = "TS_PARAM(TILE, 16";
  for (int i = 0; i < 20000; ++i) line += ", 8";
  line += ")";
  line.resize(61440, ' ');
  RunResult mine = minimalResult();
  mine.kernel = {"user:mine", {{"TILE", 16}}, "// mine\n" + line + "\nTS_KERNEL {}\n"};
  const RunResult back = report::resultFromJson(nlohmann::json::parse(report::toJson(mine).dump()));
  EXPECT_EQ(back.kernel, mine.kernel);
  EXPECT_EQ(tilescope::formatParams(back.kernel), "TILE=16");
  const std::string why =
      "mine.cu line 2: the line is 61,440 characters long; the limit is 4,096: split it into "
      "shorter lines";
  EXPECT_EQ(tilescope::refusal(back.kernel), why);
  // A session's results, and a request a server reads.
  std::vector<std::string> warnings;
  const auto results =
      report::resultsFromJson(nlohmann::json::array({report::toJson(mine)}), "results", &warnings);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].kernel.source, mine.kernel.source);
  tilescope::RunRequest request;
  request.kernel = mine.kernel;
  request.shape = {64, 64, 64};
  const tilescope::RunRequest read = report::requestFromJson(report::toJson(request));
  EXPECT_EQ(tilescope::refusal(read.kernel), why);
}

TEST(ReportJson, WritesTheDocumentedFields) {
  const nlohmann::json j = report::toJson(fullResult());
  EXPECT_EQ(j.at("format_version"), report::kFormatVersion);
  EXPECT_EQ(j.at("params"), (nlohmann::json{{"BM", 128}, {"TM", 8}}));
  EXPECT_EQ(j.at("verified"), true);
  EXPECT_EQ(j.at("phases").at("h2d_ms"), 0.125);
  EXPECT_EQ(j.at("stats").at("reps"), 17);
  EXPECT_EQ(j.at("resources").at("registers"), 168);
  EXPECT_EQ(j.at("resources").at("shared_bytes"), 49920);
  EXPECT_EQ(j.at("resources").at("local_bytes"), 16);
  EXPECT_EQ(j.at("resources").at("blocks_per_sm"), 1);
  EXPECT_EQ(j.at("resources").at("occupancy"), 0.125);
  EXPECT_EQ(j.at("element"), "bf16");
  const nlohmann::json minimal = report::toJson(minimalResult());
  EXPECT_TRUE(minimal.at("verification").is_null());
  EXPECT_TRUE(minimal.at("phases").is_null());
  EXPECT_TRUE(minimal.at("unsynced_host_ms").is_null());
  EXPECT_TRUE(minimal.at("resources").is_null());
  EXPECT_EQ(minimal.at("verified"), false);
  // JSON has no NaN: an unmeasurable error is null, and reads back as NaN.
  EXPECT_TRUE(report::toJson(failedResult()).at("verification").at("rel_error").is_null());
}

TEST(ReportJson, MissingOrMistypedFieldsAreNamed) {
  nlohmann::json noKernel = report::toJson(fullResult());
  noKernel.erase("kernel");
  expectInvalid([&] { report::resultFromJson(noKernel); }, "result.kernel is missing");

  nlohmann::json textM = report::toJson(fullResult());
  textM["m"] = "1000";
  expectInvalid([&] { report::resultFromJson(textM); }, "result.m: '1000' is not a whole number");

  nlohmann::json badReps = report::toJson(fullResult());
  badReps["stats"]["reps"] = 1.5;
  expectInvalid([&] { report::resultFromJson(badReps); }, "result.stats.reps");

  nlohmann::json newer = report::toJson(fullResult());
  newer["format_version"] = report::kFormatVersion + 1;
  expectInvalid([&] { report::resultFromJson(newer); }, "format_version");

  expectInvalid([] { report::resultFromJson(nlohmann::json::array()); }, "not a JSON object");

  nlohmann::json badRegisters = report::toJson(fullResult());
  badRegisters["resources"]["registers"] = "many";
  expectInvalid([&] { report::resultFromJson(badRegisters); },
                "result.resources.registers: 'many' is not a whole number");
}

// Issue #12: every field is checked for type and range, and named by its JSON path.
TEST(ReportJson, OutOfRangeFieldsAreRefusedWithTheirPath) {
  const auto with = [](const char* pointer, const nlohmann::json& value) {
    nlohmann::json json = report::toJson(fullResult());
    json[nlohmann::json::json_pointer(pointer)] = value;
    return json;
  };
  const std::int64_t twoTo63 = std::numeric_limits<std::int64_t>::max();
  expectInvalid([&] { report::resultFromJson(with("/m", -256)); },
                "result.m: -256 is not a valid size (a whole number from 1 to 2147483647)");
  expectInvalid([&] { report::resultFromJson(with("/n", 0)); }, "result.n: 0 is not a valid size");
  expectInvalid([&] { report::resultFromJson(with("/k", std::uint64_t(twoTo63) + 1)); },
                "result.k: 9223372036854775808 is not a valid size");
  expectInvalid([&] { report::resultFromJson(with("/m", 2147483648LL)); },
                "result.m: 2147483648 is not a valid size");
  expectInvalid([&] { report::resultFromJson(with("/stats/reps", -3)); },
                "result.stats.reps: -3 is not a valid repetition count");
  expectInvalid([&] { report::resultFromJson(with("/stats/reps", 0)); },
                "result.stats.reps: 0 is not a valid repetition count");
  expectInvalid([&] { report::resultFromJson(with("/params/tile", 8.7)); },
                "result.params.tile: 8.7 is not a whole number");
  expectInvalid([&] { report::resultFromJson(with("/params/tile", 4294967304LL)); },
                "result.params.tile: 4294967304 is not a valid parameter value");
  expectInvalid([&] { report::resultFromJson(with("/gflops", -5.0)); },
                "result.gflops: -5.0 is out of range (a finite number above 0)");
  expectInvalid([&] { report::resultFromJson(with("/stats/median_ms", 0.0)); },
                "result.stats.median_ms: 0.0 is out of range");
  expectInvalid(
      [&] { report::resultFromJson(with("/format_version", std::uint64_t(twoTo63) + 1)); },
      "result.format_version: 9223372036854775808 is newer than this build reads");
  expectInvalid([&] { report::resultFromJson(with("/format_version", 0)); },
                "result.format_version: 0 is not a valid format version");
}

TEST(ReportJson, LongAndControlCharacterValuesAreQuotedShort) {
  nlohmann::json json = report::toJson(fullResult());
  json["m"] = std::string(100000, '7') + "\x1b";
  try {
    report::resultFromJson(json);
    FAIL() << "a text size was read";
  } catch (const tilescope::Error& e) {
    const std::string message = e.what();
    EXPECT_LT(message.size(), 200u) << message;
    EXPECT_NE(message.find("(100001 characters)"), std::string::npos) << message;
  }
  json["m"] = "12\n\x1b";
  try {
    report::resultFromJson(json);
    FAIL() << "a text size was read";
  } catch (const tilescope::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'12\\n\\x1b'"), std::string::npos) << e.what();
  }
}

TEST(ReportJson, DocumentVersionMustBeAKnownInteger) {
  nlohmann::json document = report::toJson(report::ResultsDocument{{}, {minimalResult()}, {}},
                                           "2026-11-23T00:00:00Z", "t");
  document["version"] = "1";
  expectInvalid([&] { report::resultsDocumentFromJson(document); },
                "version: '1' is not a whole number");
  document["version"] = std::uint64_t(1) << 63;
  expectInvalid([&] { report::resultsDocumentFromJson(document); },
                "version: 9223372036854775808 is newer than this build reads");
}

TEST(ReportJson, ABadResultIsSkippedWithAWarningNamingItsPath) {
  report::ResultsDocument written{{}, {minimalResult(), fullResult(), minimalResult()}, {}};
  nlohmann::json document = report::toJson(written, "2026-11-23T00:00:00Z", "test");
  document["results"][1]["m"] = -256;
  const report::ResultsDocument read = report::resultsDocumentFromJson(document);
  EXPECT_EQ(read.results.size(), 2u);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings.front(),
            "results[1].m: -256 is not a valid size (a whole number from 1 to 2147483647); that "
            "result is skipped");
}

TEST(ReportJson, ReadsResultsWrittenBeforeResourcesExisted) {
  nlohmann::json older = report::toJson(fullResult());
  older.erase("resources");
  EXPECT_FALSE(report::resultFromJson(older).resources.has_value());
}

TEST(ReportJson, ResultsWithoutAnElementTypeAreFp32AndUnknownTypesAreNamed) {
  nlohmann::json older = report::toJson(fullResult());
  older.erase("element");
  EXPECT_EQ(report::resultFromJson(older).element, tilescope::ElementType::F32);
  nlohmann::json unknown = report::toJson(fullResult());
  unknown["element"] = "fp8";
  expectInvalid([&] { report::resultFromJson(unknown); }, "'fp8' is not an element type");
}

TEST(ReportJson, DeviceRoundTripKeepsTheFactOrder) {
  tilescope::DeviceInfo device{
      1, "NVIDIA H200", {{"SMs", "132"}, {"compute capability", "9.0"}, {"memory", "139 GiB"}}};
  const auto back = report::deviceFromJson(nlohmann::json::parse(report::toJson(device).dump()));
  EXPECT_EQ(back.index, 1);
  EXPECT_EQ(back.name, device.name);
  EXPECT_EQ(back.facts, device.facts);
  expectInvalid(
      [] {
        report::deviceFromJson({{"format_version", 1}, {"index", 0}});
      },
      "device.name is missing");
}

// A GPU's ceilings with datasheet figures, and a CPU's without.
std::vector<tilescope::DeviceCeilings> someCeilings() {
  using tilescope::Ceiling;
  return {{"cuda",
           "NVIDIA H200",
           {{"FP32", "GFLOP/s", 51234.5, 66900.0, "cuBLAS SGEMM 8192x8192x8192, median of 10"},
            {"BF16 tensor", "GFLOP/s", 780000.25, 989400.0, "cublasGemmEx"}},
           {"memory bandwidth", "GB/s", 4312.75, 4800.0, "cudaMemcpy, 1 GiB"}},
          {"cpu",
           "Some \"CPU\", 2 cores",
           {{"FP32", "GFLOP/s", 205.125, std::nullopt, "OpenBLAS sgemm"}},
           {"memory bandwidth", "GB/s", 24.5, std::nullopt, "memcpy"}}};
}

TEST(ReportJson, CeilingsRoundTripThroughADocument) {
  const report::ResultsDocument document{{}, {minimalResult()}, someCeilings()};
  const nlohmann::json written = report::toJson(document, "2026-11-21T00:00:00Z", "test");
  EXPECT_TRUE(written.at("ceilings")[1].at("bandwidth").at("datasheet").is_null());
  const report::ResultsDocument read =
      report::resultsDocumentFromJson(nlohmann::json::parse(written.dump()));
  EXPECT_EQ(read.ceilings, document.ceilings);
  ASSERT_EQ(read.results.size(), 1u);
}

TEST(ReportJson, DocumentsWithoutCeilingsStillOpen) {
  // Written before the roofline existed: no "ceilings" key at all.
  const report::ResultsDocument document{{}, {minimalResult()}, {}};
  const nlohmann::json written = report::toJson(document, "2026-11-21T00:00:00Z", "test");
  EXPECT_FALSE(written.contains("ceilings")) << "no ceilings, no key: older readers see no change";
  const report::ResultsDocument read = report::resultsDocumentFromJson(written);
  EXPECT_TRUE(read.ceilings.empty());
  EXPECT_EQ(read.results.size(), 1u);
}

TEST(ReportJson, MalformedCeilingsAreNamed) {
  nlohmann::json noMeasured = report::ceilingsToJson(someCeilings());
  noMeasured[0]["compute"][1].erase("measured");
  expectInvalid([&] { report::ceilingsFromJson(noMeasured); },
                "ceilings[0].compute[1].measured is missing");
  nlohmann::json textDatasheet = report::ceilingsToJson(someCeilings());
  textDatasheet[1]["bandwidth"]["datasheet"] = "fast";
  expectInvalid([&] { report::ceilingsFromJson(textDatasheet); },
                "ceilings[1].bandwidth.datasheet: 'fast' is not a number");
  expectInvalid([] { report::ceilingsFromJson(nlohmann::json::object()); }, "not a list");
}

TEST(ReportCeilings, TableShowsMeasuredBesideTheDatasheet) {
  std::ostringstream out;
  report::writeCeilingsTable(out, someCeilings());
  std::istringstream lines(out.str());
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  // A header, then each device's compute ceilings and its bandwidth.
  ASSERT_EQ(rows.size(), 6u) << out.str();
  for (const char* column : {"ceiling", "measured", "datasheet", "of datasheet", "method"})
    EXPECT_NE(rows[0].find(column), std::string::npos) << column;
  EXPECT_NE(rows[1].find("51234.5 GFLOP/s"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("66900.0 GFLOP/s"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("76.6 %"), std::string::npos) << rows[1];  // 51234.5 / 66900
  EXPECT_NE(rows[3].find("89.8 %"), std::string::npos) << rows[3];  // 4312.75 / 4800
  EXPECT_NE(rows[4].find("205.1 GFLOP/s"), std::string::npos) << rows[4];
  // The method column starts at the same place in every row.
  const std::size_t method = rows[0].find("method");
  EXPECT_EQ(rows[1].find("cuBLAS"), method);
  EXPECT_EQ(rows[5].find("memcpy"), method);
}

TEST(ReportCeilings, CsvHasOneRowPerCeiling) {
  std::ostringstream out;
  report::writeCeilingsCsv(out, someCeilings());
  std::istringstream lines(out.str());
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0],
            "backend,device,ceiling,unit,measured,datasheet,measured_over_datasheet,method");
  const std::string bandwidth = "cuda,NVIDIA H200,memory bandwidth,GB/s,4312.75,4800,";
  ASSERT_EQ(rows[3].rfind(bandwidth, 0), 0u) << rows[3];
  const std::string ratio =
      rows[3].substr(bandwidth.size(), rows[3].find(',', bandwidth.size()) - bandwidth.size());
  EXPECT_DOUBLE_EQ(std::stod(ratio), 4312.75 / 4800);
  EXPECT_TRUE(rows[3].ends_with(",\"cudaMemcpy, 1 GiB\"")) << rows[3];
  EXPECT_EQ(rows[4].rfind("cpu,\"Some \"\"CPU\"\", 2 cores\",FP32,GFLOP/s,205.125,,,", 0), 0u)
      << rows[4];
}

TEST(ReportCsv, HeaderIsTheDocumentedColumnsInOrder) {
  const std::vector<std::string> expected = {"backend",
                                             "device",
                                             "kernel",
                                             "params",
                                             "M",
                                             "N",
                                             "K",
                                             "median_ms",
                                             "min_ms",
                                             "max_ms",
                                             "gflops",
                                             "rel_error",
                                             "verified",
                                             "reps",
                                             "h2d_ms",
                                             "kernel_ms",
                                             "d2h_ms",
                                             "unsynced_host_ms",
                                             "registers",
                                             "shared_bytes",
                                             "local_bytes",
                                             "threads_per_block",
                                             "blocks_per_sm",
                                             "occupancy",
                                             "element",
                                             "dram_read_bytes",
                                             "dram_write_bytes",
                                             "l2_sectors_from_l1",
                                             "global_load_requests",
                                             "global_load_sectors",
                                             "global_store_requests",
                                             "global_store_sectors",
                                             "shared_load_requests",
                                             "shared_load_wavefronts",
                                             "shared_store_requests",
                                             "shared_store_wavefronts",
                                             "shared_bank_conflicts",
                                             "achieved_occupancy",
                                             "tensor_pipe_utilisation",
                                             "counters_source",
                                             "counters_unavailable"};
  EXPECT_EQ(report::csvHeader(), expected);
  EXPECT_EQ(report::csvRow(fullResult()).size(), expected.size());
}

TEST(ReportCsv, RoundTripKeepsEveryCsvField) {
  const std::vector<RunResult> original = {fullResult(), minimalResult(), failedResult()};
  std::ostringstream out;
  report::writeCsv(out, original);
  const auto back = readCsvText(out.str());
  ASSERT_EQ(back.size(), original.size());
  for (std::size_t i = 0; i < back.size(); ++i) expectSameCsvFields(back[i], original[i]);
}

// The first `columns` columns of a result, as an older tilescope-bench wrote them.
std::string olderCsv(const RunResult& result, std::size_t columns) {
  const std::vector<std::string> header = report::csvHeader(), cells = report::csvRow(result);
  std::string text;
  for (std::size_t i = 0; i < columns; ++i) text += (i ? "," : "") + header[i];
  text += "\n";
  for (std::size_t i = 0; i < columns; ++i)
    text += (i ? "," : "") + (i == 3 ? '"' + cells[i] + '"' : cells[i]);
  return text + "\n";
}

TEST(ReportCsv, ReadsFilesWrittenBeforeTheResourceColumns) {
  // The first 18 columns alone: no resources, and fp32 (the only type then).
  RunResult result = fullResult();
  result.device = "GPU";  // nothing to quote
  const auto back = readCsvText(olderCsv(result, 18));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_FALSE(back[0].resources.has_value());
  result.resources.reset();
  result.counters.reset();
  result.element = tilescope::ElementType::F32;
  expectSameCsvFields(back[0], result);
}

TEST(ReportCsv, ReadsFilesWrittenBeforeTheElementColumn) {
  RunResult result = fullResult();
  result.device = "GPU";
  const auto back = readCsvText(olderCsv(result, 24));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].resources.has_value());
  result.counters.reset();
  result.element = tilescope::ElementType::F32;
  expectSameCsvFields(back[0], result);
}

TEST(ReportCsv, ReadsFilesWrittenBeforeTheCounterColumns) {
  RunResult result = fullResult();
  result.device = "GPU";
  const auto back = readCsvText(olderCsv(result, 25));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_FALSE(back[0].counters.has_value());
  result.counters.reset();
  expectSameCsvFields(back[0], result);
}

TEST(ReportCsv, QuotesParamsAndFieldsThatNeedIt) {
  RunResult tiled = minimalResult();
  tiled.kernel = {"shared-tiled", {{"tile", 16}}};
  std::ostringstream out;
  report::writeCsv(out, {tiled, fullResult(), minimalResult()});
  const std::string text = out.str();
  EXPECT_NE(text.find(",\"tile=16\","), std::string::npos) << text;
  EXPECT_NE(text.find(",\"BM=128,TM=8\","), std::string::npos) << text;
  EXPECT_NE(text.find("\"NVIDIA \"\"H100\"\", 80GB\nHBM3\""), std::string::npos) << text;
  EXPECT_EQ(text.rfind("backend,device,kernel,params,M,N,K,", 0), 0u);
  EXPECT_NE(text.find(",\"\",1,2,3,"), std::string::npos) << "an empty params is quoted too";
}

TEST(ReportCsv, ReadsCrlfLineEndings) {
  std::ostringstream out;
  report::writeCsv(out, {minimalResult()});
  std::string crlf;
  for (char c : out.str()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto back = readCsvText(crlf);
  ASSERT_EQ(back.size(), 1u);
  expectSameCsvFields(back[0], minimalResult());
}

TEST(ReportCsv, MalformedInputGivesALineAndColumn) {
  std::ostringstream out;
  report::writeCsv(out, {minimalResult()});
  const std::string good = out.str();
  const std::string header = good.substr(0, good.find('\n') + 1);
  const std::string row = good.substr(header.size());

  expectInvalid([] { readCsvText(""); }, "empty");
  expectInvalid([] { readCsvText("backend,device\n"); }, "column 3 'kernel' is missing");
  expectInvalid([&] { readCsvText("backend,gadget" + header.substr(14)); },
                "column 2 is 'gadget', expected 'device'");
  expectInvalid([&] { readCsvText(header + "cpu,x,serial\n"); }, "line 2: 3 fields, expected 41");

  std::string halfResources = row;
  halfResources.replace(halfResources.rfind(",,,,,,"), 6, ",64,,,,,");
  expectInvalid([&] { readCsvText(header + halfResources); }, "all given or all empty");

  std::string badM = row;
  badM.replace(badM.find(",1,2,3,"), 7, ",one,2,3,");
  expectInvalid([&] { readCsvText(header + badM); }, "line 2, column M: 'one' is not an integer");

  std::string badVerified = row;
  badVerified.replace(badVerified.find(",false,"), 7, ",maybe,");
  expectInvalid([&] { readCsvText(header + badVerified); }, "column verified");

  std::string verifiedWithoutError = row;
  verifiedWithoutError.replace(verifiedWithoutError.find(",false,"), 7, ",true,");
  expectInvalid([&] { readCsvText(header + verifiedWithoutError); }, "without a rel_error");

  expectInvalid([&] { readCsvText(header + "cpu,\"unterminated\n"); }, "unterminated");
  expectInvalid([&] { readCsvText(header + "cpu,\"quoted\"tail\n"); }, "after a closing quote");
}

TEST(ReportTable, AlignsColumnsAndShowsPhasesOnlyWhenMeasured) {
  std::ostringstream cpuOnly;
  report::writeTable(cpuOnly, {minimalResult(), failedResult()});
  std::istringstream lines(cpuOnly.str());
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  // The table, then why the failed run, which asked for counters, has none (on one line).
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3], "counters: profiling is reserved to administrators, \"quoted\", on two lines");
  rows.pop_back();
  EXPECT_EQ(rows[0].find("H2D"), std::string::npos);
  // Right-aligned numbers: each row's "reps" value ends where the header's does.
  EXPECT_EQ(rows[0].size(), rows[1].size());
  EXPECT_EQ(rows[1].size(), rows[2].size());
  EXPECT_NE(rows[1].find("skipped"), std::string::npos);
  EXPECT_NE(rows[2].find("false"), std::string::npos);

  std::ostringstream withPhases;
  report::writeTable(withPhases, {fullResult(), minimalResult()});
  EXPECT_NE(withPhases.str().find("H2D ms"), std::string::npos);
  EXPECT_NE(withPhases.str().find("unsynced host ms"), std::string::npos);
  EXPECT_NE(withPhases.str().find("regs"), std::string::npos);
  EXPECT_NE(withPhases.str().find("12.5 %"), std::string::npos) << withPhases.str();
  EXPECT_EQ(cpuOnly.str().find("regs"), std::string::npos);
  // The type column appears once a result is not fp32.
  EXPECT_EQ(cpuOnly.str().find("type"), std::string::npos);
  EXPECT_NE(withPhases.str().find("type"), std::string::npos);
  EXPECT_NE(withPhases.str().find("bf16"), std::string::npos);
}

// With counters the table gains their columns, and each counted run its figures beside the model.
TEST(ReportTable, ShowsCountersBesideTheModel) {
  RunResult counted = minimalResult();
  counted.backend = "cuda";
  counted.kernel = {"row-per-thread", {}};
  counted.shape = {64, 64, 64};
  counted.counters = tilescope::HardwareCounters{};
  counted.counters->globalLoadRequests = 8192;
  counted.counters->globalLoadSectors = 8192 * 16.5;
  counted.counters->dramReadBytes = 3 * 64 * 64 * 4;
  counted.counters->source = "CUPTI range profiler (GH100)";
  std::ostringstream out;
  report::writeTable(out, {counted, minimalResult()});
  const std::string text = out.str();
  EXPECT_NE(text.find("ld sectors/req"), std::string::npos) << text;
  EXPECT_NE(text.find("16.50"), std::string::npos) << text;
  EXPECT_NE(text.find("row-per-thread 64x64x64 fp32, model against hardware (CUPTI range "
                      "profiler (GH100)):"),
            std::string::npos)
      << text;
  // The model's 16.5 sectors per load (32 for A, 1 for B) against the same measured.
  std::istringstream lines(text);
  bool loads = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("global loads", 0) != 0) continue;
    loads = true;
    EXPECT_NE(line.find("16.5  "), std::string::npos) << line;
    EXPECT_NE(line.find("agrees"), std::string::npos) << line;
  }
  EXPECT_TRUE(loads) << text;
}

// The sample sessions shipped in resources/sessions, measured on an H200, must open: every
// result verified, a device named, and the roofline session with its ceilings.
TEST(ReportDocument, ShippedSessionsOpen) {
  int opened = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TILESCOPE_SESSIONS)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path());
    const report::ResultsDocument document =
        report::resultsDocumentFromJson(nlohmann::json::parse(in));
    EXPECT_FALSE(document.devices.empty());
    EXPECT_FALSE(document.results.empty());
    for (const RunResult& result : document.results) EXPECT_TRUE(result.verified());
    EXPECT_TRUE(document.warnings.empty()) << document.warnings.front();
    if (entry.path().filename() == "h200-roofline.json") {
      EXPECT_FALSE(document.ceilings.empty());
    }
    ++opened;
  }
  EXPECT_GE(opened, 4);
}

}  // namespace

namespace {

TEST(ReportRequestJson, RoundTripKeepsEveryField) {
  tilescope::RunRequest request;
  request.kernel = {"blocktile-2d", {{"BM", 64}, {"TM", 8}}};
  request.shape = {512, 256, 128};
  request.element = tilescope::ElementType::F32;
  request.device = 1;
  request.fill = tilescope::Fill::Integer;
  request.seed = 7;
  request.sampling.fixedReps = 12;
  request.sampling.budgetMs = 750;
  request.verify = false;
  request.allowLongRuns = true;
  const tilescope::RunRequest back = report::requestFromJson(report::toJson(request));
  EXPECT_EQ(back.kernel.kernel, "blocktile-2d");
  EXPECT_EQ(back.kernel.params, request.kernel.params);
  EXPECT_EQ(back.shape.m, 512);
  EXPECT_EQ(back.shape.n, 256);
  EXPECT_EQ(back.shape.k, 128);
  EXPECT_EQ(back.device, 1);
  EXPECT_EQ(back.fill, tilescope::Fill::Integer);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.sampling.fixedReps, 12);
  EXPECT_EQ(back.sampling.budgetMs, 750);
  EXPECT_FALSE(back.verify);
  EXPECT_TRUE(back.allowLongRuns);
  EXPECT_FALSE(back.kernel.source);
}

TEST(ReportRequestJson, AUserKernelTravelsWithItsSource) {
  tilescope::RunRequest request;
  request.kernel = {"user:mine", {{"TILE", 8}}, "TS_PARAM(TILE, 16, 8, 16)\nTS_KERNEL {}\n"};
  request.shape = {64, 64, 64};
  const nlohmann::json sent = nlohmann::json::parse(report::toJson(request).dump());
  EXPECT_EQ(sent.at("source"), *request.kernel.source);
  EXPECT_EQ(report::requestFromJson(sent).kernel, request.kernel);
  expectInvalid(
      [] {
        report::requestFromJson(
            {{"kernel", "user:mine"}, {"source", 42}, {"m", 8}, {"n", 8}, {"k", 8}});
      },
      "source");
  expectInvalid(
      [] {
        report::requestFromJson({{"kernel", "user:mine"},
                                 {"source", std::string(tilescope::kMaxUserSourceBytes + 1, ' ')},
                                 {"m", 8},
                                 {"n", 8},
                                 {"k", 8}});
      },
      "request.source: 131073 bytes is more than a kernel's source may have (131072)");
}

TEST(ReportRequestJson, RefusesWhatTheCommandLineRefusesNamingTheField) {
  const auto refusal = [](nlohmann::json changes) {
    nlohmann::json request = {{"kernel", "naive"}, {"m", 8}, {"n", 8}, {"k", 8}};
    request.update(changes);
    try {
      report::requestFromJson(request);
    } catch (const tilescope::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal({{"m", 0}}).find("request.m"), std::string::npos);
  EXPECT_NE(refusal({{"n", 1048577}})
                .find("request.n: 1048577 is not a valid size (a whole "
                      "number from 1 to 1048576)"),
            std::string::npos);
  EXPECT_NE(refusal({{"k", 8.5}}).find("request.k: 8.5 is not a whole number"), std::string::npos);
  EXPECT_NE(refusal({{"reps", 0}}).find("request.reps"), std::string::npos);
  EXPECT_NE(refusal({{"reps", 100001}}).find("request.reps"), std::string::npos);
  EXPECT_NE(refusal({{"seed", -1}}).find("request.seed"), std::string::npos);
  EXPECT_NE(refusal({{"seed", 18446744073709551615ull}}).find("request.seed"), std::string::npos);
  EXPECT_NE(refusal({{"budget_ms", 0}}).find("budget_ms"), std::string::npos);
  EXPECT_NE(refusal({{"fill", "zeros"}}).find("request.fill"), std::string::npos);
  EXPECT_NE(refusal({{"element", "fp64"}}).find("request.element"), std::string::npos);
  EXPECT_NE(refusal({{"params", {{"tile", 4294967296LL}}}}).find("request.params.tile"),
            std::string::npos);
  EXPECT_NE(refusal({{"verify", "yes"}}).find("request.verify"), std::string::npos);
  EXPECT_NE(refusal({{"repetitions", 3}}).find("unknown member 'repetitions'"), std::string::npos);
  EXPECT_EQ(refusal({{"reps", nullptr}, {"seed", 0}}), "accepted");
}

}  // namespace

namespace {

// A naive-like trace of 6 x 5 with 2 x 2 blocks, block (1,1) traced, loads in program order.
tilescope::KernelTrace smallTrace() {
  tilescope::KernelTrace trace;
  trace.kernel = {tilescope::userKernelId("mine"), {{"TILE", 2}}, "TS_KERNEL {}\n"};
  trace.device = "NVIDIA H200";
  trace.shape = {6, 5, 3};
  trace.grid = {3, 3};
  trace.block = {2, 2};
  trace.kDepth = 1;
  trace.tracedBlock = {1, 1};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) {
      trace.ownerBlock.push_back(j / 2 + 3 * (i / 2));
      trace.ownerThread.push_back(j % 2 + 2 * (i % 2));
    }
  trace.ownerThread[7] = -1;  // no thread stored C[1][2]
  trace.ownerBlock[7] = -1;
  for (int t = 0; t < 4; ++t) {
    trace.loadsA.emplace_back();
    trace.loadsB.emplace_back();
    for (int k = 0; k < 3; ++k) {
      trace.loadsA.back().push_back({2 + t / 2, k});
      trace.loadsB.back().push_back({k, 2 + t % 2});
    }
  }
  trace.loadsB[3].push_back({0, 0});  // a run that breaks the pattern
  // A's 2 x 2 tile from word 40: thread t writes word 40 + t, then reads its row, k times.
  trace.sharedA.reads.resize(4);
  trace.sharedA.writes.resize(4);
  for (int t = 0; t < 4; ++t)
    for (int k = 0; k < 3; ++k) {
      trace.sharedA.writes[std::size_t(t)].push_back({40 + t});
      for (int kk = 0; kk < 2; ++kk)
        trace.sharedA.reads[std::size_t(t)].push_back({40 + t / 2 * 2 + kk});
    }
  return trace;
}

// Why a trace is refused, or "accepted".
std::string traceRefused(const nlohmann::json& json) {
  try {
    report::traceFromJson(json);
  } catch (const tilescope::Error& error) {
    return std::string(error.what());
  }
  return std::string("accepted");
}

}  // namespace

TEST(ReportTrace, ATraceRoundTripsThroughItsRunEncoding) {
  const tilescope::KernelTrace trace = smallTrace();
  const nlohmann::json json = report::toJson(trace);
  // Rows of C repeat one pattern of blocks: [0,0,2, 1,0,2, 2,0,1, ...].
  EXPECT_EQ(json.at("owner_block").at(0), 0);
  EXPECT_EQ(json.at("owner_block").at(2), 2);
  // Thread 0's A loads are one run: A[2][0], A[2][1], A[2][2].
  EXPECT_EQ(json.at("loads_a").at(0), nlohmann::json({2, 0, 0, 1, 3}));
  const tilescope::KernelTrace back =
      report::traceDocumentFromJson(report::traceDocumentToJson(trace, "now", "test"));
  EXPECT_EQ(back.kernel, trace.kernel);
  EXPECT_EQ(back.device, trace.device);
  EXPECT_EQ(back.shape.m, 6);
  EXPECT_EQ(back.shape.k, 3);
  EXPECT_EQ(back.grid.x, 3);
  EXPECT_EQ(back.block.y, 2);
  EXPECT_EQ(back.tracedBlock.x, 1);
  EXPECT_EQ(back.ownerBlock, trace.ownerBlock);
  EXPECT_EQ(back.ownerThread, trace.ownerThread);
  ASSERT_EQ(back.loadsB.size(), 4u);
  ASSERT_EQ(back.loadsB[3].size(), 4u);
  EXPECT_EQ(back.loadsB[3][3].row, 0);
  EXPECT_EQ(back.loadsB[3][2].col, 3);
  EXPECT_EQ(back.sharedA.reads, trace.sharedA.reads);
  EXPECT_EQ(back.sharedA.writes, trace.sharedA.writes);
  EXPECT_TRUE(back.sharedB.empty());
  EXPECT_FALSE(json.contains("shared_b"));  // the kernel staged no tile of B
  // Thread 3 writes word 43 three times: one run; it reads 42, 43, 42, 43, ...: runs of two.
  EXPECT_EQ(json.at("shared_a").at("writes").at(3), nlohmann::json({43, 0, 3}));
  EXPECT_EQ(json.at("shared_a").at("reads").at(3).size(), 9u);
  EXPECT_EQ(back.truncated, false);
  // Every access one element wide: no widths are written, and all read back as 1.
  for (const char* widths : {"load_widths_a", "load_widths_b", "store_width"})
    EXPECT_FALSE(json.contains(widths)) << widths;
  EXPECT_FALSE(json.at("shared_a").contains("read_widths"));
  EXPECT_EQ(back.storeWidth, 1);
}

// A persistent kernel's trace keeps its launch (fewer blocks than tiles) and its clusters; a
// trace of another kernel writes neither.
TEST(ReportTrace, APersistentTraceKeepsItsLaunchAndClusters) {
  tilescope::KernelTrace trace = smallTrace();
  const nlohmann::json plain = report::toJson(trace);
  EXPECT_FALSE(plain.contains("launch_grid"));
  EXPECT_FALSE(plain.contains("cluster"));
  const tilescope::KernelTrace plainBack = report::traceFromJson(plain);
  EXPECT_FALSE(plainBack.launchGrid);
  EXPECT_EQ(plainBack.cluster.x, 1);
  trace.launchGrid = tilescope::Dim2{4, 1};
  trace.cluster = {2, 1};
  const nlohmann::json json = report::toJson(trace);
  const tilescope::KernelTrace back = report::traceFromJson(json);
  ASSERT_TRUE(back.launchGrid);
  EXPECT_EQ(back.launchGrid->x, 4);
  EXPECT_EQ(back.launchGrid->y, 1);
  EXPECT_EQ(back.cluster.x, 2);
  EXPECT_EQ(back.cluster.y, 1);
  // The Mapping drawn from it launches what the GPU ran; its blocks are still the tiles.
  const tilescope::Mapping mapping(back);
  EXPECT_EQ(mapping.launchGrid().x, 4);
  EXPECT_EQ(mapping.grid().x, 3);
  EXPECT_EQ(mapping.cluster().x, 2);
  nlohmann::json none = json;
  none["launch_grid"] = nlohmann::json({0, 1});
  EXPECT_EQ(traceRefused(none), "trace.launch_grid: [0,1] is not within 1..2147483647");
  nlohmann::json wide = json;
  wide["cluster"] = nlohmann::json({9, 1});
  EXPECT_EQ(traceRefused(wide), "trace.cluster: [9,1] is not within 1..8");
}

// The traced block's stores, in program order and with their widths, outside C too (row 6 of a
// 6-row C); a trace without them (written before stores were recorded) still reads.
TEST(ReportTrace, RecordedStoresRoundTrip) {
  tilescope::KernelTrace trace = smallTrace();
  EXPECT_FALSE(report::toJson(trace).contains("stores_c"));
  trace.stores.resize(4);
  trace.stores[0] = {{2, 2, 2}, {3, 2, 2}};
  trace.stores[3] = {{3, 3, 1}, {6, 3, 1}};
  const nlohmann::json json = report::toJson(trace);
  ASSERT_TRUE(json.contains("stores_c"));
  EXPECT_TRUE(json.contains("store_widths"));
  const tilescope::KernelTrace back = report::traceFromJson(json);
  EXPECT_EQ(back.stores, trace.stores);
  nlohmann::json fewer = json;
  fewer["stores_c"].erase(0);
  EXPECT_EQ(traceRefused(fewer), "trace.stores_c: lists 3 threads' stores, the block has 4");
  nlohmann::json eight = json;
  eight["store_widths"][0] = nlohmann::json({8, 0, 2});
  EXPECT_EQ(traceRefused(eight), "trace.store_widths[0][0]: a value outside 1..4");
}

// A kernel of float4 accessors: each access's width is kept, as runs per thread.
TEST(ReportTrace, VectorAccessesKeepTheirWidths) {
  tilescope::KernelTrace trace = smallTrace();
  for (auto& load : trace.loadsA[1]) load.width = 4;
  trace.loadsB[2][1].width = 2;
  trace.sharedA.reads[0][3].width = 4;
  trace.storeWidth = 4;
  const nlohmann::json json = report::toJson(trace);
  EXPECT_EQ(json.at("load_widths_a").at(0), nlohmann::json({1, 0, 3}));
  EXPECT_EQ(json.at("load_widths_a").at(1), nlohmann::json({4, 0, 3}));
  EXPECT_EQ(json.at("store_width"), 4);
  EXPECT_FALSE(json.at("shared_a").contains("write_widths"));
  const tilescope::KernelTrace back = report::traceFromJson(json);
  EXPECT_EQ(back.loadsA, trace.loadsA);
  EXPECT_EQ(back.loadsB, trace.loadsB);
  EXPECT_EQ(back.sharedA.reads, trace.sharedA.reads);
  EXPECT_EQ(back.sharedA.writes, trace.sharedA.writes);
  EXPECT_EQ(back.storeWidth, 4);
  nlohmann::json three = json;
  three["load_widths_a"][1] = nlohmann::json({3, 0, 3});
  EXPECT_EQ(traceRefused(three), "trace.load_widths_a[1]: a width other than 1, 2, 4, 8 or 16");
  nlohmann::json more = json;
  more["load_widths_a"][1] = nlohmann::json({4, 0, 4});
  EXPECT_EQ(traceRefused(more),
            "trace.load_widths_a[1][0]: a run of 4 values: more than the 3 there are");
  nlohmann::json fewer = json;
  fewer["shared_a"]["read_widths"][0] = nlohmann::json({1, 0, 2});
  EXPECT_EQ(traceRefused(fewer), "trace.shared_a.read_widths[0]: 2 widths for 6 accesses");
  nlohmann::json threads = json;
  threads["load_widths_b"].erase(0);
  EXPECT_EQ(traceRefused(threads), "trace.load_widths_b: lists 3 threads' widths, the block has 4");
  nlohmann::json store = json;
  store["store_width"] = 3;
  EXPECT_EQ(traceRefused(store), "trace.store_width: a width other than 1, 2 or 4");
}

// A tensor-core kernel's trace: fp16 operands, 16-byte loads of 8 elements, and tile reads of
// fragments, once per mma's k. Older traces (no element, no reads_every_k) are fp32 and per k.
TEST(ReportTrace, ATensorCoreTraceKeepsItsTypeAndFragmentReads) {
  tilescope::KernelTrace trace = smallTrace();
  trace.element = tilescope::ElementType::F16;
  for (auto& load : trace.loadsA[1]) load.width = 8;
  trace.sharedA.readsEveryK = 16;
  const nlohmann::json json = report::toJson(trace);
  EXPECT_EQ(json.at("element"), "fp16");
  EXPECT_EQ(json.at("shared_a").at("reads_every_k"), 16);
  const tilescope::KernelTrace back = report::traceFromJson(json);
  EXPECT_EQ(back.element, tilescope::ElementType::F16);
  EXPECT_EQ(back.loadsA, trace.loadsA);
  EXPECT_EQ(back.sharedA.readsEveryK, 16);
  nlohmann::json older = json;
  older.erase("element");
  older["shared_a"].erase("reads_every_k");
  const tilescope::KernelTrace old = report::traceFromJson(older);
  EXPECT_EQ(old.element, tilescope::ElementType::F32);
  EXPECT_EQ(old.sharedA.readsEveryK, 1);
  nlohmann::json unknown = json;
  unknown["element"] = "fp8";
  EXPECT_EQ(traceRefused(unknown),
            "trace.element: 'fp8' is not an element type (fp32, tf32, fp16, bf16, e4m3 or e5m2)");
  // A shared-memory access takes at most 16 bytes: 4 words.
  nlohmann::json wide = json;
  wide["shared_a"]["read_widths"] = nlohmann::json::array();
  for (std::size_t t = 0; t < trace.sharedA.reads.size(); ++t)
    wide["shared_a"]["read_widths"].push_back(
        nlohmann::json({8, 0, int(trace.sharedA.reads[t].size())}));
  EXPECT_NE(traceRefused(wide).find("trace.shared_a.read_widths[0]"), std::string::npos)
      << traceRefused(wide);
  nlohmann::json never = json;
  never["shared_a"]["reads_every_k"] = 0;
  EXPECT_NE(traceRefused(never).find("trace.shared_a.reads_every_k"), std::string::npos)
      << traceRefused(never);
}

// What the CPU backend's sanitizer found travels with the trace; a clean trace writes nothing of
// it, and a finding outside the launch is refused.
TEST(ReportTrace, TheSanitizersFindingsRoundTrip) {
  tilescope::KernelTrace trace = smallTrace();
  EXPECT_FALSE(report::toJson(trace).contains("sanitizer"));
  trace.sanitizer.findings.push_back({tilescope::SanitizerFinding::Kind::Race, 12,
                                      tilescope::Dim2{2, 1}, tilescope::Dim2{1, 1},
                                      "line 12, block (2,1), thread (1,1): a race"});
  trace.sanitizer.findings.push_back({tilescope::SanitizerFinding::Kind::OutOfBounds, 9,
                                      tilescope::Dim2{0, 0}, tilescope::Dim2{0, 1},
                                      "line 9, block (0,0), thread (0,1): out of bounds"});
  trace.sanitizer.total = 5;
  const nlohmann::json json = report::toJson(trace);
  const tilescope::KernelTrace back = report::traceFromJson(json);
  ASSERT_EQ(back.sanitizer.findings.size(), 2u);
  EXPECT_EQ(back.sanitizer.total, 5);
  EXPECT_EQ(back.sanitizer.findings[0].kind, tilescope::SanitizerFinding::Kind::Race);
  EXPECT_EQ(back.sanitizer.findings[0].line, 12);
  EXPECT_EQ(back.sanitizer.findings[0].block, (tilescope::Dim2{2, 1}));
  EXPECT_EQ(back.sanitizer.findings[1].thread, (tilescope::Dim2{0, 1}));
  EXPECT_EQ(back.sanitizer.findings[1].message, trace.sanitizer.findings[1].message);
  nlohmann::json outside = json;
  outside["sanitizer"]["findings"][0]["block"] = nlohmann::json({3, 0});
  EXPECT_EQ(traceRefused(outside), "trace.sanitizer.findings[0].block: a block outside the grid");
  nlohmann::json kind = json;
  kind["sanitizer"]["findings"][1]["kind"] = "leak";
  EXPECT_EQ(traceRefused(kind),
            "trace.sanitizer.findings[1].kind: 'leak' is no kind of finding this TileScope knows");
  nlohmann::json fewer = json;
  fewer["sanitizer"]["total"] = 1;
  EXPECT_EQ(traceRefused(fewer),
            "trace.sanitizer.total: 1 is not a valid number of findings (a whole number from 2 to "
            "2147483647)");
}

TEST(ReportTrace, ABrokenTraceIsRefusedAtItsPath) {
  const nlohmann::json good = report::toJson(smallTrace());
  nlohmann::json tooMany = good;
  tooMany["owner_block"].push_back(0);
  tooMany["owner_block"].push_back(0);
  tooMany["owner_block"].push_back(1000);
  EXPECT_EQ(traceRefused(tooMany), "trace.owner_block[" +
                                       std::to_string(tooMany["owner_block"].size() - 3) +
                                       "]: a run of 1000 values: more than the 30 there are");
  nlohmann::json outside = good;
  outside["owner_thread"][0] = 9;
  EXPECT_EQ(traceRefused(outside), "trace.owner_thread[0]: a value outside -1..3");
  // Steps that would overflow the last value are refused before it is computed.
  nlohmann::json overflowing = good;
  overflowing["owner_block"] = nlohmann::json({0, std::numeric_limits<std::int64_t>::max(), 30});
  EXPECT_EQ(traceRefused(overflowing), "trace.owner_block[0]: a value outside -1..8");
  nlohmann::json farLoads = good;
  farLoads["loads_a"][0] = nlohmann::json({std::numeric_limits<std::int64_t>::min(), 0, 0, 1, 3});
  EXPECT_EQ(traceRefused(farLoads), "trace.loads_a[0][0]: an index outside a matrix's range");
  nlohmann::json pairs = good;
  pairs["loads_a"][1] = nlohmann::json({1, 2});
  EXPECT_EQ(traceRefused(pairs),
            "trace.loads_a[1]: runs come as [row, col, row step, col step, count]");
  nlohmann::json threads = good;
  threads["loads_b"].erase(0);
  EXPECT_EQ(traceRefused(threads), "trace.loads_b: lists 3 threads' loads, the block has 4");
  nlohmann::json huge = good;
  huge["m"] = 4096;
  huge["n"] = 4096;
  EXPECT_EQ(traceRefused(huge),
            "trace: a trace of 16777216 elements of C: at most 1048576 are traced");
  nlohmann::json block = good;
  block["block"] = nlohmann::json({2048, 1});
  EXPECT_EQ(traceRefused(block), "trace.block: [2048,1] is not within 1..1024");
  nlohmann::json sharedThreads = good;
  sharedThreads["shared_a"]["writes"].erase(0);
  EXPECT_EQ(traceRefused(sharedThreads),
            "trace.shared_a.writes: lists 3 threads' words, the block has 4");
  nlohmann::json farWord = good;
  farWord["shared_a"]["reads"][2] = nlohmann::json({-1, 1, 2});
  EXPECT_EQ(traceRefused(farWord), "trace.shared_a.reads[2][0]: a value outside 0..58367");
  nlohmann::json noReads = good;
  noReads["shared_a"].erase("reads");
  EXPECT_EQ(traceRefused(noReads), "trace.shared_a.reads is missing");
  try {
    report::traceDocumentFromJson(report::toJson(smallTrace()));
    ADD_FAILURE() << "a trace without its document header was read";
  } catch (const tilescope::Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "this is not a TileScope file (no \"format\": \"tilescope-trace\")");
  }
}
