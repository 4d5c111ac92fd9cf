#include "launch.hpp"

#include "tilescope/error.hpp"

namespace tilescope::cuda {

void launchMapped(const KernelConfig& config, const ProductArgs& args) {
  const KernelConfig resolved = resolve(config);
  const auto tile = [&] { return resolved.params.at("tile"); };
  switch (kernelInfo(resolved.kernel).family) {
    case Family::Serial:
      return launchSerial(args);
    case Family::RowPerThread:
      return launchRowPerThread(tile(), args);
    case Family::Naive:
      return launchNaive(tile(), args);
    case Family::SharedA:
      return launchSharedA(tile(), args);
    case Family::SharedTiled:
      return launchSharedTiled(tile(), args);
    case Family::RegisterTiled:
      return launchRegisterTiled(tile(), args);
    case Family::Library:
      break;
  }
  throw Error(ErrorKind::Unsupported,
              "'" + resolved.kernel + "' has no hand-written CUDA kernel (it runs through cuBLAS)");
}

}  // namespace tilescope::cuda
