// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/io/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <initializer_list>

namespace tilescope::io {
namespace {

// Only what a signal handler may touch: lock-free atomics and async-signal-safe calls.
std::atomic<bool>* stopFlag = nullptr;
int notifyFd = -1;
std::atomic<int> firstSignal{0};
std::atomic<long long> firstSignalSeconds{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

long long monotonicSeconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec;
}

extern "C" void onInterrupt(int signal) {
  int expected = 0;
  if (firstSignal.compare_exchange_strong(expected, signal)) {
    firstSignalSeconds.store(monotonicSeconds());
    if (stopFlag) stopFlag->store(true);
    if (notifyFd >= 0) {
      const char byte = 1;
      [[maybe_unused]] const ssize_t ignored = ::write(notifyFd, &byte, 1);
    }
    return;
  }
  if (monotonicSeconds() - firstSignalSeconds.load() <= kInterruptGraceSeconds) return;
  // Past the grace period: the work did not stop, so end the process as the signal would.
  struct sigaction standard {};
  standard.sa_handler = SIG_DFL;
  sigemptyset(&standard.sa_mask);
  sigaction(signal, &standard, nullptr);
  raise(signal);
}

}  // namespace

void installInterruptHandlers(std::atomic<bool>* stop, int notifyDescriptor) {
  stopFlag = stop;
  notifyFd = notifyDescriptor;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigset_t handled;
  sigemptyset(&handled);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    sigaction(signal, &action, nullptr);
    sigaddset(&handled, signal);
  }
  // A parent (a test runner, a job control shell) may have left them blocked: the calling thread
  // takes them.
  pthread_sigmask(SIG_UNBLOCK, &handled, nullptr);
}

int interruptSignal() {
  return firstSignal.load();
}

}  // namespace tilescope::io
