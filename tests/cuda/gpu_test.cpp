// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpu_test.hpp"

#include <algorithm>

#include "cublas_gemm.hpp"
#include "cuda_check.hpp"
#include "host_operand.hpp"
#include "tilescope/user_kernel.hpp"

namespace tilescope::test {

const std::optional<std::string>& gpuUnavailable() {
  static const std::optional<std::string> reason = makeCudaBackend()->unavailableReason();
  return reason;
}

std::vector<KernelCase> everyCudaConfiguration(bool withLibrary) {
  std::vector<KernelCase> cases;
  for (const KernelInfo& info : catalogue()) {
    const auto& backends = info.backends;
    if (std::find(backends.begin(), backends.end(), "cuda") == backends.end()) continue;
    if (!info.hasMapping && !withLibrary) continue;
    for (const KernelConfig& config : validConfigurations(info)) {
      const auto tile = config.params.find("tile");
      for (const ElementType element : info.types)
        cases.push_back({config, tile == config.params.end() ? 0 : tile->second, element});
    }
  }
  return cases;
}

std::vector<KernelConfig> ladderCorners() {
  std::vector<KernelConfig> corners;
  for (const KernelInfo& info : catalogue()) {
    if (!info.check) continue;
    const std::vector<KernelConfig> valid = validConfigurations(info);
    for (const KernelConfig& config :
         {resolve({info.id, {}}).config(), valid.front(), valid.back()})
      if (std::find(corners.begin(), corners.end(), config) == corners.end())
        corners.push_back(config);
  }
  return corners;
}

std::string caseName(const ::testing::TestParamInfo<KernelCase>& info) {
  std::string name = info.param.config.kernel;
  std::replace(name.begin(), name.end(), '-', '_');
  const std::string type =
      info.param.element == ElementType::F32 ? "" : "_" + std::string(toString(info.param.element));
  // A seed's one parameter, its tile, reads as T<tile>; other kernels name every parameter.
  if (info.param.tile > 0 && info.param.config.params.size() == 1)
    return name + "_T" + std::to_string(info.param.tile) + type;
  for (const ParamSpec& spec : kernelInfo(info.param.config.kernel).params)
    name += "_" + spec.name + std::to_string(info.param.config.params.at(spec.name));
  return name + type;
}

std::string describe(const KernelCase& kernelCase, const Shape& shape) {
  std::string text = kernelCase.config.kernel;
  if (!kernelCase.config.params.empty()) text += " " + formatParams(kernelCase.config);
  text += std::string(" in ") + toString(kernelCase.element);
  return text + " at " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
         std::to_string(shape.k);
}

Mapping launchedMapping(const KernelConfig& config, const Shape& shape, ElementType element) {
  const KernelConfig resolved = resolve(config);
  int resident = 0;
  if (const auto residentBlocks = cuda::cudaLaunchOf(resolved.kernel).residentBlocks)
    resident = residentBlocks(resolved.params, element);
  return Mapping(resolved, shape, element, resident);
}

DeviceProduct::DeviceProduct(const Operands& operands, ElementType element)
    : shape_{operands.a.rows, operands.b.cols, operands.a.cols},
      element_(element),
      a_(storageBytes(element) * shape_.elementsA()),
      b_(storageBytes(element) * shape_.elementsB()),
      c_(shape_.elementsC()) {
  const cuda::HostOperand a(operands.a, element, Operand::A), b(operands.b, element, Operand::B);
  TS_CUDA_CHECK(cudaMemcpy(a_.get(), a.data(), a_.bytes(), cudaMemcpyHostToDevice));
  TS_CUDA_CHECK(cudaMemcpy(b_.get(), b.data(), b_.bytes(), cudaMemcpyHostToDevice));
}

Matrix DeviceProduct::run(const KernelConfig& config, Owners* owners) {
  cuda::ProductArgs args{a_.get(), b_.get(), c_.get(), shape_.m, shape_.n, shape_.k};
  args.element = element_;
  cuda::DeviceBuffer<int> ownerBlock, ownerThread;
  if (owners) {
    ownerBlock = cuda::DeviceBuffer<int>(shape_.elementsC());
    ownerThread = cuda::DeviceBuffer<int>(shape_.elementsC());
    // -1 everywhere: an element no thread claims keeps it and cannot match a real owner.
    TS_CUDA_CHECK(cudaMemset(ownerBlock.get(), 0xFF, ownerBlock.bytes()));
    TS_CUDA_CHECK(cudaMemset(ownerThread.get(), 0xFF, ownerThread.bytes()));
    args.ownerBlock = ownerBlock.get();
    args.ownerThread = ownerThread.get();
  }
  TS_CUDA_CHECK(cudaMemset(c_.get(), 0xFF, c_.bytes()));
  if (!kernelInfo(config.kernel).hasMapping) {
    static cuda::CublasGemm gemm;
    gemm.multiply(args);
  } else {
    cuda::launchMapped(resolve(config), args);
  }
  TS_CUDA_CHECK(cudaDeviceSynchronize());

  Matrix c = makePoisonedMatrix(shape_.m, shape_.n);
  TS_CUDA_CHECK(cudaMemcpy(c.data.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost));
  if (owners) {
    owners->block.resize(std::size_t(shape_.elementsC()));
    owners->thread.resize(std::size_t(shape_.elementsC()));
    TS_CUDA_CHECK(cudaMemcpy(owners->block.data(), ownerBlock.get(), ownerBlock.bytes(),
                             cudaMemcpyDeviceToHost));
    TS_CUDA_CHECK(cudaMemcpy(owners->thread.data(), ownerThread.get(), ownerThread.bytes(),
                             cudaMemcpyDeviceToHost));
  }
  return c;
}

std::string sharedTiledWithATransposed() {
  std::string source;
  for (const UserKernelTemplate& t : userKernelTemplates())
    if (t.kernel == "shared-tiled") source = t.source;
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"ts::TileA, a[ty][tx],", "ts::TileA, a[tx][ty],"},
        {"a[ty][kk]", "a[kk][ty]"}}) {
    const std::size_t at = source.find(from);
    if (at == std::string::npos) return {};
    source.replace(at, from.size(), to);
  }
  return source;
}

}  // namespace tilescope::test
