#include "tilescope/catalogue.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "tilescope/error.hpp"

namespace tilescope {

const char* toString(Family family) {
  switch (family) {
    case Family::Serial:
      return "serial";
    case Family::RowPerThread:
      return "row-per-thread";
    case Family::Naive:
      return "naive";
    case Family::SharedA:
      return "shared-a";
    case Family::SharedTiled:
      return "shared-tiled";
    case Family::RegisterTiled:
      return "register-tiled";
    case Family::Library:
      return "library";
  }
  return "unknown";
}

namespace {

std::vector<int> rangeOf(int first, int last) {
  std::vector<int> values;
  for (int v = first; v <= last; ++v) values.push_back(v);
  return values;
}

// A T x T thread block has T*T threads; CUDA allows at most 1024 per block, so T <= 32.
ParamSpec blockTile(int defaultValue, std::string description) {
  return {"tile", std::move(description), defaultValue, rangeOf(1, 32),
          "a T x T thread block has T*T threads and a block holds at most 1024, so T must be "
          "1..32"};
}

std::vector<KernelInfo> buildCatalogue() {
  const std::vector<std::string> both = {"cpu", "cuda"};
  std::vector<KernelInfo> list;

  list.push_back(
      {.id = "serial",
       .displayName = "Serial (one thread)",
       .family = Family::Serial,
       .seed = "seed 002 (matmul_seq)",
       .teaching =
           "One thread computes every element of C in turn. On a GPU this wastes all but one of "
           "thousands of cores: it is the baseline that shows why we parallelise at all.",
       .params = {},
       .backends = both,
       .hasMapping = true,
       // Bounded because a launch cannot be interrupted: seed 002 measured about 200 s for
       // 1024^3 on one GPU thread. One H200 thread does about 66 M multiply-adds per second, so
       // 2^27 (512^3) takes about 2.5 s; one CPU core takes seconds for 2^30.
       .maxWork = {{"cpu", double(1LL << 30)}, {"cuda", double(1LL << 27)}}});

  list.push_back(
      {.id = "row-per-thread",
       .displayName = "Row per thread (uncoalesced)",
       .family = Family::RowPerThread,
       .seed = "seed 000a",
       .teaching =
           "Thread x of a block owns one row of C and strides over its columns. The 32 lanes of a "
           "warp read 32 different rows of A at once: 32 separate memory sectors per load "
           "instead of one, which is why it is slower than the naive kernel.",
       .params = {blockTile(
           32,
           "T: threads per block side (T x T threads; x picks the row, y the column "
           "stride)")},
       .backends = both});

  list.push_back(
      {.id = "naive",
       .displayName = "Naive (one thread per element)",
       .family = Family::Naive,
       .seed = "seeds 001a, 003a, 004-1",
       .teaching =
           "One thread per element of C, the x index running along a row of C. A warp reads 32 "
           "consecutive floats of B (coalesced) and one broadcast float of A per step, but every "
           "element is read K times from global memory.",
       .params = {blockTile(16,
                            "T: the thread block is T x T threads, each computing one element")},
       .backends = both});

  list.push_back(
      {.id = "shared-a",
       .displayName = "Shared A tile",
       .family = Family::SharedA,
       .seed = "seed 001b",
       .teaching =
           "Like the naive kernel, but each step the block first copies a T x T tile of A into "
           "shared memory, so each element of A is read once per block instead of once per "
           "thread. B is still read from global memory.",
       .params = {blockTile(16, "T: the thread block and the staged A tile are T x T")},
       .backends = both});

  list.push_back(
      {.id = "shared-tiled",
       .displayName = "Shared A and B tiles",
       .family = Family::SharedTiled,
       .seed = "seeds 000b, 002 (matmul_shared), 003b, 004-3",
       .teaching =
           "Each step the block stages a T x T tile of A and one of B in shared memory, waits at a "
           "barrier, and multiplies the tiles from there: global traffic falls by a factor of "
           "T. Edge tiles are zero-padded, and every barrier sits outside the bounds checks "
           "(unlike seed "
           "003).",
       .params = {blockTile(16,
                            "T: the thread block and both staged tiles are T x T (any T, e.g. 7)")},
       .backends = both});

  list.push_back(
      {.id = "register-tiled",
       .displayName = "Register tile per thread",
       .family = Family::RegisterTiled,
       .seed = "seed 004-2",
       .teaching =
           "Each thread of a 16 x 16 block accumulates a T x T block of C in registers, reading T "
           "values of A and T of B per step: T^2 multiply-adds per 2T loads. It gets faster up to "
           "T = 8; past 16 the accumulators no longer fit in registers, spill to local memory and "
           "the time falls off a cliff.",
       .params =
           {{"tile",
             "T: outputs per thread side (a T x T register tile)",
             8,
             {1, 2, 4, 8, 16, 32, 64},
             "the register tile is instantiated per size: T must be a power of two from 1 to 64"}},
       .backends = both});

  list.push_back(
      {.id = "library",
       .displayName = "Library reference (OpenBLAS / cuBLAS)",
       .family = Family::Library,
       .seed = "reference: OpenBLAS sgemm on the CPU, cuBLAS sgemm on the GPU",
       .teaching =
           "The vendor library: the yardstick every hand-written kernel is measured against. Its "
           "tiling is not visible, so it has no diagram.",
       .params = {},
       .backends = both,
       .hasMapping = false});

  return list;
}

std::string knownIds() {
  std::string ids;
  for (const KernelInfo& k : catalogue()) ids += (ids.empty() ? "" : ", ") + k.id;
  return ids;
}

}  // namespace

const ParamSpec* KernelInfo::param(const std::string& name) const {
  for (const ParamSpec& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

const std::vector<KernelInfo>& catalogue() {
  static const std::vector<KernelInfo> list = buildCatalogue();
  return list;
}

const KernelInfo* findKernel(const std::string& id) {
  for (const KernelInfo& k : catalogue())
    if (k.id == id) return &k;
  return nullptr;
}

const KernelInfo& kernelInfo(const std::string& id) {
  if (const KernelInfo* k = findKernel(id)) return *k;
  throw Error(ErrorKind::InvalidArgument,
              "unknown kernel '" + id + "' (known kernels: " + knownIds() + ")");
}

std::optional<std::string> refusal(const KernelConfig& config) {
  const KernelInfo* info = findKernel(config.kernel);
  if (!info) return "unknown kernel '" + config.kernel + "' (known kernels: " + knownIds() + ")";
  for (const auto& [name, value] : config.params) {
    const ParamSpec* spec = info->param(name);
    if (!spec) {
      if (info->params.empty()) return "kernel '" + info->id + "' takes no parameters";
      std::string names;
      for (const ParamSpec& p : info->params) names += (names.empty() ? "" : ", ") + p.name;
      return "kernel '" + info->id + "' has no parameter '" + name + "' (it takes " + names + ")";
    }
    if (!std::binary_search(spec->allowed.begin(), spec->allowed.end(), value)) {
      return info->id + ": " + name + " = " + std::to_string(value) +
             " is refused: " + spec->refusal;
    }
  }
  return std::nullopt;
}

KernelConfig resolve(const KernelConfig& config) {
  if (auto reason = refusal(config)) throw Error(ErrorKind::InvalidArgument, *reason);
  KernelConfig resolved = config;
  for (const ParamSpec& p : kernelInfo(config.kernel).params)
    resolved.params.try_emplace(p.name, p.defaultValue);
  return resolved;
}

Params parseParams(const std::string& text) {
  Params params;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq == std::string::npos || name.empty()) {
      throw Error(ErrorKind::InvalidArgument,
                  "malformed parameter '" + item + "': expected NAME=VALUE, e.g. BM=128,TM=8");
    }
    const std::string valueText = item.substr(eq + 1);
    int value = 0;
    const auto [end, ec] =
        std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
    if (ec != std::errc() || end != valueText.data() + valueText.size() || valueText.empty()) {
      throw Error(ErrorKind::InvalidArgument,
                  "parameter " + name + " = '" + valueText + "' is not an integer");
    }
    if (!params.emplace(name, value).second) {
      throw Error(ErrorKind::InvalidArgument, "parameter " + name + " is given twice");
    }
  }
  return params;
}

std::string formatParams(const KernelConfig& config) {
  std::string text;
  auto append = [&](const std::string& name, int value) {
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  };
  Params rest = config.params;
  if (const KernelInfo* info = findKernel(config.kernel)) {
    for (const ParamSpec& p : info->params) {
      if (auto it = rest.find(p.name); it != rest.end()) {
        append(it->first, it->second);
        rest.erase(it);
      }
    }
  }
  for (const auto& [name, value] : rest) append(name, value);
  return text;
}

}  // namespace tilescope
