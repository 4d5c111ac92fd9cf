// SPDX-License-Identifier: GPL-3.0-or-later
#include <sched.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "cpu_kernels.hpp"
#include "tilescope/error.hpp"

namespace tilescope::cpu {

int workerThreads() {
  static const int threads = [] {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
      return CPU_COUNT(&allowed);
    return int(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return threads;
}

void launchBlocks(Dim2 grid, const std::atomic<bool>* cancel,
                  const std::function<void(Dim2 block)>& blockBody) {
  const std::int64_t blockCount = std::int64_t(grid.x) * grid.y;
  std::atomic<std::int64_t> nextBlock{0};
  std::atomic<bool> stop{false};
  bool cancelled = false;
  std::exception_ptr failure;
  std::mutex failureMutex;

  auto worker = [&] {
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
          const std::lock_guard lock(failureMutex);
          cancelled = true;
          stop = true;
          return;
        }
        const std::int64_t index = nextBlock.fetch_add(1, std::memory_order_relaxed);
        if (index >= blockCount) return;
        blockBody({int(index % grid.x), int(index / grid.x)});
      }
    } catch (...) {
      // An exception must not escape a std::thread (that terminates); hand it to the caller.
      const std::lock_guard lock(failureMutex);
      if (!failure) failure = std::current_exception();
      stop = true;
    }
  };

  const auto hardwareThreads = std::int64_t(workerThreads());
  const std::int64_t helpers = std::min(hardwareThreads, blockCount) - 1;
  std::vector<std::thread> pool;
  for (std::int64_t i = 0; i < helpers; ++i) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer helpers only slows the launch: the calling thread works too
    }
  }
  worker();
  for (std::thread& thread : pool) thread.join();

  if (failure) std::rethrow_exception(failure);
  if (cancelled) throw Error(ErrorKind::Cancelled, "cancelled by the user");
}

}  // namespace tilescope::cpu
