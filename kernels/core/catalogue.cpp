#include "tilescope/catalogue.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <mutex>
#include <sstream>
#include <type_traits>

#include "tilescope/error.hpp"
#include "tilescope/quote.hpp"
#include "tilescope/user_kernel.hpp"

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
    case Family::BlockTile1D:
      return "blocktile-1d";
    case Family::BlockTile2D:
      return "blocktile-2d";
    case Family::Vectorized:
      return "vectorized";
    case Family::Warptile:
      return "warptile";
    case Family::Pipelined:
      return "pipelined";
    case Family::Prefetched:
      return "prefetched";
    case Family::TensorCore:
      return "tensor-mma";
    case Family::Wgmma:
      return "tensor-wgmma";
    case Family::Tma:
      return "tensor-tma";
    case Family::Persistent:
      return "tensor-persistent";
    case Family::PersistentTf32:
      return "tensor-tf32";
    case Family::User:
      return "user";
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

// ---- The ladder's parameters, built from the maps' own axes ----

std::string joinValues(const maps::ParamAxis& axis) {
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

std::string str(int value) {
  return std::to_string(value);
}

// Why a ladder configuration breaks its family's rules, in the numbers of that configuration.
template <typename Map>
std::optional<std::string> explainRule(const Map& map) {
  constexpr bool isWarp = std::is_base_of_v<maps::WarpGrid<Map>, Map>;
  constexpr bool isGrid = std::is_base_of_v<maps::ThreadGrid<Map>, Map>;
  constexpr bool isTensor = std::is_same_v<Map, maps::TensorCore>;
  constexpr bool isWgmma = std::is_same_v<Map, maps::Wgmma>;
  // tensor-persistent's blocks are tensor-tma's, with the same rules.
  constexpr bool isTma = std::is_same_v<Map, maps::Tma> || std::is_same_v<Map, maps::Persistent>;
  constexpr bool isTf32 = std::is_same_v<Map, maps::PersistentTf32>;
  const int width = map.copyWidth();
  const std::string unit = width == 1   ? "elements"
                           : width == 4 ? "float4 copies"
                                        : "16-byte copies";
  switch (map.check()) {
    case maps::TilingRule::Ok:
      return std::nullopt;
    case maps::TilingRule::TileDivides:
      if constexpr (isTf32) {
        return "two consumer warpgroups take 64 columns each and one instruction all the rows: "
               "BM = " +
               str(map.bm) + " must be 256 and BN = " + str(map.bn) + " 128";
      } else if constexpr (isTma) {
        return "two consumer warpgroups take 64 rows each and one instruction all the columns: "
               "BM = " +
               str(map.bm) + " must be 128 and BN = " + str(map.bn) + " a multiple of 64 up to 256";
      } else if constexpr (isWgmma) {
        return "a warpgroup takes 64 rows and an instruction 128 columns: BM = " + str(map.bm) +
               " must be a multiple of 64 and BN = " + str(map.bn) + " of 128";
      } else if constexpr (isTensor) {
        return "the warp tile WM x WN = " + str(map.wm) + " x " + str(map.wn) +
               " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn);
      } else if constexpr (isWarp) {
        return "the warp tile WM x WN = " + str(map.wm) + " x " + str(map.wn) +
               " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn) +
               ", and TM, TN be multiples of 4 (whole float4 reads)";
      } else if constexpr (isGrid) {
        return "the thread tile TM x TN = " + str(map.tm) + " x " + str(map.tn) +
               " must divide the block tile BM x BN = " + str(map.bm) + " x " + str(map.bn) +
               (width == 4 ? ", and TM, TN be multiples of 4 (whole float4 reads)" : "");
      } else {
        return "TM = " + str(map.tm) + " must divide BM = " + str(map.bm);
      }
    case maps::TilingRule::ThreadCount:
      return "the block would have " + str(map.threads()) +
             " threads; CUDA allows whole warps up to 1024";
    case maps::TilingRule::WarpCount:
      if constexpr (isWarp || isTensor) {
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
    case maps::TilingRule::Fragments:
      if constexpr (isWgmma || isTma) {
        return "a k-step is one 128-byte swizzled row of A: BK = " + str(map.bk) +
               " must be 64 16-bit values";
      } else if constexpr (isTensor) {
        return "a warp tile is whole 16 x 16 pieces of two 16 x 8 accumulators, and a k-step "
               "whole 16-deep chunks: WM = " +
               str(map.wm) + " must be a multiple of 16, WN = " + str(map.wn) +
               " of 16, BK = " + str(map.bk) + " of 16";
      }
      break;
    case maps::TilingRule::SharedMemory:
      if constexpr (isTma) {
        return str(map.stages) + " stages of " + str(map.stageBytes() / 1024) + " KiB (A " +
               str(map.bm) + " x " + str(map.bk) + ", B " + str(map.bk) + " x " + str(map.bn) +
               ") and their barriers need " + str(map.sharedBytes() / 1024) +
               " KiB of shared memory; a block may take " +
               str(maps::Tma::kSharedLimitBytes / 1024) + " KiB";
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
  }
  return "breaks a tiling rule";
}

// A catalogue check for a ladder family: the map's own rules, explained.
template <typename Map>
std::function<std::optional<std::string>(const Params&)> ladderCheck() {
  return [](const Params& params) { return explainRule(ladderMap<Map>(params)); };
}

const std::map<std::string, std::string> kBlockDescriptions = {
    {"BM", "rows of C per block (the staged A tile is BM x BK)"},
    {"BN", "columns of C per block (the staged B tile is BK x BN)"},
    {"BK", "k values staged per step (the depth of both shared tiles)"},
};

std::map<std::string, std::string> withBlock(std::map<std::string, std::string> more) {
  more.insert(kBlockDescriptions.begin(), kBlockDescriptions.end());
  return more;
}

const std::map<std::string, std::string> kWarpDescriptions = withBlock({
    {"WM", "rows of C per warp (the warp tile is WM x WN)"},
    {"WN", "columns of C per warp"},
    {"TM", "rows of each lane's piece: the 4 x 8 lanes cover 4TM rows per sub-iteration"},
    {"TN",
     "columns of each lane's piece: 8 lanes cover 8TN columns; TN = 4 makes their B reads "
     "one 128-byte shared row (conflict-free)"},
});

// The parameters of the persistent kernels (tensor-persistent, tensor-tf32).
const std::map<std::string, std::string> kPersistentDescriptions = withBlock(
    {{"stages", "shared stages the producer fills ahead of the consumers"},
     {"cluster",
      "blocks per thread-block cluster (tiles stacked along M sharing B by multicast); 1: no "
      "cluster"},
     {"group", "tile rows per band of the grouped tile order (L2 reuse)"}});

// tensor-tma: its own function, so the entries other work adds merge apart from it.
void addTensorTma(std::vector<KernelInfo>& list) {
  list.push_back(
      {.id = "tensor-tma",
       .displayName = "Tensor cores (TMA, warp-specialised)",
       .family = Family::Tma,
       .seed = "CUTLASS's sm90 warp-specialised GEMM; fast.cu kernels 4-5 (pranjalssh); the PTX "
               "ISA's cp.async.bulk.tensor, mbarrier and setmaxnreg",
       .teaching =
           "The block splits into roles. One producer warpgroup only copies: a single thread asks "
           "the TMA copy engine for whole swizzled tiles of A and B, and the engine signals an "
           "mbarrier when a stage has arrived. Two consumer warpgroups only multiply: each waits "
           "for a stage's barrier, runs wgmma m64n256k16 on it, and frees the stage on another "
           "barrier once its batch is done, with the next batch already issued. No thread waits "
           "at a block-wide barrier, and the producer hands its registers to the consumers "
           "(setmaxnreg) so each can hold 128 accumulators. Needs an sm_90 GPU (H100, H200).",
       .params = ladderParams(maps::Tma::fromValues({128, 256, 64, 4}),
                              withBlock({{"stages",
                                          "shared stages the producer fills ahead of the "
                                          "consumers"}})),
       .backends = {"cuda"},
       .constraints = "BM = 128 (two consumer warpgroups of 64 rows), BN a multiple of 64 up to "
                      "256; BK = 64; the stages fit in 227 KiB of shared memory",
       .check = ladderCheck<maps::Tma>(),
       .types = {ElementType::F16, ElementType::BF16}});
}

// tensor-persistent: its own function, like tensor-tma's.
void addTensorPersistent(std::vector<KernelInfo>& list) {
  list.push_back(
      {.id = "tensor-persistent",
       .displayName = "Tensor cores (persistent, clusters)",
       .family = Family::Persistent,
       .seed = "fast.cu kernels 6 and 8 (pranjalssh); CUTLASS's sm90 persistent tile scheduler "
               "and TMA multicast; the PTX ISA's clusters, mapa and multicast::cluster",
       .teaching =
           "tensor-tma's block, launched only as many times as the GPU holds blocks at once (one "
           "per SM, or fewer where fewer finish in as many rounds), each block looping over tiles "
           "of C. Two things get cheaper. Between tiles the producer simply goes on filling "
           "stages with the next tile's k-steps while the consumers store this one, so no block "
           "starts with an empty pipeline. And the tiles "
           "are handed out in a grouped order, bands of `group` tile rows walked column by "
           "column, so the blocks working at one time read a few columns of B and rows of A "
           "that stay in L2. With cluster = 2, pairs of blocks on neighbouring SMs take two "
           "tiles stacked along M: they need the same tile of B, so each loads half of it and "
           "the copy engine multicasts it into both, and a stage is refilled only when the "
           "consumers of both blocks have freed it. Needs an sm_90 GPU (H100, H200).",
       .params = ladderParams(maps::Persistent::fromValues({128, 256, 64, 4, 2, 16}),
                              kPersistentDescriptions),
       .backends = {"cuda"},
       .constraints = "BM = 128 (two consumer warpgroups of 64 rows), BN a multiple of 64 up to "
                      "256; BK = 64; the stages fit in 227 KiB of shared memory",
       .check = ladderCheck<maps::Persistent>(),
       .types = {ElementType::F16, ElementType::BF16}});
}

// tensor-tf32: its own function, like tensor-persistent's.
void addTensorTf32(std::vector<KernelInfo>& list) {
  list.push_back(
      {.id = "tensor-tf32",
       .displayName = "Tensor cores tf32 (persistent, B through registers)",
       .family = Family::PersistentTf32,
       .seed = "tensor-persistent; the PTX ISA's wgmma with A in registers (tf32 operands read "
               "from shared memory must be K-major)",
       .teaching =
           "tensor-persistent for tf32. wgmma reads a tf32 tile from shared memory only along "
           "k, and B's rows run along n, so the block computes its tile transposed: C^T = B^T "
           "A^T. A's tile, whose rows run along k, becomes the instruction's second operand and "
           "is read from shared memory as it lies; B's tile reaches the instruction through "
           "registers, each consumer thread reading four words of it before every 8-deep "
           "k-chunk. The columns a lane holds are chosen so that a warp's 32 reads hit 32 "
           "different banks of the swizzled tile. A thread's accumulators then lie down columns "
           "of C, so before storing, four lanes swap values to write 16 consecutive bytes each. "
           "The tile is 256 x 128, like cuBLAS's. Needs an sm_90 GPU (H100, H200).",
       .params = ladderParams(maps::PersistentTf32::fromValues({256, 128, 32, 4, 2, 16}),
                              kPersistentDescriptions),
       .backends = {"cuda"},
       .constraints = "BM = 256, BN = 128 (two consumer warpgroups of 64 columns), BK = 32 "
                      "(128-byte rows of tf32); the stages fit in 227 KiB of shared memory",
       .check = ladderCheck<maps::PersistentTf32>(),
       .types = {ElementType::TF32}});
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

  // ---- The optimisation ladder. Defaults: each family's fastest configuration at 4096^3 on an
  // H200 (--autotune; docs/benchmarks.md, "Optimisation ladder"). ----
  const std::string tiles =
      "BM*BK and BK*BN split evenly among the threads (whole float4s where the copies are float4)";

  list.push_back(
      {.id = "blocktile-1d",
       .displayName = "Block tile, 1-D thread tile",
       .family = Family::BlockTile1D,
       .seed = "siboehm SGEMM worklog, kernel 4 (1D blocktiling)",
       .teaching =
           "The block stages a BM x BK tile of A and a BK x BN tile of B in shared memory, and "
           "each thread computes TM outputs down one column: per inner index it reads one B "
           "value and reuses it for TM multiply-adds. Fewer shared-memory reads per FMA than "
           "shared-tiled, so the FMA units finally get busy.",
       .params = ladderParams(maps::BlockTile1D::fromValues({64, 64, 8, 16}),
                              withBlock({{"TM", "outputs per thread down a column of C"}})),
       .backends = both,
       .constraints = "threads = BM*BN/TM in whole warps up to 1024; " + tiles,
       .check = ladderCheck<maps::BlockTile1D>()});

  list.push_back(
      {.id = "blocktile-2d",
       .displayName = "Block tile, 2-D register tile",
       .family = Family::BlockTile2D,
       .seed = "siboehm SGEMM worklog, kernel 5 (2D blocktiling)",
       .teaching =
           "Each thread accumulates a TM x TN tile of C in registers: per inner index it reads TM "
           "values of A and TN of B from shared memory for TM*TN multiply-adds. The tiles keep "
           "their global layout, so a warp's reads of A hit words TM*BK apart (one bank) and its "
           "reads of B words TN apart: bank conflicts, visible in the access view.",
       .params = ladderParams(maps::BlockTile2D::fromValues({64, 128, 8, 8, 4}),
                              withBlock({{"TM", "rows of a thread's register tile"},
                                         {"TN", "columns of a thread's register tile"}})),
       .backends = both,
       .constraints = "threads = BM*BN/(TM*TN) in whole warps up to 1024; " + tiles,
       .check = ladderCheck<maps::BlockTile2D>()});

  list.push_back(
      {.id = "vectorized",
       .displayName = "Vectorized (float4, transposed A)",
       .family = Family::Vectorized,
       .seed = "siboehm SGEMM worklog, kernel 6 (vectorized memory access) with kernel 8's "
               "padding",
       .teaching =
           "Blocktile-2d with every global copy a 16-byte float4 (a quarter of the load "
           "instructions) and the A tile stored transposed, each row padded by 4 words: a "
           "thread's TM values of A become consecutive words, read as float4s too, and the "
           "padding spreads the transposing stores over all 32 banks. K or N not a multiple of "
           "4 takes a scalar edge path (rows no longer 16-byte aligned).",
       .params = ladderParams(maps::Vectorized::fromValues({64, 128, 16, 8, 4}),
                              withBlock({{"TM", "rows of a thread's register tile (float4s)"},
                                         {"TN", "columns of a thread's register tile (float4s)"}})),
       .backends = both,
       .constraints = "threads = BM*BN/(TM*TN) in whole warps up to 1024; " + tiles,
       .check = ladderCheck<maps::Vectorized>()});

  list.push_back(
      {.id = "warptile",
       .displayName = "Warp tiles",
       .family = Family::Warptile,
       .seed = "siboehm SGEMM worklog, kernel 10 (warptiling); lane layout of CUTLASS's SIMT GEMM",
       .teaching =
           "The block tile is cut into WM x WN warp tiles, and inside one the 32 lanes form a 4 x "
           "8 grid of TM x TN pieces that repeats (WM/4TM) x (WN/8TN) times. Each warp reads only "
           "its own strip of the shared tiles, and with TN = 4 eight lanes read one 128-byte row "
           "of B: no bank conflicts, few shared reads per FMA, and registers reused across the "
           "sub-iterations.",
       .params = ladderParams(maps::Warptile::fromValues({128, 128, 16, 32, 64, 8, 4}),
                              kWarpDescriptions),
       .backends = both,
       .constraints = "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + tiles,
       .check = ladderCheck<maps::Warptile>()});

  list.push_back(
      {.id = "pipelined",
       .displayName = "Warp tiles, cp.async pipeline",
       .family = Family::Pipelined,
       .seed = "siboehm SGEMM worklog, kernel 11 (double buffering); CUTLASS's multistage "
               "cp.async GEMM",
       .teaching =
           "Warptile with `stages` shared buffers filled by cp.async, which copies global memory "
           "straight into shared memory without holding registers. While the block multiplies "
           "tile s, tiles s+1 .. s+stages-1 are already on their way, so memory latency hides "
           "behind arithmetic and one barrier per k-step suffices.",
       .params = ladderParams(maps::Pipelined::fromValues({128, 256, 32, 64, 64, 8, 4, 2}),
                              [] {
                                auto descriptions = kWarpDescriptions;
                                descriptions["stages"] =
                                    "shared buffers in flight: the cp.async pipeline depth";
                                return descriptions;
                              }()),
       .backends = both,
       .constraints = "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + tiles,
       .check = ladderCheck<maps::Pipelined>()});

  list.push_back(
      {.id = "prefetched",
       .displayName = "Warp tiles, register prefetch",
       .family = Family::Prefetched,
       .seed = "CUTLASS's SIMT GEMM (128 x 128 x 8, warp 32 x 64, two stages); Liu-xiandong's "
               "sgemm_v3 (fragments double-buffered in registers, 4 + 4 float4 shared reads); "
               "cuBLAS's SIMT tile (256 x 128 x 8, warp 64 x 64)",
       .teaching =
           "The warp grid with 4 x 4 lane pieces, so each inner index a thread reads its values "
           "of A and B as 128-bit shared loads. The next k-step's tiles travel from global "
           "memory into registers while the current one is multiplied and land in a second "
           "shared buffer: one barrier per k-step. The fragments of inner index kk + 1 are read "
           "while kk is multiplied. At 64 outputs a thread keeps to 128 registers, so two blocks "
           "(16 warps) share an SM to hide latency; at 128 outputs (cuBLAS's 256 x 128 tile) a "
           "thread takes up to 255 and one block of 8 warps has the SM, so the next tile's first "
           "fragments are read across the barrier, under the last multiply-adds.",
       .params = ladderParams(maps::Prefetched::fromValues({128, 128, 8, 32, 64, 4, 4}),
                              kWarpDescriptions),
       .backends = both,
       .constraints = "(BM/WM)*(BN/WN) = 4..8 warps; 4TM x 8TN divides WM x WN; " + tiles,
       .check = ladderCheck<maps::Prefetched>()});

  list.push_back(
      {.id = "tensor-mma",
       .displayName = "Tensor cores (mma.sync)",
       .family = Family::TensorCore,
       .seed = "CUTLASS's sm80 multistage tensor-op GEMM; the PTX ISA's mma.sync fragment layouts",
       .teaching =
           "The multiply-adds move from the FP32 cores to the tensor cores: one mma.sync "
           "instruction has a warp multiply a 16 x 16 fp16 (or bf16, or 16 x 8 tf32) fragment of A "
           "by one of B into a 16 x 8 FP32 accumulator, 4096 multiply-adds at once. The warp tiles "
           "are as in warptile, but a lane's outputs now follow the hardware's fragment layout "
           "(rows g and g+8, columns 2q and 2q+1, lane = 4g + q). ldmatrix loads the fragments "
           "from shared rows padded onto distinct banks, and cp.async stages keep the tiles "
           "coming.",
       .params = ladderParams(
           maps::TensorCore::fromValues({128, 128, 32, 64, 32, 4}),
           withBlock({{"WM", "rows of C per warp: WM/16 accumulator rows of 16"},
                      {"WN", "columns of C per warp: WN/8 accumulator columns of 8"},
                      {"stages", "shared buffers in flight: the cp.async pipeline depth"}})),
       .backends = {"cuda"},
       .constraints = "(BM/WM)*(BN/WN) = 4..8 warps; WM, WN multiples of 16; " + tiles,
       .check = ladderCheck<maps::TensorCore>(),
       .types = {ElementType::F16, ElementType::BF16, ElementType::TF32}});

  list.push_back(
      {.id = "tensor-wgmma",
       .displayName = "Tensor cores (Hopper wgmma)",
       .family = Family::Wgmma,
       .seed = "Hopper's warpgroup MMA (PTX wgmma.mma_async); CUTLASS's sm90 GEMM layouts",
       .teaching =
           "Hopper's tensor cores take whole warpgroups: four warps issue one wgmma.mma_async "
           "that multiplies a 64 x 16 piece of A by a 16 x 128 piece of B, both read straight "
           "from shared memory through descriptors, no ldmatrix. The tiles sit in the 128-byte "
           "swizzle the instruction expects (chunk c of row r at c XOR r mod 8), and the "
           "instruction runs asynchronously: the warps only wait for it before the stage is "
           "reused. Needs an sm_90 GPU (H100, H200).",
       .params = ladderParams(maps::Wgmma::fromValues({128, 256, 64, 4}),
                              withBlock({{"stages",
                                          "shared buffers in flight: the cp.async pipeline "
                                          "depth"}})),
       .backends = {"cuda"},
       .constraints = "BM multiple of 64 (one warpgroup each), BN of 128; BK = 64; " + tiles,
       .check = ladderCheck<maps::Wgmma>(),
       .types = {ElementType::F16, ElementType::BF16}});

  addTensorTma(list);
  addTensorPersistent(list);
  addTensorTf32(list);

  list.push_back(
      {.id = "library",
       .displayName = "Library reference (OpenBLAS / cuBLAS)",
       .family = Family::Library,
       .seed =
           "reference: OpenBLAS sgemm on the CPU; cuBLAS sgemm, or cublasGemmEx for tf32, fp16 and "
           "bf16, on the GPU",
       .teaching =
           "The vendor library: the yardstick every hand-written kernel is measured against. Its "
           "tiling is not visible, so it has no diagram.",
       .params = {},
       .backends = both,
       .hasMapping = false,
       // The tensor-core types run through cublasGemmEx (FP32 accumulation) on the GPU.
       .types = {ElementType::F32, ElementType::TF32, ElementType::F16, ElementType::BF16}});

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
              "unknown kernel " + quoteValue(id) + " (known kernels: " + knownIds() + ")");
}

namespace {
constexpr std::string_view kUserPrefix = "user:";
}  // namespace

std::string userKernelId(const std::string& name) {
  return std::string(kUserPrefix) + name;
}

bool isUserKernelId(const std::string& id) {
  return id.rfind(kUserPrefix, 0) == 0;
}

std::string userKernelName(const std::string& id) {
  return isUserKernelId(id) ? id.substr(kUserPrefix.size()) : id;
}

std::optional<std::string> userKernelNameProblem(const std::string& name) {
  constexpr std::size_t kLongest = 64;
  if (name.empty()) return "a kernel needs a name";
  if (name.size() > kLongest)
    return "the name " + quoteValue(name) + " is longer than " + std::to_string(kLongest) +
           " characters";
  const auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  if (!std::all_of(name.begin(), name.end(), allowed))
    return "the name " + quoteValue(name) +
           " may hold only letters, digits, '_', '-' and '.' (it names results and files)";
  return std::nullopt;
}

KernelInfo userKernelInfo(const std::string& name, const std::string& source) {
  if (auto why = userKernelNameProblem(name)) throw Error(ErrorKind::InvalidArgument, *why);
  std::vector<CompileDiagnostic> problems;
  std::vector<ParamSpec> params = declaredParams(source, &problems);
  std::vector<ElementType> types = declaredTypes(source, &problems);
  if (!problems.empty())
    throw Error(ErrorKind::InvalidArgument, name + ".cu line " +
                                                std::to_string(problems.front().line) + ": " +
                                                problems.front().message);
  return {.id = userKernelId(name),
          .displayName = name,
          .family = Family::User,
          .seed = "your own kernel (Kernel Editor)",
          .teaching =
              "Your kernel, compiled with NVRTC for the GPU that runs it, timed and "
              "verified like every catalogue kernel.",
          .params = std::move(params),
          .backends = {"cuda"},
          .hasMapping = false,
          .types = std::move(types)};
}

const KernelInfo& kernelInfo(const KernelConfig& config) {
  if (!config.source) return kernelInfo(config.kernel);
  if (!isUserKernelId(config.kernel))
    throw Error(ErrorKind::InvalidArgument,
                "kernel " + quoteValue(config.kernel) +
                    " carries source code, which only a user kernel (\"user:NAME\") does");
  // Made once per distinct source and kept, so the reference outlives the call like a
  // catalogue entry's; a session compiles a few dozen versions at most.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<const KernelInfo>> made;
  const std::lock_guard lock(mutex);
  auto& entry = made[{config.kernel, *config.source}];
  if (!entry)
    entry = std::make_unique<const KernelInfo>(
        userKernelInfo(userKernelName(config.kernel), *config.source));
  return *entry;
}

std::optional<std::string> refusal(const KernelConfig& config) {
  if (isUserKernelId(config.kernel) && !config.source)
    return quoteValue(config.kernel) +
           " is a kernel of the Kernel Editor, and the request does not carry its source";
  const KernelInfo* info = nullptr;
  if (config.source) {
    try {
      info = &kernelInfo(config);
    } catch (const Error& e) {
      return e.what();
    }
  } else {
    info = findKernel(config.kernel);
  }
  if (!info)
    return "unknown kernel " + quoteValue(config.kernel) + " (known kernels: " + knownIds() + ")";
  for (const auto& [name, value] : config.params) {
    const ParamSpec* spec = info->param(name);
    if (!spec) {
      if (info->params.empty()) return "kernel '" + info->id + "' takes no parameters";
      std::string names;
      for (const ParamSpec& p : info->params) names += (names.empty() ? "" : ", ") + p.name;
      return "kernel '" + info->id + "' has no parameter " + quoteValue(name) + " (it takes " +
             names + ")";
    }
    if (!std::binary_search(spec->allowed.begin(), spec->allowed.end(), value)) {
      return info->id + ": " + name + " = " + std::to_string(value) +
             " is refused: " + spec->refusal;
    }
  }
  if (info->check) {
    Params all = config.params;
    for (const ParamSpec& p : info->params) all.try_emplace(p.name, p.defaultValue);
    if (auto why = info->check(all))
      return info->id + ": " + formatParams({info->id, all}) + " is refused: " + *why;
  }
  return std::nullopt;
}

std::optional<std::string> elementRefusal(const KernelInfo& kernel, ElementType type) {
  if (std::find(kernel.types.begin(), kernel.types.end(), type) != kernel.types.end())
    return std::nullopt;
  std::string others;
  for (const KernelInfo& info : catalogue())
    if (std::find(info.types.begin(), info.types.end(), type) != info.types.end())
      others += (others.empty() ? "" : ", ") + info.id;
  std::string own;
  for (const ElementType t : kernel.types)
    own += (own.empty() ? "" : ", ") + std::string(toString(t));
  return "'" + kernel.id + "' multiplies " + own + " only; " + toString(type) +
         " is multiplied by " + (others.empty() ? "no kernel" : others);
}

std::string implementationOf(const std::string& backendId) {
  return backendId.substr(0, backendId.find('@'));
}

bool implements(const KernelInfo& kernel, const std::string& backendId) {
  const std::string id = implementationOf(backendId);
  return std::find(kernel.backends.begin(), kernel.backends.end(), id) != kernel.backends.end();
}

std::optional<std::string> workLimitRefusal(const KernelInfo& kernel, const std::string& backendId,
                                            const Shape& shape) {
  const auto bound = kernel.maxWork.find(implementationOf(backendId));
  const double work = double(shape.m) * double(shape.n) * double(shape.k);
  if (bound == kernel.maxWork.end() || bound->second <= 0 || work <= bound->second)
    return std::nullopt;
  return kernel.id + " is limited to M*N*K <= " + std::to_string(std::int64_t(bound->second)) +
         " on the " + backendId + " backend (this shape has " + std::to_string(std::int64_t(work)) +
         "): a launch cannot be interrupted, so a run this long must be asked for explicitly";
}

KernelConfig resolve(const KernelConfig& config) {
  if (auto reason = refusal(config)) throw Error(ErrorKind::InvalidArgument, *reason);
  KernelConfig resolved = config;
  for (const ParamSpec& p : kernelInfo(config).params)
    resolved.params.try_emplace(p.name, p.defaultValue);
  return resolved;
}

std::vector<KernelConfig> validConfigurations(const KernelInfo& info,
                                              const std::optional<std::string>& source) {
  std::vector<KernelConfig> configs;
  KernelConfig config{info.id, {}, source};
  // Depth first over the parameters in catalogue order: the last one varies fastest.
  std::function<void(std::size_t)> expand = [&](std::size_t p) {
    if (p == info.params.size()) {
      if (!refusal(config)) configs.push_back(config);
      return;
    }
    for (int value : info.params[p].allowed) {
      config.params[info.params[p].name] = value;
      expand(p + 1);
    }
  };
  expand(0);
  return configs;
}

Params parseParams(const std::string& text) {
  const auto refuse = [](const std::string& problem) {
    throw Error(ErrorKind::InvalidArgument,
                problem + ": expected NAME=VALUE,..., e.g. BM=128,TM=8");
  };
  Params params;
  if (text.empty()) return params;
  // Every item counts, empty ones included: "tile=8," is a mistake, not "tile=8".
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    begin = comma + 1;
    if (item.empty()) refuse("empty parameter in " + quoteValue(text));
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (eq == std::string::npos || name.empty()) refuse("malformed parameter " + quoteValue(item));
    const std::string valueText = item.substr(eq + 1);
    int value = 0;
    const auto [end, ec] =
        std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
    if (ec == std::errc::result_out_of_range) {
      throw Error(ErrorKind::InvalidArgument,
                  "parameter " + quoteValue(name) + " = " + quoteValue(valueText) +
                      " is out of range: a parameter is a whole number from -2147483648 to "
                      "2147483647");
    }
    if (ec != std::errc() || end != valueText.data() + valueText.size() || valueText.empty()) {
      throw Error(ErrorKind::InvalidArgument, "parameter " + quoteValue(name) + " = " +
                                                  quoteValue(valueText) + " is not a whole number");
    }
    if (!params.emplace(name, value).second) {
      throw Error(ErrorKind::InvalidArgument, "parameter " + quoteValue(name) + " is given twice");
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
  const KernelInfo* info = findKernel(config.kernel);
  if (config.source && !refusal(config)) info = &kernelInfo(config);
  if (info) {
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
