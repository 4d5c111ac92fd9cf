// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagram_model.hpp"
#include "tilescope/families.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <variant>

namespace tilescope::ui {

namespace {

std::int64_t clampInto(std::int64_t value, std::int64_t size) {
  return std::clamp<std::int64_t>(value, 0, size - 1);
}

// Walks the window from its first element to its end, one band at a time; `bandAt` gives the
// band holding a coordinate that lies inside the matrix.
template <typename BandAt>
bool collectBands(Range window, std::int64_t size, std::int64_t maxBands, BandAt bandAt,
                  std::vector<Range>& bands) {
  std::int64_t at = clampInto(window.begin, size);
  while (at < window.end() && at < size) {
    if (std::int64_t(bands.size()) >= maxBands) return false;
    const Range band = bandAt(at);
    bands.push_back(band);
    at = std::max(band.end(), at + 1);
  }
  return true;
}

}  // namespace

TileBands tileBands(const Mapping& mapping, Range rows, Range cols, std::int64_t maxRowBands,
                    std::int64_t maxColBands) {
  const Shape& shape = mapping.shape();
  const std::int64_t anchorRow = clampInto(rows.begin, shape.m);
  const std::int64_t anchorCol = clampInto(cols.begin, shape.n);
  TileBands bands;
  bands.complete =
      collectBands(
          rows, shape.m, maxRowBands,
          [&](std::int64_t i) { return mapping.blockRows(blockAt(mapping, i, anchorCol)); },
          bands.rows) &&
      collectBands(
          cols, shape.n, maxColBands,
          [&](std::int64_t j) { return mapping.blockCols(blockAt(mapping, anchorRow, j)); },
          bands.cols);
  return bands;
}

std::vector<BlockTile> blockTiles(const Mapping& mapping, const TileBands& bands) {
  std::vector<BlockTile> tiles;
  tiles.reserve(bands.rows.size() * bands.cols.size());
  for (const Range& rowBand : bands.rows) {
    for (const Range& colBand : bands.cols) {
      const Dim2 block = blockAt(mapping, rowBand.begin, colBand.begin);
      tiles.push_back({block, mapping.blockRows(block), mapping.blockCols(block)});
    }
  }
  return tiles;
}

Dim2 blockAt(const Mapping& mapping, std::int64_t i, std::int64_t j) {
  return mapping.owner(i, j).block;
}

std::vector<CellBox> outputPieces(const Mapping& mapping, Dim2 block, Dim2 thread) {
  if (thread.x + thread.y * mapping.block().x < mapping.firstOutputThread()) return {};
  // Consecutive coordinates of slots 0, 1, 2, ... (row(r) or col(c)) grouped into runs.
  auto runs = [](std::int64_t count, auto coordinate) {
    std::vector<Range> result;
    for (std::int64_t slot = 0; slot < count; ++slot) {
      const std::int64_t at = coordinate(slot);
      if (!result.empty() && result.back().end() == at)
        ++result.back().count;
      else
        result.push_back({at, 1});
    }
    return result;
  };
  return std::visit(
      [&](const auto& map) {
        const std::vector<Range> rows = runs(
            mapping.rowsPerThread(), [&](std::int64_t r) { return map.row(block, thread, r); });
        const std::vector<Range> cols = runs(
            mapping.colsPerThread(), [&](std::int64_t c) { return map.col(block, thread, c); });
        std::vector<CellBox> pieces;
        pieces.reserve(rows.size() * cols.size());
        for (const Range& rowRun : rows)
          for (const Range& colRun : cols) pieces.push_back({rowRun, colRun});
        return pieces;
      },
      mapping.threadMap());
}

std::optional<std::vector<ThreadOutputs>> blockOutputs(const Mapping& mapping, Dim2 block,
                                                       std::int64_t maxCells) {
  const double cells = double(mapping.threadsPerBlock()) * double(mapping.rowsPerThread()) *
                       double(mapping.colsPerThread());
  if (cells > double(maxCells)) return std::nullopt;
  std::vector<ThreadOutputs> threads;
  threads.reserve(std::size_t(mapping.threadsPerBlock()));
  for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
    const Dim2 thread = mapping.threadOfLinear(linear);
    threads.push_back({mapping.threadRef(block, thread), mapping.outputs(block, thread),
                       outputPieces(mapping, block, thread)});
  }
  return threads;
}

