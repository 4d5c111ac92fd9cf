#include "diagram_model.hpp"

#include <algorithm>
#include <cstdio>

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

std::optional<std::vector<ThreadOutputs>> blockOutputs(const Mapping& mapping, Dim2 block,
                                                       std::int64_t maxCells) {
  const double cells = double(mapping.threadsPerBlock()) * double(mapping.rowsPerThread()) *
                       double(mapping.colsPerThread());
  if (cells > double(maxCells)) return std::nullopt;
  std::vector<ThreadOutputs> threads;
  threads.reserve(std::size_t(mapping.threadsPerBlock()));
  for (int linear = 0; linear < mapping.threadsPerBlock(); ++linear) {
    const Dim2 thread = mapping.threadOfLinear(linear);
    threads.push_back({mapping.threadRef(block, thread), mapping.outputs(block, thread)});
  }
  return threads;
}

std::optional<CellBox> solidBox(const std::vector<Cell>& cells) {
  if (cells.empty()) return std::nullopt;
  std::int64_t top = cells.front().row, bottom = top, left = cells.front().col, right = left;
  for (const Cell& cell : cells) {
    top = std::min(top, cell.row);
    bottom = std::max(bottom, cell.row);
    left = std::min(left, cell.col);
    right = std::max(right, cell.col);
  }
  const CellBox box{{top, bottom - top + 1}, {left, right - left + 1}};
  // A thread's outputs are distinct, so as many cells as the box holds means it is full.
  if (box.rows.count * box.cols.count != std::int64_t(cells.size())) return std::nullopt;
  return box;
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
      const std::optional<Dim2> loader = operand == Operand::A
                                             ? mapping.loaderOfA(block, step, r, c)
                                             : mapping.loaderOfB(block, step, r, c);
      StagedElement element{{r, c}, std::nullopt, false};
      if (loader) element.loader = mapping.threadRef(block, *loader);
      element.padding = r >= operandRows(shape, operand) || c >= operandCols(shape, operand);
      elements.push_back(element);
    }
  }
  return elements;
}

AccessPicture accessPicture(const Mapping& mapping, Dim2 block, int warp, Access access,
                            std::int64_t step, std::int64_t instr) {
  const WarpAccess warpAccess = mapping.warpAccess(block, warp, access, step, instr);
  AccessPicture picture;
  picture.operand = warpAccess.operand;
  picture.operandCols = operandCols(mapping.shape(), warpAccess.operand);
  picture.traffic = requestTraffic(warpAccess);
  for (int lane = 0; lane < kWarpSize; ++lane) {
    const std::int64_t element = warpAccess.element[std::size_t(lane)];
    LaneAddress address{lane, std::nullopt, 0, 0, 0};
    if (element >= 0) {
      address.cell = Cell{element / picture.operandCols, element % picture.operandCols};
      address.byte = byteOffset(element);
      address.sector = sectorOf(element);
      address.line = lineOf(element);
      picture.lines.push_back(address.line);
    }
    picture.lanes.push_back(address);
  }
  std::sort(picture.lines.begin(), picture.lines.end());
  picture.lines.erase(std::unique(picture.lines.begin(), picture.lines.end()), picture.lines.end());
  return picture;
}

std::optional<BankPicture> bankPicture(const Mapping& mapping, Operand operand, int warp, int kk,
                                       int pad) {
  const std::optional<WarpSharedAccess> read = mapping.warpSharedRead(operand, warp, kk, pad);
  if (!read) return std::nullopt;
  return BankPicture{read->word, bankTraffic(*read)};
}

std::string ownerText(const Mapping& mapping, std::int64_t i, std::int64_t j) {
  const ThreadRef t = mapping.owner(i, j);
  char text[160];
  std::snprintf(text, sizeof text,
                "C[%lld][%lld]: block (%d,%d), thread (%d,%d), warp %d, lane %d; k-steps 0..%lld",
                static_cast<long long>(i), static_cast<long long>(j), t.block.x, t.block.y,
                t.thread.x, t.thread.y, t.warp, t.lane,
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
