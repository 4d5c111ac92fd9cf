// SPDX-License-Identifier: GPL-3.0-or-later
// User kernels on the GPU: every template compiled with NVRTC for this device runs, verifies
// against the reference at a size that is no tile multiple, and launches exactly as the Mapping
// of the catalogue kernel it follows.
#include <gtest/gtest.h>

#include <string>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "../kernels/template_config.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "gpu_test.hpp"
#include "host_operand.hpp"
#include "tilescope/host_kernel.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/measurement.hpp"
#include "tilescope/occupancy.hpp"
#include "tilescope/traffic.hpp"
#include "user_module.hpp"

namespace tilescope {
namespace {

using test::catalogueConfig;

// What the compiler said, for a failure message.
std::string said(const CompileResult& result) {
  std::string text = result.log;
  for (const CompileDiagnostic& d : result.diagnostics)
    text += "\n[" + std::to_string(d.line) + "] " + d.message;
  return text;
}

// The variants each template runs at: its defaults, and a smaller tile (seed kernels) or
// another block tile (ladder kernels; pipelined with another pipeline depth too).
std::vector<Params> variants(const UserKernelTemplate& t) {
  static const std::map<std::string, Params> kOtherTile = {
      {"blocktile-1d", {{"BM", 128}, {"BK", 16}}},
      {"blocktile-2d", {{"BM", 128}, {"BK", 16}}},
      {"vectorized", {{"BM", 128}, {"BK", 16}}},
      {"warptile", {{"BM", 64}, {"BK", 8}}},
      {"pipelined", {{"BM", 64}, {"BN", 128}, {"BK", 16}, {"WM", 32}, {"stages", 3}}},
      {"prefetched", {{"BM", 64}}},
      {"tensor-mma", {{"BM", 64}, {"BN", 256}, {"WM", 32}, {"WN", 64}, {"stages", 3}}},
      {"tensor-wgmma", {{"BN", 128}, {"stages", 3}}},
      {"tensor-tma", {{"BN", 128}, {"stages", 3}}},
      {"tensor-persistent", {{"BN", 128}, {"stages", 6}, {"cluster", 1}, {"group", 8}}},
      {"tensor-tf32", {{"stages", 3}, {"cluster", 1}, {"group", 16}}},
      {"tensor-fp8", {{"BN", 128}, {"stages", 6}, {"cluster", 1}, {"group", 8}}}};
  const std::vector<ParamSpec> params = declaredParams(t.source);
  if (params.empty()) return {{}};  // serial
  if (params.front().name == "TILE") return {{}, {{"TILE", 8}}};
  return {{}, kOtherTile.at(t.kernel)};
}

// Sizes that are no tile multiple. K or N no multiple of 4 takes a float4 template's scalar
// path for A or B: both, A alone (prefetched: both, as its catalogue kernel), neither. No K here
// is a multiple of 16: the FP8 template copies its tiles byte by byte.
// 150 x 300 x 72 holds a whole block of tensor-wgmma's 128 x 256 tiles (and K a multiple of 8:
// 16-byte copies of A).
const std::vector<Shape> kShapes = {{100, 70, 50}, {100, 72, 50}, {150, 140, 52}, {150, 300, 72}};

// The catalogue's tensor-fp8 runs only where K is a multiple of 16 (rows of K FP8 bytes through
// the copy engine), and its Mapping draws only that. The FP8 template runs at any K, copying
// tiles of other rows byte by byte, which no Mapping draws: it is traced at K rounded up.
bool mappingDraws(ElementType type, const Shape& shape) {
  return !isFp8(type) || shape.k % 16 == 0;
}
Shape drawnShape(ElementType type, const Shape& shape) {
  return mappingDraws(type, shape) ? shape : Shape{shape.m, shape.n, (shape.k + 15) / 16 * 16};
}

std::string nameOf(const UserKernelTemplate& t, const Params& values) {
  std::string name = t.kernel;
  for (const auto& [param, value] : values) name += " " + param + "=" + std::to_string(value);
  return name;
}

// Operands of `shape` in `type` on the GPU, and room for C.
struct DeviceProduct {
  DeviceProduct(const Shape& shape, ElementType type, Fill fill)
      : operands(makeOperands(shape, fill, 7, type)),
        a(std::int64_t(cuda::HostOperand(operands.a, type, Operand::A).bytes())),
        b(std::int64_t(cuda::HostOperand(operands.b, type, Operand::B).bytes())),
        c(shape.m * shape.n) {
    const cuda::HostOperand hostA(operands.a, type, Operand::A),
        hostB(operands.b, type, Operand::B);
    TS_CUDA_CHECK(cudaMemcpy(a.get(), hostA.data(), a.bytes(), cudaMemcpyHostToDevice));
    TS_CUDA_CHECK(cudaMemcpy(b.get(), hostB.data(), b.bytes(), cudaMemcpyHostToDevice));
    args = {a.get(), b.get(), c.get(), shape.m, shape.n, shape.k};
    args.element = type;
  }
  Operands operands;
  cuda::DeviceBuffer<std::byte> a, b;
  cuda::DeviceBuffer<float> c;
  cuda::ProductArgs args{};
};

// Every variant of every template in each type it declares.
int variantCount() {
  int count = 0;
  for (const UserKernelTemplate& t : userKernelTemplates())
    count += int(variants(t).size() * declaredTypes(t.source).size());
  return count;
}

class CudaUserKernel : public test::GpuTest {
 protected:
  void SetUp() override {
    test::GpuTest::SetUp();
    if (IsSkipped()) return;
    if (const auto why = userKernelCompilerUnavailable()) GTEST_SKIP() << *why;
    cudaDeviceProp properties{};
    TS_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
    arch_ = userKernelArchitecture(10 * properties.major + properties.minor);
  }
  void runsVerifyAndLaunchAsTheirMappings(const Shape& shape);
  void tracesDrawTheirMappingsPictures(const Shape& shape);
  void persistentTemplateWorksThroughTilesInTurn(const std::string& kernel, ElementType type,
                                                 const Shape& shape);
  std::string arch_;
};

TEST_F(CudaUserKernel, EveryTemplateRunsVerifiesAndLaunchesAsItsMapping) {
  for (const Shape& shape : kShapes) runsVerifyAndLaunchAsTheirMappings(shape);
  // serial, the seeds, the ladder to prefetched, and the tensor-core kernels: one per catalogue
  // kernel but the library
  EXPECT_EQ(userKernelTemplates().size(), catalogue().size() - 1);
  for (const KernelInfo& info : catalogue())
    EXPECT_EQ(userKernelTemplate(info.id) != nullptr, info.hasMapping) << info.id;
}

void CudaUserKernel::runsVerifyAndLaunchAsTheirMappings(const Shape& shape) {
  SCOPED_TRACE(std::to_string(shape.m) + " x " + std::to_string(shape.n) + " x " +
               std::to_string(shape.k));
  std::map<ElementType, std::unique_ptr<DeviceProduct>> products;
  int runs = 0;
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    for (const ElementType type : declaredTypes(t.source)) {
      auto& product = products[type];
      if (!product) product = std::make_unique<DeviceProduct>(shape, type, Fill::Random);
      const std::vector<double> reference =
          referenceProduct(product->operands.a, product->operands.b);
      for (const Params& params : variants(t)) {
        const CompileResult compiled =
            compileUserKernel({t.kernel, t.source}, {arch_, params, type});
        ASSERT_TRUE(compiled.ok) << said(compiled);
        SCOPED_TRACE(nameOf(t, compiled.values) + " " + toString(type));
        const cuda::UserModule module(compiled);
        const cuda::UserLaunch launch = module.launchFor(shape);
        // A persistent kernel's tiles are placed by the blocks this GPU holds at once.
        const Mapping mapping(catalogueConfig(t, compiled.values), shape, type,
                              launch.residentBlocks);
        EXPECT_EQ(launch.residentBlocks > 0, mapping.persistent());
        EXPECT_EQ(launch.tiles.x, mapping.grid().x);
        EXPECT_EQ(launch.tiles.y, mapping.grid().y);
        EXPECT_EQ(launch.grid.x, mapping.launchGrid().x);
        EXPECT_EQ(launch.grid.y, mapping.launchGrid().y);
        EXPECT_EQ(launch.cluster, mapping.cluster().x);
        EXPECT_EQ(launch.block.x, mapping.block().x);
        EXPECT_EQ(launch.block.y, mapping.block().y);
        // NaN: an unwritten element fails.
        TS_CUDA_CHECK(cudaMemset(product->c.get(), 0xFF, product->c.bytes()));
        module.launch(product->args, launch);
        TS_CUDA_CHECK(cudaDeviceSynchronize());
        Matrix result = makePoisonedMatrix(shape.m, shape.n);
        TS_CUDA_CHECK(cudaMemcpy(result.data.data(), product->c.get(), product->c.bytes(),
                                 cudaMemcpyDeviceToHost));
        const Verification check = verify(result, reference, product->operands.a,
                                          product->operands.b, verificationTolerance(type));
        EXPECT_TRUE(check.passed) << "relative error " << check.relError << ", " << check.nonFinite
                                  << " unwritten";
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, variantCount());
}

// Through the backend, as the app and tilescope-bench --kernel-file run it: timed, verified,
// with the driver's figures for its resources, the result keeping the source.
TEST_F(CudaUserKernel, RunsThroughTheBackendLikeACatalogueKernel) {
  const std::unique_ptr<Backend> backend = makeCudaBackend();
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    SCOPED_TRACE(t.kernel);
    RunRequest request;
    request.kernel = {userKernelId("my_" + t.kernel), variants(t).back(), t.source};
    request.shape = {100, 70, 50};
    request.element = declaredTypes(t.source).back();
    request.sampling.fixedReps = 3;
    ASSERT_FALSE(backend->refusal(request)) << *backend->refusal(request);
    const RunResult result = backend->run(request, {}, nullptr);
    EXPECT_TRUE(result.verified());
    EXPECT_EQ(result.kernel, resolve(request.kernel));
    EXPECT_EQ(result.stats.reps, 3);
    ASSERT_TRUE(result.resources);
    EXPECT_GT(result.resources->registersPerThread, 0);
    const Dim2 block = Mapping(catalogueConfig(t, resolve(request.kernel).params()), request.shape,
                               request.element)
                           .block();
    EXPECT_EQ(result.resources->threadsPerBlock, block.x * block.y);
    EXPECT_GT(result.resources->blocksPerSM, 0);
    EXPECT_GT(result.resources->occupancy, 0);
    // The editor's theoretical figure, from the same registers and shared memory, is the
    // driver's.
    const auto theoretical = withTheoreticalOccupancy(arch_, *result.resources);
    ASSERT_TRUE(theoretical) << arch_;
    EXPECT_EQ(theoretical->blocksPerSM, result.resources->blocksPerSM);
    EXPECT_DOUBLE_EQ(theoretical->occupancy, result.resources->occupancy);
  }
}

TEST_F(CudaUserKernel, ASourceThatDoesNotCompileIsRefusedAtItsLine) {
  RunRequest request;
  request.kernel = {
      userKernelId("broken"), {}, "TS_LAUNCH(1, 1, 1, 1, 0)\nTS_KERNEL { int x = }\n"};
  request.shape = {16, 16, 16};
  try {
    makeCudaBackend()->run(request, {}, nullptr);
    ADD_FAILURE() << "a broken source ran";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(
        std::string(error.what()).rfind("broken.cu did not compile for " + arch_ + ", line 2: ", 0),
        0u)
        << error.what();
  }
}

// The tracer against the Mapping: every template, traced at a size that is no tile multiple
// with an interior and the last block traced, draws the pictures of the catalogue kernel's
// Mapping: every element of C stored by the block and thread the Mapping names, and every warp
// instruction of the traced block's global loads and stores, k-step by k-step, touching the
// Mapping's elements, and every warp's reads (and the seeds' writes) of the staged tiles
// meeting the Mapping's words (traceDifferences). FP8 at K rounded up to a multiple of 16
// (drawnShape), where its B, stored K-major, goes through the copy engine.
TEST_F(CudaUserKernel, EveryTemplatesTraceDrawsItsMappingsPictures) {
  for (const Shape& shape : kShapes) tracesDrawTheirMappingsPictures(shape);
}

void CudaUserKernel::tracesDrawTheirMappingsPictures(const Shape& given) {
  std::map<ElementType, std::unique_ptr<DeviceProduct>> products;
  int traced = 0;
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    for (const ElementType type : declaredTypes(t.source)) {
      const Shape shape = drawnShape(type, given);
      SCOPED_TRACE(std::to_string(shape.m) + " x " + std::to_string(shape.n) + " x " +
                   std::to_string(shape.k));
      auto& product = products[type];
      if (!product) product = std::make_unique<DeviceProduct>(shape, type, Fill::Integer);
      for (const Params& params : variants(t)) {
        const CompileOptions options{arch_, params, type, /*trace=*/true};
        const CompileResult compiled = compileUserKernel({t.kernel, t.source}, options);
        ASSERT_TRUE(compiled.ok) << said(compiled);
        const cuda::UserModule module(compiled);
        const cuda::UserLaunch launch = module.launchFor(shape);
        const Mapping mapping(catalogueConfig(t, compiled.values), shape, type,
                              launch.residentBlocks);
        EXPECT_EQ(launch.kDepth, mapping.kDepth()) << "TS_KSTEP of " << t.kernel;
        // The blocks the pictures draw: a persistent kernel's tiles.
        const Dim2 last{launch.tiles.x - 1, launch.tiles.y - 1};
        for (const Dim2 block : {Dim2{launch.tiles.x / 2, launch.tiles.y / 2}, last}) {
          SCOPED_TRACE(nameOf(t, compiled.values) + " " + toString(type) + ", block (" +
                       std::to_string(block.x) + "," + std::to_string(block.y) + ")");
          // As many accesses as the backend records (serial's one thread makes them all).
          const int capacity = (1 << 24) / (launch.block.x * launch.block.y);
          KernelTrace trace = module.trace(product->args, launch, block, capacity);
          ASSERT_FALSE(trace.truncated);
          EXPECT_EQ(trace.element, type);
          trace.kernel = {userKernelId(t.kernel), compiled.values, t.source};
          const Mapping fromTrace(trace);
          // Everything, the numbering of the stores too where no block lies whole inside C (the
          // wgmma templates store every slot of theirs: those past C leave their lane idle).
          EXPECT_EQ(traceDifferences(fromTrace, mapping), std::vector<std::string>{});
          // The staged tiles' words were traced (traceDifferences compares those it has).
          for (const Operand operand : {Operand::A, Operand::B}) {
            EXPECT_EQ(fromTrace.sharedReadSlots(operand), mapping.sharedReadSlots(operand));
            EXPECT_EQ(fromTrace.readsEveryK(operand), mapping.readsEveryK(operand));
            EXPECT_EQ(fromTrace.sharedWriteSlots(operand) > 0, mapping.staged(operand));
          }
          ++traced;
        }
      }
    }
  }
  EXPECT_EQ(traced, 2 * variantCount());
}

// A template run on the CPU backend (compiled by the host's C++ compiler, its threads as
// fibers) records what the GPU records: the owner of every element of C, every load, store and
// shared-memory word of the traced block, in program order, with their widths. Every template the
// CPU runs (those it refuses need a GPU), at sizes that are no tile multiple.
TEST_F(CudaUserKernel, EverySimtTemplatesCpuTraceEqualsItsGpuTrace) {
  if (const auto why = hostCompilerUnavailable()) GTEST_SKIP() << *why;
  int compared = 0;
  for (const UserKernelTemplate& t : userKernelTemplates()) {
    const CompileOptions options{"host", {}, ElementType::F32, /*trace=*/true};
    const HostCompileResult onCpu = compileUserKernelForHost({t.kernel, t.source}, options, true);
    if (!onCpu.module) {
      const bool needsGpu =
          std::any_of(onCpu.result.diagnostics.begin(), onCpu.result.diagnostics.end(),
                      [](const CompileDiagnostic& d) {
                        return d.message.find("needs an NVIDIA GPU") != std::string::npos;
                      });
      EXPECT_TRUE(needsGpu) << t.kernel << ": " << said(onCpu.result);
      continue;
    }
    const CompileResult onGpu = compileUserKernel(
        {t.kernel, t.source}, {arch_, onCpu.result.values, ElementType::F32, true});
    ASSERT_TRUE(onGpu.ok) << said(onGpu);
    const cuda::UserModule module(onGpu);
    for (const Shape& shape : {Shape{33, 17, 9}, Shape{129, 65, 33}, Shape{100, 72, 50}}) {
      DeviceProduct product(shape, ElementType::F32, Fill::Integer);
      const cuda::UserLaunch launch = module.launchFor(shape);
      const HostLaunch hostLaunch = onCpu.module->launchFor(shape);
      ASSERT_EQ(hostLaunch.grid, launch.grid) << t.kernel;
      ASSERT_EQ(hostLaunch.block, launch.block) << t.kernel;
      Matrix c = makePoisonedMatrix(shape.m, shape.n);
      const int capacity = (1 << 22) / (launch.block.x * launch.block.y);
      for (const Dim2 block : {Dim2{launch.grid.x / 2, launch.grid.y / 2},
                               Dim2{launch.grid.x - 1, launch.grid.y - 1}}) {
        SCOPED_TRACE(t.kernel + " at " + std::to_string(shape.m) + "x" + std::to_string(shape.n) +
                     "x" + std::to_string(shape.k) + ", block (" + std::to_string(block.x) + "," +
                     std::to_string(block.y) + ")");
        const KernelTrace gpu = module.trace(product.args, launch, block, capacity);
        const KernelTrace cpu =
            onCpu.module->trace(product.operands.a.data.data(), product.operands.b.data.data(),
                                c.data.data(), shape, hostLaunch, block, capacity);
        EXPECT_TRUE(cpu.sanitizer.clean()) << cpu.sanitizer.text();
        EXPECT_FALSE(gpu.truncated || cpu.truncated);
        EXPECT_EQ(cpu.kDepth, gpu.kDepth);
        EXPECT_EQ(cpu.ownerBlock, gpu.ownerBlock);
        EXPECT_EQ(cpu.ownerThread, gpu.ownerThread);
        EXPECT_EQ(cpu.loadsA, gpu.loadsA);
        EXPECT_EQ(cpu.loadsB, gpu.loadsB);
        EXPECT_EQ(cpu.stores, gpu.stores);
        EXPECT_EQ(cpu.storeWidth, gpu.storeWidth);
        for (const auto& [onHost, onDevice] :
             {std::pair{&cpu.sharedA, &gpu.sharedA}, std::pair{&cpu.sharedB, &gpu.sharedB}}) {
          EXPECT_EQ(onHost->reads, onDevice->reads);
          EXPECT_EQ(onHost->writes, onDevice->writes);
          EXPECT_EQ(onHost->readsEveryK, onDevice->readsEveryK);
        }
      }
    }
    ++compared;
  }
  EXPECT_EQ(compared, 12);  // serial to warptile, and prefetched's SIMT part
}

// ts::toFloat reads every FP8 code as CUDA's own conversion does: a block of 256 threads stores
// code threadIdx.x's value in C[0][threadIdx.x].
TEST_F(CudaUserKernel, ToFloatReadsEveryFp8CodeAsCudaDoes) {
  const std::string source =
      "TS_TYPES(e4m3, e5m2)\nTS_LAUNCH(256, 1, 1, 1, 0)\n"
      "TS_KERNEL {\n"
      "  const ts::Element code{(unsigned char)threadIdx.x};\n"
      "  ts::storeC(p, 0, threadIdx.x, ts::toFloat(code));\n"
      "}\n";
  const Shape shape{1, 256, 16};
  for (const ElementType type : {ElementType::E4M3, ElementType::E5M2}) {
    SCOPED_TRACE(toString(type));
    const CompileResult compiled = compileUserKernel({"codes", source}, {arch_, {}, type});
    ASSERT_TRUE(compiled.ok) << said(compiled);
    // The operands first: their allocation makes the CUDA context the module loads into.
    const DeviceProduct product(shape, type, Fill::Integer);
    const cuda::UserModule module(compiled);
    module.launch(product.args, module.launchFor(shape));
    std::vector<float> values(256);
    TS_CUDA_CHECK(cudaMemcpy(values.data(), product.c.get(), values.size() * sizeof(float),
                             cudaMemcpyDeviceToHost));
    for (int code = 0; code < 256; ++code) {
      const __half_raw half = __nv_cvt_fp8_to_halfraw(
          __nv_fp8_storage_t(code), type == ElementType::E4M3 ? __NV_E4M3 : __NV_E5M2);
      const float expected = __half2float(__half(half));
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(values[std::size_t(code)])) << code;
      else
        EXPECT_EQ(values[std::size_t(code)], expected) << code;
    }
  }
}

