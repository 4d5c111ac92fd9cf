// TileScope's user-kernel API, put in front of every user kernel.
// TileScope embeds these parts at build time and puts them, in this order, in front of the
// kernel's source for NVRTC; compiler messages name the part and its line. Each part relies on
// those before it, and all of them on NVRTC's built-ins only (blockIdx, float4, atomicAdd...).
#include "ts/problem.cuh"
#include "ts/tracing.cuh"
#include "ts/accessors.cuh"
#include "ts/shared.cuh"
#include "ts/cp_async.cuh"
#include "ts/tensor_cores.cuh"
#include "ts/tma_clusters.cuh"
#include "ts/declarations.cuh"
