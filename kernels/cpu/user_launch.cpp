// SPDX-License-Identifier: GPL-3.0-or-later
// Running a user kernel compiled for the host (HostModule): the grid's blocks go to one worker
// per core, one block at a time; a block's threads are fibers the worker runs in turn, each up
// to its next __syncthreads(). When every thread waits at the same barrier the next round
// starts; a thread that finished or waits elsewhere is a divergent barrier, reported, not a hang.
// A sanitized build (TS_SANITIZE) also has each access through the ts:: accessors checked here.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <utility>

#include "cpu_kernels.hpp"
#include "fiber.hpp"
#include "tilescope/error.hpp"
#include "user/host_module.hpp"
#include "user/traced_launch.hpp"

namespace tilescope {
namespace {

constexpr std::size_t kStackBytes = std::size_t(256) << 10;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr std::size_t kMaxSharedBytes = std::size_t(227) << 10;  // an H100's, per block
constexpr int kMaxSharedSites = 256;
constexpr std::size_t kFindingsKept = 8;
constexpr int kFinished = -1, kRunning = 0;  // a thread's state; a barrier's line past 0

std::string pair(int x, int y) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + ")";
}

// What a launch's workers share: the kernel, the problem and what the sanitizer found.
struct LaunchState {
  LaunchState(const HostModule::Entry& entry, const traced::Problem& problem,
              const HostLaunch& launch)
      : entry(entry), problem(problem), launch(launch) {}
  const HostModule::Entry& entry;
  const traced::Problem& problem;
  const HostLaunch& launch;
  // A traced launch's block: it runs to its end or its own finding, whatever other blocks find.
  std::optional<Dim2> traced;
  std::atomic<bool> stop{false};
  std::mutex mutex;
  SanitizerReport report;

  void found(SanitizerFinding finding) {
    std::lock_guard lock(mutex);
    // The traced block's are kept whatever other blocks found before (the pictures show them):
    // at most kFindingsKept of its own and as many of the others'.
    const bool ours = finding.block == traced;
    const auto kept =
        std::count_if(report.findings.begin(), report.findings.end(),
                      [&](const SanitizerFinding& f) { return (f.block == traced) == ours; });
    if (std::size_t(kept) < kFindingsKept) report.findings.push_back(std::move(finding));
    ++report.total;
    stop = true;
  }
};

// The sanitizer's view of one shared word in the current round (between two barriers).
struct WordState {
  int writer = 0, writeRound = 0, writeLine = 0;  // round 0: never written
  int reader = 0, readRound = 0, readLine = 0;    // reader kManyReaders: two threads or more
};
constexpr int kManyReaders = -1;

// One worker: runs blocks, one at a time, with their threads as fibers.
class BlockRunner {
 public:
  BlockRunner(LaunchState& launch, int threads)
      : launch_(launch),
        fibers_(threads, kStackBytes),
        threads_(std::size_t(threads)),
        states_(std::size_t(threads)),
        shared_(new (std::align_val_t(128)) unsigned char[kMaxSharedBytes]) {
    std::fill(siteOffsets_, siteOffsets_ + kMaxSharedSites, -1);
  }
  ~BlockRunner() { operator delete[](shared_, std::align_val_t(128)); }

  void run(int blockX, int blockY);

