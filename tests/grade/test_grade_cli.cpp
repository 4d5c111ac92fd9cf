// SPDX-License-Identifier: GPL-3.0-or-later
// tilescope-bench --grade over a small class (tests/grade/submissions, and two written here that
// reach for a canary file outside the scratch folder): every row has the right verdict and
// reason, the canary survives unread, and nothing is written outside the scratch folder. The
// exercise is tests/grade/exercise/01-tiny-tiles, so the test does not hang on the built-in ones.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../kernels/scoped_settings.hpp"
#include "bench_process.hpp"
#include "tilescope/exercise/grade.hpp"
#include "tilescope/exercise/sandbox.hpp"
#include "tilescope/host_kernel.hpp"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using e2e::runBench;
using e2e::ScratchDir;

const std::string kExercise = TILESCOPE_GRADE_DIR "/exercise/01-tiny-tiles";
const std::string kSubmissions = TILESCOPE_GRADE_DIR "/submissions";

std::string contentOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The good submission with `declarations` before its launch and `code` at its kernel's start.
std::string goodWith(const std::string& declarations, const std::string& code) {
  std::string source = contentOf(kSubmissions + "/good.cu");
  source.insert(source.find("TS_LAUNCH("), declarations);
  const std::string start = "  float sum = 0.0f;\n";
  source.insert(source.find(start), code);
  return source;
}

// Every file under `root` with its size and modification time.
std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> snapshot(const fs::path& root) {
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    struct stat info {};
    ::lstat(entry.path().c_str(), &info);
    files[entry.path().string()] = {
        std::uintmax_t(info.st_size),
        std::int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec};
  }
  return files;
}

class GradeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  }
};

TEST_F(GradeCli, EveryRowHasItsVerdictAndReasonAndNothingOutsideTheScratchFolderChanges) {
  ScratchDir work;
  // What a submission may not touch: a canary beside the class's folder.
  const std::string canary = work.file("grades.txt");
  std::ofstream(canary) << "the lecturer's grades";
  const std::string reach =
      "extern \"C\" int unlink(const char*);\n"
      "extern \"C\" int open(const char*, int, ...);\n"
      "extern \"C\" long read(int, void*, unsigned long);\n";
  const std::string steal = "open(\"" + canary + "\", 0)";
  // Crashes when it could read the canary, so a read that succeeded shows.
  const std::string crashIfRead = "*static_cast<volatile int*>(nullptr) = 1";
  fs::create_directories(work.file("class"));
  for (const auto& entry : fs::directory_iterator(kSubmissions))
    fs::copy_file(entry.path(), work.file("class/" + entry.path().filename().string()));
  std::ofstream(work.file("class/canary_kernel.cu"))
      << goodWith(reach, "  if (tx == 0 && ty == 0) {\n    unlink(\"" + canary +
                             "\");\n    char text[64] = {};\n    const int file = " + steal +
                             ";\n    if (file >= 0 && read(file, text, sizeof text) > 0) " +
                             crashIfRead + ";\n  }\n");
  std::ofstream(work.file("class/canary_load.cu")) << goodWith(
      reach + "static int readAtLoad() {\n  char text[64] = {};\n  const int file = " + steal +
          ";\n  return file >= 0 && read(file, text, sizeof text) > 0;\n}\n" +
          "static const int gone = unlink(\"" + canary +
          "\");\nstatic const int stolen = readAtLoad();\n",
      "  if (stolen) " + crashIfRead + ";\n");
  const auto before = snapshot(work.path());

  // Each child runs as on a machine of 16 cores, where every launch under the 1 GiB limit once
  // threw bad_alloc (the H200's 16 cores found it; this machine may have two).
  const test::ScopedVariable cores("TILESCOPE_CPU_THREADS", "16");
  const auto start = std::chrono::steady_clock::now();
  const e2e::BenchOutcome graded =
      runBench({"--grade", kExercise, work.file("class"), "--format", "json", "--time-limit", "5",
                "--memory-limit", "1024", "--scratch", work.file("scratch"), "--jobs", "2", "-o",
                work.file("grades.json")});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(graded.exitCode, 0) << graded.err;
  RecordProperty("seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 60);

  const nlohmann::json document = nlohmann::json::parse(contentOf(work.file("grades.json")));
  EXPECT_EQ(document["format"], "tilescope-grades");
  EXPECT_EQ(document["exercise"], "01-tiny-tiles");
  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& row : document["rows"])
    rows[fs::path(row["submission"].get<std::string>()).stem().string()] = row;
  ASSERT_EQ(rows.size(), 14u);
  // Each submission: passed, compiled, and what its reason says.
  const std::vector<std::tuple<std::string, bool, bool, std::string>> expected = {
      {"good", true, true, ""},
      {"latin1_comment", true, true, ""},
      {"start", false, true, "global loads per fma at most 0.25: 2 elements"},
      {"race", false, true, "sanitizer clean: a race at line 24"},
      // How many shapes come out wrong depends on what the unwritten tile held.
      {"missing_barrier", false, true, "verified: "},
      {"out_of_bounds", false, true, "verified: 3 of 3 shapes wrong"},
      {"endless", false, true, "timed out after 5 s while checking"},
      {"null_pointer", false, true, "crashed while checking: segmentation fault"},
      {"huge_allocation", false, true, "ran out of memory while checking (limit 1 GiB)"},
      {"include_passwd", false, false, "did not compile: line 3: #include reads a file"},
      {"compile_bomb", false, false, "timed out after 5 s while compiling"},
      {"forks", false, true, "made system calls the sandbox refused: clone (a new process)"},
      {"canary_kernel", false, true,
       "made system calls the sandbox refused: unlink(\"" + canary + "\"), openat(\"" + canary +
           "\")"},
      {"canary_load", false, true,
       "made system calls the sandbox refused: unlink(\"" + canary + "\")"},
  };
  for (const auto& [name, passed, compiled, reason] : expected) {
    SCOPED_TRACE(name);
    // A sanitizer build has no memory limit (its shadow memory alone is larger): there a huge
    // allocation the kernel barely touches may well succeed.
    if (name == "huge_allocation" && !exercise::sandbox::addressSpaceLimitWorks()) continue;
    // Without Landlock a global's constructor may read files while the kernel is loaded (it
    // still cannot change one): docs/exercises.md says so.
    if (name == "canary_load" && exercise::sandbox::landlockVersion() == 0) continue;
    ASSERT_TRUE(rows.count(name));
    const nlohmann::json& row = rows[name];
    EXPECT_EQ(row["passed"], passed) << row.dump();
    EXPECT_EQ(row["compiled"], compiled) << row.dump();
    const std::string said = row["reason"];
    if (reason.empty())
      EXPECT_EQ(said, "");
    else
      EXPECT_EQ(said.substr(0, reason.size()), reason) << said;
  }
  // The race fails only the sanitizer; the kernels that reach for files still multiply right.
  EXPECT_EQ(rows["race"]["verified"], true);
  EXPECT_EQ(rows["canary_kernel"]["verified"], true);
  ASSERT_EQ(rows["good"]["checks"].size(), 3u);
  EXPECT_EQ(rows["good"]["checks"][2]["figure"], 0.25);
  EXPECT_EQ(rows["start"]["checks"][2]["state"], "failed");

  // The canary is there and was not read (a read would have crashed its kernel), and nothing
  // outside the scratch folder changed but the grades written.
  EXPECT_EQ(contentOf(canary), "the lecturer's grades");
  auto after = snapshot(work.path());
  std::erase_if(after, [&](const auto& entry) {
    return entry.first.rfind(work.file("scratch"), 0) == 0 ||
           entry.first == work.file("grades.json");
  });
  EXPECT_EQ(after, before);
  // One folder per submission, kept: --scratch was given.
  EXPECT_TRUE(fs::exists(work.file("scratch/0001-canary_kernel/submission.cu")));
}

