// SPDX-License-Identifier: GPL-3.0-or-later
// A run server's connection lost mid-sweep: the reasons in words (ssh's status 255 told apart by
// its message), waiting for the server to come back, and a sweep that goes on with every result
// (plan::runSpread with remote::recoverLostServers, as tilescope-bench runs it).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tilescope/error.hpp"
#include "tilescope/remote/exit_status.hpp"
#include "tilescope/remote/reconnect.hpp"
#include "tilescope/remote/remote_backend.hpp"

namespace tilescope::remote {
namespace {

namespace fs = std::filesystem;

int exitedWith(int code) {
  return code << 8;  // as waitpid reports a normal exit
}

TEST(ExitStatus, SshsStatus255IsToldApartByItsMessage) {
  const ExitContext beforeHello{true, false}, afterHello{true, true};
  EXPECT_NE(explainExit(exitedWith(255), "user@gpu1: Permission denied (publickey).", beforeHello)
                .find("ssh could not log in"),
            std::string::npos);
  EXPECT_EQ(explainExit(exitedWith(255), "user@gpu1: Permission denied (publickey).", beforeHello)
                .find("host's key"),
            std::string::npos);
  for (const char* hostKey :
       {"Host key verification failed.", "@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @"}) {
    const std::string why = explainExit(exitedWith(255), hostKey, beforeHello);
    EXPECT_NE(why.find("could not log in: it does not know or trust the host's key"),
              std::string::npos)
        << why;
    EXPECT_EQ(why.find("ssh-add"), std::string::npos) << why;
  }
  EXPECT_NE(
      explainExit(exitedWith(255),
                  "ssh: Could not resolve hostname gpu9: Name or service not known", beforeHello)
          .find("cannot find the host"),
      std::string::npos);
  EXPECT_NE(explainExit(exitedWith(255), "ssh: connect to host gpu1 port 22: Connection refused",
                        beforeHello)
                .find("cannot reach the host"),
            std::string::npos);
  for (const char* lost :
       {"Connection to gpu1 closed by remote host.", "client_loop: send disconnect: Broken pipe",
        "Timeout, server gpu1 not responding.", "Connection reset by 10.0.0.7 port 22"}) {
    const std::string why = explainExit(exitedWith(255), lost, afterHello);
    EXPECT_NE(why.find("the network dropped"), std::string::npos) << why;
    EXPECT_EQ(why.find("log in"), std::string::npos) << why;
  }
  // Nothing said after a connection that was up: the server killed on the host (ssh does not
  // pass a remote signal on), or ssh stopped here; a lost network makes ssh say so.
  const std::string silent = explainExit(exitedWith(255), "", afterHello);
  EXPECT_NE(silent.find("killed on the host, or ssh was stopped on this machine"),
            std::string::npos)
      << silent;
  EXPECT_EQ(silent.find("the network dropped"), std::string::npos) << silent;
  EXPECT_EQ(silent.find("log in"), std::string::npos) << silent;
  EXPECT_NE(
      explainExit(exitedWith(255), "", beforeHello).find("run the command once in a terminal"),
      std::string::npos);
  // 255 from another command is that command's own status.
  EXPECT_EQ(explainExit(exitedWith(255), "Permission denied", {false, false}),
            "the server exited with status 255");
}

TEST(ExitStatus, TheShellsStatusesAndSignals) {
  EXPECT_NE(explainExit(exitedWith(127), "", {}).find("full path"), std::string::npos);
  EXPECT_NE(explainExit(exitedWith(137), "", {}).find("killed by signal 9"), std::string::npos);
  EXPECT_NE(explainExit(SIGKILL, "", {}).find("killed by signal 9"), std::string::npos);
  EXPECT_NE(explainExit(exitedWith(0), "", {}).find("before answering"), std::string::npos);
  // Through ssh a signal may have ended ssh here (the shell reports 128 + n, or ssh in its place
  // was killed) or the command on the host (ssh passes the shell's status on).
  const ExitContext throughSsh{true, true};
  EXPECT_NE(
      explainExit(exitedWith(137), "Killed", throughSsh)
          .find("killed by signal 9, Killed: ssh on this machine, or the command on the host"),
      std::string::npos);
  EXPECT_EQ(explainExit(SIGKILL, "", throughSsh),
            "ssh was killed on this machine by signal 9 (Killed)");
}

TEST(ExitStatus, SshIsTheFirstWordOfTheCommand) {
  EXPECT_TRUE(startsSsh("ssh gpu1 tilescope-bench --serve"));
  EXPECT_TRUE(startsSsh("  /usr/bin/ssh -p 2222 gpu1 tilescope-bench --serve"));
  EXPECT_FALSE(startsSsh("tilescope-bench --serve"));
  EXPECT_FALSE(startsSsh("sshpass -e ssh gpu1"));
  EXPECT_FALSE(startsSsh(""));
}

TEST(Reconnect, ThePausesGrowToHalfAMinute) {
  EXPECT_EQ(reconnectDelay(1), std::chrono::seconds(1));
  EXPECT_EQ(reconnectDelay(2), std::chrono::seconds(2));
  EXPECT_EQ(reconnectDelay(5), std::chrono::seconds(16));
  EXPECT_EQ(reconnectDelay(6), std::chrono::seconds(30));
  EXPECT_EQ(reconnectDelay(100), std::chrono::seconds(30));
}

// A server that writes its pid to a file and starts only while `gate` exists, through a fake
// ssh (a script named ssh) that says what OpenSSH says when a connection drops.
class LostServer : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tilescope-reconnect-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(gate()).put('\n');
    const fs::path ssh = dir_ / "ssh";
    std::ofstream script(ssh);
    script << "#!/bin/sh\n"
           << "[ -e '" << gate().string() << "' ] || { echo 'ssh: connect to host gpu1 port 22: "
           << "Connection refused' >&2; exit 255; }\n"
           << "echo $$ > '" << pidFile().string() << "'\n"
           << "'" << TILESCOPE_BENCH << "' --serve\n"
           << "echo 'client_loop: send disconnect: Broken pipe' >&2\nexit 255\n";
    script.close();
    fs::permissions(ssh, fs::perms::owner_all);
    address_ = {"gpu1", (dir_ / "ssh").string() + " gpu1 tilescope-bench --serve", "cpu"};
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path gate() const { return dir_ / "gate"; }
  fs::path pidFile() const { return dir_ / "pid"; }
  // Kills the server the fake ssh started (its shell goes on to report the lost connection).
  void killServer() {
    std::ifstream in(pidFile());
    pid_t shell = 0;
    in >> shell;
    ASSERT_GT(shell, 0);
    // The server is the shell's child.
    ASSERT_EQ(std::system(("pkill -KILL -P " + std::to_string(shell)).c_str()), 0);
  }

