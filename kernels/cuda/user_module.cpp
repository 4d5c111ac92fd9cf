// SPDX-License-Identifier: GPL-3.0-or-later
#include "user_module.hpp"
#include "tilescope/families.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "kernel_resources.hpp"
#include "tensor_map.hpp"
#include "user/traced_launch.hpp"

namespace tilescope::cuda {
namespace {

// The driver functions used, from the driver the runtime has loaded (nothing links libcuda).
struct Driver {
  decltype(&cuModuleLoadData) loadData = nullptr;
  decltype(&cuModuleUnload) unload = nullptr;
  decltype(&cuModuleGetFunction) getFunction = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuGetErrorString) errorString = nullptr;
  decltype(&cuFuncGetAttribute) getAttribute = nullptr;
  decltype(&cuFuncSetAttribute) setAttribute = nullptr;
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor) residentBlocks = nullptr;
  decltype(&cuLaunchKernelEx) launchKernelEx = nullptr;
  decltype(&cuOccupancyMaxActiveClusters) residentClusters = nullptr;
};

const Driver& driver() {
  static const Driver loaded = [] {
    return Driver{
        driverEntryPoint<decltype(&cuModuleLoadData)>("cuModuleLoadData"),
        driverEntryPoint<decltype(&cuModuleUnload)>("cuModuleUnload"),
        driverEntryPoint<decltype(&cuModuleGetFunction)>("cuModuleGetFunction"),
        driverEntryPoint<decltype(&cuLaunchKernel)>("cuLaunchKernel"),
        driverEntryPoint<decltype(&cuGetErrorString)>("cuGetErrorString"),
        driverEntryPoint<decltype(&cuFuncGetAttribute)>("cuFuncGetAttribute"),
        driverEntryPoint<decltype(&cuFuncSetAttribute)>("cuFuncSetAttribute"),
        driverEntryPoint<decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
            "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
        driverEntryPoint<decltype(&cuLaunchKernelEx)>("cuLaunchKernelEx"),
        driverEntryPoint<decltype(&cuOccupancyMaxActiveClusters)>("cuOccupancyMaxActiveClusters")};
  }();
  return loaded;
}

void checkDriver(CUresult result, const std::string& what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  driver().errorString(result, &text);
  // The runtime's classification applies: the driver's codes are the runtime's.
  check(cudaError_t(int(result)), what + " (" + (text ? text : "unknown driver error") + ")");
}

constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxPortableCluster = 8;  // blocks a cluster may have on every sm_90 GPU
constexpr int kDefaultDynamicSharedBytes = 48 * 1024;

static_assert(sizeof(CUtensorMap) == sizeof(traced::TensorMap) &&
                  alignof(CUtensorMap) == alignof(traced::TensorMap),
              "a tensor map is 128 bytes, 128-byte aligned");