// The Kernel Editor's experiment, traced: shared-tiled with A stored transposed writes a column
// of the tile, TILE + PAD words apart. At TILE = 32 the trace draws a warp's 32 lanes in one
// bank (31 conflicts per write); PAD = 1 draws them in 32 banks. The reads of the column are one
// word for the whole warp, a broadcast.
TEST_F(CudaUserKernel, ATransposedTilesTraceShowsItsBankConflictsAndThePaddedOneNone) {
  const std::string source = test::sharedTiledWithATransposed();
  ASSERT_FALSE(source.empty()) << "the shared-tiled template no longer takes the edit";
  const Shape shape{96, 96, 96};
  const DeviceProduct product(shape, ElementType::F32, Fill::Integer);
  const cuda::ProductArgs& args = product.args;
  for (const int pad : {0, 1}) {
    SCOPED_TRACE("PAD=" + std::to_string(pad));
    const CompileOptions options{arch_,
                                 {{"TILE", 32}, {"PAD", pad}},
                                 ElementType::F32,
                                 /*trace=*/true};
    const CompileResult compiled = compileUserKernel({"transposed", source}, options);
    ASSERT_TRUE(compiled.ok) << said(compiled);
    const cuda::UserModule module(compiled);
    const Mapping traced(module.trace(args, module.launchFor(shape), {1, 2}, 1 << 14));
    ASSERT_EQ(traced.sharedWriteSlots(Operand::A), 1);
    for (int warp = 0; warp < traced.warpsPerBlock(); ++warp)
      for (std::int64_t step = 0; step < traced.kSteps(); ++step) {
        const BankTraffic write =
            bankTraffic(*traced.warpSharedWrite(Operand::A, warp, 0, 0, step));
        EXPECT_EQ(write.conflicts(), pad == 0 ? 31 : 0);
        const BankTraffic read =
            bankTraffic(*traced.warpSharedRead(Operand::A, warp, 7, 0, 0, step));
        EXPECT_EQ(read.wavefronts, 1);
        EXPECT_TRUE(read.broadcast);
        // B is stored as the catalogue stores it: a row of the tile, no conflict.
        EXPECT_EQ(bankTraffic(*traced.warpSharedWrite(Operand::B, warp, 0, 0, step)).conflicts(),
                  0);
      }
  }
}