TEST_F(GradeCli, TheTableNamesEveryCheckAndCsvHasAFigureAndAResultEach) {
  const e2e::BenchOutcome table =
      runBench({"--grade", kExercise, kSubmissions + "/good.cu", kSubmissions + "/start.cu"});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_EQ(table.out.substr(0, table.out.find('\n')),
            "submission" + std::string(kSubmissions.size() + 9 - 10 + 2, ' ') +
                "compiled  verified  wrong-shapes  sanitizer-clean  global-loads-per-fma  "
                "passed  seconds  reason");
  EXPECT_NE(table.out.find("1 of 2 passed 01-tiny-tiles"), std::string::npos) << table.out;
  const e2e::BenchOutcome csv = runBench(
      {"--grade", kExercise, kSubmissions + "/start.cu", "--format", "csv", "--jobs", "1"});
  ASSERT_EQ(csv.exitCode, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
            "submission,compiled,verified,wrong-shapes,wrong-shapes result,sanitizer-clean,"
            "sanitizer-clean result,global-loads-per-fma,global-loads-per-fma result,passed,"
            "seconds,reason");
  EXPECT_NE(csv.out.find(kSubmissions + "/start.cu,true,true,0,passed,0,passed,2,failed,false,"),
            std::string::npos)
      << csv.out;
}