CUtensorMapDataType tensorMapType(ElementType element) {
  switch (element) {
    case ElementType::F16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case ElementType::BF16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case ElementType::E4M3:
    case ElementType::E5M2:
      return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case ElementType::F32:
    case ElementType::TF32:
      break;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

}  // namespace

UserModule::UserModule(const CompileResult& compiled) {
  if (!compiled.ok || compiled.image.empty())
    throw Error(ErrorKind::InvalidArgument, "the kernel did not compile: it cannot be loaded");
  checkDriver(driver().loadData(&module_, compiled.image.data()), "loading the compiled kernel");
  try {
    checkDriver(driver().getFunction(&kernel_, module_, "ts_kernel"), "finding TS_KERNEL");
    checkDriver(driver().getFunction(&launchShape_, module_, "ts_launch"), "finding TS_LAUNCH");
    if (compiled.declaresKStep)
      checkDriver(driver().getFunction(&kStep_, module_, "ts_kstep"), "finding TS_KSTEP");
    if (compiled.declaresTensorMaps)
      checkDriver(driver().getFunction(&tensorMaps_, module_, "ts_tensor_maps"),
                  "finding TS_TENSOR_MAPS");
    if (compiled.declaresCluster)
      checkDriver(driver().getFunction(&cluster_, module_, "ts_cluster"), "finding TS_CLUSTER");
    if (compiled.declaresPersistent)
      checkDriver(driver().getFunction(&persistent_, module_, "ts_persistent"),
                  "finding TS_PERSISTENT");
  } catch (...) {
    driver().unload(module_);
    throw;
  }
}

UserModule::~UserModule() {
  if (module_) driver().unload(module_);
}

namespace {

// A declaration's values for `shape` (TS_LAUNCH, TS_KSTEP, ...), computed by its entry point on
// one GPU thread: the expressions may use M, N, K and the parameters.
template <int kCount>
std::array<int, kCount> evaluate(CUfunction declaration, const Shape& shape, const char* what) {
  DeviceBuffer<int> values(kCount);
  int m = int(shape.m), n = int(shape.n), k = int(shape.k);
  int* out = values.get();
  void* parameters[] = {&m, &n, &k, &out};
  checkDriver(driver().launchKernel(declaration, 1, 1, 1, 1, 1, 1, 0, nullptr, parameters, nullptr),
              std::string("evaluating ") + what);
  std::array<int, kCount> host{};
  check(cudaMemcpy(host.data(), values.get(), sizeof host, cudaMemcpyDeviceToHost),
        std::string("reading ") + what);
  return host;
}

// An attribute of the current device (its compute capability, its SMs).
int currentDeviceAttribute(cudaDeviceAttr attribute, const char* what) {
  int device = 0, value = 0;
  check(cudaGetDevice(&device), "asking for the current device");
  check(cudaDeviceGetAttribute(&value, attribute, device),
        std::string("reading the device's ") + what);
  return value;
}

[[noreturn]] void refuseLaunch(const std::string& why) {
  throw Error(ErrorKind::InvalidArgument, why);
}

// `launch`'s blocks over `grid` in clusters of launch.cluster, as cuLaunchKernelEx and
// cuOccupancyMaxActiveClusters take them.
struct ClusterLaunch {
  ClusterLaunch(const UserLaunch& launch, Dim2 grid) {
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = unsigned(launch.cluster);
    cluster.value.clusterDim.y = cluster.value.clusterDim.z = 1;
    config.gridDimX = unsigned(grid.x);
    config.gridDimY = unsigned(grid.y);
    config.gridDimZ = 1;
    config.blockDimX = unsigned(launch.block.x);
    config.blockDimY = unsigned(launch.block.y);
    config.blockDimZ = 1;
    config.sharedMemBytes = unsigned(launch.sharedBytes);
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  CUlaunchAttribute cluster{};
  CUlaunchConfig config{};
};

}  // namespace

UserLaunch UserModule::launchFor(const Shape& shape) const {
  const auto [blockX, blockY, gridX, gridY, shared] = evaluate<5>(launchShape_, shape, "TS_LAUNCH");
  UserLaunch launch{{blockX, blockY}, {gridX, gridY}, shared};
  if (kStep_) {
    launch.kDepth = evaluate<1>(kStep_, shape, "TS_KSTEP")[0];
    if (launch.kDepth < 1)
      refuseLaunch("TS_KSTEP gives " + std::to_string(launch.kDepth) +
                   ": a k-step covers at least 1 value of k");
  }
  if (tensorMaps_) {
    const auto rows = evaluate<2>(tensorMaps_, shape, "TS_TENSOR_MAPS");
    // The copy engine's boxes are 1 to 256 rows.
    for (const auto& [given, operand] : {std::pair{rows[0], "A"}, std::pair{rows[1], "B"}})
      if (given < 1 || given > 256)
        refuseLaunch(std::string("TS_TENSOR_MAPS gives ") + operand + "'s boxes " +
                     std::to_string(given) + " rows: a TMA box has 1 to 256");
    launch.boxRowsA = rows[0];
    launch.boxRowsB = rows[1];
  }
  const auto refuse = [](const char* what, int value) {
    refuseLaunch(std::string("TS_LAUNCH gives ") + what + " " + std::to_string(value) +
                 ": it must be at least 1");
  };
  if (launch.block.x < 1) refuse("blockX", launch.block.x);
  if (launch.block.y < 1) refuse("blockY", launch.block.y);
  if (launch.grid.x < 1) refuse("gridX", launch.grid.x);
  if (launch.grid.y < 1) refuse("gridY", launch.grid.y);
  if (launch.sharedBytes < 0) refuseLaunch("TS_LAUNCH gives a negative shared-memory size");
  const std::int64_t threads = std::int64_t(launch.block.x) * launch.block.y;
  if (threads > kMaxThreadsPerBlock)
    refuseLaunch("TS_LAUNCH gives a block of " + std::to_string(launch.block.x) + " x " +
                 std::to_string(launch.block.y) + " = " + std::to_string(threads) +
                 " threads: a block holds at most " + std::to_string(kMaxThreadsPerBlock));
  // Past the default 48 KiB a kernel must ask for its dynamic shared memory; the launch then
  // fails with the device's limit in the driver's message if it is more than the SM has.
  if (launch.sharedBytes > kDefaultDynamicSharedBytes)
    checkDriver(driver().setAttribute(kernel_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      launch.sharedBytes),
                "asking for " + std::to_string(launch.sharedBytes) +
                    " bytes of dynamic shared memory (TS_LAUNCH)");
  if (cluster_) {
    launch.cluster = evaluate<1>(cluster_, shape, "TS_CLUSTER")[0];
    if (launch.cluster < 1 || launch.cluster > kMaxPortableCluster)
      refuseLaunch("TS_CLUSTER gives " + std::to_string(launch.cluster) +
                   " blocks: a cluster has 1 to " + std::to_string(kMaxPortableCluster));
    if (launch.grid.x % launch.cluster != 0)
      refuseLaunch("TS_LAUNCH gives gridX " + std::to_string(launch.grid.x) +
                   ", no multiple of TS_CLUSTER's " + std::to_string(launch.cluster) + " blocks");
    if (launch.cluster > 1 &&
        currentDeviceAttribute(cudaDevAttrComputeCapabilityMajor, "compute capability") < 9)
      refuseLaunch("TS_CLUSTER: thread-block clusters need an sm_90 GPU (H100, H200) or newer");
  }
  launch.tiles = launch.grid;
  if (persistent_) {
    const auto [tilesX, tilesY] = evaluate<2>(persistent_, shape, "TS_PERSISTENT");
    if (tilesX < 1 || tilesY < 1)
      refuseLaunch("TS_PERSISTENT gives " + std::to_string(tilesX) + " x " +
                   std::to_string(tilesY) + " tiles: at least 1 x 1");
    if (launch.grid.y != 1)
      refuseLaunch("TS_LAUNCH gives gridY " + std::to_string(launch.grid.y) +
                   ": a persistent kernel's grid is one row of blocks");
    launch.tiles = {tilesX, tilesY};
    launch.residentBlocks = residentBlocks(launch);
    // As the catalogue's persistent kernels launch: the fewest whole clusters that take the
    // rounds all the resident ones would.
    launch.grid.x = maps::balancedClusters(launch.grid.x / launch.cluster,
                                           launch.residentBlocks / launch.cluster) *
                    launch.cluster;
  }
  return launch;
}

int UserModule::residentBlocks(const UserLaunch& launch) const {
  const unsigned threads = unsigned(launch.block.x * launch.block.y);
  int resident = 0;
  if (launch.cluster > 1) {
    const ClusterLaunch one(launch, {launch.cluster, 1});
    int clusters = 0;
    checkDriver(driver().residentClusters(&clusters, kernel_, &one.config),
                "counting the clusters the GPU holds at once");
    resident = clusters * launch.cluster;
  } else {
    int perSM = 0;
    checkDriver(
        driver().residentBlocks(&perSM, kernel_, int(threads), std::size_t(launch.sharedBytes)),
        "counting the blocks the GPU holds at once");
    resident = perSM * currentDeviceAttribute(cudaDevAttrMultiProcessorCount, "SM count");
  }
  if (resident < 1)
    refuseLaunch("no " +
                 (launch.cluster > 1 ? "cluster of " + std::to_string(launch.cluster) + " blocks"
                                     : std::string("block")) +
                 " of " + std::to_string(threads) + " threads with " +
                 std::to_string(launch.sharedBytes) + " bytes of shared memory fits on this GPU");
  return resident;
}

KernelResources UserModule::resources(const UserLaunch& launch) const {
  const auto attribute = [&](CUfunction_attribute which, const char* what) {
    int value = 0;
    checkDriver(driver().getAttribute(&value, which, kernel_), std::string("reading ") + what);
    return value;
  };
  const int threads = launch.block.x * launch.block.y;
  int blocks = 0;
  checkDriver(driver().residentBlocks(&blocks, kernel_, threads, std::size_t(launch.sharedBytes)),
              "computing the kernel's occupancy");
  return residentResources(attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "its registers"),
                           attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "its shared memory"),
                           attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "its local memory"),
                           threads, std::size_t(launch.sharedBytes), blocks);
}

