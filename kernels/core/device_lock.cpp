// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/device_lock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tilescope/error.hpp"

namespace tilescope {
namespace {

// A waiter's ticket: "<key>.wait.<nanoseconds since the epoch, 20 digits>.<pid>", held with flock
// by its owner for as long as it waits. The name orders the queue.
class Ticket {
 public:
  Ticket(const std::string& folder, const std::string& key) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    char stamp[32];
    std::snprintf(
        stamp, sizeof stamp, "%020lld",
        static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()));
    name_ = key + ".wait." + stamp + "." + std::to_string(getpid());
    path_ = folder + "/" + name_;
    fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      fchmod(fd_, 0666);  // another user's waiter must open it to see it is alive
      flock(fd_, LOCK_EX);
    }
  }
  ~Ticket() {
    if (fd_ < 0) return;
    unlink(path_.c_str());
    close(fd_);
  }
  Ticket(const Ticket&) = delete;
  Ticket& operator=(const Ticket&) = delete;
  bool valid() const { return fd_ >= 0; }
  const std::string& name() const { return name_; }

 private:
  std::string name_, path_;
  int fd_ = -1;
};

// Whether someone holds a flock on the file at `path`: a live waiter's ticket (a dead one's is
// removed where its permissions allow, and never counted).
bool heldByAnother(const std::string& path, bool removeStale) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (!held) {
    flock(fd, LOCK_UN);
    if (removeStale) unlink(path.c_str());
  }
  close(fd);
  return held;
}

// The live tickets queued before `mine`.
int waitersAhead(const std::string& folder, const std::string& key, const std::string& mine) {
  DIR* directory = opendir(folder.c_str());
  if (!directory) return 0;
  const std::string prefix = key + ".wait.";
  std::vector<std::string> earlier;
  while (const dirent* entry = readdir(directory)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) == 0 && name < mine) earlier.push_back(name);
  }
  closedir(directory);
  int ahead = 0;
  for (const std::string& name : earlier) ahead += heldByAnother(folder + "/" + name, true);
  return ahead;
}

// The folder, made shared by every user (like /tmp) where this process creates it.
std::optional<std::string> prepareFolder(const std::string& folder) {
  if (mkdir(folder.c_str(), 0777) == 0) chmod(folder.c_str(), 01777);
  struct stat status {};
  if (stat(folder.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
    return "the lock folder " + folder + " cannot be made: " + std::strerror(errno);
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    return "the lock folder " + folder + " is not writable: " + std::strerror(errno);
  return std::nullopt;
}

}  // namespace

std::string DeviceLock::folder() {
  const char* configured = std::getenv("TILESCOPE_LOCK_DIR");
  return configured && *configured ? configured : "/tmp/tilescope-locks";
}

DeviceLock::DeviceLock(const std::string& key, const Waiting& waiting,
                       const std::atomic<bool>* cancel) {
  const std::string directory = folder();
  if ((problem_ = prepareFolder(directory))) return;
  const std::string path = directory + "/" + key + ".lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    problem_ = "the GPU lock " + path + " cannot be opened: " + std::strerror(errno);
    return;
  }
  fchmod(fd, 0666);
  Ticket ticket(directory, key);
  if (!ticket.valid()) {
    close(fd);
    problem_ =
        "no place in the GPU's queue can be made in " + directory + ": " + std::strerror(errno);
    return;
  }
  int reported = -1;
  for (;;) {
    const int waiters = waitersAhead(directory, key, ticket.name());
    // The earliest waiter takes the lock as soon as it is free.
    if (waiters == 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    const int ahead = waiters + (heldByAnother(path, false) ? 1 : 0);
    if (ahead != reported && waiting) waiting(ahead);
    reported = ahead;
    if (cancel && cancel->load()) {
      close(fd);
      throw Error(ErrorKind::Cancelled, "cancelled while waiting for the GPU");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  lockFd_ = fd;
}

DeviceLock::~DeviceLock() {
  if (lockFd_ < 0) return;
  flock(lockFd_, LOCK_UN);
  close(lockFd_);
}

}  // namespace tilescope
