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

enum class Family {
  Serial,         // one thread computes all of C
  RowPerThread,   // a thread owns a row and strides over columns (uncoalesced)
  Naive,          // one thread per C element
  SharedA,        // only A staged in shared memory
  SharedTiled,    // A and B staged in T x T shared tiles
  RegisterTiled,  // each thread accumulates a T x T block of C in registers
  Library,        // OpenBLAS on the CPU, cuBLAS on the GPU
  // The optimisation ladder past the seeds (maps::BlockTile1D ... maps::Prefetched).
  BlockTile1D,     // shared tiles; each thread TM outputs down a column
  BlockTile2D,     // shared tiles; a TM x TN register tile per thread
  Vectorized,      // blocktile-2d with float4 copies and a transposed, padded A tile
  Warptile,        // warp tiles inside the block tile, conflict-free shared reads
  Pipelined,       // warptile with cp.async stages loading ahead of the compute
  Prefetched,      // warp grid, next tile prefetched through registers, two blocks per SM
  TensorCore,      // warp tiles of mma.sync accumulators (fp16, bf16, tf32 in; FP32 accumulate)
  Wgmma,           // Hopper warpgroup MMA reading swizzled shared tiles through descriptors
  Tma,             // Hopper: a TMA producer warpgroup feeding two wgmma consumers through mbarriers
  Persistent,      // tensor-tma's block once per SM over every tile; 2x1 clusters multicast B
  PersistentTf32,  // tensor-persistent for tf32: each tile transposed, B through registers
  User,            // the user's own CUDA source from the Kernel Editor, compiled with NVRTC
};

const char* toString(Family family);

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
  Family family;
  std::string seed;      // which seed (or reference) it comes from
  std::string teaching;  // a short teaching text in plain words
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

// Fills in defaults and validates; throws Error(InvalidArgument) with refusal()'s reason.
KernelConfig resolve(const KernelConfig& config);

// Every configuration of a kernel the catalogue accepts, resolved: the product of its parameters'
// allowed values (the first parameter varying slowest) that passes its cross-parameter check. A
// user kernel's configurations carry `source`.
std::vector<KernelConfig> validConfigurations(const KernelInfo& info,
                                              const std::optional<std::string>& source = {});

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
