// SPDX-License-Identifier: GPL-3.0-or-later
// The grader's system-call filter (sandbox.hpp): a seccomp-BPF allowlist installed in stages, and
// the SIGSYS handler that names a refused call and its path.
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>

#include "tilescope/exercise/sandbox.hpp"

namespace tilescope::exercise::sandbox {

namespace {

#if defined(__x86_64__)
#define TS_SECCOMP 1
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
#define TS_SECCOMP 1
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

#ifdef TS_SECCOMP

// The calls a refusal names, with the argument that holds a path (-1: none).
struct CallName {
  long number;
  const char* name;
  int pathArgument;
};

// clang-format off
#define TS_NAMED(call, path) {SYS_##call, #call, path},
const CallName kCallNames[] = {
#ifdef SYS_open
  TS_NAMED(open, 0) TS_NAMED(creat, 0) TS_NAMED(unlink, 0) TS_NAMED(rename, 0)
  TS_NAMED(mkdir, 0) TS_NAMED(rmdir, 0) TS_NAMED(link, 0) TS_NAMED(symlink, 1)
  TS_NAMED(chmod, 0) TS_NAMED(chown, 0) TS_NAMED(lchown, 0) TS_NAMED(stat, 0)
  TS_NAMED(lstat, 0) TS_NAMED(access, 0) TS_NAMED(readlink, 0) TS_NAMED(utimes, 0)
  TS_NAMED(fork, -1) TS_NAMED(vfork, -1)
#endif
  TS_NAMED(openat, 1) TS_NAMED(openat2, 1) TS_NAMED(unlinkat, 1) TS_NAMED(renameat2, 1)
  TS_NAMED(mkdirat, 1) TS_NAMED(linkat, 1) TS_NAMED(symlinkat, 2) TS_NAMED(fchmodat, 1)
  TS_NAMED(fchownat, 1) TS_NAMED(truncate, 0) TS_NAMED(ftruncate, -1) TS_NAMED(newfstatat, 1)
  TS_NAMED(statx, 1) TS_NAMED(faccessat, 1) TS_NAMED(faccessat2, 1) TS_NAMED(readlinkat, 1)
  TS_NAMED(execve, 0) TS_NAMED(execveat, 1) TS_NAMED(chdir, 0) TS_NAMED(mount, 1)
  TS_NAMED(clone, -1) TS_NAMED(clone3, -1) TS_NAMED(socket, -1) TS_NAMED(connect, -1)
  TS_NAMED(bind, -1) TS_NAMED(kill, -1) TS_NAMED(tgkill, -1) TS_NAMED(tkill, -1)
  TS_NAMED(ptrace, -1) TS_NAMED(getdents64, -1) TS_NAMED(ioctl, -1) TS_NAMED(prctl, -1)
  TS_NAMED(prlimit64, -1) TS_NAMED(setrlimit, -1) TS_NAMED(rt_sigaction, -1)
  TS_NAMED(process_vm_readv, -1) TS_NAMED(process_vm_writev, -1) TS_NAMED(memfd_create, -1)
};
#undef TS_NAMED
// clang-format on

const CallName* callName(long number) {
  for (const CallName& call : kCallNames)
    if (call.number == number) return &call;
  return nullptr;
}

// What the SIGSYS handler remembers: written there (async-signal-safe), read after the checks.
struct Refusal {
  long number;
  char path[192];  // empty where the call takes none or it could not be read
};
constexpr int kMaxRefusals = 32;
Refusal refusals[kMaxRefusals];
std::atomic<int> refusalCount{0};
std::atomic<int> refusalTotal{0};
// A pipe the handler copies a path through: write() says EFAULT for a bad pointer, where reading
// it directly would fault inside the handler.
int probe[2] = {-1, -1};

// Copies the string at `address` into `into` (at most size - 1 characters), safely.
void copyString(const char* address, char* into, std::size_t size) {
  std::size_t n = 0;
  while (address && probe[1] >= 0 && n + 1 < size) {
    char c = 0;
    if (write(probe[1], address + n, 1) != 1 || read(probe[0], &c, 1) != 1 || c == '\0') break;
    into[n++] = c;
  }
  into[n] = '\0';
}

bool startsWith(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

void onRefusedCall(int, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  const greg_t* r = uc->uc_mcontext.gregs;
  const std::uint64_t args[6] = {std::uint64_t(r[REG_RDI]), std::uint64_t(r[REG_RSI]),
                                 std::uint64_t(r[REG_RDX]), std::uint64_t(r[REG_R10]),
                                 std::uint64_t(r[REG_R8]),  std::uint64_t(r[REG_R9])};
#else
  const auto* r = uc->uc_mcontext.regs;
  const std::uint64_t args[6] = {r[0], r[1], r[2], r[3], r[4], r[5]};
#endif
  const long number = info->si_syscall;
  Refusal refusal{number, {}};
  if (const CallName* call = callName(number); call && call->pathArgument >= 0)
    copyString(reinterpret_cast<const char*>(args[call->pathArgument]), refusal.path,
               sizeof refusal.path);
  // The C library asks /proc and /sys of itself (the cores, the memory) and does without.
  const bool ownQuestion = startsWith(refusal.path, "/proc/") || startsWith(refusal.path, "/sys/");
  if (!ownQuestion) {
    refusalTotal.fetch_add(1);
    const int slot = refusalCount.fetch_add(1);
    if (slot < kMaxRefusals) refusals[slot] = refusal;
  }
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#else
  uc->uc_mcontext.regs[0] = std::uint64_t(-EPERM);
#endif
  errno = savedErrno;
}

bool noNewPrivs = false;

// A BPF program, built one check at a time. Every check ends in returns, so the accumulator
// holds the call's number again after each.
class Filter {
 public:
  Filter() {
    load(offsetof(seccomp_data, arch));
    jumpIf(BPF_JEQ, kAuditArch, 1, 0);
    give(SECCOMP_RET_KILL_PROCESS);
    load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
    jumpIf(BPF_JGE, 0x40000000u, 0, 1);  // the x32 calls
    give(SECCOMP_RET_KILL_PROCESS);
#endif
  }

  void allow(long number) {
    jumpIf(BPF_JEQ, std::uint32_t(number), 0, 1);
    give(SECCOMP_RET_ALLOW);
  }
  void answer(long number, std::uint32_t action) {
    jumpIf(BPF_JEQ, std::uint32_t(number), 0, 1);
    give(action);
  }
  // Allowed where the low word of argument `argument` has none of `bits` set (or, `wantSet`,
  // where it has all of them); refused otherwise.
  void allowWhereBits(long number, int argument, std::uint32_t bits, bool wantSet) {
    jumpIf(BPF_JEQ, std::uint32_t(number), 0, 4);
    load(argumentLow(argument));
    jumpIf(BPF_JSET, bits, wantSet ? 0 : 1, wantSet ? 1 : 0);
    give(SECCOMP_RET_ALLOW);
    give(SECCOMP_RET_TRAP);
  }
  // Allowed where argument `argument` equals `value` (both words), refused otherwise.
  void allowWhereEquals(long number, int argument, std::uint64_t value) {
    jumpIf(BPF_JEQ, std::uint32_t(number), 0, 6);
    load(argumentLow(argument));
    jumpIf(BPF_JEQ, std::uint32_t(value), 0, 3);
    load(argumentLow(argument) + 4);
    jumpIf(BPF_JEQ, std::uint32_t(value >> 32), 0, 1);
    give(SECCOMP_RET_ALLOW);
    give(SECCOMP_RET_TRAP);
  }
  // Refused where argument `argument` equals `value` (low word), allowed otherwise.
  void allowWhereNot(long number, int argument, std::uint32_t value) {
    jumpIf(BPF_JEQ, std::uint32_t(number), 0, 4);
    load(argumentLow(argument));
    jumpIf(BPF_JEQ, value, 0, 1);
    give(SECCOMP_RET_TRAP);
    give(SECCOMP_RET_ALLOW);
  }

  std::optional<std::string> install() {
    give(SECCOMP_RET_TRAP);
    sock_fprog program{static_cast<unsigned short>(code_.size()), code_.data()};
    // Set by the filter before (whose filter refuses prctl), else now.
    if (!noNewPrivs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      return std::string("no_new_privs: ") + std::strerror(errno);
    noNewPrivs = true;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0)
      return std::string("the system-call filter: ") + std::strerror(errno);
    return std::nullopt;
  }

 private:
  static std::uint32_t argumentLow(int argument) {
    return std::uint32_t(offsetof(seccomp_data, args) + 8 * std::size_t(argument));
  }
  void load(std::uint32_t offset) {
    code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
  }
  void jumpIf(std::uint16_t test, std::uint32_t value, std::uint8_t ifTrue, std::uint8_t ifFalse) {
    code_.push_back(BPF_JUMP(BPF_JMP | test | BPF_K, value, ifTrue, ifFalse));
  }
  void give(std::uint32_t action) {
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, action));
  }