namespace {

// Which of a thread's `instructions` load instructions of a step loads element n of the
// `staged` elements Mapping::stagedBy lists for it (in the order the instructions load them: a
// float4 copy is four elements in a row, a scalar copy one).
int instructionOf(std::size_t n, std::size_t staged, std::int64_t instructions) {
  return int(std::int64_t(n) * instructions / std::int64_t(staged));
}

Access loadOf(Operand operand) {
  return operand == Operand::A ? Access::LoadA : Access::LoadB;
}

// The bounding box of disjoint boxes, when they fill it exactly.
std::optional<CellBox> filledBox(const std::vector<CellBox>& boxes) {
  if (boxes.empty()) return std::nullopt;
  std::int64_t top = boxes.front().rows.begin, bottom = boxes.front().rows.end();
  std::int64_t left = boxes.front().cols.begin, right = boxes.front().cols.end();
  std::int64_t area = 0;
  for (const CellBox& box : boxes) {
    top = std::min(top, box.rows.begin);
    bottom = std::max(bottom, box.rows.end());
    left = std::min(left, box.cols.begin);
    right = std::max(right, box.cols.end());
    area += box.rows.count * box.cols.count;
  }
  if (area != (bottom - top) * (right - left)) return std::nullopt;
  return CellBox{{top, bottom - top}, {left, right - left}};
}

}  // namespace

std::vector<WarpTile> warpTiles(const std::vector<ThreadOutputs>& threads) {
  std::vector<WarpTile> tiles;
  for (std::size_t first = 0; first < threads.size();) {
    const int warp = threads[first].thread.warp;
    std::size_t end = first;
    while (end < threads.size() && threads[end].thread.warp == warp) ++end;
    std::vector<CellBox> all;
    for (std::size_t t = first; t < end; ++t)
      all.insert(all.end(), threads[t].pieces.begin(), threads[t].pieces.end());
    WarpTile tile{warp, filledBox(all), {}};
    // Sub-iterations: piece p of every lane, where each lane has the same several pieces.
    const std::size_t perLane = threads[first].pieces.size();
    const bool alike =
        std::all_of(threads.begin() + std::ptrdiff_t(first), threads.begin() + std::ptrdiff_t(end),
                    [&](const ThreadOutputs& t) { return t.pieces.size() == perLane; });
    if (tile.box && alike && perLane > 1) {
      for (std::size_t p = 0; p < perLane; ++p) {
        std::vector<CellBox> lanes;
        for (std::size_t t = first; t < end; ++t) lanes.push_back(threads[t].pieces[p]);
        const std::optional<CellBox> sub = filledBox(lanes);
        if (!sub) {
          tile.subTiles.clear();
          break;
        }
        tile.subTiles.push_back(*sub);
      }
    }
    tiles.push_back(std::move(tile));
    first = end;
  }
  return tiles;
}

std::vector<std::optional<ThreadRef>> ownerSamples(const Mapping& mapping, Range rows, Range cols,
                                                   int width, int height) {
  const Shape& shape = mapping.shape();
  std::vector<std::optional<ThreadRef>> samples;
  samples.reserve(std::size_t(width) * std::size_t(height));
  for (int y = 0; y < height; ++y) {
    const auto i = rows.begin + std::int64_t((y + 0.5) * double(rows.count) / height);
    for (int x = 0; x < width; ++x) {
      const auto j = cols.begin + std::int64_t((x + 0.5) * double(cols.count) / width);
      const bool inside = i >= 0 && i < shape.m && j >= 0 && j < shape.n;
      samples.push_back(inside ? std::optional(mapping.owner(i, j)) : std::nullopt);
    }
  }
  return samples;
}

std::vector<StagedElement> stagedElements(const Mapping& mapping, Dim2 block, std::int64_t step,
                                          Operand operand) {
  const StepRegion region =
      operand == Operand::A ? mapping.regionA(block, step) : mapping.regionB(block, step);
  if (!region.shared) return {};
  const Shape& shape = mapping.shape();
  std::vector<StagedElement> elements;
  elements.reserve(std::size_t(region.rows.count * region.cols.count));
  for (std::int64_t r = region.rows.begin; r < region.rows.end(); ++r) {
    for (std::int64_t c = region.cols.begin; c < region.cols.end(); ++c) {
      const bool padding = r >= operandRows(shape, operand) || c >= operandCols(shape, operand);
      elements.push_back({{r, c}, std::nullopt, 0, padding});
    }
  }
  const std::int64_t instructions = mapping.instructionsPerStep(loadOf(operand));
  for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
    const Dim2 thread = mapping.threadOfLinear(linear);
    const std::vector<Cell> cells = mapping.stagedBy(operand, block, thread, step);
    for (std::size_t n = 0; n < cells.size(); ++n) {
      const Cell& cell = cells[n];
      StagedElement& element = elements[std::size_t(
          (cell.row - region.rows.begin) * region.cols.count + cell.col - region.cols.begin)];
      element.loader = mapping.threadRef(block, thread);
      element.instr = instructionOf(n, cells.size(), instructions);
    }
  }
  return elements;
}

