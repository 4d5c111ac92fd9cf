// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A lock on one device for the whole machine: every process of every user that times work on a
// GPU takes it first, so two runs never share the GPU while one is timed (a class's students on
// one server each have a run server process of their own). First come, first served; a waiter
// knows its place. The kernel's flock(2) holds it, so a process that dies, however it dies,
// leaves nothing held.
#include <atomic>
#include <functional>
#include <optional>
#include <string>

namespace tilescope {

class DeviceLock {
 public:
  // Called while waiting, whenever the count changes: the runs before this one (the one running
  // and those queued earlier).
  using Waiting = std::function<void(int runsAhead)>;

  // Waits for device `key` (a name stable across processes, e.g. "gpu-0000:3b:00.0"). Throws
  // Error(Cancelled) when `cancel` is set while waiting. Where the lock folder cannot be used the
  // lock is not held and problem() says why: the run goes on unlocked rather than not at all.
  DeviceLock(const std::string& key, const Waiting& waiting, const std::atomic<bool>* cancel);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

  bool held() const { return lockFd_ >= 0; }
  const std::optional<std::string>& problem() const { return problem_; }

  // The folder of the locks: $TILESCOPE_LOCK_DIR, else /tmp/tilescope-locks (shared by every user,
  // like /tmp: sticky and writable by all).
  static std::string folder();

 private:
  int lockFd_ = -1;
  std::optional<std::string> problem_;
};

}  // namespace tilescope
