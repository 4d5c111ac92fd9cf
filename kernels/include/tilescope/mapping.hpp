// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Mapping of one kernel configuration on one shape: the launch, who computes each element of
// C, what is staged at each k-step and who loads it, and the addresses a warp touches. Built on
// the per-family formulas of thread_map.hpp (pure functions, no matrices allocated), or for a
// user kernel on what a traced launch recorded, so the views draw both through one interface.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tilescope/catalogue.hpp"
#include "tilescope/families.hpp"
#include "tilescope/problem.hpp"
#include "tilescope/thread_map.hpp"

namespace tilescope {

inline constexpr int kWarpSize = 32;

struct ThreadRef {
  Dim2 block, thread;
  int warp = 0, lane = 0;
};

// A half-open range [begin, begin + count); it may run past the matrix edge (the padding).
struct Range {
  std::int64_t begin = 0, count = 0;
  std::int64_t end() const { return begin + count; }
};

enum class Operand { A, B, C };
const char* toString(Access access);
Operand operandOf(Access access);

// The part of A or B a block uses during one k-step, and whether it is staged in shared memory
// (loaded once by the block's threads) or read by each thread straight from global memory.
struct StepRegion {
  Range rows, cols;  // unclipped: rows/cols past the matrix are the zero padding
  bool shared = false;
};

// One warp-wide memory instruction: per lane, the linear element index it touches in the operand
// (row * cols + col), or -1 for a lane that is idle (no thread, or its access is out of bounds).
// A vector instruction (a 16-byte float4) touches `width` consecutive elements from there.
struct WarpAccess {
  Operand operand = Operand::A;
  std::array<std::int64_t, kWarpSize> element{};
  int width = 1;
  int elementBytes = 4;  // of the operand: 2 for fp16 and bf16 A and B
  int activeLanes() const;
};

// One warp-wide shared-memory read: per lane the 4-byte word it reads inside the staged tile,
// or -1 for an idle lane. A vector read (a float4 when `width` is 4) takes `width` consecutive
// words from there; the hardware serves a 16-byte read a quarter-warp (8 lanes) at a time.
struct WarpSharedAccess {
  std::array<int, kWarpSize> word{};
  int width = 1;
};

// One thing the warps of a role do in the main loop (or before it), in program order: in the
// iteration that multiplies k-step s, `step` is s + stepOffset (before the loop, the k-step
// itself); `pending` is a wait's N (cp.async.wait_group N, wgmma.wait_group N).
enum class PipelineAction {
  WaitCopies,      // cp.async.wait_group: this thread's copies of k-step `step` have landed
  Barrier,         // __syncthreads: every thread's copies are visible, the old stage is free
  Copy,            // start the copies of k-step `step` into its stage (cp.async or TMA)
  LoadRegisters,   // load this thread's share of k-step `step` from global memory into registers
  StoreRegisters,  // store those registers into k-step `step`'s stage
  Multiply,        // multiply k-step `step`'s stage
  WaitMma,         // wgmma.wait_group: at most `pending` MMA batches still running
  WaitFull,        // mbarrier wait: k-step `step`'s stage is full
  WaitEmpty,       // mbarrier wait: k-step `step`'s stage has been freed by the consumers
  Release,         // mbarrier arrive: k-step `step`'s stage is free for the producer
};
struct PipelineStep {
  PipelineAction action;
  int stepOffset = 0;
  int pending = 0;
  bool isWait() const;
};
// Who runs a list of actions: every warp, or one side of a warp-specialised block.
enum class PipelineRole { EveryWarp, Producer, Consumer };
// The roles a pipeline has: every warp alone, or the producer and the consumers.
std::vector<PipelineRole> pipelineRoles(const Pipeline& pipeline);
// One iteration of the main loop of `role`, and what it does before the loop (with absolute
// k-steps, for a loop over `steps`) and after it.
std::vector<PipelineStep> pipelineLoop(const Pipeline& pipeline, PipelineRole role);
std::vector<PipelineStep> pipelinePrologue(const Pipeline& pipeline, PipelineRole role,
                                           std::int64_t steps);
std::vector<PipelineStep> pipelineEpilogue(const Pipeline& pipeline, PipelineRole role);

struct KernelTrace;
struct TracedTables;  // core/traced_tables.hpp: a trace indexed for the Mapping's questions

namespace maps {
// A user kernel's map as a traced launch recorded it (Mapping(const KernelTrace&)): the formulas'
// questions answered from tables, on the host. A thread's slot r is the r-th distinct row it
// stored (c: column), past the matrix where it has fewer; an element no thread stored has block
// and thread (-1, -1).
struct Traced {
  std::shared_ptr<const TracedTables> tables;
  Dim2 block() const;
  Dim2 grid(std::int64_t m, std::int64_t n) const;
  std::int64_t rowsPerThread(std::int64_t m) const;
  std::int64_t colsPerThread(std::int64_t n) const;
  std::int64_t row(Dim2 b, Dim2 t, std::int64_t r) const;
  std::int64_t col(Dim2 b, Dim2 t, std::int64_t c) const;
  OwnerSlot owner(std::int64_t i, std::int64_t j) const;
  int kDepth() const;
};
}  // namespace maps

// The formulas of every registered family that has a mapping (families.hpp, generated from
// kernels/families/families.cmake), and the tables of a traced user kernel.
using ThreadMap = FamilyMapVariant<maps::Traced>;

// The map of a resolved configuration on operands of `element`; throws Error(Unsupported) for
// the library reference.
ThreadMap threadMapOf(const ResolvedKernel& kernel, ElementType element = ElementType::F32);
// The map's Pipeline (thread_map.hpp); nullopt for the families that describe none (the seed
// kernels, which stage nothing or one tile at a time).
std::optional<Pipeline> pipelineOf(const ThreadMap& map);

class Mapping {
 public:
  // Throws Error(InvalidArgument) for a refused configuration, shape or element type, and
  // Error(Unsupported) for a kernel whose mapping is not known (the library reference). Without
  // an element type the kernel's first (default) type is used. `residentBlocks` is how many
  // blocks of the kernel the GPU holds at once, which places a persistent kernel's tiles (0: its
  // map's default, one per SM of an H100 or H200); the other kernels ignore it.
  Mapping(const KernelConfig& config, const Shape& shape,
          std::optional<ElementType> element = std::nullopt, int residentBlocks = 0);
  // The same for a configuration already resolved: nothing is checked twice.
  Mapping(const ResolvedKernel& kernel, const Shape& shape,
          std::optional<ElementType> element = std::nullopt, int residentBlocks = 0);
  // A user kernel as the GPU ran it: owners from the trace, the traced block's loads as its
  // global accesses (a warp's instruction n is the n-th load of each lane in the k-step), and
  // the words of its staged tiles it read and wrote through ts::readShared and ts::writeShared
  // (no staged regions: the trace does not see which loads went into the tiles). Other blocks
  // have owners but no accesses.
  // Throws Error(InvalidArgument) naming what is inconsistent in a trace (one read from a file).
  explicit Mapping(const KernelTrace& trace);

