// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the diagram views draw, computed from tilescope::Mapping alone and without Qt, so tests
// can compare it with the Mapping and the views only turn it into shapes.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/mapping.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope::ui {

// A thread block's tile of C, unclipped: an edge tile reaches into the padding past M or N.
struct BlockTile {
  Dim2 block;
  Range rows, cols;
};

// The block row ranges and column ranges that meet a window of C, in order. `complete` is false
// when there were more than the limit (the view then draws no tile lines at that zoom).
struct TileBands {
  std::vector<Range> rows, cols;
  bool complete = true;
};

TileBands tileBands(const Mapping& mapping, Range rows, Range cols, std::int64_t maxRowBands,
                    std::int64_t maxColBands);
// The tile of each (row band, column band) pair, row-major: the block that owns the band's first
// element, with that block's own extent.
std::vector<BlockTile> blockTiles(const Mapping& mapping, const TileBands& bands);
// The block owning C[i][j], for clicks; i and j must lie inside C.
Dim2 blockAt(const Mapping& mapping, std::int64_t i, std::int64_t j);
// The values of k that k-step `step` sums: the Mapping's kRange without the padding past K that
// the last step's tile reaches into. Every view that names a step's k range uses this.
Range kStepValues(const Mapping& mapping, std::int64_t step);
// "k-step 2 of 3": how every view and control names a step. Zero-based, as blocks, warps, lanes
// and the kernels' own loop count them.
std::string kStepText(const Mapping& mapping, std::int64_t step);

// A rectangle of elements (of C, or of a staged tile).
struct CellBox {
  Range rows, cols;
};

// The in-bounds outputs of one thread, in slot order, and the rectangles they come in.
struct ThreadOutputs {
  ThreadRef thread;
  std::vector<Cell> cells;
  std::vector<CellBox> pieces;  // outputPieces(): unclipped, may reach into the padding
};

// A thread's output slots form a grid, rows (one per slot r) times columns (one per slot c);
// runs of consecutive rows times runs of consecutive columns are the rectangles it owns: its
// whole register tile, or the TM x TN piece of each warp sub-iteration (warptile), or single
// elements where it strides (row-per-thread). Unclipped, in slot order; none for a thread that
// computes no outputs (tensor-tma's producer warpgroup).
std::vector<CellBox> outputPieces(const Mapping& mapping, Dim2 block, Dim2 thread);

// Every thread of the block with its outputs, from Mapping::outputs; nullopt when the block
// would hold more than `maxCells` outputs (the view then samples owners instead).
std::optional<std::vector<ThreadOutputs>> blockOutputs(const Mapping& mapping, Dim2 block,
                                                       std::int64_t maxCells);

// What one warp of a block covers: the box of all its lanes' pieces when they fill it (a warp
// tile), and, where each lane owns several pieces, the box that piece p of every lane fills
// (the warp's sub-iteration p: warptile's 4TM x 8TN lane grid repeated over its WM x WN tile).
struct WarpTile {
  int warp = 0;
  std::optional<CellBox> box;
  std::vector<CellBox> subTiles;  // empty unless every sub-iteration is a full rectangle
};
std::vector<WarpTile> warpTiles(const std::vector<ThreadOutputs>& threads);

// A width x height grid of samples over rows x cols of C, row-major: the owner of the element at
// each sample's centre, or nullopt in the padding. Draws huge blocks at screen resolution.
std::vector<std::optional<ThreadRef>> ownerSamples(const Mapping& mapping, Range rows, Range cols,
                                                   int width, int height);

// An element of A or B staged in shared memory during one k-step, the thread that loads it and
// with which of its load instructions of the step (a float4 copy loads four elements at once).
struct StagedElement {
  Cell cell;  // unclipped: past the matrix it is a zero of the padding
  std::optional<ThreadRef> loader;
  int instr = 0;
  bool padding = false;  // outside the matrix: the loader stores a zero
};
// Row-major over the step's region, from Mapping::stagedBy; empty when the operand is not staged.
std::vector<StagedElement> stagedElements(const Mapping& mapping, Dim2 block, std::int64_t step,
                                          Operand operand);

// The one element at `cell` of the step's region, as stagedElements() has it; nullopt where the
// operand is not staged or the cell lies outside the region.
std::optional<StagedElement> stagedElementAt(const Mapping& mapping, Dim2 block, std::int64_t step,
                                             Operand operand, Cell cell);

// "loaded by thread 37, warp 1, lane 5 with its load instruction 2 of 4: a float4 of A[3][4..7]"
std::string loaderText(const Mapping& mapping, Dim2 block, std::int64_t step, Operand operand,
                       const StagedElement& element);