void UserModule::launch(const ProductArgs& args, const UserLaunch& launch) const {
  launchWith(args, launch, nullptr);
}

void UserModule::launchWith(const ProductArgs& args, const UserLaunch& launch,
                            const void* trace) const {
  traced::Problem problem{int(args.m),     int(args.n),     int(args.k), args.a,
                          args.b,          args.c,          trace,       0,
                          launch.boxRowsA, launch.boxRowsB, {},          {}};
  // A map per operand whose rows (and start) are 16-byte aligned, which TMA needs; the kernel
  // copies the others itself (ts::hasTensorMap).
  const auto aligned = [](const void* matrix, std::int64_t cols, int bytes) {
    return cols * bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0;
  };
  if (launch.boxRowsA > 0) {
    const int bytes = storageBytes(args.element);
    const CUtensorMapDataType type = tensorMapType(args.element);
    if (aligned(args.a, args.k, bytes)) {
      const CUtensorMap map =
          swizzledTensorMap(args.a, args.m, args.k, launch.boxRowsA, type, "the user kernel");
      std::memcpy(&problem.tensorA, &map, sizeof map);
      problem.tensorMaps |= 1;
    }
    // A K-major B (FP8) lies as N rows of K values.
    const bool kMajor = storesBKMajor(args.element);
    const std::int64_t bRows = kMajor ? args.n : args.k, bCols = kMajor ? args.k : args.n;
    if (aligned(args.b, bCols, bytes)) {
      const CUtensorMap map =
          swizzledTensorMap(args.b, bRows, bCols, launch.boxRowsB, type, "the user kernel");
      std::memcpy(&problem.tensorB, &map, sizeof map);
      problem.tensorMaps |= 2;
    }
  }
  void* parameters[] = {&problem};
  if (launch.cluster == 1) {
    checkDriver(driver().launchKernel(kernel_, unsigned(launch.grid.x), unsigned(launch.grid.y), 1,
                                      unsigned(launch.block.x), unsigned(launch.block.y), 1,
                                      unsigned(launch.sharedBytes), nullptr, parameters, nullptr),
                "launching the user kernel");
    return;
  }
  const ClusterLaunch clustered(launch, launch.grid);
  checkDriver(
      driver().launchKernelEx(&clustered.config, kernel_, parameters, nullptr),
      "launching the user kernel in clusters of " + std::to_string(launch.cluster) + " blocks");
}