TEST_F(GradeCli, CheckExerciseSaysTheSolutionPassesAndTheStartFails) {
  const e2e::BenchOutcome checked = runBench({"--check-exercise", kExercise});
  EXPECT_EQ(checked.exitCode, 0) << checked.err;
  EXPECT_NE(checked.out.find("solution.cu: passes"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("start.cu: fails: global loads per fma"), std::string::npos)
      << checked.out;
  // An exercise whose start passes already is no exercise.
  ScratchDir work;
  fs::copy(kExercise, work.file("02-solved"));
  fs::copy_file(kExercise + "/solution.cu", work.file("02-solved/start.cu"),
                fs::copy_options::overwrite_existing);
  const e2e::BenchOutcome solved = runBench({"--check-exercise", work.file("02-solved")});
  EXPECT_EQ(solved.exitCode, 1);
  EXPECT_NE(solved.err.find("02-solved: its start passes already"), std::string::npos)
      << solved.err;
}

// A compiler installed outside the system's folders (/opt/gcc/bin/g++ on the GPU machine) reads
// its own files beside bin/: the sandbox lets it. Here a wrapper in such a folder reads a file of
// its installation, then runs the real compiler.
TEST_F(GradeCli, ACompilerOutsideTheSystemFoldersReadsItsOwnInstallation) {
  const std::optional<std::string> real = hostCompilerInstallation();
  ASSERT_TRUE(real);
  if (*real != "/usr")
    GTEST_SKIP() << "the compiler is installed in " << *real
                 << ", which a wrapper in another folder may not read";
  ScratchDir work;
  fs::create_directories(work.file("opt/cxx/bin"));
  fs::create_directories(work.file("opt/cxx/lib"));
  std::ofstream(work.file("opt/cxx/lib/compiler.conf")) << "real=c++\n";
  const std::string wrapper = work.file("opt/cxx/bin/c++");
  std::ofstream(wrapper)
      << "#!/bin/sh\n. \"${0%/bin/*}/lib/compiler.conf\"\nexec \"$real\" \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  const e2e::BenchOutcome checked = [&] {
    const test::ScopedVariable cxx("CXX", wrapper);
    return runBench({"--check-exercise", kExercise});
  }();
  EXPECT_EQ(checked.exitCode, 0) << checked.err;
  EXPECT_NE(checked.out.find("solution.cu: passes"), std::string::npos) << checked.out;
}

// A grading child whose kernel runs out of memory exits at once with the status its parent reads
// as out of memory (the parent's reason then gives the limit), saying where on one line. (The
// kernel includes no header, so it throws std::bad_alloc through libstdc++'s own function.)
TEST_F(GradeCli, AGradingChildWhoseKernelRunsOutOfMemorySaysWhereOnOneLineAndExitsWithItsStatus) {
#if !defined(__GLIBCXX__)
  GTEST_SKIP() << "the kernel throws through libstdc++'s std::__throw_bad_alloc";
#endif
  ScratchDir work;
  std::ofstream(work.file("greedy.cu"))
      << goodWith("namespace std { [[noreturn]] void __throw_bad_alloc(); }\n",
                  "  if (blockIdx.x == 1 && tx == 2 && ty == 3) std::__throw_bad_alloc();\n");
  // As its parent starts it: one thread (its sandbox must cover every thread), in the folder it
  // may write, which holds its home, temporary and cache folders.
  for (const char* folder : {"home", "tmp", "cache"}) fs::create_directories(work.file(folder));
  struct WorkIn {
    fs::path before = fs::current_path();
    explicit WorkIn(const fs::path& folder) { fs::current_path(folder); }
    ~WorkIn() { fs::current_path(before); }
  } workIn(work.path());
  const test::ScopedVariable home("HOME", work.file("home")), temporary("TMPDIR", work.file("tmp")),
      cache("XDG_CACHE_HOME", work.file("cache"));
  // The parent's bounded variables. Deques keep their elements in place: a ScopedVariable keeps
  // its name's address and cannot move.
  std::deque<std::string> names;
  std::deque<test::ScopedVariable> bounded;
  for (const std::string& setting : exercise::sandbox::boundedMemoryVariables()) {
    const std::size_t equals = setting.find('=');
    bounded.emplace_back(names.emplace_back(setting.substr(0, equals)).c_str(),
                         setting.substr(equals + 1));
  }
  const e2e::BenchOutcome child =
      runBench({"--grade-child", kExercise, work.file("greedy.cu"), "--backend", "cpu"});
  EXPECT_EQ(child.exitCode, exercise::kGradeChildOutOfMemory) << child.err;
  EXPECT_EQ(child.out, "");
  std::vector<std::string> said;
  std::istringstream lines(child.err);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("tilescope-grade-child: ", 0) != 0) said.push_back(line);
  ASSERT_EQ(said.size(), 1u) << child.err;
  EXPECT_NE(said[0].find("in block (1,"), std::string::npos) << child.err;
  EXPECT_NE(said[0].find("thread (2,3) ran out of memory"), std::string::npos) << child.err;
}

TEST_F(GradeCli, UsageErrorsExitWithTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--grade", kExercise},
        {"--grade", kExercise, kSubmissions, "--kernel", "naive"},
        {"--grade", "no-such-exercise", kSubmissions},
        {"--grade", kExercise, "/no/such/submission.cu"},
        {"--grade", kExercise, kSubmissions, "--time-limit", "0"},
        {"--grade", kExercise, kSubmissions, "--jobs", "many"},
        {kSubmissions + "/good.cu"},
        {"--time-limit", "5"}}) {
    const e2e::BenchOutcome outcome = runBench(args);
    EXPECT_EQ(outcome.exitCode, 2) << args[0] << " " << (args.size() > 1 ? args[1] : "");
    EXPECT_NE(outcome.err.find("tilescope-bench: error: "), std::string::npos) << outcome.err;
  }
}

}  // namespace
}  // namespace tilescope
