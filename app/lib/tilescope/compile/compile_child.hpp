// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A user kernel's compile in a child process: tilescope-bench --compile-kernel REQUEST compiles
// in its own process (NVRTC's image, or the CPU's shared object in the cache folder) and writes
// the CompileResult on stdout. The child runs under a wall-clock and CPU-time limit and an
// address-space limit (exercise::sandbox::runChildren), in a process group killed whole, so a
// source that makes a compiler hang or exhaust memory ends as a diagnostic, never as a hang or
// a crash of the program that asked.
#include <atomic>
#include <cstdint>
#include <string>

#include "tilescope/user_kernel.hpp"

namespace tilescope::compile {

struct Limits {
  double seconds = 60;                                 // wall clock, and CPU time per process
  std::uint64_t memoryBytes = std::uint64_t(4) << 30;  // address space per process; 0: none
};

// The default limits, or those TILESCOPE_COMPILE_SECONDS and TILESCOPE_COMPILE_MEMORY_MIB give
// (a positive number each; anything else keeps the default).
Limits limitsFromEnvironment();

// "the compiler took longer than 60 s", "the compiler ran out of its 4 GiB memory limit".
std::string timeLimitMessage(const Limits& limits);
std::string memoryLimitMessage(const Limits& limits);

// Compiles in a child: `program` (tilescope-bench's path) --compile-kernel. Everything that goes
// wrong outside the source (a limit, a crash, no program, `cancel`) is a diagnostic of the whole
// program with ok false. Under AddressSanitizer the memory limit is left off (its shadow memory
// alone passes any limit).
CompileResult compileInChild(const std::string& program, const UserKernelSource& kernel,
                             const CompileOptions& options, const CompileTarget& target,
                             const Limits& limits, const std::atomic<bool>* cancel = nullptr);

// From now on every compile of this process runs in such a child (setIsolatedCompiler).
void isolateCompiles(const std::string& program, const Limits& limits);

// The child's side: compiles the request at `path` in this process; the reply's text, one line.
// Throws tilescope::Error for a request it cannot read.
std::string answerCompileRequest(const std::string& path);

}  // namespace tilescope::compile