// The persistent templates (tensor-persistent in bf16, tensor-tf32, tensor-fp8 in e4m3 and e5m2)
// where their blocks work through several tiles each (more units of tiles than the GPU holds
// clusters, at a size that is no tile multiple): each verifies in both variants, TMA's path and
// the element-by-element one (K and N no multiple of 8; FP8: K no multiple of 16), and a tile of
// the second round traces as the Mapping draws it, its stores numbered too (its tiles are whole
// there).
TEST_F(CudaUserKernel, ThePersistentTemplatesBlocksWorkThroughTilesInTurn) {
  for (const auto& [kernel, type] : {std::pair{"tensor-persistent", ElementType::BF16},
                                     std::pair{"tensor-tf32", ElementType::TF32}})
    for (const Shape& shape : {Shape{2200, 2400, 136}, Shape{2200, 2402, 137}})
      persistentTemplateWorksThroughTilesInTurn(kernel, type, shape);
  for (const ElementType type : {ElementType::E4M3, ElementType::E5M2})
    for (const Shape& shape : {Shape{2200, 2400, 144}, Shape{2200, 2402, 137}})
      persistentTemplateWorksThroughTilesInTurn("tensor-fp8", type, shape);
}

void CudaUserKernel::persistentTemplateWorksThroughTilesInTurn(const std::string& kernel,
                                                               ElementType type,
                                                               const Shape& shape) {
  SCOPED_TRACE(std::to_string(shape.m) + " x " + std::to_string(shape.n) + " x " +
               std::to_string(shape.k));
  const UserKernelTemplate* t = userKernelTemplate(kernel);
  ASSERT_NE(t, nullptr);
  DeviceProduct product(shape, type, Fill::Integer);
  const std::vector<double> reference = referenceProduct(product.operands.a, product.operands.b);
  for (const Params& params : variants(*t)) {
    for (const bool traced : {false, true}) {
      if (traced && !mappingDraws(type, shape)) continue;
      const CompileResult compiled =
          compileUserKernel({t->kernel, t->source}, {arch_, params, type, traced});
      ASSERT_TRUE(compiled.ok) << said(compiled);
      SCOPED_TRACE(nameOf(*t, compiled.values) + " " + toString(type) + (traced ? " traced" : ""));
      const cuda::UserModule module(compiled);
      const cuda::UserLaunch launch = module.launchFor(shape);
      const Mapping mapping(catalogueConfig(*t, compiled.values), shape, type,
                            launch.residentBlocks);
      ASSERT_GT(mapping.rounds(), 1);
      EXPECT_EQ(launch.grid.x, mapping.launchGrid().x);
      if (!traced) {
        TS_CUDA_CHECK(cudaMemset(product.c.get(), 0xFF, product.c.bytes()));
        module.launch(product.args, launch);
        TS_CUDA_CHECK(cudaDeviceSynchronize());
        Matrix result = makePoisonedMatrix(shape.m, shape.n);
        TS_CUDA_CHECK(cudaMemcpy(result.data.data(), product.c.get(), product.c.bytes(),
                                 cudaMemcpyDeviceToHost));
        const Verification check =
            verify(result, reference, product.operands.a, product.operands.b);
        EXPECT_TRUE(check.passed) << "relative error " << check.relError << ", " << check.nonFinite
                                  << " unwritten";
        continue;
      }
      // The last tile (at both edges of C), and the first whole one a block computes after
      // another: every thread stores all its slots there, so their numbering is compared too.
      const Dim2 last{launch.tiles.x - 1, launch.tiles.y - 1};
      std::optional<Dim2> whole;
      for (int y = 0; y < launch.tiles.y && !whole; ++y)
        for (int x = 0; x < launch.tiles.x && !whole; ++x)
          if (mapping.roundOf({x, y}) >= 1 && mapping.blockRows({x, y}).end() <= shape.m &&
              mapping.blockCols({x, y}).end() <= shape.n)
            whole = Dim2{x, y};
      ASSERT_TRUE(whole);
      for (const Dim2 block : {last, *whole}) {
        SCOPED_TRACE("tile (" + std::to_string(block.x) + "," + std::to_string(block.y) +
                     "), round " + std::to_string(mapping.roundOf(block)));
        KernelTrace trace = module.trace(product.args, launch, block, 1 << 14);
        ASSERT_FALSE(trace.truncated);
        ASSERT_TRUE(trace.launchGrid);
        EXPECT_EQ(trace.launchGrid->x, launch.grid.x);
        trace.kernel = {userKernelId(t->kernel), compiled.values, t->source};
        EXPECT_EQ(traceDifferences(Mapping(trace), mapping), std::vector<std::string>{});
      }
    }
  }
}