 private:
  static const ts::host::Runtime kRuntime;
  static BlockRunner& of(ts::host::Thread* thread) {
    return *static_cast<BlockRunner*>(thread->block);
  }
  int indexOf(const ts::host::Thread* thread) const { return int(thread - threads_.data()); }
  Dim2 threadOf(int index) const {
    const int width = int(launch_.launch.block.x);
    return {index % width, index / width};
  }
  std::string where(int line, int thread) const {
    const Dim2 t = threadOf(thread);
    return "line " + std::to_string(line) + ", block " + pair(block_.x, block_.y) + ", thread " +
           pair(t.x, t.y) + ": ";
  }
  // A finding waits for the end of the round, when a divergent barrier goes first (the races
  // its threads made on their way are its consequence).
  void found(SanitizerFinding::Kind kind, int line, int thread, const std::string& what) {
    roundFindings_.push_back({kind, line, block_, threadOf(thread), where(line, thread) + what});
  }
  // Ends the round's checks: reads of words no other thread wrote in it, then the findings, in
  // order; whether there were any.
  bool reportRound(std::vector<SanitizerFinding> first = {});
  // Ends a round: every thread has arrived at a barrier or finished.
  bool nextRound();
  void checkShared(ts::host::Thread* thread, const void* at, int bytes, bool write);

  static void body(void* thread);
  // Rethrows what the kernel's code threw in a thread of this block, as the core's Error.
  [[noreturn]] void rethrowKernelFailure();
  static void barrier(ts::host::Thread* thread, int line);
  static unsigned char* staticShared(ts::host::Thread* thread, int site, unsigned long bytes,
                                     unsigned long align);
  static unsigned char* dynamicShared(ts::host::Thread* thread, unsigned long align,
                                      unsigned long* bytes);
  static void sanitizeShared(ts::host::Thread* thread, const void* at, int bytes, bool write);
  static void outOfBounds(ts::host::Thread* thread, const char* name, long long index,
                          long long extent, int line);

