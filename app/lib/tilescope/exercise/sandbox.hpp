// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The grader's isolation (docs/exercises.md, "Grading a class"). Each submission is checked in a
// child process of its own, and what it does wrong ends there. Every compile of a user kernel runs
// in such a child too (the parent's side alone: tilescope/compile/compile_child.hpp).
//
// The parent's side: children started with fork and exec, each in a session of its own (a process
// group the parent kills whole) that is killed when the starting thread ends, in its own working
// directory and environment, with nothing open but /dev/null and two pipes, with resource limits
// (address space, CPU time, file size, no core files), pinned to its share of the cores, and a
// wall-clock deadline the parent enforces with SIGKILL. What they write is read within that
// deadline.
//
// The child's side: file access narrowed with Landlock (where the kernel has it), then system calls
// with a seccomp-BPF allowlist, in stages, so that no code of the submission runs before it is shut
// in: build (the compiler runs), load (read-only files of its own folder: the loader reads the
// kernel's shared object, and a global's constructor runs), run (memory, threads, time, and writes
// to what is already open; nothing else).
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tilescope::exercise::sandbox {

struct Limits {
  double seconds = 60;            // wall clock from the start: then the group gets SIGKILL
  std::uint64_t memoryBytes = 0;  // address space of each process (RLIMIT_AS); 0: none
  double cpuSeconds = 0;          // CPU time of each process (RLIMIT_CPU); 0: none
  std::uint64_t fileBytes = 0;    // the largest file a process may write (RLIMIT_FSIZE); 0: none
};

// Whether an address-space limit can bound this build's memory: not under AddressSanitizer, whose
// shadow memory alone reserves terabytes (nor under the other sanitizers that reserve shadow).
bool addressSpaceLimitWorks();

// NAME=VALUE settings for a child under an address-space limit: OpenBLAS starts no thread per core
// as it loads (on 16 cores their stacks beside the CUDA libraries passed 1 GiB before main), and
// malloc keeps two arenas (one per thread would reserve more than the limit).
const std::vector<std::string>& boundedMemoryVariables();

// Puts each NAME=VALUE of `settings` into `environment`, in place of any value NAME had there.
void setVariables(std::vector<std::string>& environment, const std::vector<std::string>& settings);

struct ChildSpec {
  std::vector<std::string> argv;         // argv[0]: the program's path
  std::string directory;                 // its working directory
  std::vector<std::string> environment;  // NAME=VALUE: all it gets
  Limits limits;
  std::size_t maxOutputBytes = std::size_t(64) << 20;  // more on stdout, and it is killed
};

struct ChildOutcome {
  enum class End { Exited, Signalled, TimedOut, OutputTooLarge, NotStarted, Cancelled };
  End end = End::NotStarted;
  int code = 0;     // Exited: the exit status; Signalled: the signal
  std::string out;  // what it wrote to stdout
  std::string err;  // the last 64 KiB it wrote to stderr
  double seconds = 0;
  std::string why;  // NotStarted: why
};

// Runs every child, at most `jobs` at once (each pinned to its share of this process's cores when
// more than one runs), and calls `finished(index, outcome)` as each ends. `cancel`: every child
// still running is killed and the rest are not started (their outcome Cancelled).
void runChildren(const std::vector<ChildSpec>& children, int jobs,
                 const std::function<void(std::size_t, ChildOutcome&&)>& finished,
                 const std::atomic<bool>* cancel = nullptr);

// "segmentation fault" for SIGSEGV, "aborted" for SIGABRT, ...
std::string signalDescription(int signal);

// The cores this process may run on.
std::vector<int> allowedCpus();

// --- The child's side ------------------------------------------------------------------------

// The Landlock ABI this kernel offers (1 and up), or 0 where it has none.
int landlockVersion();

// Narrows this process's file access (and its children's) to `readOnly` paths (read and execute)
// and `readWrite` paths (anything beneath them); with Landlock 4 and up no TCP either, with 6 and
// up no signals or abstract sockets outside. Each call narrows further. Why it could not, or
// nullopt.
std::optional<std::string> restrictFiles(const std::vector<std::string>& readOnly,
                                         const std::vector<std::string>& readWrite);

enum class Stage {
  Loading,  // and reading files read-only (Landlock decides which), stat, the loader's calls
  Running,  // memory, threads, futexes, time, signals to itself, reads and writes of open files
};

// Installs the system-call filter of `stage` (a second one narrows the first). A call it refuses
// fails with EPERM and is remembered (refusedCalls) unless it only asks about /proc or /sys,
// which the C library does of itself (the number of cores, the memory). Threads are allowed,
// other processes not; signals go to this process only; limits cannot be raised. Why it could
// not, or nullopt (it cannot on an architecture other than x86-64 and AArch64).
std::optional<std::string> restrictSystemCalls(Stage stage);

// The calls the filter refused, as "unlink(\"/home/lecturer/grades.csv\")", at most 32, and how
// many there were.
struct Refused {
  std::vector<std::string> calls;
  int total = 0;
};
Refused refusedCalls();

}  // namespace tilescope::exercise::sandbox
