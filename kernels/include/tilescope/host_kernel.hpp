// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A user kernel (user_kernel.hpp) on the CPU: its source compiled by the host's C++ compiler into
// a shared object, with the SIMT part of the ts:: API and a prelude of CUDA's built-ins, and run
// with CUDA's semantics: a grid of blocks spread over the cores, each block's threads as fibers
// that switch at its barriers, __shared__ memory per block. A sanitized build checks every
// __shared__ index, races and unwritten words, and barriers not every thread reaches.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/user_kernel.hpp"

namespace tilescope {

// Why user kernels cannot be compiled for the CPU here (no C++ compiler), or nullopt.
std::optional<std::string> hostCompilerUnavailable();

// The folder the C++ compiler is installed in, whole: /usr for the system's, /opt/gcc for
// /opt/gcc/bin/g++ (its headers, libraries and helpers lie beside bin/); nullopt where there is no
// compiler. A compile that may read only some folders must be able to read this one.
std::optional<std::string> hostCompilerInstallation();

// The launch TS_LAUNCH and TS_KSTEP give for a shape.
struct HostLaunch {
  Dim2 block, grid;
  int sharedBytes = 0;  // dynamic shared memory
  int kDepth = 1;
};

// A compiled kernel, loaded. Launches run on every core and may run at once.
class HostModule {
 public:
  struct Entry;  // the shared object's entry points
  HostModule(void* library, const Entry& entry, bool sanitized);
  ~HostModule();
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;

  // TS_LAUNCH and TS_KSTEP for `shape`; throws Error(InvalidArgument) for an invalid launch.
  HostLaunch launchFor(const Shape& shape) const;
  // C = A B in fp32 (row-major, as the shape says) with the kernel; `trace`: the ts::Trace of a
  // traced launch (trace()), else null. A sanitized module stops at its first findings and
  // returns them; a barrier not every thread reaches is a finding in any build. Throws
  // Error(Cancelled) when `cancel` is set (checked between blocks).
  // `first`: the block handed out first (a traced launch's, so that no other block's finding
  // stops the launch before it ran).
  SanitizerReport launch(const float* a, const float* b, float* c, const Shape& shape,
                         const HostLaunch& launch, const std::atomic<bool>* cancel,
                         const void* trace = nullptr, Dim2 first = {0, 0}) const;
  // A launch of a module compiled with CompileOptions::trace, recording as the GPU's does
  // (UserModule::trace): the kernel and device are the caller's to fill in. What the sanitizer
  // found is in the trace (KernelTrace::sanitizer): the accesses up to where the launch stopped.
  KernelTrace trace(const float* a, const float* b, float* c, const Shape& shape,
                    const HostLaunch& launch, Dim2 block, int capacity) const;
  bool sanitized() const { return sanitized_; }

 private:
  void* library_;
  std::unique_ptr<Entry> entry_;
  bool sanitized_;
};

struct HostCompileResult {
  CompileResult result;                      // its diagnostics at the user's lines, its values
  std::shared_ptr<const HostModule> module;  // null where it did not compile
};

// Compiles `kernel` for the CPU (fp32 only) on the calling thread, or takes the shared object a
// compile of the same text made before from the cache ($XDG_CACHE_HOME/tilescope/kernels). Refuses
// with a diagnostic at its line what needs an NVIDIA GPU (tensor cores, cp.async, TMA, clusters),
// and asm. While a module of the same text (and `sanitize`) is loaded in this process, that one
// is returned without any file or process being touched: a grader's child compiles, holds the
// modules and shuts file access off before checking.
// `sanitize`: the build checks __shared__ indices, races and unwritten words (TS_SANITIZE).
// Where an isolated compiler is set (setIsolatedCompiler), the compiler runs there
// (buildUserKernelForHost) and this process only loads what it left in the cache folder;
// `cancel` stops it.
HostCompileResult compileUserKernelForHost(const UserKernelSource& kernel,
                                           const CompileOptions& options, bool sanitize = false,
                                           const std::atomic<bool>* cancel = nullptr);

// compileUserKernelForHost up to the shared object in the cache folder, in this process (an
// isolated compiler's child calls it), without loading it: no
// code of the kernel runs (a global's constructor would, at load). ok where it is there, and the
// compileUserKernelForHost that follows takes it from there. A grader's child builds, shuts
// itself in, and only then loads.
CompileResult buildUserKernelForHost(const UserKernelSource& kernel, const CompileOptions& options,
                                     bool sanitize = false);

// The source with each __shared__ declaration rewritten into the block's storage (ts_host_prelude
// .hpp), every line where it was; a diagnostic for each declaration it cannot read.
std::string withHostSharedMemory(const std::string& source,
                                 std::vector<CompileDiagnostic>* problems);

}  // namespace tilescope
