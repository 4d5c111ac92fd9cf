// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fibers: stacks a scheduler runs bodies on, one at a time, each running until it yields. The
// CPU backend runs a user kernel's block as one fiber per CUDA thread, switched at barriers
// (kernels/cpu/user_launch.cpp). On x86-64 a switch saves six registers and the stack pointer,
// no system call; elsewhere it is ucontext's swapcontext, which makes one per switch.
#include <cstddef>
#include <memory>

namespace tilescope::cpu {

class Fibers {
 public:
  // `count` fibers, each with a stack of `stackBytes` above a guard page.
  Fibers(int count, std::size_t stackBytes);
  ~Fibers();
  Fibers(const Fibers&) = delete;
  Fibers& operator=(const Fibers&) = delete;

  // Makes fiber `i` run `body(argument)` from its start when next resumed. A body never returns:
  // it ends with finish(i). A fiber abandoned before its end may be started again.
  void start(int i, void (*body)(void*), void* argument);
  // From the scheduler: runs fiber `i` until it yields or finishes.
  void resume(int i);
  // From fiber `i`: back to the scheduler, until resumed.
  void yield(int i);
  // From fiber `i`: back to the scheduler, for good.
  [[noreturn]] void finish(int i);

  struct State;  // the stacks and saved contexts, fiber.cpp's

 private:
  std::unique_ptr<State> state_;
};

}  // namespace tilescope::cpu