  LaunchState& launch_;
  cpu::Fibers fibers_;
  std::vector<ts::host::Thread> threads_;
  std::vector<int> states_;  // kRunning, kFinished or the line of the barrier it waits at
  unsigned char* shared_;
  std::vector<WordState> words_;  // TS_SANITIZE
  struct Read {
    std::size_t word;
    int thread, line;
  };
  std::vector<Read> unwrittenReads_;  // this round's reads of words not written before it
  std::vector<SanitizerFinding> roundFindings_;
  int siteOffsets_[kMaxSharedSites];
  std::size_t sharedEnd_ = 0;  // where the next static __shared__ declaration goes
  Dim2 block_;
  int round_ = 1;
  // What a thread's kernel code threw (an allocation that failed, say), caught on its fiber:
  // unwinding stops at a fiber's first frame, where it would terminate the process.
  std::exception_ptr kernelFailure_;
  int failedThread_ = 0;
};

const ts::host::Runtime BlockRunner::kRuntime = {
    &BlockRunner::barrier, &BlockRunner::staticShared, &BlockRunner::dynamicShared,
    &BlockRunner::sanitizeShared, &BlockRunner::outOfBounds};

void BlockRunner::run(int blockX, int blockY) {
  const HostLaunch& launch = launch_.launch;
  block_ = {blockX, blockY};
  round_ = 1;
  // The sanitizer's words of the block before: none written yet.
  std::fill(words_.begin(),
            words_.begin() + std::ptrdiff_t(std::min(words_.size(), sharedEnd_ / 4 + 1)),
            WordState{});
  // Dynamic shared memory first, then the static declarations as the threads meet them.
  sharedEnd_ = (std::size_t(launch.sharedBytes) + 15) / 16 * 16;
  std::fill(siteOffsets_, siteOffsets_ + kMaxSharedSites, -1);
  const ts::host::Dim3 blockDim{unsigned(launch.block.x), unsigned(launch.block.y), 1};
  const ts::host::Dim3 gridDim{unsigned(launch.grid.x), unsigned(launch.grid.y), 1};
  for (std::size_t i = 0; i < threads_.size(); ++i) {
    const Dim2 t = threadOf(int(i));
    threads_[i] = {{unsigned(t.x), unsigned(t.y), 0},
                   {unsigned(blockX), unsigned(blockY), 0},
                   blockDim,
                   gridDim,
                   shared_,
                   0,
                   &kRuntime,
                   this};
    states_[i] = kRunning;
    fibers_.start(int(i), &BlockRunner::body, &threads_[i]);
  }
  unwrittenReads_.clear();
  roundFindings_.clear();
  // Another block's finding abandons this one (its fibers are started afresh with the next
  // block), but for the traced block.
  const bool traced = launch_.traced == block_;
  const auto stopped = [&] { return launch_.stop && !traced; };
  do {
    for (std::size_t i = 0; i < threads_.size() && !stopped(); ++i) {
      if (states_[i] != kRunning) continue;
      fibers_.resume(int(i));
      if (kernelFailure_) rethrowKernelFailure();  // the block's other fibers are abandoned
    }
    if (stopped()) return;
  } while (nextRound());
}

bool BlockRunner::reportRound(std::vector<SanitizerFinding> first) {
  for (const Read& read : unwrittenReads_) {
    const WordState& state = words_[read.word];
    // Written since by another thread: a race, reported at the write.
    if (state.writeRound == round_ && state.writer != read.thread) continue;
    found(SanitizerFinding::Kind::UnwrittenRead, read.line, read.thread,
          "a read of shared word " + std::to_string(read.word) +
              ", which no thread of the block wrote before");
  }
  unwrittenReads_.clear();
  first.insert(first.end(), roundFindings_.begin(), roundFindings_.end());
  roundFindings_.clear();
  for (SanitizerFinding& finding : first) launch_.found(std::move(finding));
  return !first.empty();
}

bool BlockRunner::nextRound() {
  const auto waiting = [](int state) { return state > 0; };
  const auto first = std::find_if(states_.begin(), states_.end(), waiting);
  if (first == states_.end()) {  // every thread finished
    reportRound();
    return false;
  }
  const auto other =
      std::find_if(states_.begin(), states_.end(), [&](int state) { return state != *first; });
  if (other != states_.end()) {
    // The earlier barrier in the source is where the threads parted.
    const int line = *other == kFinished ? *first : std::min(*first, *other);
    const int at = int(line == *first ? first - states_.begin() : other - states_.begin());
    const int elsewhere = int(line == *first ? other - states_.begin() : first - states_.begin());
    const Dim2 t = threadOf(elsewhere);
    const int reached = int(std::count(states_.begin(), states_.end(), line));
    reportRound({{SanitizerFinding::Kind::DivergentBarrier, line, block_, threadOf(at),
                  where(line, at) + "__syncthreads() is reached by " + std::to_string(reached) +
                      " of the block's " + std::to_string(states_.size()) + " threads: thread " +
                      pair(t.x, t.y) +
                      (states_[std::size_t(elsewhere)] == kFinished
                           ? " has returned"
                           : " waits at line " + std::to_string(states_[std::size_t(elsewhere)])) +
                      " (a barrier in divergent code)"}});
    return false;
  }
  if (reportRound()) return false;
  ++round_;
  std::fill(states_.begin(), states_.end(), kRunning);
  return true;
}

void BlockRunner::body(void* argument) {
  auto* thread = static_cast<ts::host::Thread*>(argument);
  BlockRunner& runner = of(thread);
  const int index = runner.indexOf(thread);
  try {
    runner.launch_.entry.thread(thread, runner.launch_.entry.kernel, &runner.launch_.problem);
  } catch (...) {
    runner.kernelFailure_ = std::current_exception();
    runner.failedThread_ = index;
  }
  runner.states_[std::size_t(index)] = kFinished;
  runner.fibers_.finish(index);
}

void BlockRunner::rethrowKernelFailure() {
  const Dim2 t = threadOf(failedThread_);
  const std::string who =
      "the kernel's code in block " + pair(block_.x, block_.y) + ", thread " + pair(t.x, t.y);
  try {
    std::rethrow_exception(std::exchange(kernelFailure_, nullptr));
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::OutOfMemory, who + " ran out of memory: an allocation failed");
  } catch (const std::exception& e) {
    throw Error(ErrorKind::InvalidArgument, who + " threw an exception: " + e.what());
  } catch (...) {
    throw Error(ErrorKind::InvalidArgument, who + " threw an exception");
  }
}