// What one lane moves in a vector access of `width` elements of `elementBytes` each: "float4",
// "float2", or "16-byte vector" for 16-bit elements (8 of them).
std::string vectorName(int width, int elementBytes);

// How a staged tile sits in shared memory (for captions): A may be stored transposed (k-major,
// so a thread's A values are consecutive words) and each row widened by a few words of padding
// (the tensor cores' rows by 16 or 32 bytes, so the fragment reads meet distinct banks).
struct StagedLayout {
  bool transposed = false;
  int pad = 0;
};
StagedLayout stagedLayout(const Mapping& mapping, Operand operand);
// Shared buffers a block cycles through: 1, or the stages of a pipeline in flight.
int pipelineStages(const Mapping& mapping);
// How a pipeline's stages are filled and multiplied, as the kernels' code names it: "cp.async",
// "registers", "TMA"; "FMA", "mma.sync", "wgmma".
const char* stageFillName(StageFill fill);
const char* stageProductName(StageProduct product);

// The inner indices at which the warps read the staged tiles are the multiples of this: 1 for
// the SIMT kernels, which read at every one; for the tensor cores the depth of one mma.sync
// (16 fp16 or bf16 values of k, 8 tf32), whose fragments are read once, at its first index
// (Mapping::readsEveryK, a traced kernel's as it read them).
int sharedReadStride(const Mapping& mapping);
// The tensor cores' 16-bit fragments come through ldmatrix: each lane names one 16-byte row of
// an 8 x 8 matrix. (tf32 fragments are plain 4-byte reads.)
bool readsWithLdmatrix(const Mapping& mapping);
// For the tensor cores, the shape of the instruction their fragments feed, "m16n8k16" (k8 for
// tf32; Mapping::mmaShape); empty for the others.
std::string mmaShape(const Mapping& mapping);

// One lane of a warp-wide global access laid out over memory, at its first element.
struct LaneAddress {
  int lane = 0;
  std::optional<Cell> cell;  // nullopt: the lane is idle
  std::int64_t byte = 0, sector = 0, line = 0;
};
struct AccessPicture {
  Operand operand = Operand::A;
  std::int64_t operandCols = 1;
  // B stored K-major (FP8): a memory row holds one column of B (Mapping::elementCell).
  bool kMajor = false;
  Cell cellOf(std::int64_t element) const {
    const std::int64_t rowLength = kMajor ? operandRows : operandCols;
    return kMajor ? Cell{element % rowLength, element / rowLength}
                  : Cell{element / rowLength, element % rowLength};
  }
  std::int64_t operandRows = 1;
  int width = 1;                    // elements each lane touches from its address (4: a float4)
  int elementBytes = 4;             // of each of them: 2 for fp16 and bf16 A and B
  std::vector<LaneAddress> lanes;   // 32, in lane order
  std::vector<std::int64_t> lines;  // distinct lines touched, ascending
  RequestTraffic traffic;
};
AccessPicture accessPicture(const Mapping& mapping, Dim2 block, int warp, Access access,
                            std::int64_t step, std::int64_t instr);

// The most shared-memory reads (per inner index) or writes (per k-step) a thread makes of
// either staged tile: what the bank strip's slot box counts.
int mostSharedReads(const Mapping& mapping);
int mostSharedWrites(const Mapping& mapping);

// One warp-wide shared-memory access over the 32 banks: read `slot` of the thread's
// Mapping::sharedReadSlots at inner index kk, or with `write` its write `slot` staging the tile
// (Mapping::sharedWriteSlots). `step` matters to a traced kernel alone.
struct BankPicture {
  std::array<int, kWarpSize> word{};  // per lane its first word, -1 when idle
  int width = 1;                      // words each lane reads from there
  BankTraffic traffic;
};
std::optional<BankPicture> bankPicture(const Mapping& mapping, Operand operand, int warp, int kk,
                                       int pad, int slot = 0, std::int64_t step = 0,
                                       bool write = false);

// A 1-D block of several threads (the ladder's): a thread is just threadIdx.x.
bool oneDimensionalBlock(const Mapping& mapping);
// "thread (tx,ty)" for a 2-D block, "thread t" for a 1-D one.
std::string threadName(const Mapping& mapping, Dim2 thread);
// "C[i][j]: block (bx,by), thread (tx,ty), warp w, lane l; k-steps 0..s"
std::string ownerText(const Mapping& mapping, std::int64_t i, std::int64_t j);
const char* operandName(Operand operand);
std::int64_t operandRows(const Shape& shape, Operand operand);
std::int64_t operandCols(const Shape& shape, Operand operand);

}  // namespace tilescope::ui