std::optional<StagedElement> stagedElementAt(const Mapping& mapping, Dim2 block, std::int64_t step,
                                             Operand operand, Cell cell) {
  const std::optional<Dim2> loader = operand == Operand::A
                                         ? mapping.loaderOfA(block, step, cell.row, cell.col)
                                         : mapping.loaderOfB(block, step, cell.row, cell.col);
  if (!loader) return std::nullopt;
  const std::vector<Cell> cells = mapping.stagedBy(operand, block, *loader, step);
  const auto at = std::ranges::find_if(
      cells, [&](const Cell& c) { return c.row == cell.row && c.col == cell.col; });
  const Shape& shape = mapping.shape();
  return StagedElement{
      cell, mapping.threadRef(block, *loader),
      instructionOf(std::size_t(at - cells.begin()), cells.size(),
                    mapping.instructionsPerStep(loadOf(operand))),
      cell.row >= operandRows(shape, operand) || cell.col >= operandCols(shape, operand)};
}

std::string loaderText(const Mapping& mapping, Dim2 block, std::int64_t step, Operand operand,
                       const StagedElement& element) {
  if (!element.loader) return "no thread loads it";
  const ThreadRef& t = *element.loader;
  std::string text = "loaded by " + threadName(mapping, t.thread) + ", warp " +
                     std::to_string(t.warp) + ", lane " + std::to_string(t.lane);
  const std::int64_t loads = mapping.instructionsPerStep(loadOf(operand));
  if (loads > 1)
    text += " with its load instruction " + std::to_string(element.instr) + " of " +
            std::to_string(loads);
  if (element.padding) return text + " (a zero: padding)";
  // The lane's part of that warp-wide instruction.
  const WarpAccess access = mapping.warpAccess(block, t.warp, loadOf(operand), step, element.instr);
  const std::int64_t first = access.element[std::size_t(t.lane)];
  if (access.width == 1 || first < 0) return text;
  // The vector runs along a row of the operand, or down a column of a K-major B.
  const Cell from = mapping.elementCell(operand, first);
  const auto span = [&](std::int64_t start) {
    return std::to_string(start) + ".." + std::to_string(start + access.width - 1);
  };
  const bool down = operand == Operand::B && mapping.copiesBAlongK();
  return text + ": a " + vectorName(access.width, access.elementBytes) + " of " +
         operandName(operand) + "[" + (down ? span(from.row) : std::to_string(from.row)) + "][" +
         (down ? std::to_string(from.col) : span(from.col)) + "]";
}

std::string vectorName(int width, int elementBytes) {
  if (elementBytes == 4 && width == 4) return "float4";
  if (elementBytes == 4 && width == 2) return "float2";
  return std::to_string(width * elementBytes) + "-byte vector";
}

StagedLayout stagedLayout(const Mapping& mapping, Operand operand) {
  return std::visit(
      [&](const auto& map) {
        using Map = std::decay_t<decltype(map)>;
        if constexpr (requires { map.rowPadWords(true); }) {
          // Rows laid out in bytes: the padding is what a row holds beyond its elements.
          return StagedLayout{false, map.rowPadWords(operand == Operand::A)};
        } else if constexpr (requires { Map::kATransposed; }) {
          if (operand == Operand::A) return StagedLayout{Map::kATransposed, map.aLayout().pad};
          return StagedLayout{false, map.bLayout().pad};
        }
        return StagedLayout{};
      },
      mapping.threadMap());
}

int pipelineStages(const Mapping& mapping) {
  const std::optional<Pipeline> pipeline = mapping.pipeline();
  return pipeline ? pipeline->stages : 1;
}

const char* stageFillName(StageFill fill) {
  switch (fill) {
    case StageFill::Registers:
      return "registers";
    case StageFill::CpAsync:
      return "cp.async";
    case StageFill::Tma:
      return "TMA";
  }
  return "";
}

const char* stageProductName(StageProduct product) {
  switch (product) {
    case StageProduct::Fma:
      return "FMA";
    case StageProduct::MmaSync:
      return "mma.sync";
    case StageProduct::Wgmma:
      return "wgmma";
  }
  return "";
}

int sharedReadStride(const Mapping& mapping) {
  return std::max(mapping.readsEveryK(Operand::A), mapping.readsEveryK(Operand::B));
}