  // The trace this Mapping was built from; null for a catalogue kernel's formulas.
  const KernelTrace* trace() const;

  const KernelConfig& config() const { return config_; }
  const Shape& shape() const { return shape_; }
  ElementType element() const { return element_; }

  // Launch shape. grid() lists the blocks every view draws: one tile of C each. CUDA launches
  // launchGrid(), the same but in tensor-persistent, whose launched blocks (one per SM at most)
  // each compute several tiles in turn, in clusters of cluster() blocks (1 x 1: no cluster).
  Dim2 grid() const { return grid_; }
  Dim2 launchGrid() const { return launchGrid_; }
  Dim2 cluster() const { return cluster_; }
  bool persistent() const;
  // The blocks one copy of an `operand` tile serves: tensor-persistent's cluster() blocks, which
  // take tiles stacked along M, share B's tile and multicast it (when TMA copies both operands);
  // 1 where each block fetches its own.
  int multicastBlocks(Operand operand) const;
  // The blocks whose copies of `operand` cross L2: one per multicast cluster, whose tile is
  // fetched once and written into every block's shared memory (a cluster whose partner lies past
  // M fetches for its one block); blockCount() where nothing is multicast.
  std::int64_t fetchingBlocks(Operand operand) const;
  // The tile order: the launched block (its linear index) that computes `block`, and in which of
  // its rounds (0 but in a persistent kernel); blockAt() is the inverse, nullopt where launched
  // block `launched` computes no tile of C in `round`. rounds(): the most any launched block runs.
  std::int64_t launchedBlockOf(Dim2 block) const;
  std::int64_t roundOf(Dim2 block) const;
  std::optional<Dim2> blockAt(std::int64_t launched, std::int64_t round) const;
  std::int64_t rounds() const;
  Dim2 block() const { return block_; }
  std::int64_t blockCount() const { return std::int64_t(grid_.x) * grid_.y; }
  int threadsPerBlock() const { return block_.x * block_.y; }
  int warpsPerBlock() const { return (threadsPerBlock() + kWarpSize - 1) / kWarpSize; }
  std::int64_t rowsPerThread() const { return rowsPerThread_; }
  std::int64_t colsPerThread() const { return colsPerThread_; }
  // Shared memory a block declares, in bytes (the staged tiles, every pipeline stage).
  std::int64_t sharedBytesPerBlock() const;
  // The family's formulas with this configuration's parameters.
  const ThreadMap& threadMap() const { return map_; }
  // How the staged k-steps overlap (thread_map.hpp's Pipeline); nullopt for the kernels that
  // stage nothing, or not both operands.
  std::optional<Pipeline> pipeline() const;

