// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every kernel family registers itself once (kernels/families/<id>/<id>.cpp): its catalogue entry
// and the adapters the Mapping and the CPU backend call. The families, in catalogue order, are
// listed in kernels/families/CMakeLists.txt alone; CMake writes the code that calls each one's
// registerFamily(). The CUDA launches register apart (kernels/cuda/launch.hpp), since the core
// builds without CUDA.
#include <functional>
#include <string>
#include <vector>

#include "cpu/cpu_kernels.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/mapping.hpp"

namespace tilescope {

struct KernelRegistration {
  KernelInfo info;
  // The family's thread map for a resolved configuration's parameters, on operands of a type;
  // empty where the mapping is not visible (the library reference).
  std::function<ThreadMap(const Params&, ElementType)> threadMap = {};
  // The family's schedule on the CPU; null where it runs on the GPU only.
  cpu::KernelFn runOnCpu = nullptr;
};

class Registry {
 public:
  void add(KernelRegistration registration);
  const std::vector<KernelRegistration>& kernels() const { return kernels_; }

 private:
  std::vector<KernelRegistration> kernels_;
};

// Every registered family's registerFamily(), in the order of kernels/families/CMakeLists.txt
// (generated: registered_families.cpp).
void registerFamilies(Registry& registry);

// The registered kernels, built once, in catalogue order.
const std::vector<KernelRegistration>& registeredKernels();
// The registration of catalogue kernel `id`; throws Error(InvalidArgument) like kernelInfo().
const KernelRegistration& registrationOf(const std::string& id);

}  // namespace tilescope
