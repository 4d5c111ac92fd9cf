// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the families' registrations share: the parameters and rules of the single-tile seeds and
// of the ladder, worded once. Included by kernels/families/<id>/<id>.cpp only.
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/registry.hpp"
#include "tilescope/error.hpp"

namespace tilescope::families {

// The backends of a kernel that runs on both.
inline const std::vector<std::string> kCpuAndCuda = {"cpu", "cuda"};

// The copy rule every ladder kernel states in its constraints.
inline const std::string kEvenCopiesRule =
    "BM*BK and BK*BN split evenly among the threads (whole float4s where the copies are float4)";

inline std::vector<int> rangeOf(int first, int last) {
  std::vector<int> values;
  for (int v = first; v <= last; ++v) values.push_back(v);
  return values;
}

// A T x T thread block has T*T threads; CUDA allows at most 1024 per block, so T <= 32.
inline ParamSpec blockTile(int defaultValue, std::string description) {
  return {"tile", std::move(description), defaultValue, rangeOf(1, 32),
          "a T x T thread block has T*T threads and a block holds at most 1024, so T must be "
          "1..32"};
}

// ---- The ladder's parameters, built from the maps' own axes ----

inline std::string joinValues(const maps::ParamAxis& axis) {
  std::string text;
  for (int i = 0; i < axis.count; ++i)
    text += (i == 0                ? ""
             : i + 1 == axis.count ? " or "
                                   : ", ") +
            std::to_string(axis.values[std::size_t(i)]);
  return text;
}

// One ParamSpec per axis of Map, defaults from `defaults`, descriptions by parameter name.
template <typename Map>
std::vector<ParamSpec> ladderParams(const Map& defaults,
                                    const std::map<std::string, std::string>& descriptions) {
  std::vector<ParamSpec> specs;
  const auto defaultValues = defaults.values();
  for (std::size_t a = 0; a < Map::kAxes.size(); ++a) {
    const maps::ParamAxis& axis = Map::kAxes[a];
    ParamSpec spec{axis.name, descriptions.at(axis.name), defaultValues[a], {}, {}};
    spec.allowed.assign(axis.values.begin(), axis.values.begin() + axis.count);
    spec.refusal =
        "the CUDA backend compiles one kernel per valid combination and keeps that set "
        "small: " +
        std::string(axis.name) + " is " + joinValues(axis);
    specs.push_back(std::move(spec));
  }
  return specs;
}

inline std::string str(int value) {
  return std::to_string(value);
}

// Why a ladder configuration breaks a rule of the shapes every ladder family shares, in the
// numbers of that configuration. A family words its own rules first (ladderCheck's `own`).
template <typename Map>
std::string explainRule(const Map& map, maps::TilingRule rule) {
  constexpr bool isWarp = requires {
    map.subM();
  };
  constexpr bool isGrid = requires {
    map.threadsAlongN();
  };
  const int width = map.copyWidth();
  const std::string unit = width == 1   ? "elements"
                           : width == 4 ? "float4 copies"
                                        : "16-byte copies";
  switch (rule) {
    case maps::TilingRule::TileDivides:
      if constexpr (isWarp) {
        return "the warp tile WM x WN = " + str(map.wm) + " x " + str(map.wn) +
               " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn) +
               ", and TM, TN be multiples of 4 (whole float4 reads)";
      } else if constexpr (isGrid) {
        return "the thread tile TM x TN = " + str(map.tm) + " x " + str(map.tn) +
               " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn) +
               (width == 4 ? ", and TM, TN be multiples of 4 (whole float4 reads)" : "");
      } else if constexpr (requires { map.tm; }) {
        return "TM = " + str(map.tm) + " must divide BM = " + str(map.bm);
      }
      break;
    case maps::TilingRule::ThreadCount:
      return "the block would have " + str(map.threads()) +
             " threads; CUDA allows whole warps up to 1024";
    case maps::TilingRule::WarpCount:
      if constexpr (requires { map.warps(); }) {
        return "(BM/WM) x (BN/WN) = " + str(map.bm / map.wm) + " x " + str(map.bn / map.wn) +
               " = " + str(map.warps()) +
               " warps; a block has 4 to 8: fewer leave the SM's four warp schedulers short of "
               "work, more cannot keep up to 128 accumulators each in the 64K registers of an SM";
      }
      break;
    case maps::TilingRule::WarpShape:
      if constexpr (isWarp) {
        return "a warp's 4 x 8 lanes cover 4TM x 8TN = " + str(map.subM()) + " x " +
               str(map.subN()) + " outputs per sub-iteration, which must divide the warp tile " +
               "WM x WN = " + str(map.wm) + " x " + str(map.wn);
      }
      break;
    case maps::TilingRule::EvenCopies: {
      const maps::TileCopy a = map.aCopy(), b = map.bCopy();
      return "the A tile (BM x BK = " + str(map.bm) + " x " + str(map.bk) +
             ") and the B tile (BK x BN = " + str(map.bk) + " x " + str(map.bn) +
             ") must split evenly among the " + str(map.threads()) + " threads as whole " + unit +
             ": they hold " + str(a.vectors()) + " and " + str(b.vectors()) +
             (width == 1   ? " elements"
              : width == 4 ? " float4s"
                           : " 16-byte vectors");
    }
    case maps::TilingRule::Ok:
    case maps::TilingRule::Fragments:
    case maps::TilingRule::SharedMemory:
      break;
  }
  return "breaks a tiling rule";
}

// A family's wording of its own rules, or nullopt to leave one to explainRule.
template <typename Map>
using OwnRules = std::optional<std::string> (*)(const Map& map, maps::TilingRule rule);

// A catalogue check for a ladder family: the map's own rules, explained.
template <typename Map>
std::function<std::optional<std::string>(const Params&)> ladderCheck(OwnRules<Map> own = nullptr) {
  return [own](const Params& params) -> std::optional<std::string> {
    const Map map = ladderMap<Map>(params);
    const maps::TilingRule rule = map.check();
    if (rule == maps::TilingRule::Ok) return std::nullopt;
    if (own)
      if (std::optional<std::string> why = own(map, rule)) return why;
    return explainRule(map, rule);
  };
}

inline const std::map<std::string, std::string> kBlockDescriptions = {
    {"BM", "rows of C per block (the staged A tile is BM x BK)"},
    {"BN", "columns of C per block (the staged B tile is BK x BN)"},
    {"BK", "k values staged per step (the depth of both shared tiles)"},
};

inline std::map<std::string, std::string> withBlock(std::map<std::string, std::string> more) {
  more.insert(kBlockDescriptions.begin(), kBlockDescriptions.end());
  return more;
}

inline const std::map<std::string, std::string> kWarpDescriptions = withBlock({
    {"WM", "rows of C per warp (the warp tile is WM x WN)"},
    {"WN", "columns of C per warp"},
    {"TM", "rows of each lane's piece: the 4 x 8 lanes cover 4TM rows per sub-iteration"},
    {"TN",
     "columns of each lane's piece: 8 lanes cover 8TN columns; TN = 4 makes their B reads "
     "one 128-byte shared row (conflict-free)"},
});

// The parameters of the persistent kernels (tensor-persistent, tensor-tf32).
inline const std::map<std::string, std::string> kPersistentDescriptions = withBlock(
    {{"stages", "shared stages the producer fills ahead of the consumers"},
     {"cluster",
      "blocks per thread-block cluster (tiles stacked along M sharing B by multicast); 1: no "
      "cluster"},
     {"group", "tile rows per band of the grouped tile order (L2 reuse)"}});

// The thread map of a ladder family from a resolved configuration, sized for its element type
// where the family's layout depends on it (the tensor-core maps).
template <typename Map>
ThreadMap ladderThreadMap(const Params& params, ElementType element) {
  const Map map = ladderMap<Map>(params);
  if constexpr (requires { map.withElementBytes(2); })
    return map.withElementBytes(storageBytes(element));
  else
    return map;
}

}  // namespace tilescope::families
