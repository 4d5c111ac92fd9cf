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

// The in-bounds outputs of one thread, in slot order.
struct ThreadOutputs {
  ThreadRef thread;
  std::vector<Cell> cells;
};

// Every thread of the block with its outputs, from Mapping::outputs; nullopt when the block
// would hold more than `maxCells` outputs (the view then samples owners instead).
std::optional<std::vector<ThreadOutputs>> blockOutputs(const Mapping& mapping, Dim2 block,
                                                       std::int64_t maxCells);

// The bounding box of cells that fill it completely (a register tile or a single element), for
// outlining a thread's outputs; nullopt when they are scattered or there are none.
struct CellBox {
  Range rows, cols;
};
std::optional<CellBox> solidBox(const std::vector<Cell>& cells);

// A width x height grid of samples over rows x cols of C, row-major: the owner of the element at
// each sample's centre, or nullopt in the padding. Draws huge blocks at screen resolution.
std::vector<std::optional<ThreadRef>> ownerSamples(const Mapping& mapping, Range rows, Range cols,
                                                   int width, int height);

// An element of A or B staged in shared memory during one k-step and the thread that loads it.
struct StagedElement {
  Cell cell;  // unclipped: past the matrix it is a zero of the padding
  std::optional<ThreadRef> loader;
  bool padding = false;  // outside the matrix: the loader stores a zero
};
// Row-major over the step's region; empty when the operand is not staged.
std::vector<StagedElement> stagedElements(const Mapping& mapping, Dim2 block, std::int64_t step,
                                          Operand operand);

// One lane of a warp-wide global access laid out over memory.
struct LaneAddress {
  int lane = 0;
  std::optional<Cell> cell;  // nullopt: the lane is idle
  std::int64_t byte = 0, sector = 0, line = 0;
};
struct AccessPicture {
  Operand operand = Operand::A;
  std::int64_t operandCols = 1;
  std::vector<LaneAddress> lanes;   // 32, in lane order
  std::vector<std::int64_t> lines;  // distinct lines touched, ascending
  RequestTraffic traffic;
};
AccessPicture accessPicture(const Mapping& mapping, Dim2 block, int warp, Access access,
                            std::int64_t step, std::int64_t instr);

// One warp-wide shared-memory read over the 32 banks.
struct BankPicture {
  std::array<int, kWarpSize> word{};  // per lane, -1 when idle
  BankTraffic traffic;
};
std::optional<BankPicture> bankPicture(const Mapping& mapping, Operand operand, int warp, int kk,
                                       int pad);

// "C[i][j]: block (bx,by), thread (tx,ty), warp w, lane l; k-steps 0..s"
std::string ownerText(const Mapping& mapping, std::int64_t i, std::int64_t j);
const char* operandName(Operand operand);
std::int64_t operandRows(const Shape& shape, Operand operand);
std::int64_t operandCols(const Shape& shape, Operand operand);

}  // namespace tilescope::ui
