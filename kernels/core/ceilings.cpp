// SPDX-License-Identifier: GPL-3.0-or-later
#include "tilescope/ceilings.hpp"

#include <algorithm>

#include "tilescope/error.hpp"
#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope {

namespace {

struct DatasheetEntry {
  const char* device;                  // cudaDeviceProp::name
  double fp32, tf32, fp16, bf16, fp8;  // TFLOP/s, dense
  double bandwidthTBs;
};

// NVIDIA H100 Tensor Core GPU datasheet (H100 SXM, H100 PCIe, H100 NVL columns) and NVIDIA H200
// Tensor Core GPU datasheet (H200 SXM): the dense figures, i.e. half of the tensor rates the
// datasheets give "with sparsity". The H200 has the H100 SXM's compute and faster HBM3e.
constexpr DatasheetEntry kDatasheets[] = {
    {"NVIDIA H100 80GB HBM3", 66.9, 494.7, 989.4, 989.4, 1978.9, 3.35},
    {"NVIDIA H200", 66.9, 494.7, 989.4, 989.4, 1978.9, 4.8},
    {"NVIDIA H100 PCIe", 51.2, 378.0, 756.0, 756.0, 1513.0, 2.0},
    {"NVIDIA H100 NVL", 60.0, 418.0, 835.0, 835.0, 1670.5, 3.9},
};

}  // namespace

const char* computeCeilingFor(ElementType element) {
  switch (element) {
    case ElementType::F32:
      return kFp32Ceiling;
    case ElementType::TF32:
      return kTf32Ceiling;
    case ElementType::F16:
      return kFp16Ceiling;
    case ElementType::BF16:
      return kBf16Ceiling;
    case ElementType::E4M3:
    case ElementType::E5M2:
      return kFp8Ceiling;
  }
  return kFp32Ceiling;
}

std::optional<double> Ceiling::fractionOfDatasheet() const {
  if (!datasheet || *datasheet <= 0) return std::nullopt;
  return measured / *datasheet;
}

double attainableGflops(double flopsPerByte, double peakGflops, double bandwidthGBs) {
  return std::min(peakGflops, flopsPerByte * bandwidthGBs);
}

double ridgePoint(double peakGflops, double bandwidthGBs) {
  if (!(bandwidthGBs > 0))
    throw Error(ErrorKind::InvalidArgument, "the roofline's bandwidth must be positive");
  return peakGflops / bandwidthGBs;
}

std::optional<DatasheetCeilings> datasheetFor(const std::string& device) {
  const auto entry = std::find_if(std::begin(kDatasheets), std::end(kDatasheets),
                                  [&](const DatasheetEntry& e) { return device == e.device; });
  if (entry == std::end(kDatasheets)) return std::nullopt;
  constexpr double kGiga = 1000;  // TFLOP/s -> GFLOP/s, TB/s -> GB/s
  return DatasheetCeilings{{{kFp32Ceiling, entry->fp32 * kGiga},
                            {kTf32Ceiling, entry->tf32 * kGiga},
                            {kFp16Ceiling, entry->fp16 * kGiga},
                            {kBf16Ceiling, entry->bf16 * kGiga},
                            {kFp8Ceiling, entry->fp8 * kGiga}},
                           entry->bandwidthTBs * kGiga};
}

void attachDatasheet(DeviceCeilings& ceilings) {
  const std::optional<DatasheetCeilings> sheet = datasheetFor(ceilings.device);
  for (Ceiling& ceiling : ceilings.compute) {
    ceiling.datasheet.reset();
    if (!sheet) continue;
    for (const auto& [name, gflops] : sheet->compute)
      if (name == ceiling.name) ceiling.datasheet = gflops;
  }
  ceilings.bandwidth.datasheet.reset();
  if (sheet) ceilings.bandwidth.datasheet = sheet->bandwidthGBs;
}

double compulsoryIntensity(const Shape& shape, ElementType element) {
  return shape.flops() / double(problemBytes(shape, element));
}

Intensity arithmeticIntensity(const KernelConfig& kernel, const Shape& shape, ElementType element) {
  const ResolvedKernel resolved = resolve(kernel);
  validateShape(shape);
  const KernelInfo& info = resolved.info();
  if (const auto why = elementRefusal(info, element)) throw Error(ErrorKind::InvalidArgument, *why);
  if (!info.hasMapping) return {compulsoryIntensity(shape, element), true};
  return {kernelTraffic(Mapping(resolved, shape, element)).arithmeticIntensity(), false};
}

}  // namespace tilescope
