// SPDX-License-Identifier: GPL-3.0-or-later
#include "bench_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tilescope::e2e {

namespace fs = std::filesystem;

namespace {

// The CPU time (user and system) child `pid` has run, in ms; nullopt once it has ended.
std::optional<long> cpuMs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return std::nullopt;
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  long user = 0, system = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 3 && field == "Z") return std::nullopt;  // ended, not yet waited for
    if (i == 14) user = std::stol(field);
    if (i == 15) system = std::stol(field);
  }
  return (user + system) * 1000 / ::sysconf(_SC_CLK_TCK);
}

// Waits until `pid` has run `ms` of CPU time, has ended, or a minute has passed.
void waitForCpuTime(pid_t pid, int ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::optional<long> used = cpuMs(pid);
    if (!used || *used >= ms) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

BenchOutcome spawnBench(const BenchLaunch& launch, const std::string& configHome) {
  ScratchDir capture;
  const std::string outPath =
      launch.stdoutPath.empty() ? capture.file("stdout") : launch.stdoutPath;
  const std::string errPath = capture.file("stderr");

  // The parent's environment with XDG_CONFIG_HOME replaced.
  std::vector<std::string> environment = {
      "XDG_CONFIG_HOME=" + (configHome.empty() ? capture.file("config") : configHome)};
  for (char** entry = environ; *entry; ++entry)
    if (std::strncmp(*entry, "XDG_CONFIG_HOME=", 16) != 0) environment.emplace_back(*entry);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (launch.closeStdout) {
    posix_spawn_file_actions_addclose(&actions, STDOUT_FILENO);
  } else {
    // No O_TRUNC or O_CREAT beyond our own capture file: /dev/full must stay what it is.
    const int flags = launch.stdoutPath.empty() ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY;
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath.c_str(), flags, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);

  std::vector<std::string> argvText = {TILESCOPE_BENCH};
  argvText.insert(argvText.end(), launch.args.begin(), launch.args.end());
  std::vector<char*> argv;
  for (std::string& arg : argvText) argv.push_back(arg.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int spawnError =
      posix_spawn(&pid, TILESCOPE_BENCH, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawnError != 0)
    throw std::runtime_error(std::string("cannot start tilescope-bench: ") +
                             std::strerror(spawnError));

  if (!launch.signals.empty()) {
    waitForCpuTime(pid, launch.signalAfterCpuMs);
    for (std::size_t i = 0; i < launch.signals.size(); ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(launch.signalGapMs));
      ::kill(pid, launch.signals[i]);
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  BenchOutcome outcome;
  outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (launch.stdoutPath.empty() && !launch.closeStdout) outcome.out = readFile(outPath);
  outcome.err = readFile(errPath);
  return outcome;
}

}  // namespace

BenchOutcome runBench(const std::vector<std::string>& args, const std::string& configHome) {
  BenchLaunch launch;
  launch.args = args;
  return spawnBench(launch, configHome);
}

BenchOutcome runBench(const BenchLaunch& launch) {
  return spawnBench(launch, "");
}

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "tilescope-e2e-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::vector<std::string> ScratchDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path_))
    names.push_back(entry.path().filename().string());
  return names;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tilescope::e2e
