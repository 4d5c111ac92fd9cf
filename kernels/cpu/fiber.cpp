// SPDX-License-Identifier: GPL-3.0-or-later
#include "fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define TILESCOPE_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define TILESCOPE_FIBER_ASAN 1
#endif
#endif

#if defined(__x86_64__)
// switch(save, to): pushes the System V callee-saved registers, saves the stack pointer at
// *save, takes `to` as the stack pointer and pops the other fiber's registers. A new fiber's
// stack holds fiberStart as the return address, its body in r13 and the argument in r12.
asm(R"(
    .text
    .p2align 4
    .hidden tilescope_fiber_switch
    .globl tilescope_fiber_switch
    .type tilescope_fiber_switch, @function
tilescope_fiber_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size tilescope_fiber_switch, .-tilescope_fiber_switch
    .p2align 4
    .hidden tilescope_fiber_start
    .globl tilescope_fiber_start
    .type tilescope_fiber_start, @function
tilescope_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size tilescope_fiber_start, .-tilescope_fiber_start
)");
extern "C" void tilescope_fiber_switch(void** save, void* to);
extern "C" void tilescope_fiber_start();
#endif

namespace tilescope::cpu {

// One fiber: its body, and for AddressSanitizer (the asan preset's tests run fibers too) its
// fake stack while it is switched out.
struct Slot {
  Fibers::State* state = nullptr;
  void (*body)(void*) = nullptr;
  void* argument = nullptr;
  void* fakeStack = nullptr;
};

struct Fibers::State {
  std::size_t stackBytes = 0, slotBytes = 0;
  unsigned char* stacks = nullptr;
  std::size_t mapped = 0;
  std::vector<Slot> slots;
#if defined(__x86_64__)
  std::vector<void*> sp;  // each fiber's saved stack pointer
  void* scheduler = nullptr;
#else
  std::vector<ucontext_t> contexts;
  ucontext_t scheduler{};
#endif
  // The scheduler's stack, for AddressSanitizer.
  void* schedulerFakeStack = nullptr;
  const void* schedulerBottom = nullptr;
  std::size_t schedulerSize = 0;
  unsigned char* bottom(int i) const {
    return stacks + std::size_t(i) * slotBytes + std::size_t(getpagesize());
  }
};

namespace {

// Around each switch, AddressSanitizer is told whose stack runs next.
void leaving(void** fakeStack, const void* bottom, std::size_t size) {
#ifdef TILESCOPE_FIBER_ASAN
  __sanitizer_start_switch_fiber(fakeStack, bottom, size);
#else
  (void)fakeStack, (void)bottom, (void)size;
#endif
}
void arrived(void* fakeStack, const void** bottom, std::size_t* size) {
#ifdef TILESCOPE_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fakeStack, bottom, size);
#else
  (void)fakeStack, (void)bottom, (void)size;
#endif
}

void run(void* at) {
  Slot& slot = *static_cast<Slot*>(at);
  arrived(nullptr, &slot.state->schedulerBottom, &slot.state->schedulerSize);
  slot.body(slot.argument);
}

#if !defined(__x86_64__)
// makecontext passes ints: the slot's address in two.
void ucontextRun(unsigned high, unsigned low) {
  run(reinterpret_cast<void*>(std::uintptr_t(high) << 32 | low));
}
#endif

}  // namespace

Fibers::Fibers(int count, std::size_t stackBytes) : state_(std::make_unique<State>()) {
  State& s = *state_;
  const std::size_t page = std::size_t(getpagesize());
  s.stackBytes = (stackBytes + page - 1) / page * page;
  s.slotBytes = s.stackBytes + page;
  s.mapped = s.slotBytes * std::size_t(count);
  void* memory = mmap(nullptr, s.mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  s.stacks = static_cast<unsigned char*>(memory);
  // A guard page below each stack: an overflow faults instead of writing another fiber's stack.
  for (int i = 0; i < count; ++i)
    mprotect(s.stacks + std::size_t(i) * s.slotBytes, page, PROT_NONE);
  s.slots.resize(std::size_t(count));
#if defined(__x86_64__)
  s.sp.resize(std::size_t(count));
#else
  s.contexts.resize(std::size_t(count));
#endif
}

Fibers::~Fibers() {
  munmap(state_->stacks, state_->mapped);
}

void Fibers::start(int i, void (*body)(void*), void* argument) {
  State& s = *state_;
  Slot& slot = s.slots[std::size_t(i)];
  slot = {&s, body, argument, nullptr};
#if defined(__x86_64__)
  // From the stack's top (16-byte aligned) down: 16 bytes, so that the call in fiber_start sees
  // an aligned stack; the return address; rbp, rbx, r12 (the argument), r13 (the function),
  // r14, r15.
  auto** top = reinterpret_cast<void**>(s.bottom(i) + s.stackBytes);
  void** sp = top - 9;
  sp[0] = sp[1] = nullptr;
  sp[2] = reinterpret_cast<void*>(&run);
  sp[3] = &slot;
  sp[4] = sp[5] = nullptr;
  sp[6] = reinterpret_cast<void*>(&tilescope_fiber_start);
  sp[7] = sp[8] = nullptr;
  s.sp[std::size_t(i)] = sp;
#else
  ucontext_t& context = s.contexts[std::size_t(i)];
  getcontext(&context);
  context.uc_stack.ss_sp = s.bottom(i);
  context.uc_stack.ss_size = s.stackBytes;
  context.uc_link = nullptr;
  const auto address = reinterpret_cast<std::uintptr_t>(&slot);
  makecontext(&context, reinterpret_cast<void (*)()>(&ucontextRun), 2, unsigned(address >> 32),
              unsigned(address));
#endif
}

void Fibers::resume(int i) {
  State& s = *state_;
  leaving(&s.schedulerFakeStack, s.bottom(i), s.stackBytes);
#if defined(__x86_64__)
  tilescope_fiber_switch(&s.scheduler, s.sp[std::size_t(i)]);
#else
  swapcontext(&s.scheduler, &s.contexts[std::size_t(i)]);
#endif
  arrived(s.schedulerFakeStack, nullptr, nullptr);
}

void Fibers::yield(int i) {
  State& s = *state_;
  Slot& slot = s.slots[std::size_t(i)];
  leaving(&slot.fakeStack, s.schedulerBottom, s.schedulerSize);
#if defined(__x86_64__)
  tilescope_fiber_switch(&s.sp[std::size_t(i)], s.scheduler);
#else
  swapcontext(&s.contexts[std::size_t(i)], &s.scheduler);
#endif
  arrived(slot.fakeStack, &s.schedulerBottom, &s.schedulerSize);
}

void Fibers::finish(int i) {
  State& s = *state_;
  leaving(nullptr, s.schedulerBottom, s.schedulerSize);  // its fake stack goes
#if defined(__x86_64__)
  tilescope_fiber_switch(&s.sp[std::size_t(i)], s.scheduler);
#else
  swapcontext(&s.contexts[std::size_t(i)], &s.scheduler);
#endif
  __builtin_unreachable();  // a finished fiber is never resumed, only started again
}

}  // namespace tilescope::cpu
