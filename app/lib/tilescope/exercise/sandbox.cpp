// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/exercise/sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>

namespace tilescope::exercise::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxStderrBytes = 64 << 10;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// --- Starting a child ---------------------------------------------------------------------------

struct Running {
  std::size_t index = 0;
  pid_t pid = -1;
  int out = -1, err = -1;  // the read ends, -1 once at their end
  int slot = 0;
  Clock::time_point start, deadline;
  ChildOutcome outcome;
  bool killed = false;  // by the parent: the deadline, the output's size or a cancel
};

void setLimit(int resource, rlim_t soft, rlim_t hard) {
  const rlimit limit{soft, hard};
  setrlimit(resource, &limit);
}

// Forks and execs `spec` with its stdout and stderr on pipes; pid -1 and `why` where it could not.
Running start(const ChildSpec& spec, const std::vector<int>& cpus) {
  Running child;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    child.outcome.why = std::string("no pipe: ") + std::strerror(errno);
    return child;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    child.outcome.why = std::string("no pipe: ") + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    return child;
  }
  // Everything the child needs, made before the fork: between fork and exec it calls only what is
  // async-signal-safe.
  std::vector<char*> argv, envp;
  for (const std::string& argument : spec.argv) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  for (const std::string& variable : spec.environment)
    envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  for (const int cpu : cpus) CPU_SET(cpu, &affinity);
  const Limits& limits = spec.limits;
  const rlim_t cpuSeconds =
      limits.cpuSeconds > 0 ? rlim_t(std::ceil(limits.cpuSeconds)) : RLIM_INFINITY;
  const std::string failed = "tilescope-bench: cannot start " + spec.argv.front() + ": ";

  const pid_t pid = fork();
  if (pid == 0) {
    // The child, until exec: its own session, so that the parent can kill the group whole; and
    // it dies with the thread that started it (a server killed mid-compile leaves no compiler).
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    if (chdir(spec.directory.c_str()) != 0) {
      const int error = errno;
      (void)!write(STDERR_FILENO, failed.data(), failed.size());
      (void)!write(STDERR_FILENO, strerror(error), std::strlen(strerror(error)));
      _exit(127);  // the forked copy must not return into the parent's code
    }
    if (limits.memoryBytes > 0) setLimit(RLIMIT_AS, limits.memoryBytes, limits.memoryBytes);
    if (cpuSeconds != RLIM_INFINITY) setLimit(RLIMIT_CPU, cpuSeconds, cpuSeconds + 5);
    if (limits.fileBytes > 0) setLimit(RLIMIT_FSIZE, limits.fileBytes, limits.fileBytes);
    setLimit(RLIMIT_CORE, 0, 0);
    if (!cpus.empty()) sched_setaffinity(0, sizeof affinity, &affinity);
    // Nothing of the parent's stays open: 3 and up closed.
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
      for (int fd = 3; fd < 1024; ++fd) close(fd);
    execve(argv[0], argv.data(), envp.data());
    const int error = errno;
    (void)!write(STDERR_FILENO, failed.data(), failed.size());
    (void)!write(STDERR_FILENO, strerror(error), std::strlen(strerror(error)));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    child.outcome.why = std::string("cannot fork: ") + std::strerror(errno);
    close(out[0]);
    close(err[0]);
    return child;
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  child.pid = pid;
  child.out = out[0];
  child.err = err[0];
  child.start = Clock::now();
  child.deadline = child.start + std::chrono::microseconds(std::int64_t(limits.seconds * 1e6));
  return child;
}

// Reads what is there on `fd` (non-blocking) into `into`; closes it at its end.
void drain(int& fd, std::string& into, std::size_t keep, bool keepTail) {
  char buffer[65536];
  while (fd >= 0) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      into.append(buffer, std::size_t(n));
      if (into.size() > keep) {
        if (keepTail)
          into.erase(0, into.size() - keep);
        else
          return;  // the caller sees it is too large
      }
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      close(fd);
      fd = -1;
    }
  }
}

// Kills the child's whole group while the child (a zombie at worst) still holds its number.
void killGroup(Running& child) {
  if (child.pid > 0) kill(-child.pid, SIGKILL);
}

// Whether the child has exited, without reaping it.
bool hasExited(const Running& child) {
  siginfo_t info{};
  info.si_pid = 0;
  return waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid != 0;
}

