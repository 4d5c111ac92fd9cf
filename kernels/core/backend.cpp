// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/backend.hpp"

#include "tilescope/error.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope {

std::optional<std::string> Backend::refusal(const KernelConfig& kernel, const Shape& shape,
                                            ElementType element) const {
  if (auto why = capabilityRefusal(kernel, shape, element)) return why;
  if (auto why = elementRefusal(kernelInfo(kernel), element)) return why;
  return workLimitRefusal(kernelInfo(kernel), id(), shape);
}

std::optional<std::string> Backend::refusal(const RunRequest& request) const {
  if (!request.allowLongRuns) {
    if (auto why = refusal(request.kernel, request.shape, request.element)) return why;
  } else {
    if (auto why = capabilityRefusal(request.kernel, request.shape, request.element)) return why;
    if (auto why = elementRefusal(kernelInfo(request.kernel), request.element)) return why;
  }
  return memoryRefusal(request);
}

KernelTrace Backend::trace(const TraceRequest&, const ProgressFn&, const std::atomic<bool>*) {
  throw Error(ErrorKind::Unsupported,
              "the " + id() +
                  " backend cannot trace: tracing runs your kernel's CUDA source on a "
                  "CUDA GPU (add a GPU server to trace from this machine)");
}

std::optional<std::string> traceRefusal(const TraceRequest& request) {
  if (!isUserKernelId(request.kernel.kernel) || !request.kernel.source)
    return "only your own kernels are traced: a catalogue kernel's pictures come from its "
           "Mapping";
  const std::int64_t elements = request.shape.m * request.shape.n;
  if (elements > kMaxTracedElements)
    return "a trace records who stores each element of C: " + std::to_string(request.shape.m) +
           " x " + std::to_string(request.shape.n) + " is more than " +
           std::to_string(kMaxTracedElements) + " elements (1024 x 1024); trace a smaller size";
  if (request.shape.k > kMaxTracedK)
    return "a trace records each load's row of B in 29 bits: K = " +
           std::to_string(request.shape.k) + " is more than " + std::to_string(kMaxTracedK) +
           "; trace a smaller K";
  return std::nullopt;
}

}  // namespace tilescope
