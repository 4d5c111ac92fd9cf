// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one list of kernels: what each is, where it comes from, what it takes.
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/problem.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope {

struct ParamSpec {
  std::string name;         // "tile", later "BM", "TM", ...
  std::string description;  // one line for tooltips and --list
  int defaultValue = 1;
  std::vector<int> allowed;  // every valid value, ascending
  // Why a value outside `allowed` is refused (shown with the value).
  std::string refusal;
};

// Named parameter values of one configuration, e.g. {"tile": 16}.
using Params = std::map<std::string, int>;

struct KernelInfo {
  std::string id;           // stable id used by the CLI, sessions and tests
  std::string displayName;  // for the UI
  std::string seed;         // which seed (or reference) it comes from
  std::string teaching;     // a short teaching text in plain words
  std::vector<ParamSpec> params;
  std::vector<std::string> backends;  // backend ids that implement it
  bool hasMapping = true;  // false only for the library reference (its mapping is opaque)
  // Largest M*N*K a backend will run (0: unbounded); the serial kernels would otherwise run for
  // minutes (seed 002: one GPU thread takes about 200 s at 1024^3) and cannot be interrupted.
  std::map<std::string, double> maxWork = {};
  // The rules that tie parameters together, in one line for --list and tooltips ("" if none).
  std::string constraints = {};
  // Why a combination of (individually allowed) values is refused, or nullopt; it receives every
  // parameter, the missing ones at their defaults. Empty for kernels without such rules.
  std::function<std::optional<std::string>(const Params&)> check = {};
  // The element types of A and B it multiplies, the first being its default.
  std::vector<ElementType> types = {ElementType::F32};
  // Its colour in every chart, as "#rrggbb" for light and for dark backgrounds ("" for a kernel
  // the charts colour by its id: a user kernel).
  struct Hue {
    std::string light, dark;
  } hue = {};
  // The NVIDIA GPUs that run its CUDA kernel: compute capability `minimum` (x 10) or newer, or
  // exactly that one where the kernel is built for it alone (sm_90a); `needs` says what for.
  struct CudaArchitecture {
    int minimum = 75;
    bool only = false;
    std::string needs = {};
  } cudaArchitecture = {};

  const ParamSpec* param(const std::string& name) const;
};

struct KernelConfig {
  std::string kernel;
  Params params;  // missing parameters take their defaults in resolve()
  // A user kernel's CUDA source (user_kernel.hpp); its id is userKernelId(its name). The
  // catalogue's kernels have none.
  std::optional<std::string> source = {};
  bool operator==(const KernelConfig&) const = default;
};

const std::vector<KernelInfo>& catalogue();
// Throws Error(InvalidArgument) listing the known ids when `id` is unknown.
const KernelInfo& kernelInfo(const std::string& id);
const KernelInfo* findKernel(const std::string& id);
// The entry of a configuration: the catalogue's, or for a user kernel the one its source declares
// (userKernelInfo). Throws Error(InvalidArgument) for an unknown id or a user kernel whose name or
// parameter declarations are malformed. The reference stays valid for the process's life.
const KernelInfo& kernelInfo(const KernelConfig& config);

// User kernels run under the id "user:" + the name the user gave them.
std::string userKernelId(const std::string& name);
bool isUserKernelId(const std::string& id);
// The name in a user kernel's id ("user:mine" -> "mine"); the id itself otherwise.
std::string userKernelName(const std::string& id);
// Why `name` cannot name a user kernel (empty, or characters other than letters, digits, '_', '-'
// and '.', or longer than 64), or nullopt.
std::optional<std::string> userKernelNameProblem(const std::string& name);
// The catalogue-like entry of a user kernel: the parameters its TS_PARAM lines declare, the types
// its TS_TYPES line lists (fp32 where none), the CUDA backend, no Mapping. Throws
// Error(InvalidArgument) for a malformed name or declaration.
KernelInfo userKernelInfo(const std::string& name, const std::string& source);

// The reason a configuration is refused (unknown kernel, unknown or invalid parameter, a user
// kernel without its source or a catalogue kernel with one), or nullopt when it is valid.
std::optional<std::string> refusal(const KernelConfig& config);
// The backend whose kernels a backend id runs: the id itself, or for a run server's backend
// "cuda@gpu1" (app/remote) the part before '@'.
std::string implementationOf(const std::string& backendId);
// Whether `backendId` (or the backend it stands for on a run server) implements `kernel`.
bool implements(const KernelInfo& kernel, const std::string& backendId);
// Why `shape` is beyond the kernel's work bound on a backend (KernelInfo::maxWork), or nullopt.
std::optional<std::string> workLimitRefusal(const KernelInfo& kernel, const std::string& backendId,
                                            const Shape& shape);

// Why a kernel does not multiply `type` (it names the kernels that do), or nullopt.
std::optional<std::string> elementRefusal(const KernelInfo& kernel, ElementType type);

// A configuration resolve() has checked: its kernel known (the catalogue's, or a user kernel's own
// entry), every parameter present and allowed, the rules that tie them together met. Only
// resolve() makes one, so what takes one (the backends, the launch, the Mapping) checks nothing
// again. It reads as the KernelConfig it holds.
class ResolvedKernel {
 public:
  const KernelConfig& config() const { return config_; }
  const KernelInfo& info() const { return *info_; }
  const std::string& id() const { return config_.kernel; }
  const Params& params() const { return config_.params; }
  operator const KernelConfig&() const { return config_; }
  bool operator==(const ResolvedKernel& other) const { return config_ == other.config_; }

 private:
  friend ResolvedKernel resolve(const KernelConfig& config);
  ResolvedKernel(KernelConfig config, const KernelInfo& info)
      : config_(std::move(config)), info_(&info) {}

  KernelConfig config_;
  const KernelInfo* info_;  // the catalogue's, or kernelInfo()'s lasting entry of a user kernel
};

// Fills in defaults and validates; throws Error(InvalidArgument) with refusal()'s reason.
ResolvedKernel resolve(const KernelConfig& config);

// Every configuration of a kernel the catalogue accepts, resolved: the product of its parameters'
// allowed values (the first parameter varying slowest) that passes its cross-parameter check. A
// user kernel's configurations carry `source`.
std::vector<KernelConfig> validConfigurations(const KernelInfo& info,
                                              const std::optional<std::string>& source = {});

// How many configurations validConfigurations looks at: the product of the parameters' counts of
// allowed values (2^40 for a user kernel's 40 two-valued TS_PARAMs), saturating at the largest
// uint64. What enumerates them asks this first.
std::uint64_t configurationCount(const KernelInfo& info);

// The thread map of a ladder family from a resolved configuration's parameters.
template <typename Map>
Map ladderMap(const Params& params) {
  std::array<int, Map::kAxes.size()> values{};
  for (std::size_t a = 0; a < values.size(); ++a) values[a] = params.at(Map::kAxes[a].name);
  return Map::fromValues(values);
}

// "BM=128,TM=8" -> {"BM":128, "TM":8}, "" -> {}; throws Error(InvalidArgument) on malformed
// text, an empty item ("tile=8,") or a value out of int range.
Params parseParams(const std::string& text);
// {"BM":128, "TM":8} -> "BM=128,TM=8" (the parameter order of the catalogue entry when known).
std::string formatParams(const KernelConfig& config);

}  // namespace tilescope
