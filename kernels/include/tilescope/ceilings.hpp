// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A device's ceilings for the roofline: the highest arithmetic rate and memory bandwidth
// TileScope itself measures on it, beside the datasheet's figures, and the roofline arithmetic
// that places a result under them.
#include <optional>
#include <string>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/problem.hpp"

namespace tilescope {

// The names of the ceilings, shared by the measurements, the datasheet table and the charts.
inline constexpr const char* kFp32Ceiling = "FP32";
inline constexpr const char* kTf32Ceiling = "TF32 tensor";
inline constexpr const char* kFp16Ceiling = "FP16 tensor";
inline constexpr const char* kBf16Ceiling = "BF16 tensor";
inline constexpr const char* kFp8Ceiling = "FP8 tensor";  // E4M3 and E5M2 run at one rate
inline constexpr const char* kBandwidthCeiling = "memory bandwidth";

// The compute ceiling a product of `element` inputs is held to: FP32 on the SIMT cores, the
// tensor cores' rate for the others.
const char* computeCeilingFor(ElementType element);

inline constexpr const char* kComputeUnit = "GFLOP/s";
inline constexpr const char* kBandwidthUnit = "GB/s";

struct Ceiling {
  std::string name;  // one of the k...Ceiling names above
  std::string unit;  // kComputeUnit or kBandwidthUnit
  double measured = 0;
  std::optional<double> datasheet;  // in `unit`; nullopt for a device the table does not know
  std::string method;               // how it was measured, in one line
  // measured / datasheet, where the datasheet gives a figure.
  std::optional<double> fractionOfDatasheet() const;
  bool operator==(const Ceiling&) const = default;
};

struct DeviceCeilings {
  std::string backend, device;   // as in RunResult, so results find their device's ceilings
  std::vector<Ceiling> compute;  // GFLOP/s, FP32 first
  Ceiling bandwidth;             // GB/s, bytes read plus bytes written
  bool operator==(const DeviceCeilings&) const = default;
};

// The roofline: a kernel of arithmetic intensity `flopsPerByte` (FLOP per byte of memory
// traffic) can run no faster than min(peak, intensity x bandwidth). GB/s x FLOP/B = GFLOP/s.
double attainableGflops(double flopsPerByte, double peakGflops, double bandwidthGBs);
// The intensity where the bandwidth slope meets the compute roof: peak / bandwidth. Below it a
// kernel is bound by memory, above it by arithmetic.
double ridgePoint(double peakGflops, double bandwidthGBs);

// A device's datasheet ceilings, dense (no structured sparsity), in GFLOP/s and GB/s.
struct DatasheetCeilings {
  std::vector<std::pair<std::string, double>> compute;  // name -> GFLOP/s, FP32 first
  double bandwidthGBs = 0;
};
// Looked up by the name the device reports (cudaDeviceProp::name); nullopt for a device the
// table does not know (every CPU).
std::optional<DatasheetCeilings> datasheetFor(const std::string& device);
// Fills in each ceiling's datasheet figure from the table (left empty where it has none).
void attachDatasheet(DeviceCeilings& ceilings);

// Where a result sits on the x axis of a roofline: its FLOP per byte of global memory.
struct Intensity {
  double flopsPerByte = 0;
  // True for the library reference, whose tiling is opaque (no Mapping): it is placed at the
  // compulsory intensity, every operand moved exactly once, the most any kernel can reach.
  bool compulsory = false;
};
// 2MNK over the bytes of A and B (in `element`) read once and C (float32) written once.
double compulsoryIntensity(const Shape& shape, ElementType element = ElementType::F32);
// From the traffic model (kernelTraffic of the configuration's Mapping on `element` operands:
// every sector the warps fetch, no cache reuse, a cluster's multicast tile once), or the
// compulsory intensity for the library reference. Takes milliseconds on large shapes: callers
// that redraw should keep the answer.
// Throws Error(InvalidArgument) for a configuration, shape or element type the catalogue refuses.
Intensity arithmeticIntensity(const KernelConfig& kernel, const Shape& shape,
                              ElementType element = ElementType::F32);

}  // namespace tilescope