void BlockRunner::barrier(ts::host::Thread* thread, int line) {
  BlockRunner& runner = of(thread);
  const int index = runner.indexOf(thread);
  runner.states_[std::size_t(index)] = std::max(line, 1);
  runner.fibers_.yield(index);
}

unsigned char* BlockRunner::staticShared(ts::host::Thread* thread, int site, unsigned long bytes,
                                         unsigned long align) {
  BlockRunner& runner = of(thread);
  if (site >= kMaxSharedSites) {
    runner.found(SanitizerFinding::Kind::OutOfBounds, 0, runner.indexOf(thread),
                 "more than " + std::to_string(kMaxSharedSites) + " __shared__ declarations");
    return runner.shared_;
  }
  int& offset = runner.siteOffsets_[site];
  if (offset < 0) {
    const std::size_t at = (runner.sharedEnd_ + align - 1) / align * align;
    if (at + bytes > kMaxSharedBytes) {
      runner.found(SanitizerFinding::Kind::OutOfBounds, 0, runner.indexOf(thread),
                   "the block's shared memory is more than " + std::to_string(kMaxSharedBytes) +
                       " bytes, all an SM gives a block");
      return runner.shared_;
    }
    offset = int(at);
    runner.sharedEnd_ = at + bytes;
  }
  return runner.shared_ + offset;
}

unsigned char* BlockRunner::dynamicShared(ts::host::Thread* thread, unsigned long,
                                          unsigned long* bytes) {
  BlockRunner& runner = of(thread);
  *bytes = (unsigned long)runner.launch_.launch.sharedBytes;
  return runner.shared_;
}

void BlockRunner::sanitizeShared(ts::host::Thread* thread, const void* at, int bytes, bool write) {
  of(thread).checkShared(thread, at, bytes, write);
}

void BlockRunner::checkShared(ts::host::Thread* thread, const void* at, int bytes, bool write) {
  const int me = indexOf(thread);
  const auto offset = static_cast<const unsigned char*>(at) - shared_;
  if (offset < 0 || std::size_t(offset) + std::size_t(bytes) > sharedEnd_) {
    found(SanitizerFinding::Kind::OutOfBounds, thread->line, me,
          std::string(write ? "a write" : "a read") +
              " through the ts:: accessors outside the block's shared memory");
    return;
  }
  if (words_.size() < sharedEnd_ / 4 + 1) words_.resize(kMaxSharedBytes / 4);
  for (std::size_t word = std::size_t(offset) / 4; word < (std::size_t(offset) + bytes + 3) / 4;
       ++word) {
    WordState& state = words_[word];
    const auto what = [word] { return "shared word " + std::to_string(word); };
    const auto other = [&](int t, int line) {
      const Dim2 xy = threadOf(t);
      return "thread " + pair(xy.x, xy.y) + " (at line " + std::to_string(line) + ")";
    };
    if (write) {
      if (state.writeRound == round_ && state.writer != me)
        found(SanitizerFinding::Kind::Race, thread->line, me,
              "a write of " + what() + ", which " + other(state.writer, state.writeLine) +
                  " wrote with no __syncthreads() between (a race)");
      else if (state.readRound == round_ && state.reader != me)
        found(SanitizerFinding::Kind::Race, thread->line, me,
              "a write of " + what() + ", which " +
                  (state.reader == kManyReaders
                       ? "other threads (at line " + std::to_string(state.readLine) + ")"
                       : other(state.reader, state.readLine)) +
                  " read with no __syncthreads() between (a race)");
      state.writer = me;
      state.writeRound = round_;
      state.writeLine = thread->line;
    } else {
      if (state.writeRound == 0)
        unwrittenReads_.push_back({word, me, thread->line});
      else if (state.writeRound == round_ && state.writer != me)
        found(SanitizerFinding::Kind::Race, thread->line, me,
              "a read of " + what() + ", which " + other(state.writer, state.writeLine) +
                  " wrote with no __syncthreads() between (a race)");
      if (state.readRound != round_) {
        state.reader = me;
        state.readRound = round_;
      } else if (state.reader != me) {
        state.reader = kManyReaders;
      }
      state.readLine = thread->line;
    }
  }
}

