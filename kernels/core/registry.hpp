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
  // The diagrams' words for what the family does its own way, as plain text (the core knows no
  // Qt); each empty where the diagrams word it from the Mapping. The k-step view's recipe of one
  // k-step, whole (a warp-specialised pipeline), or the part of the ladder's recipe that
  // multiplies the staged tiles (tensor cores).
  std::function<std::string(const Mapping&)> stepRecipe = {};
  std::function<std::string(const Mapping&)> productPhrase = {};
  // The block view's legend of a warp's dashed sub-tiles after "its", given their count and the
  // extents of one and of its lanes' grid ("16 × 8"); empty: the sub-iterations of a lane grid.
  std::function<std::string(std::size_t count, const std::string& tile, const std::string& lanes)>
      warpPieces = {};
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
