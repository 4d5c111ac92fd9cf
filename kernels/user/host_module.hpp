// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: the entry points of a user kernel compiled for the host (host_kernel.cpp finds them,
// kernels/cpu/user_launch.cpp calls them).
#include "tilescope/host_kernel.hpp"
#include "user/host/ts_host_abi.hpp"

namespace tilescope {

struct HostModule::Entry {
  // ts_host_entry.hpp's ts_host_thread: runs `kernel` as `thread` on the ts::Problem at `problem`.
  void (*thread)(ts::host::Thread* thread, const void* kernel, const void* problem) = nullptr;
  const void* kernel = nullptr;                                  // TS_KERNEL's ts_kernel
  void (*launchShape)(int m, int n, int k, int* out) = nullptr;  // TS_LAUNCH's ts_launch
  void (*kStep)(int m, int n, int k, int* out) = nullptr;        // TS_KSTEP's, null without one
};

}  // namespace tilescope