void BlockRunner::outOfBounds(ts::host::Thread* thread, const char* name, long long index,
                              long long extent, int line) {
  BlockRunner& runner = of(thread);
  runner.found(SanitizerFinding::Kind::OutOfBounds, line, runner.indexOf(thread),
               std::string(name) + " indexed with " + std::to_string(index) +
                   ", outside its extent of " + std::to_string(extent) + " (out of bounds)");
}

}  // namespace

std::string SanitizerFinding::summary() const {
  constexpr std::pair<Kind, const char*> kWhat[] = {
      {Kind::OutOfBounds, "an out-of-bounds access"},
      {Kind::Race, "a race"},
      {Kind::DivergentBarrier, "a barrier not every thread reaches"},
      {Kind::UnwrittenRead, "a read of an unwritten word"}};
  const auto* what = std::find_if(std::begin(kWhat), std::end(kWhat),
                                  [&](const auto& k) { return k.first == kind; });
  const std::string at = line > 0 ? " at line " + std::to_string(line) : std::string();
  return what->second + at + " (block " + pair(block.x, block.y) + ", thread " +
         pair(thread.x, thread.y) + ")";
}

std::string SanitizerReport::text() const {
  std::string text;
  for (const SanitizerFinding& finding : findings) text += finding.message + "\n";
  if (total > int(findings.size()))
    text += "and " + std::to_string(total - int(findings.size())) + " more\n";
  return text;
}

HostLaunch HostModule::launchFor(const Shape& shape) const {
  int values[5] = {};
  entry_->launchShape(int(shape.m), int(shape.n), int(shape.k), values);
  HostLaunch launch{{values[0], values[1]}, {values[2], values[3]}, values[4], 1};
  if (entry_->kStep) {
    entry_->kStep(int(shape.m), int(shape.n), int(shape.k), values);
    launch.kDepth = values[0];
    if (launch.kDepth < 1)
      throw Error(ErrorKind::InvalidArgument, "TS_KSTEP gives " + std::to_string(launch.kDepth) +
                                                  ": a k-step covers at least 1 value of k");
  }
  const auto refuse = [](const std::string& why) { throw Error(ErrorKind::InvalidArgument, why); };
  for (const auto& [value, what] : {std::pair{launch.block.x, "blockX"},
                                    {launch.block.y, "blockY"},
                                    {launch.grid.x, "gridX"},
                                    {launch.grid.y, "gridY"}})
    if (value < 1)
      refuse(std::string("TS_LAUNCH gives ") + what + " " + std::to_string(value) +
             ": it must be at least 1");
  if (std::int64_t(launch.block.x) * launch.block.y > kMaxThreadsPerBlock)
    refuse("TS_LAUNCH gives a block of " + std::to_string(launch.block.x) + " x " +
           std::to_string(launch.block.y) + " threads: a block holds at most " +
           std::to_string(kMaxThreadsPerBlock));
  if (launch.sharedBytes < 0 || std::size_t(launch.sharedBytes) > kMaxSharedBytes)
    refuse("TS_LAUNCH gives " + std::to_string(launch.sharedBytes) +
           " bytes of dynamic shared memory: 0 to " + std::to_string(kMaxSharedBytes));
  return launch;
}