  std::vector<sock_filter> code_;
};

#endif  // TS_SECCOMP

}  // namespace

std::optional<std::string> restrictSystemCalls(Stage stage) {
#ifndef TS_SECCOMP
  (void)stage;
  return std::string("the system-call filter is written for x86-64 and AArch64 only");
#else
  if (probe[0] < 0) {
    if (pipe2(probe, O_CLOEXEC | O_NONBLOCK) != 0)
      return std::string("no pipe: ") + std::strerror(errno);
    struct sigaction action {};
    action.sa_sigaction = onRefusedCall;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, nullptr) != 0)
      return std::string("SIGSYS: ") + std::strerror(errno);
  }
  Filter filter;
  // Memory, threads and their synchronisation, time, signals to itself, the open descriptors.
  for (const long call :
       {SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_close, SYS_lseek,
        SYS_fstat, SYS_mmap, SYS_munmap, SYS_mprotect, SYS_madvise, SYS_brk, SYS_mremap,
        SYS_membarrier, SYS_futex, SYS_set_robust_list, SYS_get_robust_list, SYS_rseq,
        SYS_set_tid_address, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_sigaltstack, SYS_exit,
        SYS_exit_group, SYS_clock_gettime, SYS_clock_getres, SYS_clock_nanosleep, SYS_gettimeofday,
        SYS_nanosleep, SYS_sched_yield, SYS_sched_getaffinity, SYS_getcpu, SYS_getpid, SYS_gettid,
        SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getrandom, SYS_getrusage,
        SYS_times, SYS_restart_syscall, SYS_uname,
        // OpenBLAS places its buffers: a NUMA policy of its own memory.
        SYS_mbind, SYS_get_mempolicy, SYS_set_mempolicy,
        // A pipe of its own: the sanitizers probe memory through one.
        SYS_pipe2})
    filter.allow(call);