  // Ownership.
  ThreadRef owner(std::int64_t i, std::int64_t j) const;
  ThreadRef threadRef(Dim2 block, Dim2 thread) const;
  Dim2 threadOfLinear(int linear) const { return {linear % block_.x, linear / block_.x}; }
  // The threads from this linear index on own outputs (0 but in tensor-tma, whose producer
  // warpgroup owns none); the others compute nothing.
  int firstOutputThread() const;
  // Whether B is stored K-major (FP8 kernels): element (k, n) at n K + k, copied along k.
  bool copiesBAlongK() const;
  // Where element `cell` of A, B or C lies in memory, in elements from the operand's start, and
  // the cell at an index: row-major, but a K-major B holds (k, n) at n K + k.
  std::int64_t elementIndex(Operand operand, Cell cell) const;
  Cell elementCell(Operand operand, std::int64_t index) const;
  // The in-bounds elements of C thread `thread` of `block` computes, in slot order.
  std::vector<Cell> outputs(Dim2 block, Dim2 thread) const;
  // The (unclipped) rows and columns of C a block covers.
  Range blockRows(Dim2 block) const;
  Range blockCols(Dim2 block) const;

  // K steps.
  int kDepth() const { return kDepth_; }
  std::int64_t kSteps() const { return ceilDiv(shape_.k, kDepth_); }
  Range kRange(std::int64_t step) const;  // unclipped; the last step may run past K
  StepRegion regionA(Dim2 block, std::int64_t step) const;
  StepRegion regionB(Dim2 block, std::int64_t step) const;
  // The thread that loads A[row][k] (or B[k][col]) into shared memory during `step` in `block`;
  // nullopt when that operand is not staged or the element is outside the block's region.
  std::optional<Dim2> loaderOfA(Dim2 block, std::int64_t step, std::int64_t row,
                                std::int64_t k) const;
  std::optional<Dim2> loaderOfB(Dim2 block, std::int64_t step, std::int64_t k,
                                std::int64_t col) const;
  // The elements of A (or B) a thread stages during `step`, every copy and every element of a
  // vector copy, unclipped (padding included); empty when the operand is not staged.
  std::vector<Cell> stagedBy(Operand operand, Dim2 block, Dim2 thread, std::int64_t step) const;
  // How many threads stage A (or B): the block's first ones, all of them but in tensor-tma (its
  // producer warpgroup); 0 when the operand is not staged. The others stage nothing.
  int stagingThreads(Operand operand) const;