bool readsWithLdmatrix(const Mapping& mapping) {
  return sharedReadStride(mapping) > 1 && storageBytes(mapping.element()) == 2;
}

std::string mmaShape(const Mapping& mapping) {
  return mapping.mmaShape();
}

AccessPicture accessPicture(const Mapping& mapping, Dim2 block, int warp, Access access,
                            std::int64_t step, std::int64_t instr) {
  const WarpAccess warpAccess = mapping.warpAccess(block, warp, access, step, instr);
  AccessPicture picture;
  picture.operand = warpAccess.operand;
  picture.operandCols = operandCols(mapping.shape(), warpAccess.operand);
  picture.operandRows = operandRows(mapping.shape(), warpAccess.operand);
  picture.kMajor = warpAccess.operand == Operand::B && mapping.copiesBAlongK();
  picture.width = warpAccess.width;
  picture.elementBytes = warpAccess.elementBytes;
  picture.traffic = requestTraffic(warpAccess);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::int64_t element = warpAccess.element[std::size_t(lane)];
    LaneAddress address{lane, std::nullopt, 0, 0, 0};
    if (element >= 0) {
      address.cell = mapping.elementCell(picture.operand, element);
      address.byte = byteOffset(element, picture.elementBytes);
      address.sector = sectorOf(element, picture.elementBytes);
      address.line = lineOf(element, picture.elementBytes);
      for (int n = 0; n < picture.width; ++n)
        picture.lines.push_back(lineOf(element + n, picture.elementBytes));
    }
    picture.lanes.push_back(address);
  }
  std::sort(picture.lines.begin(), picture.lines.end());
  picture.lines.erase(std::unique(picture.lines.begin(), picture.lines.end()), picture.lines.end());
  return picture;
}

int mostSharedReads(const Mapping& mapping) {
  return std::max(mapping.sharedReadSlots(Operand::A), mapping.sharedReadSlots(Operand::B));
}

int mostSharedWrites(const Mapping& mapping) {
  return std::max(mapping.sharedWriteSlots(Operand::A), mapping.sharedWriteSlots(Operand::B));
}

std::optional<BankPicture> bankPicture(const Mapping& mapping, Operand operand, int warp, int kk,
                                       int pad, int slot, std::int64_t step, bool write) {
  const std::optional<WarpSharedAccess> access =
      write ? mapping.warpSharedWrite(operand, warp, slot, pad, step)
            : mapping.warpSharedRead(operand, warp, kk, pad, slot, step);
  if (!access) return std::nullopt;
  return BankPicture{access->word, access->width, bankTraffic(*access)};
}

bool oneDimensionalBlock(const Mapping& mapping) {
  return mapping.block().y == 1 && mapping.block().x > 1;
}

std::string threadName(const Mapping& mapping, Dim2 thread) {
  if (oneDimensionalBlock(mapping)) return "thread " + std::to_string(thread.x);
  return "thread (" + std::to_string(thread.x) + "," + std::to_string(thread.y) + ")";
}

Range kStepValues(const Mapping& mapping, std::int64_t step) {
  const Range padded = mapping.kRange(step);
  return {padded.begin,
          std::max<std::int64_t>(std::min(padded.end(), mapping.shape().k) - padded.begin, 0)};
}

std::string kStepText(const Mapping& mapping, std::int64_t step) {
  char text[64];
  std::snprintf(text, sizeof text, "k-step %lld of %lld", static_cast<long long>(step),
                static_cast<long long>(mapping.kSteps()));
  return text;
}

std::string ownerText(const Mapping& mapping, std::int64_t i, std::int64_t j) {
  const ThreadRef t = mapping.owner(i, j);
  char text[160];
  std::snprintf(text, sizeof text,
                "C[%lld][%lld]: block (%d,%d), %s, warp %d, lane %d; k-steps 0..%lld",
                static_cast<long long>(i), static_cast<long long>(j), t.block.x, t.block.y,
                threadName(mapping, t.thread).c_str(), t.warp, t.lane,
                static_cast<long long>(mapping.kSteps() - 1));
  return text;
}

const char* operandName(Operand operand) {
  switch (operand) {
    case Operand::A:
      return "A";
    case Operand::B:
      return "B";
    case Operand::C:
      return "C";
  }
  return "?";
}

std::int64_t operandRows(const Shape& shape, Operand operand) {
  return operand == Operand::B ? shape.k : shape.m;
}

std::int64_t operandCols(const Shape& shape, Operand operand) {
  return operand == Operand::A ? shape.k : shape.n;
}

}  // namespace tilescope::ui