#ifdef SYS_futex_waitv
  filter.allow(SYS_futex_waitv);
#endif
#ifdef SYS_time
  filter.allow(SYS_time);
#endif
  // Threads, not processes; the C library falls back from clone3, whose flags a filter cannot
  // read, to clone.
  filter.allowWhereBits(SYS_clone, 0, CLONE_THREAD, /*wantSet=*/true);
  filter.answer(SYS_clone3, SECCOMP_RET_ERRNO | ENOSYS);
  const pid_t self = getpid();
  filter.allowWhereEquals(SYS_tgkill, 0, std::uint64_t(self));
  filter.allowWhereEquals(SYS_kill, 0, std::uint64_t(self));
  // Limits read, never set (as root a process could raise its hard limits).
  filter.allowWhereEquals(SYS_prlimit64, 2, 0);
  filter.allowWhereNot(SYS_rt_sigaction, 0, SIGSYS);
  if (stage == Stage::Loading) {
    // The loader: files opened read-only (Landlock says which), their status, mapped.
    filter.allowWhereBits(SYS_openat, 2,
                          O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE,
                          /*wantSet=*/false);
    filter.allow(SYS_newfstatat);
    filter.allow(SYS_statx);
    filter.allow(SYS_fcntl);
    // The filter of the next stage is installed from this one (a filter can only narrow).
    filter.allow(SYS_seccomp);
  }
  return filter.install();
#endif
}

Refused refusedCalls() {
  Refused refused;
#ifdef TS_SECCOMP
  refused.total = refusalTotal.load();
  const int count = std::min(refusalCount.load(), kMaxRefusals);
  for (int i = 0; i < count; ++i) {
    const Refusal& refusal = refusals[i];
    const CallName* call = callName(refusal.number);
    std::string text =
        call ? std::string(call->name) : "system call " + std::to_string(refusal.number);
    if (call && call->pathArgument >= 0) text += "(\"" + std::string(refusal.path) + "\")";
    if (refusal.number == SYS_clone) text += " (a new process)";
    if (std::find(refused.calls.begin(), refused.calls.end(), text) == refused.calls.end())
      refused.calls.push_back(text);
  }
#endif
  return refused;
}

}  // namespace tilescope::exercise::sandbox
