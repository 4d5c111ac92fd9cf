#pragma once
// The kernel families as host functions: each launches one catalogue kernel on the current
// device's default stream, with its launch shape taken from tilescope::maps. Plain C++ (no CUDA
// syntax), so the backend and the GPU tests can call them.
#include <cstdint>
#include <string>

#include "tilescope/catalogue.hpp"

namespace tilescope::cuda {

// Device pointers of one product C = A B, all row-major: A is M x K, B is K x N, C is M x N. A and
// B hold `element` values (see ElementType); C is float32.
// With ownerBlock and ownerThread set, the instrumented variant of the kernel also records, per
// element of C, the linear block (x + y * gridDim.x) and linear thread (x + y * blockDim.x) that
// wrote it, so a test can hold the kernel to tilescope::Mapping::owner().
struct ProductArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  float* c = nullptr;
  std::int64_t m = 1, n = 1, k = 1;
  int* ownerBlock = nullptr;
  int* ownerThread = nullptr;
  ElementType element = ElementType::F32;

  bool traced() const { return ownerBlock != nullptr && ownerThread != nullptr; }
  // The operands as the element type's storage (the FP32 and TF32 kernels read floats).
  template <typename T>
  TS_HD const T* aAs() const {
    return static_cast<const T*>(a);
  }
  template <typename T>
  TS_HD const T* bAs() const {
    return static_cast<const T*>(b);
  }
};

// Each throws Error(InvalidArgument) for a tile (or configuration) the family was not compiled for,
// and Error(LaunchFailed) when CUDA refuses the launch (see cuda_check.hpp). They do not wait for
// the kernel: a fault inside it surfaces at the next synchronising call.
void launchSerial(const ProductArgs& args);
void launchRowPerThread(int tile, const ProductArgs& args);
void launchNaive(int tile, const ProductArgs& args);
void launchSharedA(int tile, const ProductArgs& args);
void launchSharedTiled(int tile, const ProductArgs& args);
void launchRegisterTiled(int tile, const ProductArgs& args);
// The optimisation ladder: every valid configuration of each family is compiled.
void launchBlockTile1D(const maps::BlockTile1D& map, const ProductArgs& args);
void launchBlockTile2D(const maps::BlockTile2D& map, const ProductArgs& args);
void launchVectorized(const maps::Vectorized& map, const ProductArgs& args);
void launchWarptile(const maps::Warptile& map, const ProductArgs& args);
void launchPipelined(const maps::Pipelined& map, const ProductArgs& args);
void launchPrefetched(const maps::Prefetched& map, const ProductArgs& args);
// Tensor cores: the map's element size is taken from args.element (fp16, bf16 or tf32).
void launchTensorCore(const maps::TensorCore& map, const ProductArgs& args);
// Hopper only (compiled for sm_90a): fp16 or bf16.
void launchWgmma(const maps::Wgmma& map, const ProductArgs& args);
// Hopper only (compiled for sm_90a): fp16 or bf16, TMA loads (tensor maps made per launch).
void launchTma(const maps::Tma& map, const ProductArgs& args);
// Hopper only (compiled for sm_90a): fp16 or bf16, one block per SM looping over the tiles (in
// clusters of map.cluster blocks). The launch's map is `map` with the resident blocks counted on
// the current GPU: persistentResidentCtas() gives that count, so the Mapping can describe the
// launch exactly.
void launchPersistent(const maps::Persistent& map, const ProductArgs& args);
int persistentResidentCtas(const maps::Persistent& map, ElementType element);
// tensor-tf32: tensor-persistent for tf32 (tensor_persistent.cu); its resident blocks likewise.
void launchPersistentTf32(const maps::PersistentTf32& map, const ProductArgs& args);
int persistentTf32ResidentCtas(const maps::PersistentTf32& map);

// Launches the hand-written kernel a resolved configuration names (not the library reference,
// which needs a cuBLAS handle: see cublas_gemm.hpp).
void launchMapped(const KernelConfig& config, const ProductArgs& args);

}  // namespace tilescope::cuda