  // Global-memory instructions: how many of `access` one thread issues per k-step (per whole run
  // for StoreC), and the elements one warp touches in instruction `instr` of `step`.
  std::int64_t instructionsPerStep(Access access) const;
  WarpAccess warpAccess(Dim2 block, int warp, Access access, std::int64_t step,
                        std::int64_t instr) const;
  // Shared-memory reads in the inner product: inner index kk of a step, for a staged operand;
  // `pad` widens each tile row by that many words (0 is the catalogue kernels' layout).
  std::optional<WarpSharedAccess> warpSharedRead(Operand operand, int warp, int kk,
                                                 int pad = 0) const;
  // A thread reads several values of an operand per inner index when it owns a register tile:
  // read `slot` of sharedReadSlots(operand) (0 is the one above). 0 slots: not staged. The
  // formulas' reads are the same at every k-step; a traced kernel's are those recorded in
  // `step` (its words from where that k-step's tile starts; `pad` is the formulas' alone).
  int sharedReadSlots(Operand operand) const;
  // The inner indices one pass of those reads covers: 1, or where the tile is read as tensor-core
  // fragments one mma's k (16 of fp16 or bf16, 8 of tf32), read at its first inner index alone.
  int readsEveryK(Operand operand) const;
  // The tensor-core instruction those fragment reads feed, as PTX names its shape ("m16n8k16",
  // tensor-tf32's wgmma "m64n256k8"): the map's own (its mmaShape()), else mma.sync's, k being
  // the reads' spacing; empty where no lane reads fragments (readsEveryK 1).
  std::string mmaShape() const;
  std::optional<WarpSharedAccess> warpSharedRead(Operand operand, int warp, int kk, int pad,
                                                 int slot, std::int64_t step = 0) const;
  // Shared-memory writes that stage a k-step's tile: how many each thread makes, and the words
  // one warp writes in write `slot`. Known for the seed kernels (one element each), the SIMT
  // ladder (a store per copy, or per element where A lands transposed or cp.async cannot copy
  // 16 bytes), tensor-mma and tensor-wgmma (a 16-byte cp.async per copy, or a store per element
  // where rows are not 16-byte aligned) and traced kernels; 0 slots where TMA fills the stages.
  int sharedWriteSlots(Operand operand) const;
  std::optional<WarpSharedAccess> warpSharedWrite(Operand operand, int warp, int slot, int pad = 0,
                                                  std::int64_t step = 0) const;
  // Whether a catalogue kernel stages tiles of `operand` in shared memory (false for a traced
  // kernel: sharedReadSlots and sharedWriteSlots say what its accessors touched).
  bool staged(Operand operand) const;

 private:
  std::optional<Cell> threadAccess(Dim2 block, Dim2 thread, Access access, std::int64_t step,
                                   std::int64_t instr) const;
  int accessWidth(Access access) const;
  Extent extent() const { return {shape_.m, shape_.n, shape_.k}; }

  KernelConfig config_;
  Shape shape_;
  ElementType element_;
  ThreadMap map_;
  Dim2 grid_, block_, launchGrid_, cluster_;
  std::int64_t rowsPerThread_ = 1, colsPerThread_ = 1;
  int kDepth_ = 1;
};

}  // namespace tilescope
