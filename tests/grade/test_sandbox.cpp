// SPDX-License-Identifier: GPL-3.0-or-later
// The grader's isolation, piece by piece: children run at most N at once with their outcome each
// (an exit, a signal, a deadline that kills the whole group, output past its limit), the
// system-call filter refuses files and processes and names them, Landlock keeps a process in its
// folder, and the submissions a command line names are listed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench_process.hpp"
#include "tilescope/error.hpp"
#include "tilescope/exercise/grade.hpp"
#include "tilescope/exercise/sandbox.hpp"

namespace tilescope::exercise {
namespace {

namespace fs = std::filesystem;
using sandbox::ChildOutcome;
using sandbox::ChildSpec;

ChildSpec shell(const std::string& script, double seconds = 10) {
  ChildSpec child;
  child.argv = {"/bin/sh", "-c", script};
  child.directory = fs::temp_directory_path().string();
  child.environment = {"PATH=/usr/bin:/bin"};
  child.limits.seconds = seconds;
  return child;
}

std::vector<ChildOutcome> runAll(const std::vector<ChildSpec>& children, int jobs) {
  std::vector<ChildOutcome> outcomes(children.size());
  sandbox::runChildren(children, jobs, [&](std::size_t i, ChildOutcome&& outcome) {
    outcomes[i] = std::move(outcome);
  });
  return outcomes;
}

// A child's settings win over the parent's: a compile child copies the parent's environment,
// where OPENBLAS_NUM_THREADS=16 would start BLAS threads past its memory limit.
TEST(Sandbox, SetVariablesReplacesAValueAndAddsANewOne) {
  std::vector<std::string> environment = {"PATH=/bin", "OPENBLAS_NUM_THREADS=16",
                                          "OPENBLAS_NUM_THREADS_EXTRA=2"};
  sandbox::setVariables(environment, {"OPENBLAS_NUM_THREADS=1", "MALLOC_ARENA_MAX=2"});
  EXPECT_EQ(environment,
            (std::vector<std::string>{"PATH=/bin", "OPENBLAS_NUM_THREADS_EXTRA=2",
                                      "OPENBLAS_NUM_THREADS=1", "MALLOC_ARENA_MAX=2"}));
  ChildSpec child = shell("echo \"$OPENBLAS_NUM_THREADS $OMP_NUM_THREADS $MALLOC_ARENA_MAX\"");
  child.environment.push_back("OMP_NUM_THREADS=64");
  sandbox::setVariables(child.environment, sandbox::boundedMemoryVariables());
  EXPECT_EQ(runAll({child}, 1).front().out, "1 1 2\n");
}

TEST(Sandbox, EachChildEndsWithItsOutcome) {
  const auto outcomes = runAll({shell("echo out; echo err >&2; exit 3"), shell("kill -SEGV $$"),
                                shell("exec /no/such/program"), shell("head -c 100000 /dev/zero")},
                               2);
  EXPECT_EQ(outcomes[0].end, ChildOutcome::End::Exited);
  EXPECT_EQ(outcomes[0].code, 3);
  EXPECT_EQ(outcomes[0].out, "out\n");
  EXPECT_EQ(outcomes[0].err, "err\n");
  EXPECT_EQ(outcomes[1].end, ChildOutcome::End::Signalled);
  EXPECT_EQ(outcomes[1].code, SIGSEGV);
  EXPECT_EQ(sandbox::signalDescription(outcomes[1].code), "segmentation fault");
  EXPECT_EQ(outcomes[2].end, ChildOutcome::End::Exited);
  EXPECT_NE(outcomes[2].code, 0);
  EXPECT_EQ(outcomes[3].out.size(), 100000u);
}

// The deadline kills the child and everything it started: its session is one process group.
TEST(Sandbox, TheDeadlineKillsTheWholeGroup) {
  e2e::ScratchDir scratch;
  const std::string pidFile = scratch.file("grandchild");
  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = runAll(
      {shell("sleep 60 & echo $! > " + pidFile + "; while :; do :; done", 1), shell("exit 0")}, 2);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcomes[0].end, ChildOutcome::End::TimedOut);
  EXPECT_GE(outcomes[0].seconds, 1.0);
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(outcomes[1].end, ChildOutcome::End::Exited);
  std::ifstream in(pidFile);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild);
  // Killed, and reaped by whoever inherited it: gone, or a zombie for a moment.
  for (int i = 0; i < 100 && kill(grandchild, 0) == 0; ++i) {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string text;
    std::getline(stat, text);
    if (text.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string text;
  if (std::getline(stat, text)) {
    EXPECT_NE(text.find(") Z"), std::string::npos) << text;
  }
}

TEST(Sandbox, OutputPastItsLimitKillsTheChild) {
  ChildSpec talker = shell("while :; do echo aaaaaaaaaaaaaaaaaaaa; done");
  talker.maxOutputBytes = 1000;
  const auto outcomes = runAll({talker}, 1);
  EXPECT_EQ(outcomes[0].end, ChildOutcome::End::OutputTooLarge);
}

TEST(Sandbox, LimitsApplyAndNothingOfTheParentStaysOpen) {
  ChildSpec child = shell("ulimit -v; ulimit -c; ulimit -f; ulimit -t; ls /proc/self/fd | wc -l");
  child.limits.memoryBytes = std::uint64_t(512) << 20;
  child.limits.fileBytes = std::uint64_t(1) << 20;
  child.limits.cpuSeconds = 7;
  const auto outcomes = runAll({child}, 1);
  // 512 MiB and 1 MiB in KiB and 512-byte blocks (sh's units); 0, 1, 2 and ls's own.
  EXPECT_EQ(outcomes[0].out, "524288\n0\n2048\n7\n4\n");
}

TEST(Sandbox, AtMostJobsRunAtOnce) {
  e2e::ScratchDir scratch;
  std::vector<ChildSpec> children;
  for (int i = 0; i < 6; ++i)
    children.push_back(shell("echo start >> " + scratch.file("log") + "; sleep 0.3; echo end >> " +
                             scratch.file("log")));
  runAll(children, 2);
  std::ifstream log(scratch.file("log"));
  int running = 0, most = 0;
  for (std::string line; std::getline(log, line);) {
    running += line == "start" ? 1 : -1;
    most = std::max(most, running);
  }
  EXPECT_EQ(most, 2);
}

// Runs `body` in a forked child and returns its exit status (or 128 + its signal).
int inChild(const std::function<int()>& body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Sandbox, TheRunningFilterRefusesFilesAndProcessesAndNamesThem) {
  e2e::ScratchDir scratch;
  const std::string canary = scratch.file("canary");
  std::ofstream(canary) << "secret";
  const int status = inChild([&] {
    if (sandbox::restrictSystemCalls(sandbox::Stage::Running)) return 10;
    if (unlink(canary.c_str()) == 0 || errno != EPERM) return 11;
    if (fopen(canary.c_str(), "r") != nullptr) return 12;
    if (fork() >= 0) return 13;
    // Threads still start, memory is still there, and stdout is still written.
    std::atomic<int> ran{0};
    std::thread([&] { ran = 1; }).join();
    std::vector<float> memory(1 << 20, 1.0f);
    if (ran != 1 || memory[12345] != 1.0f) return 14;
    const sandbox::Refused refused = sandbox::refusedCalls();
    const std::vector<std::string> expected = {
        "unlink(\"" + canary + "\")", "openat(\"" + canary + "\")", "clone (a new process)"};
#ifdef SYS_unlink
    if (refused.calls != expected || refused.total != 3) return 15;
#endif
    return 0;
  });
  EXPECT_EQ(status, 0);
  std::ifstream in(canary);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "secret");
}

TEST(Sandbox, TheLoadingFilterReadsFilesButWritesNone) {
  e2e::ScratchDir scratch;
  const std::string file = scratch.file("kernel.so");
  std::ofstream(file) << "bytes";
  const int status = inChild([&] {
    if (sandbox::restrictSystemCalls(sandbox::Stage::Loading)) return 10;
    std::ifstream in(file);
    std::string text;
    if (!(in >> text) || text != "bytes") return 11;
    if (fopen(scratch.file("new").c_str(), "w") != nullptr) return 12;
    if (sandbox::restrictSystemCalls(sandbox::Stage::Running)) return 13;
    if (fopen(file.c_str(), "r") != nullptr) return 14;
    return 0;
  });
  EXPECT_EQ(status, 0);
  EXPECT_FALSE(fs::exists(scratch.file("new")));
}

TEST(Sandbox, LandlockKeepsAProcessInItsFolder) {
  if (sandbox::landlockVersion() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  e2e::ScratchDir inside, outside;
  std::ofstream(inside.file("mine")) << "mine";
  std::ofstream(outside.file("theirs")) << "theirs";
  const int status = inChild([&] {
    if (sandbox::restrictFiles({inside.path()}, {})) return 10;
    if (!std::ifstream(inside.file("mine"))) return 11;
    if (std::ifstream(outside.file("theirs"))) return 12;
    if (std::ofstream(inside.file("written")) << "x") return 13;
    if (unlink(outside.file("theirs").c_str()) == 0) return 14;
    return 0;
  });
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(fs::exists(outside.file("theirs")));
  EXPECT_FALSE(fs::exists(inside.file("written")));
}

TEST(Grade, SubmissionsAreFilesOrTheCuFilesOfFoldersInNameOrderNotLinks) {
  e2e::ScratchDir scratch;
  fs::create_directories(scratch.file("class/sub"));
  for (const char* name :
       {"class/b.cu", "class/a.cu", "class/notes.txt", "class/sub/c.cu", "single.cu"})
    std::ofstream(scratch.file(name)) << "x";
  fs::create_symlink("/etc/passwd", scratch.file("class/link.cu"));  // not taken
  EXPECT_EQ(listSubmissions({scratch.file("single.cu"), scratch.file("class")}),
            (std::vector<std::string>{scratch.file("single.cu"), scratch.file("class/a.cu"),
                                      scratch.file("class/b.cu")}));
  EXPECT_THROW(listSubmissions({scratch.file("missing.cu")}), Error);
  EXPECT_THROW(listSubmissions({scratch.file("class/sub/..") + "/../class/sub/none"}), Error);
  fs::create_directories(scratch.file("empty"));
  EXPECT_THROW(listSubmissions({scratch.file("empty")}), Error);
}

}  // namespace
}  // namespace tilescope::exercise