// Reaps the child (its group killed first: a compiler it started goes with it), reads what is
// left, and fills the outcome.
void finish(Running& child, std::size_t maxOutput) {
  killGroup(child);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  // What the killed group left in the pipes: the writers are gone, so this ends.
  for (int round = 0; round < 100 && (child.out >= 0 || child.err >= 0); ++round) {
    pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
    poll(fds, 2, 10);
    drain(child.out, child.outcome.out, maxOutput, false);
    drain(child.err, child.outcome.err, kMaxStderrBytes, true);
  }
  if (child.out >= 0) close(child.out);
  if (child.err >= 0) close(child.err);
  child.out = child.err = -1;
  child.outcome.seconds = secondsSince(child.start);
  if (child.outcome.end == ChildOutcome::End::NotStarted) {
    if (WIFEXITED(status)) {
      child.outcome.end = ChildOutcome::End::Exited;
      child.outcome.code = WEXITSTATUS(status);
    } else {
      child.outcome.end = ChildOutcome::End::Signalled;
      child.outcome.code = WTERMSIG(status);
    }
  }
}

}  // namespace

bool addressSpaceLimitWorks() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  return false;
#else
  return true;
#endif
#else
  return true;
#endif
}

const std::vector<std::string>& boundedMemoryVariables() {
  static const std::vector<std::string> settings = {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
                                                    "MALLOC_ARENA_MAX=2"};
  return settings;
}

void setVariables(std::vector<std::string>& environment, const std::vector<std::string>& settings) {
  for (const std::string& setting : settings) {
    const std::string name = setting.substr(0, setting.find('=') + 1);
    std::erase_if(environment, [&](const std::string& v) { return v.starts_with(name); });
    environment.push_back(setting);
  }
}

std::vector<int> allowedCpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}

void runChildren(const std::vector<ChildSpec>& children, int jobs,
                 const std::function<void(std::size_t, ChildOutcome&&)>& finished,
                 const std::atomic<bool>* cancel) {
  jobs = std::max(1, std::min<int>(jobs, int(children.size())));
  // Each slot's share of the cores, when more than one child runs at once.
  const std::vector<int> cpus = allowedCpus();
  std::vector<std::vector<int>> slotCpus(static_cast<std::size_t>(jobs));
  if (jobs > 1 && !cpus.empty())
    for (int slot = 0; slot < jobs; ++slot) {
      const std::size_t count = cpus.size(), first = count * std::size_t(slot) / std::size_t(jobs),
                        last = count * std::size_t(slot + 1) / std::size_t(jobs);
      for (std::size_t i = first; i < std::max(last, first + 1); ++i)
        slotCpus[std::size_t(slot)].push_back(cpus[i % count]);
    }
  std::vector<bool> slotBusy(std::size_t(jobs), false);
  std::vector<Running> running;
  std::size_t next = 0;
  const auto cancelled = [&] { return cancel && cancel->load(); };

  while (next < children.size() || !running.empty()) {
    while (running.size() < std::size_t(jobs) && next < children.size()) {
      const std::size_t index = next++;
      if (cancelled()) {
        ChildOutcome outcome;
        outcome.end = ChildOutcome::End::Cancelled;
        finished(index, std::move(outcome));
        continue;
      }
      const int slot = int(std::find(slotBusy.begin(), slotBusy.end(), false) - slotBusy.begin());
      Running child = start(children[index], slotCpus[std::size_t(slot)]);
      child.index = index;
      if (child.pid < 0) {
        finished(index, std::move(child.outcome));
        continue;
      }
      child.slot = slot;
      slotBusy[std::size_t(slot)] = true;
      running.push_back(std::move(child));
    }
    if (running.empty()) continue;

    // Wait for output, an exit (seen when its pipes end, or by the 50 ms tick) or a deadline.
    std::vector<pollfd> fds;
    auto wake = Clock::now() + std::chrono::milliseconds(50);
    for (const Running& child : running) {
      if (child.out >= 0) fds.push_back({child.out, POLLIN, 0});
      if (child.err >= 0) fds.push_back({child.err, POLLIN, 0});
      wake = std::min(wake, child.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now());
    poll(fds.data(), fds.size(), int(std::max<std::int64_t>(0, wait.count())));

    for (std::size_t i = 0; i < running.size();) {
      Running& child = running[i];
      const ChildSpec& spec = children[child.index];
      drain(child.out, child.outcome.out, spec.maxOutputBytes, false);
      drain(child.err, child.outcome.err, kMaxStderrBytes, true);
      bool done = false;
      if (child.outcome.out.size() > spec.maxOutputBytes) {
        child.outcome.end = ChildOutcome::End::OutputTooLarge;
        done = true;
      } else if (cancelled()) {
        child.outcome.end = ChildOutcome::End::Cancelled;
        done = true;
      } else if (Clock::now() >= child.deadline) {
        child.outcome.end = ChildOutcome::End::TimedOut;
        done = true;
      } else {
        done = hasExited(child);
      }
      if (!done) {
        ++i;
        continue;
      }
      finish(child, spec.maxOutputBytes);
      slotBusy[std::size_t(child.slot)] = false;
      const std::size_t index = child.index;
      ChildOutcome outcome = std::move(child.outcome);
      running.erase(running.begin() + std::ptrdiff_t(i));
      finished(index, std::move(outcome));
    }
  }
}

std::string signalDescription(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "segmentation fault";
    case SIGBUS:
      return "bus error";
    case SIGFPE:
      return "arithmetic exception (SIGFPE)";
    case SIGILL:
      return "illegal instruction";
    case SIGABRT:
      return "aborted";
    case SIGKILL:
      return "killed (SIGKILL)";
    case SIGXCPU:
      return "its CPU time ran out (SIGXCPU)";
    case SIGXFSZ:
      return "it wrote a file past the size limit (SIGXFSZ)";
    case SIGSYS:
      return "stopped by the sandbox (SIGSYS)";
    case SIGPIPE:
      return "broken pipe";
    case SIGTRAP:
      return "trace trap";
    default:
      break;
  }
  const char* name = sigabbrev_np(signal);
  return std::string("signal ") + std::to_string(signal) +
         (name ? std::string(" (SIG") + name + ")" : "");
}

