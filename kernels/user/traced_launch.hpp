// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal: the API's ts::Problem and ts::Trace (ts/problem.cuh) field for field, as the CUDA and
// CPU backends hand them to a user kernel, and the reading of what a traced launch recorded.
#include <vector>

#include "tilescope/user_kernel.hpp"

namespace tilescope::traced {

struct Trace {
  int* ownerBlock;
  int* ownerThread;
  int blockX, blockY;
  unsigned long long* events;
  int* eventCounts;
  int capacity;
  int* storeWidth;
  int gridX;
  int* tileOf;
};
// A TMA tensor map (CUtensorMap): 128 opaque bytes.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};
struct Problem {
  int m, n, k;
  const void* a;  // of ts::Element, the type the kernel was compiled for
  const void* b;
  float* c;
  const void* trace;
  int tensorMaps;  // bit 0: A's map is made, bit 1: B's
  int boxRowsA, boxRowsB;
  TensorMap tensorA, tensorB;
};
static_assert(sizeof(Problem) == 384,
              "the API header's ts::Problem: three ints, four pointers, three ints, two maps");

// The events each thread of the traced block recorded (`counts[t]` by thread t, of which the
// first `capacity` are in `events` from t * capacity on), in the API header's packing, sorted
// into `out`'s loads, stores and shared-memory words (out.element says the fragments' k); sets
// out.truncated where a thread recorded more than `capacity`.
void readEvents(const std::vector<int>& counts, const std::vector<unsigned long long>& events,
                int capacity, KernelTrace& out);

}  // namespace tilescope::traced
