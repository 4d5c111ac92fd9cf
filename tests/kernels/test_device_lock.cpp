// SPDX-License-Identifier: GPL-3.0-or-later
// The machine-wide GPU lock between processes: exclusive, first come first served, places
// reported, cancellable while waiting, and never left held by a process that was killed.
#include <gtest/gtest.h>

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "tilescope/device_lock.hpp"
#include "tilescope/error.hpp"

namespace tilescope {
namespace {

class DeviceLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tilescope-lock-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    folder_ = pattern;
    setenv("TILESCOPE_LOCK_DIR", folder_.c_str(), 1);
    ASSERT_EQ(pipe(pipe_), 0);
  }
  void TearDown() override {
    unsetenv("TILESCOPE_LOCK_DIR");
    close(pipe_[0]);
    close(pipe_[1]);
    std::filesystem::remove_all(folder_);
  }

  // A child that waits for the lock, writes `name` when it has it, holds it `holdMs`, and writes
  // every place it is told (as a digit) before that.
  pid_t waiter(char name, int holdMs) {
    const pid_t pid = fork();
    if (pid == 0) {
      DeviceLock lock(
          "gpu-test",
          [&](int ahead) {
            const char place = char('0' + ahead);
            (void)!write(pipe_[1], &place, 1);
          },
          nullptr);
      (void)!write(pipe_[1], &name, 1);
      usleep(useconds_t(holdMs) * 1000);
      _exit(lock.held() ? 0 : 3);
    }
    return pid;
  }

  // The next byte from the children, or 0 after `timeoutMs`.
  char next(int timeoutMs) {
    pollfd ready{pipe_[0], POLLIN, 0};
    if (poll(&ready, 1, timeoutMs) != 1) return 0;
    char byte = 0;
    return read(pipe_[0], &byte, 1) == 1 ? byte : 0;
  }

  static int exitStatus(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  int tickets() const {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder_))
      count += entry.path().filename().string().find(".wait.") != std::string::npos;
    return count;
  }

  std::string folder_;
  int pipe_[2]{};
};

TEST_F(DeviceLockTest, WaitersGoInTurnAndKnowTheirPlace) {
  auto held = std::make_unique<DeviceLock>("gpu-test", nullptr, nullptr);
  ASSERT_TRUE(held->held()) << held->problem().value_or("");
  const pid_t first = waiter('a', 150);
  EXPECT_EQ(next(2000), '1');  // one run ahead: this process's
  const pid_t second = waiter('b', 0);
  EXPECT_EQ(next(2000), '2');  // that run and the first waiter
  EXPECT_EQ(next(300), 0);     // neither goes while the lock is held
  held.reset();
  // The first waiter has the lock next; the second moves up to one ahead, and has the lock only
  // once the first is done.
  std::string order;
  for (char byte; order.find('b') == std::string::npos && (byte = next(2000)) != 0;) order += byte;
  EXPECT_TRUE(order == "a1b" || order == "1ab") << order;
  EXPECT_EQ(exitStatus(first), 0);
  EXPECT_EQ(exitStatus(second), 0);
  EXPECT_EQ(tickets(), 0);
}

TEST_F(DeviceLockTest, AKilledHolderLeavesNothingHeld) {
  const pid_t holder = waiter('h', 60000);
  ASSERT_EQ(next(2000), 'h');
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  const auto began = std::chrono::steady_clock::now();
  DeviceLock lock("gpu-test", nullptr, nullptr);
  EXPECT_TRUE(lock.held());
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(1));
}

TEST_F(DeviceLockTest, AKilledWaiterLosesItsPlace) {
  auto held = std::make_unique<DeviceLock>("gpu-test", nullptr, nullptr);
  const pid_t dead = waiter('d', 0);
  ASSERT_EQ(next(2000), '1');
  kill(dead, SIGKILL);
  waitpid(dead, nullptr, 0);
  // Its ticket is left behind, but no one waits behind a dead process.
  const pid_t alive = waiter('a', 0);
  EXPECT_EQ(next(2000), '1');
  held.reset();
  EXPECT_EQ(next(2000), 'a');
  EXPECT_EQ(exitStatus(alive), 0);
}

TEST_F(DeviceLockTest, ACancelStopsTheWaitAndGivesUpThePlace) {
  DeviceLock held("gpu-test", nullptr, nullptr);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  int reported = -1;
  try {
    DeviceLock waiting(
        "gpu-test", [&](int ahead) { reported = ahead; }, &cancel);
    ADD_FAILURE() << "the lock was taken twice";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cancelled);
  }
  canceller.join();
  EXPECT_EQ(reported, 1);
  EXPECT_EQ(tickets(), 0);
}

TEST_F(DeviceLockTest, LocksOfTwoDevicesAreIndependent) {
  DeviceLock first("gpu-0", nullptr, nullptr);
  DeviceLock second("gpu-1", nullptr, nullptr);
  EXPECT_TRUE(first.held());
  EXPECT_TRUE(second.held());
}

TEST_F(DeviceLockTest, AnUnusableFolderRunsUnlockedAndSaysWhy) {
  setenv("TILESCOPE_LOCK_DIR", "/proc/no-such-folder", 1);
  DeviceLock lock("gpu-test", nullptr, nullptr);
  EXPECT_FALSE(lock.held());
  ASSERT_TRUE(lock.problem());
  EXPECT_NE(lock.problem()->find("/proc/no-such-folder"), std::string::npos);
}

}  // namespace
}  // namespace tilescope