// --- Landlock ---------------------------------------------------------------------------------

namespace {

// The kernel's interface (linux/landlock.h), spelled out: this machine's headers may be older
// than its kernel.
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

struct LandlockRulesetAttr {
  std::uint64_t handledAccessFs = 0;
  std::uint64_t handledAccessNet = 0;  // ABI 4
  std::uint64_t scoped = 0;            // ABI 6
};

struct LandlockPathBeneathAttr {
  std::uint64_t allowedAccess;
  std::int32_t parentFd;
} __attribute__((packed));

constexpr std::uint32_t kLandlockCreateRulesetVersion = 1u << 0;
constexpr int kLandlockRulePathBeneath = 1;

constexpr std::uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2,
                        kFsReadDir = 1ull << 3, kFsTruncate = 1ull << 14, kFsIoctlDev = 1ull << 15;
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

// Every file-system right of ABI `version`.
std::uint64_t fsRights(int version) {
  std::uint64_t rights = (1ull << 13) - 1;  // ABI 1: execute ... make_sym
  if (version >= 2) rights |= 1ull << 13;   // refer
  if (version >= 3) rights |= kFsTruncate;
  if (version >= 5) rights |= kFsIoctlDev;
  return rights;
}

}  // namespace

int landlockVersion() {
  const long version =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, kLandlockCreateRulesetVersion);
  return version > 0 ? int(version) : 0;
}

std::optional<std::string> restrictFiles(const std::vector<std::string>& readOnly,
                                         const std::vector<std::string>& readWrite) {
  const int version = landlockVersion();
  if (version == 0)
    return std::string(
        "this kernel has no Landlock (Linux 5.13 and up, with landlock among its "
        "security modules)");
  LandlockRulesetAttr attr;
  attr.handledAccessFs = fsRights(version);
  std::size_t size = sizeof(std::uint64_t);
  if (version >= 4) {
    attr.handledAccessNet = kNetBindTcp | kNetConnectTcp;
    size = 2 * sizeof(std::uint64_t);
  }
  if (version >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof attr;
  }
  const int ruleset = int(syscall(SYS_landlock_create_ruleset, &attr, size, 0u));
  if (ruleset < 0) return std::string("Landlock refused the ruleset: ") + std::strerror(errno);
  const std::uint64_t fileRights =
      kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;
  const auto allow = [&](const std::string& path,
                         std::uint64_t rights) -> std::optional<std::string> {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return std::nullopt;  // not on this machine: nothing to allow
    struct stat info {};
    fstat(fd, &info);
    rights &= attr.handledAccessFs;
    if (!S_ISDIR(info.st_mode)) rights &= fileRights;
    const LandlockPathBeneathAttr rule{rights, fd};
    const long added = syscall(SYS_landlock_add_rule, ruleset, kLandlockRulePathBeneath, &rule, 0u);
    const int error = errno;
    close(fd);
    if (added != 0) return "Landlock refused " + path + ": " + std::strerror(error);
    return std::nullopt;
  };
  std::optional<std::string> problem;
  for (const std::string& path : readOnly)
    if (!problem) problem = allow(path, kFsExecute | kFsReadFile | kFsReadDir);
  for (const std::string& path : readWrite)
    if (!problem) problem = allow(path, fsRights(version));
  if (!problem && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    problem = std::string("no_new_privs: ") + std::strerror(errno);
  if (!problem && syscall(SYS_landlock_restrict_self, ruleset, 0u) != 0)
    problem = std::string("Landlock: ") + std::strerror(errno);
  close(ruleset);
  return problem;
}

}  // namespace tilescope::exercise::sandbox
