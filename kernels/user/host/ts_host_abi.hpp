// ts_host_abi.hpp: what a user kernel compiled for the host (the CPU backend) and the backend's
// runtime (kernels/cpu/user_launch.cpp) share: each CUDA thread's built-ins and the runtime's
// entry points. Plain C++, read by both: the kernel's text starts with it.
#pragma once

namespace ts::host {

// CUDA's uint3 and dim3, as one type: the kernel only reads them.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct Runtime;

// One CUDA thread, run as a fiber: its built-ins, its block's shared memory, and what the
// sanitizer needs to say where it was.
struct Thread {
  Dim3 threadIdx, blockIdx, blockDim, gridDim;
  unsigned char* shared = nullptr;  // the block's shared memory (its window starts here)
  int line = 0;  // the user's line of the thread's last __shared__ index (TS_SANITIZE)
  const Runtime* runtime = nullptr;
  void* block = nullptr;  // the runtime's state of the block
};

// The CPU backend's side, called by the kernel.
struct Runtime {
  // __syncthreads() at the user's `line`: returns when every thread of the block has arrived.
  void (*barrier)(Thread* thread, int line);
  // The block's storage of static __shared__ declaration `site` (numbered in source order):
  // placed at its first use in the block, after those before it, as nvcc lays them out.
  unsigned char* (*staticShared)(Thread* thread, int site, unsigned long bytes,
                                 unsigned long align);
  // The block's dynamic shared memory (extern __shared__, TS_LAUNCH's sharedBytes): its start,
  // and its size in `bytes`.
  unsigned char* (*dynamicShared)(Thread* thread, unsigned long align, unsigned long* bytes);
  // TS_SANITIZE: an access of `bytes` at `at` through the ts:: accessors, checked for races and
  // for reads of words no thread wrote.
  void (*checkShared)(Thread* thread, const void* at, int bytes, bool write);
  // TS_SANITIZE: `name`[index] at the user's `line`, outside its extent.
  void (*outOfBounds)(Thread* thread, const char* name, long long index, long long extent,
                      int line);
};

}  // namespace ts::host