SanitizerReport HostModule::launch(const float* a, const float* b, float* c, const Shape& shape,
                                   const HostLaunch& launch, const std::atomic<bool>* cancel,
                                   const void* trace, Dim2 first) const {
  const traced::Problem problem{
      int(shape.m), int(shape.n), int(shape.k), a, b, c, trace, 0, 0, 0, {}, {}};
  LaunchState state{*entry_, problem, launch};
  if (trace) state.traced = first;
  const std::int64_t blocks = std::int64_t(launch.grid.x) * launch.grid.y;
  const std::int64_t firstIndex = std::int64_t(first.y) * launch.grid.x + first.x;
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failureMutex;
  const auto fail = [&](std::exception_ptr what) {
    const std::lock_guard lock(failureMutex);
    failure = std::move(what);
    state.stop = true;
  };
  const auto work = [&] {
    try {
      BlockRunner runner(state, launch.block.x * launch.block.y);
      for (std::int64_t block; !state.stop && !(cancel && *cancel) && (block = next++) < blocks;)
        runner.run(int((block + firstIndex) % blocks % launch.grid.x),
                   int((block + firstIndex) % blocks / launch.grid.x));
    } catch (const std::bad_alloc&) {  // the runner's own: fiber stacks, shared memory, checks
      fail(std::make_exception_ptr(Error(
          ErrorKind::OutOfMemory, "not enough memory on the CPU to run a block of " +
                                      std::to_string(launch.block.x * launch.block.y) +
                                      " threads (its fiber stacks, shared memory and checks)")));
    } catch (...) {
      fail(std::current_exception());
    }
  };
  // Each worker's fiber stacks, a guard page each, and its shared memory: reserved address space.
  const std::size_t threads = std::size_t(launch.block.x) * std::size_t(launch.block.y);
  const std::size_t workerBytes =
      threads * (kStackBytes + std::size_t(getpagesize())) + kMaxSharedBytes;
  cpu::runOnWorkers(
      int(std::min<std::int64_t>(cpu::workersWithinAddressSpace(workerBytes), blocks)), work);
  if (failure) std::rethrow_exception(failure);
  if (cancel && *cancel && state.report.clean())
    throw Error(ErrorKind::Cancelled, "the run was cancelled");
  return std::move(state.report);
}

KernelTrace HostModule::trace(const float* a, const float* b, float* c, const Shape& shape,
                              const HostLaunch& launch, Dim2 block, int capacity) const {
  if (block.x < 0 || block.x >= launch.grid.x || block.y < 0 || block.y >= launch.grid.y)
    throw Error(ErrorKind::InvalidArgument,
                "block " + pair(block.x, block.y) + " is not in the launch's grid of " +
                    std::to_string(launch.grid.x) + " x " + std::to_string(launch.grid.y));
  const std::size_t elements = std::size_t(shape.m * shape.n);
  const int threads = launch.block.x * launch.block.y;
  KernelTrace out;
  out.shape = shape;
  out.element = ElementType::F32;
  out.grid = launch.grid;
  out.block = launch.block;
  out.tracedBlock = block;
  out.kDepth = launch.kDepth;
  out.ownerBlock.assign(elements, -1);
  out.ownerThread.assign(elements, -1);
  std::vector<int> counts(std::size_t(threads), 0);
  std::vector<unsigned long long> events(std::size_t(threads) * std::size_t(capacity));
  out.storeWidth = 1;
  const traced::Trace trace{out.ownerBlock.data(),
                            out.ownerThread.data(),
                            block.x,
                            block.y,
                            events.data(),
                            counts.data(),
                            capacity,
                            &out.storeWidth,
                            launch.grid.x,
                            nullptr};
  out.sanitizer = this->launch(a, b, c, shape, launch, nullptr, &trace, block);
  // The traced block's findings first: those the pictures show.
  std::stable_partition(out.sanitizer.findings.begin(), out.sanitizer.findings.end(),
                        [&](const SanitizerFinding& finding) { return finding.block == block; });
  traced::readEvents(counts, events, capacity, out);
  return out;
}

}  // namespace tilescope
