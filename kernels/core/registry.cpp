// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/registry.hpp"

#include "tilescope/error.hpp"

namespace tilescope {

void Registry::add(KernelRegistration registration) {
  for (const KernelRegistration& known : kernels_)
    if (known.info.id == registration.info.id)
      throw Error(ErrorKind::InvalidArgument,
                  "kernel '" + registration.info.id + "' is registered twice");
  kernels_.push_back(std::move(registration));
}

const std::vector<KernelRegistration>& registeredKernels() {
  static const std::vector<KernelRegistration> kernels = [] {
    Registry registry;
    registerFamilies(registry);
    return registry.kernels();
  }();
  return kernels;
}

const KernelRegistration& registrationOf(const std::string& id) {
  const KernelInfo& info = kernelInfo(id);  // throws, naming the known ids
  for (const KernelRegistration& registration : registeredKernels())
    if (registration.info.id == info.id) return registration;
  throw Error(ErrorKind::InvalidArgument, "kernel '" + id + "' is not registered");
}

}  // namespace tilescope
