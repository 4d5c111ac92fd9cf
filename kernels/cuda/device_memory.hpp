// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Owning handles for device memory and CUDA events. Destructors release quietly: they may run
// while an error unwinds, or after the context was lost, when nothing more can be done.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "cuda_check.hpp"

namespace tilescope::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws Error(OutOfMemory) when cudaMalloc cannot find `count` elements.
  explicit DeviceBuffer(std::int64_t count) : count_(count) {
    void* memory = nullptr;
    check(cudaMalloc(&memory, std::size_t(count) * sizeof(T)),
          "allocating " + std::to_string(std::int64_t(sizeof(T)) * count) + " bytes on the GPU");
    data_ = static_cast<T*>(memory);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }

  T* get() const { return data_; }
  std::int64_t count() const { return count_; }
  std::size_t bytes() const { return std::size_t(count_) * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::int64_t count_ = 0;
};

class Event {
 public:
  Event() { TS_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }

  void record() { TS_CUDA_CHECK(cudaEventRecord(event_)); }
  void synchronize() { TS_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Milliseconds from `start` to this event; both must have completed.
  float since(const Event& start) const {
    float ms = 0;
    TS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace tilescope::cuda