// TS_PERSISTENT launches no more blocks than the GPU holds at once (a block of 1024 threads and
// 150 KiB of shared memory: one per SM), and no more than take the same rounds: gridX blocks of
// one and a half times the SMs take two rounds, which half of them take too.
TEST_F(CudaUserKernel, APersistentLaunchIsAsManyBlocksAsTheGpuHoldsOrAsTakeItsRounds) {
  int sms = 0;
  TS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::pair<int, int> gridToLaunched[] = {{sms * 758, sms},
                                                {sms + sms / 2, (sms + sms / 2 + 1) / 2}};
  for (const auto& [grid, launched] : gridToLaunched) {
    SCOPED_TRACE("gridX " + std::to_string(grid));
    const CompileResult compiled = compileUserKernel(
        {"resident", "TS_LAUNCH(1024, 1, " + std::to_string(grid) +
                         ", 1, 150 * 1024)\nTS_PERSISTENT(500, 200)\nTS_KERNEL {}\n"},
        {arch_, {}});
    ASSERT_TRUE(compiled.ok) << said(compiled);
    const cuda::UserLaunch launch = cuda::UserModule(compiled).launchFor({16, 16, 16});
    EXPECT_EQ(launch.residentBlocks, sms);
    EXPECT_EQ(launch.grid.x, launched);
    EXPECT_EQ(launch.tiles.x, 500);
    EXPECT_EQ(launch.tiles.y, 200);
  }
}

