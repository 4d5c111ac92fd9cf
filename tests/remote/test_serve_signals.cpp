// SPDX-License-Identifier: GPL-3.0-or-later
// How tilescope-bench --serve ends (issue #37): SIGTERM, SIGINT, SIGHUP and SIGQUIT end it with
// 128 + the signal, at once when idle and after the current launch when running, together with
// what it started; a client that closes its end of the output ends it too.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tilescope/remote/line_reader.hpp"
#include "tilescope/remote/protocol.hpp"
#include "tilescope/report/report.hpp"
#include "tilescope/user_kernel.hpp"

#include "serve_process.hpp"

extern char** environ;

namespace tilescope::remote {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using test::ended;
using test::kReplyTimeoutMs;

// What "ends within a couple of seconds" allows on a loaded machine under ASan.
constexpr auto kEndWithin = 3s;

// tilescope-bench --serve as this process's child, in this process's group (as under ssh), its
// stdin and stdout pipes held here.
class ServerChild {
 public:
  ServerChild() : replies_(-1, kMaxReplyBytes) {
    int in[2], out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    std::string program = TILESCOPE_BENCH, serve = "--serve";
    char* argv[] = {program.data(), serve.data(), nullptr};
    EXPECT_EQ(::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv, environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    toServer_ = in[1];
    fromServer_ = out[0];
    replies_ = LineReader(fromServer_, kMaxReplyBytes);
  }

  ~ServerChild() {
    if (!status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    closeInput();
    closeOutput();
  }

  pid_t pid() const { return pid_; }

  void send(const json& message) {
    const std::string line = formatMessage(message);
    ASSERT_EQ(::write(toServer_, line.data(), line.size()), ssize_t(line.size()));
  }

  // The next reply; a failed expectation (and null) when none comes in time.
  json receive() {
    const std::optional<LineReader::Line> line = replies_.next(nullptr, kReplyTimeoutMs);
    EXPECT_TRUE(line && !line->tooLong) << "no reply from the server";
    return line ? parseMessage(line->text) : json();
  }

  void closeInput() {
    if (toServer_ >= 0) ::close(toServer_);
    toServer_ = -1;
  }
  void closeOutput() {
    if (fromServer_ >= 0) ::close(fromServer_);
    fromServer_ = -1;
  }

  // The wait status once the server has exited within `limit`, else nullopt.
  std::optional<int> exitWithin(std::chrono::milliseconds limit) {
    const auto start = std::chrono::steady_clock::now();
    while (!status_ && std::chrono::steady_clock::now() - start < limit) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_)
        status_ = status;
      else
        std::this_thread::sleep_for(10ms);
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int toServer_ = -1, fromServer_ = -1;
  LineReader replies_;
  std::optional<int> status_;
};

// The processes `pid` started, and theirs.
std::vector<pid_t> descendantsOf(pid_t pid) {
  std::vector<std::pair<pid_t, pid_t>> parents;  // (process, parent)
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    std::istringstream fields(text.substr(text.rfind(')') + 1));
    std::string state;
    pid_t parent = 0;
    if (fields >> state >> parent) parents.emplace_back(pid_t(std::stol(name)), parent);
  }
  std::vector<pid_t> found = {pid};
  for (std::size_t i = 0; i < found.size(); ++i)
    for (const auto& [process, parent] : parents)
      if (parent == found[i]) found.push_back(process);
  found.erase(found.begin());
  return found;
}

json helloMessage() {
  return {{"verb", "hello"}, {"id", "hi"}};
}

// naive at 256^3 for 100,000 repetitions: minutes, one short launch at a time.
json longRun() {
  return {{"verb", "run"},
          {"id", 7},
          {"backend", "cpu"},
          {"request",
           {{"kernel", "naive"},
            {"m", 256},
            {"n", 256},
            {"k", 256},
            {"reps", 100000},
            {"verify", false}}}};
}

void expectExitFor(ServerChild& server, int signal) {
  const std::optional<int> status = server.exitWithin(kEndWithin);
  ASSERT_TRUE(status) << "the server did not end within " << kEndWithin.count() << " s of signal "
                      << signal;
  ASSERT_TRUE(WIFEXITED(*status)) << "status " << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 128 + signal);
}

class ServeSignal : public ::testing::TestWithParam<int> {};

TEST_P(ServeSignal, EndsAnIdleServerAtOnceWith128PlusTheSignal) {
  ServerChild server;
  server.send(helloMessage());
  ASSERT_EQ(server.receive().value("reply", ""), "hello");
  ASSERT_EQ(::kill(server.pid(), GetParam()), 0);
  expectExitFor(server, GetParam());
}

TEST_P(ServeSignal, EndsARunAfterItsCurrentLaunchWith128PlusTheSignal) {
  ServerChild server;
  server.send(longRun());
  server.send(helloMessage());  // waits behind the run, and is dropped
  const json first = server.receive();
  ASSERT_EQ(first.value("reply", ""), "progress") << first.dump();
  ASSERT_EQ(::kill(server.pid(), GetParam()), 0);
  expectExitFor(server, GetParam());
  // The run was told why it stopped; the request behind it never ran.
  json last;
  for (json reply = server.receive(); !reply.is_null(); reply = server.receive()) {
    last = reply;
    if (reply.value("reply", "") != "progress") break;
  }
  EXPECT_EQ(last.value("reply", ""), "error") << last.dump();
  EXPECT_EQ(last.value("id", json()), 7);
  EXPECT_EQ(last.value("kind", ""), "cancelled");
}

INSTANTIATE_TEST_SUITE_P(Signals, ServeSignal, ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGQUIT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

// A file of requests piped in: the input has ended, and the runs read still go on until a signal.
TEST(ServeEnd, ASignalEndsARunWhoseInputHasEnded) {
  ServerChild server;
  server.send(longRun());
  server.closeInput();
  ASSERT_EQ(server.receive().value("reply", ""), "progress");
  ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
  expectExitFor(server, SIGTERM);
}

// The compiler a user kernel's run starts on the CPU ends with the server.
TEST(ServeEnd, ASignalDuringACompileEndsTheCompilerToo) {
  const std::filesystem::path cache = std::filesystem::temp_directory_path() /
                                      ("tilescope-signal-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);  // no compiled kernel to take instead
  ServerChild server;
  ::unsetenv("XDG_CACHE_HOME");
  RunRequest request;
  request.kernel = {userKernelId("naive"), {}, userKernelTemplate("naive")->source};
  request.shape = {64, 64, 64};
  server.send(
      {{"verb", "run"}, {"id", 1}, {"backend", "cpu"}, {"request", report::toJson(request)}});
  // The server's children while it compiles (the shell, the compiler driver, its passes).
  std::vector<pid_t> children;
  for (int i = 0; i < 1000 && children.size() < 2; ++i) {
    children = descendantsOf(server.pid());
    if (children.size() < 2) std::this_thread::sleep_for(5ms);
  }
  ASSERT_FALSE(children.empty()) << "the server started no compiler";
  ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
  expectExitFor(server, SIGTERM);
  for (const pid_t child : children) {
    bool gone = false;
    for (int i = 0; i < 50 && !gone; ++i) {
      gone = ended(child);
      if (!gone) std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(gone) << "the server's child " << child << " outlived it";
  }
  std::filesystem::remove_all(cache);
}

TEST(ServeEnd, AClientThatClosesTheOutputEndsAnIdleServer) {
  ServerChild server;
  server.send(helloMessage());
  ASSERT_EQ(server.receive().value("reply", ""), "hello");
  server.closeOutput();  // the input stays open, as with a client that hangs
  const std::optional<int> status = server.exitWithin(kEndWithin);
  ASSERT_TRUE(status) << "the server outlived its client";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
}

TEST(ServeEnd, AClosedInputEndsAnIdleServerWithStatusZero) {
  ServerChild server;
  server.closeInput();
  const std::optional<int> status = server.exitWithin(kEndWithin);
  ASSERT_TRUE(status) << "the server outlived its input";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
}

}  // namespace
}  // namespace tilescope::remote
