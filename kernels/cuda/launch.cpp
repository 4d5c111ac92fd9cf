// SPDX-License-Identifier: GPL-3.0-or-later
#include "launch.hpp"

#include "tilescope/error.hpp"

namespace tilescope::cuda {

void Launchers::add(const std::string& kernel, CudaLaunch launch) {
  if (find(kernel))
    throw Error(ErrorKind::InvalidArgument, "'" + kernel + "' has two CUDA launches");
  launches_.emplace_back(kernel, launch);
}

const CudaLaunch* Launchers::find(const std::string& kernel) const {
  for (const auto& [id, launch] : launches_)
    if (id == kernel) return &launch;
  return nullptr;
}

const CudaLaunch& cudaLaunchOf(const std::string& kernel) {
  static const Launchers launchers = [] {
    Launchers registered;
    registerCudaFamilies(registered);
    return registered;
  }();
  if (const CudaLaunch* launch = launchers.find(kernel)) return *launch;
  if (isUserKernelId(kernel))
    throw Error(ErrorKind::InvalidArgument,
                "'" + kernel + "' is a user kernel: it launches through its UserModule");
  throw Error(ErrorKind::Unsupported,
              "'" + kernel + "' has no hand-written CUDA kernel (it runs through cuBLAS)");
}

void launchMapped(const ResolvedKernel& kernel, const ProductArgs& args) {
  if (auto why = elementRefusal(kernel.info(), args.element))
    throw Error(ErrorKind::Unsupported, *why);
  cudaLaunchOf(kernel.id()).launch(kernel.params(), args);
}

}  // namespace tilescope::cuda
