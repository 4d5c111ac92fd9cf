#include "launch.hpp"

#include "tilescope/error.hpp"

namespace tilescope::cuda {

void launchMapped(const KernelConfig& config, const ProductArgs& args) {
  const KernelConfig resolved = resolve(config);
  if (auto why = elementRefusal(kernelInfo(resolved), args.element))
    throw Error(ErrorKind::Unsupported, *why);
  const auto tile = [&] { return resolved.params.at("tile"); };
  switch (kernelInfo(resolved).family) {
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
    case Family::BlockTile1D:
      return launchBlockTile1D(ladderMap<maps::BlockTile1D>(resolved.params), args);
    case Family::BlockTile2D:
      return launchBlockTile2D(ladderMap<maps::BlockTile2D>(resolved.params), args);
    case Family::Vectorized:
      return launchVectorized(ladderMap<maps::Vectorized>(resolved.params), args);
    case Family::Warptile:
      return launchWarptile(ladderMap<maps::Warptile>(resolved.params), args);
    case Family::Pipelined:
      return launchPipelined(ladderMap<maps::Pipelined>(resolved.params), args);
    case Family::Prefetched:
      return launchPrefetched(ladderMap<maps::Prefetched>(resolved.params), args);
    case Family::TensorCore:
      return launchTensorCore(ladderMap<maps::TensorCore>(resolved.params), args);
    case Family::Wgmma:
      return launchWgmma(ladderMap<maps::Wgmma>(resolved.params), args);
    case Family::Tma:
      return launchTma(ladderMap<maps::Tma>(resolved.params), args);
    case Family::Persistent:
      return launchPersistent(ladderMap<maps::Persistent>(resolved.params), args);
    case Family::PersistentTf32:
      return launchPersistentTf32(ladderMap<maps::PersistentTf32>(resolved.params), args);
    case Family::User:
      throw Error(ErrorKind::InvalidArgument,
                  "'" + resolved.kernel + "' is a user kernel: it launches through its UserModule");
    case Family::Library:
      break;
  }
  throw Error(ErrorKind::Unsupported,
              "'" + resolved.kernel + "' has no hand-written CUDA kernel (it runs through cuBLAS)");
}

}  // namespace tilescope::cuda