TEST_F(CudaUserKernel, AnInvalidLaunchIsRefusedWithItsValue) {
  const CompileResult compiled =
      compileUserKernel({"zero", "TS_LAUNCH(0, 1, 1, 1, 0)\nTS_KERNEL {}\n"}, {arch_, {}});
  ASSERT_TRUE(compiled.ok) << said(compiled);
  const cuda::UserModule module(compiled);
  try {
    module.launchFor({16, 16, 16});
    ADD_FAILURE() << "a block of 0 threads was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(error.what()), "TS_LAUNCH gives blockX 0: it must be at least 1");
  }
  const CompileResult boxes = compileUserKernel(
      {"boxes", "TS_LAUNCH(32, 1, 1, 1, 0)\nTS_TENSOR_MAPS(64, 257)\nTS_KERNEL {}\n"}, {arch_, {}});
  ASSERT_TRUE(boxes.ok) << said(boxes);
  try {
    cuda::UserModule(boxes).launchFor({16, 16, 16});
    ADD_FAILURE() << "a box of 257 rows was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(error.what()),
              "TS_TENSOR_MAPS gives B's boxes 257 rows: a TMA box has 1 to 256");
  }
  const std::pair<const char*, const char*> refused[] = {
      {"TS_LAUNCH(32, 1, 4, 1, 0)\nTS_CLUSTER(3)\nTS_KERNEL {}\n",
       "TS_LAUNCH gives gridX 4, no multiple of TS_CLUSTER's 3 blocks"},
      {"TS_LAUNCH(32, 1, 9, 1, 0)\nTS_CLUSTER(9)\nTS_KERNEL {}\n",
       "TS_CLUSTER gives 9 blocks: a cluster has 1 to 8"},
      {"TS_LAUNCH(32, 1, 4, 2, 0)\nTS_PERSISTENT(4, 2)\nTS_KERNEL {}\n",
       "TS_LAUNCH gives gridY 2: a persistent kernel's grid is one row of blocks"},
      {"TS_LAUNCH(32, 1, 4, 1, 0)\nTS_PERSISTENT(4, 0)\nTS_KERNEL {}\n",
       "TS_PERSISTENT gives 4 x 0 tiles: at least 1 x 1"}};
  for (const auto& [source, message] : refused) {
    const CompileResult declared = compileUserKernel({"declared", source}, {arch_, {}});
    ASSERT_TRUE(declared.ok) << said(declared);
    try {
      cuda::UserModule(declared).launchFor({16, 16, 16});
      ADD_FAILURE() << source << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      EXPECT_EQ(std::string(error.what()), message);
    }
  }
  // A persistent kernel that names no tile cannot be traced: its trace would draw nothing.
  const CompileResult unnamed =
      compileUserKernel({"unnamed",
                         "TS_LAUNCH(32, 1, 4, 1, 0)\nTS_PERSISTENT(1, 1)\nTS_KERNEL {\n"
                         "  if (blockIdx.x == 0) ts::storeC(p, 0, threadIdx.x, 1.0f);\n}\n"},
                        {arch_, {}, ElementType::F32, /*trace=*/true});
  ASSERT_TRUE(unnamed.ok) << said(unnamed);
  const DeviceProduct product({16, 32, 16}, ElementType::F32, Fill::Integer);
  const cuda::UserModule unnamedModule(unnamed);
  try {
    unnamedModule.trace(product.args, unnamedModule.launchFor({16, 32, 16}), {0, 0}, 64);
    ADD_FAILURE() << "a persistent kernel without ts::workOn was traced";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(std::string(error.what()),
              "TS_PERSISTENT: no thread named its tile with ts::workOn(p, tileX, tileY), so the "
              "trace cannot tell which tile of C an access belongs to");
  }
}

}  // namespace
}  // namespace tilescope
