// ts/declarations.cuh: how a kernel declares itself to TileScope: its parameters, its types, its
// launch and the kernel itself. TileScope reads the TS_ lines of the source, and compiles the
// entry points they define to ask the launch of each variant.
// Relies on ts/problem.cuh in front of it (tilescope_api.cuh's order).
namespace ts {
// Blocks needed to cover `n` with blocks of `b`.
__host__ __device__ constexpr int ceilDiv(int n, int b) { return (n + b - 1) / b; }
}  // namespace ts

// TS_PARAM(NAME, default, allowed...): a named parameter, a compile-time constant NAME in the
// source; TileScope compiles one variant per value it runs, sweeps and autotunes.
#define TS_PARAM(...)
// TS_TYPES(fp16, bf16, ...): the types of A and B the kernel multiplies (fp32, tf32, fp16, bf16,
// e4m3, e5m2), the first its default; without it, fp32 alone. Each variant is compiled for one,
// ts::Element; an FP8 B is stored K-major (TS_B_K_MAJOR).
#define TS_TYPES(...)
// TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes): the launch, from M, N, K and the
// parameters; sharedBytes is the dynamic shared memory (0 for static __shared__ arrays only).
#define TS_LAUNCH(blockX, blockY, gridX, gridY, sharedBytes)                   \
  extern "C" __global__ void ts_launch(int M, int N, int K, int* ts_out) {     \
    ts_out[0] = (blockX);                                                      \
    ts_out[1] = (blockY);                                                      \
    ts_out[2] = (gridX);                                                       \
    ts_out[3] = (gridY);                                                       \
    ts_out[4] = (sharedBytes);                                                 \
  }
// TS_KSTEP(depth): how many values of k one pass of the kernel's k loop covers (its k-step, the
// depth of a staged tile), from M, N, K and the parameters. A traced launch groups each thread's
// loads by it; without it a k-step is one value of k.
#define TS_KSTEP(depth)                                                        \
  extern "C" __global__ void ts_kstep(int M, int N, int K, int* ts_out) {      \
    ts_out[0] = (depth);                                                       \
  }
// TS_TENSOR_MAPS(aBoxRows, bBoxRows): TileScope makes TMA tensor maps of A and B for each launch
// (ts::copyTileA, ts::copyTileB), in boxes of aBoxRows rows of A and of bBoxRows rows of B (1 to
// 256), each row 128 bytes wide, 128-byte swizzled. The rows of an FP8 B are its columns, each K
// values long (TS_B_K_MAJOR): a box holds bBoxRows columns of B, 128 values of k each.
#define TS_TENSOR_MAPS(aBoxRows, bBoxRows)                                     \
  extern "C" __global__ void ts_tensor_maps(int M, int N, int K, int* ts_out) {\
    ts_out[0] = (aBoxRows);                                                    \
    ts_out[1] = (bBoxRows);                                                    \
  }
// TS_CLUSTER(blocks): launches the grid in thread-block clusters of `blocks` x 1 (sm_90; 1 to
// 8, dividing gridX), which can share copies (ts::copyTileBAcrossCluster) and barriers
// (ts::arriveInCluster).
#define TS_CLUSTER(blocks)                                                     \
  extern "C" __global__ void ts_cluster(int M, int N, int K, int* ts_out) {    \
    ts_out[0] = (blocks);                                                      \
  }
// TS_PERSISTENT(tilesX, tilesY): a persistent kernel, whose blocks each work through tiles of C
// (a tilesX x tilesY grid of them) in an order of its own. TileScope launches no more of
// TS_LAUNCH's gridX blocks (gridY 1) than the GPU holds at once, in whole clusters, and no more
// than work them all in as many rounds: gridDim.x says how many. Each thread names its tile with
// ts::workOn, and the pictures draw a tile as a block.
#define TS_PERSISTENT(tilesX, tilesY)                                          \
  extern "C" __global__ void ts_persistent(int M, int N, int K, int* ts_out) { \
    ts_out[0] = (tilesX);                                                      \
    ts_out[1] = (tilesY);                                                      \
  }
// TS_KERNEL { ... }: the kernel, with the problem as `p`. TS_KERNEL_BOUNDED(maxThreads,
// minBlocks) { ... } adds __launch_bounds__: at most maxThreads threads a block, registers
// budgeted so that minBlocks blocks fit an SM.
#define TS_KERNEL extern "C" __global__ void ts_kernel(const __grid_constant__ ts::Problem p)
#define TS_KERNEL_BOUNDED(maxThreads, minBlocks)                                    \
  extern "C" __global__ void __launch_bounds__(maxThreads, minBlocks) ts_kernel( \
      const __grid_constant__ ts::Problem p)
