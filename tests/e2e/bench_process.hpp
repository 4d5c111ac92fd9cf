// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the built tilescope-bench as a child process and captures what it prints.
#include <string>
#include <vector>

namespace tilescope::e2e {

struct BenchOutcome {
  int exitCode = -1;  // 128 + signal number when the process was killed by a signal
  std::string out, err;
};

// Spawns TILESCOPE_BENCH with `args`, stdin from /dev/null, stdout and stderr captured, and
// XDG_CONFIG_HOME set to `configHome`: by default an empty directory of its own, so parameters
// remembered by a user's --autotune never reach a test.
BenchOutcome runBench(const std::vector<std::string>& args, const std::string& configHome = "");

// How else to start it: stdout to a file of our choice or closed, and signals sent while it runs.
struct BenchLaunch {
  std::vector<std::string> args;
  std::string stdoutPath;    // "": captured; else stdout goes to this file (e.g. /dev/full)
  bool closeStdout = false;  // stdout closed altogether
  // Sent in order, `signalGapMs` apart, once the bench has run `signalAfterCpuMs` of CPU time
  // (not wall time: ctest runs tests side by side, and a bench that shares its core gets less
  // done in a second).
  std::vector<int> signals;
  int signalAfterCpuMs = 0, signalGapMs = 0;
};
BenchOutcome runBench(const BenchLaunch& launch);

// A fresh empty directory under the system temp directory, removed with its contents on
// destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;

 private:
  std::string path_;
};

std::string readFile(const std::string& path);

}  // namespace tilescope::e2e