  fs::path dir_;
  ServerAddress address_;
};

RunRequest request(std::int64_t size, int reps) {
  RunRequest made;
  made.kernel = {"naive", {{"tile", 8}}};
  made.shape = {size, size, size};
  made.sampling.fixedReps = reps;
  return made;
}

TEST_F(LostServer, ALostConnectionIsToldAsLostAndTheServerIsWaitedFor) {
  RemoteBackend server(address_);
  ASSERT_FALSE(server.unavailableReason()) << *server.unavailableReason();
  std::atomic<bool> cancel{false};
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    fs::remove(gate());
    killServer();
  });
  try {
    server.run(request(256, 100000), {}, &cancel);
    ADD_FAILURE() << "the run outlived its server";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Unavailable);
    const std::string what = error.what();
    EXPECT_NE(what.find("the connection was lost"), std::string::npos) << what;
    EXPECT_EQ(what.find("log in"), std::string::npos) << what;
  }
  killer.join();
  ASSERT_TRUE(server.lostConnection());
  EXPECT_FALSE(server.isConnected());

  // While the gate is closed every try fails ("Connection refused"); it opens after the second.
  std::vector<std::string> reasons;
  const bool back = waitForServer(server, std::chrono::seconds(60), &cancel,
                                  [&](const std::string& why, int attempt, std::chrono::seconds) {
                                    reasons.push_back(why);
                                    if (attempt == 2) std::ofstream(gate()).put('\n');
                                  });
  EXPECT_TRUE(back);
  EXPECT_TRUE(server.isConnected());
  EXPECT_FALSE(server.lostConnection());
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[0].find("the connection was lost"), std::string::npos) << reasons[0];
  EXPECT_EQ(reasons[1].rfind("not back yet: the server exited with status 255", 0), 0u)
      << reasons[1];
  EXPECT_NE(reasons[1].find("cannot reach the host"), std::string::npos) << reasons[1];
}

TEST_F(LostServer, WaitingGivesUpAtItsLimitAndOnCancel) {
  RemoteBackend server(address_);
  ASSERT_FALSE(server.unavailableReason());
  fs::remove(gate());
  killServer();
  EXPECT_THROW(server.run(request(16, 2), {}, nullptr), Error);
  ASSERT_TRUE(server.lostConnection());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(waitForServer(server, std::chrono::seconds(4), nullptr, {}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(waitForServer(server, std::chrono::seconds(60), &cancel, {}));
}

// What tilescope-bench does: the sweep goes on after the server comes back, the interrupted run
// made once more, and every run has its result in the order asked.
TEST_F(LostServer, ASweepGoesOnWhenTheServerComesBack) {
  RemoteBackend server(address_);
  ASSERT_FALSE(server.unavailableReason());
  const std::vector<RunRequest> runs = {request(16, 2), request(128, 200), request(24, 2)};
  std::atomic<bool> killed{false};
  int waits = 0;
  const plan::SpreadProgress progress = [&](std::size_t run, int, double, const std::string&) {
    if (run == 1 && !killed.exchange(true)) killServer();
  };
  const std::vector<plan::RunOutcome> outcomes = plan::runSpread(
      {&server}, {0}, runs, /*keepGoing=*/false, progress, nullptr,
      recoverLostServers(std::chrono::seconds(60), nullptr,
                         [&](const std::string&, int, std::chrono::seconds) { ++waits; }));
  ASSERT_EQ(outcomes.size(), 3u);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    ASSERT_TRUE(outcomes[i].result) << i << ": " << outcomes[i].failure.value_or("");
    EXPECT_EQ(outcomes[i].result->shape, runs[i].shape);
  }
  EXPECT_TRUE(killed);
  EXPECT_GE(waits, 1);
}

}  // namespace
}  // namespace tilescope::remote
