// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_resources.hpp"

#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace tilescope::cuda {

namespace {

thread_local LaunchProbe* activeProbe = nullptr;

}  // namespace

LaunchProbe::LaunchProbe() : outer_(activeProbe) {
  activeProbe = this;
}

LaunchProbe::~LaunchProbe() {
  activeProbe = outer_;
}

LaunchProbe* LaunchProbe::active() {
  return activeProbe;
}

LaunchPlan plannedLaunch(const ResolvedKernel& kernel, const ProductArgs& args) {
  const LaunchProbe probe;
  launchMapped(kernel, args);
  if (!probe.plan())
    throw Error(ErrorKind::Unsupported, "'" + kernel.id() + "' launches no hand-written kernel");
  return *probe.plan();
}

KernelResources resourcesOf(const LaunchPlan& plan) {
  cudaFuncAttributes attributes{};
  TS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, plan.kernel));
  const int threads = plan.block.x * plan.block.y;
  // The launch raises the kernel's dynamic shared-memory limit past the 48 KiB default; raised
  // here too, the occupancy of a kernel not launched yet in this process is the launch's.
  if (plan.dynamicSharedBytes > 0)
    TS_CUDA_CHECK(cudaFuncSetAttribute(plan.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(plan.dynamicSharedBytes)));
  int blocks = 0;
  TS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plan.kernel, threads,
                                                              plan.dynamicSharedBytes));
  return residentResources(attributes.numRegs, std::int64_t(attributes.sharedSizeBytes),
                           std::int64_t(attributes.localSizeBytes), threads,
                           plan.dynamicSharedBytes, blocks);
}

KernelResources residentResources(int registers, std::int64_t staticSharedBytes,
                                  std::int64_t localBytes, int threads,
                                  std::size_t dynamicSharedBytes, int blocksPerSM) {
  int device = 0, maxThreadsPerSM = 0;
  TS_CUDA_CHECK(cudaGetDevice(&device));
  TS_CUDA_CHECK(
      cudaDeviceGetAttribute(&maxThreadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  KernelResources resources;
  resources.registersPerThread = registers;
  resources.sharedBytesPerBlock = staticSharedBytes + std::int64_t(dynamicSharedBytes);
  resources.localBytesPerThread = localBytes;
  resources.threadsPerBlock = threads;
  resources.blocksPerSM = blocksPerSM;
  // Warps, not threads: a block of 49 threads still occupies two warp slots.
  const int warpsPerBlock = (threads + 31) / 32;
  resources.occupancy =
      maxThreadsPerSM > 0 ? double(blocksPerSM * warpsPerBlock) / (maxThreadsPerSM / 32) : 0.0;
  return resources;
}

}  // namespace tilescope::cuda
