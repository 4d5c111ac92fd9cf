// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/backend.hpp"
#include "tilescope/error.hpp"

#if defined(TILESCOPE_HAVE_CUDA)
#include "../cuda/cuda_backend.hpp"
#endif

namespace tilescope {

namespace {

// Stands in for the CUDA backend in a build without nvcc, so front ends can say why.
class NotBuiltBackend final : public Backend {
 public:
  std::string id() const override { return "cuda"; }
  std::optional<std::string> unavailableReason() const override {
    return "this TileScope was built without CUDA (no nvcc found at configure time)";
  }
  std::vector<DeviceInfo> devices() const override { return {}; }
  std::optional<std::string> capabilityRefusal(const KernelConfig&, const Shape&,
                                               ElementType) const override {
    return unavailableReason();
  }
  RunResult run(const RunRequest&, const ProgressFn&, const std::atomic<bool>*) override {
    throw Error(ErrorKind::Unavailable, *unavailableReason());
  }
  DeviceCeilings measureCeilings(int, const ProgressFn&, const std::atomic<bool>*) override {
    throw Error(ErrorKind::Unavailable, *unavailableReason());
  }
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend() {
#if defined(TILESCOPE_HAVE_CUDA)
  return makeCudaBackendImpl();
#else
  return std::make_unique<NotBuiltBackend>();
#endif
}

std::vector<std::string> backendIds() {
  return {"cpu", "cuda"};
}

std::unique_ptr<Backend> makeBackend(const std::string& id) {
  if (id == "cpu") return makeCpuBackend();
  if (id == "cuda") return makeCudaBackend();
  throw Error(ErrorKind::InvalidArgument, "unknown backend '" + id + "' (known: cpu, cuda)");
}

}  // namespace tilescope
