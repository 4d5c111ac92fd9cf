#include "tilescope/backend.hpp"

namespace tilescope {

std::optional<std::string> Backend::refusal(const KernelConfig& kernel, const Shape& shape) const {
  if (auto why = capabilityRefusal(kernel, shape)) return why;
  return workLimitRefusal(kernelInfo(kernel.kernel), id(), shape);
}

std::optional<std::string> Backend::refusal(const RunRequest& request) const {
  if (request.allowLongRuns) return capabilityRefusal(request.kernel, request.shape);
  return refusal(request.kernel, request.shape);
}

}  // namespace tilescope