KernelTrace UserModule::trace(const ProductArgs& args, const UserLaunch& launch, Dim2 block,
                              int capacity) const {
  // A persistent kernel is traced by tile: the blocks the pictures draw.
  const bool persistent = launch.residentBlocks > 0;
  if (block.x < 0 || block.x >= launch.tiles.x || block.y < 0 || block.y >= launch.tiles.y)
    throw Error(ErrorKind::InvalidArgument,
                "block (" + std::to_string(block.x) + "," + std::to_string(block.y) +
                    ") is not in the launch's grid of " + std::to_string(launch.tiles.x) + " x " +
                    std::to_string(launch.tiles.y) + (persistent ? " tiles" : ""));
  const std::int64_t elements = args.m * args.n;
  const int threads = launch.block.x * launch.block.y;
  DeviceBuffer<int> ownerBlock(elements), ownerThread(elements), counts(threads), storeWidth(1);
  // Each launched thread's tile (ts::workOn), none (-1) until it names one.
  DeviceBuffer<int> tileOf;
  if (persistent) {
    tileOf = DeviceBuffer<int>(std::int64_t(launch.grid.x) * launch.grid.y * threads);
    check(cudaMemset(tileOf.get(), 0xFF, tileOf.bytes()), "clearing the trace");
  }
  DeviceBuffer<unsigned long long> events(std::int64_t(threads) * capacity);
  check(cudaMemset(ownerBlock.get(), 0xFF, ownerBlock.bytes()), "clearing the trace");  // -1
  check(cudaMemset(ownerThread.get(), 0xFF, ownerThread.bytes()), "clearing the trace");
  check(cudaMemset(counts.get(), 0, counts.bytes()), "clearing the trace");
  const int narrowest = 1;
  check(cudaMemcpy(storeWidth.get(), &narrowest, sizeof narrowest, cudaMemcpyHostToDevice),
        "clearing the trace");
  const traced::Trace trace{ownerBlock.get(), ownerThread.get(),
                            block.x,          block.y,
                            events.get(),     counts.get(),
                            capacity,         storeWidth.get(),
                            launch.tiles.x,   persistent ? tileOf.get() : nullptr};
  DeviceBuffer<traced::Trace> deviceTrace(1);
  check(cudaMemcpy(deviceTrace.get(), &trace, sizeof trace, cudaMemcpyHostToDevice),
        "setting up the trace");
  launchWith(args, launch, deviceTrace.get());
  check(cudaDeviceSynchronize(), "running the traced kernel");
  if (persistent) {
    // Without ts::workOn no access belongs to a tile: the trace would draw an empty C.
    std::vector<int> tiles(std::size_t(tileOf.count()));
    check(cudaMemcpy(tiles.data(), tileOf.get(), tileOf.bytes(), cudaMemcpyDeviceToHost),
          "reading the trace");
    if (std::none_of(tiles.begin(), tiles.end(), [](int tile) { return tile >= 0; }))
      throw Error(ErrorKind::InvalidArgument,
                  "TS_PERSISTENT: no thread named its tile with ts::workOn(p, tileX, tileY), so "
                  "the trace cannot tell which tile of C an access belongs to");
  }

  KernelTrace out;
  out.shape = {args.m, args.n, args.k};
  out.element = args.element;
  out.grid = launch.tiles;
  if (persistent) out.launchGrid = launch.grid;
  out.cluster = {launch.cluster, 1};
  out.block = launch.block;
  out.tracedBlock = block;
  out.ownerBlock.resize(std::size_t(elements));
  out.ownerThread.resize(std::size_t(elements));
  check(cudaMemcpy(out.ownerBlock.data(), ownerBlock.get(), ownerBlock.bytes(),
                   cudaMemcpyDeviceToHost),
        "reading the trace");
  check(cudaMemcpy(out.ownerThread.data(), ownerThread.get(), ownerThread.bytes(),
                   cudaMemcpyDeviceToHost),
        "reading the trace");
  std::vector<int> eventCounts(std::size_t(threads), 0);
  std::vector<unsigned long long> packed(std::size_t(threads) * std::size_t(capacity));
  check(cudaMemcpy(eventCounts.data(), counts.get(), counts.bytes(), cudaMemcpyDeviceToHost),
        "reading the trace");
  check(cudaMemcpy(packed.data(), events.get(), events.bytes(), cudaMemcpyDeviceToHost),
        "reading the trace");
  check(
      cudaMemcpy(&out.storeWidth, storeWidth.get(), sizeof out.storeWidth, cudaMemcpyDeviceToHost),
      "reading the trace");
  out.kDepth = launch.kDepth;
  traced::readEvents(eventCounts, packed, capacity, out);
  return out;
}

}  // namespace tilescope::cuda
