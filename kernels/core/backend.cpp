#include "tilescope/backend.hpp"

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

}  // namespace tilescope
