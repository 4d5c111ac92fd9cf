// SPDX-License-Identifier: GPL-3.0-or-later
// A traced kernel against a catalogue Mapping: the trace proves the Mapping when every picture
// the views draw from the two is the same.
#include <algorithm>

#include "tilescope/user_kernel.hpp"

namespace tilescope {
namespace {

// The element at `element` of the operand as its cell (a K-major B's too: Mapping::elementCell).
std::string cellText(const Mapping& m, Operand operand, std::int64_t element) {
  if (element < 0) return "nothing";
  const Cell cell = m.elementCell(operand, element);
  const char* matrix = operand == Operand::A ? "A" : operand == Operand::B ? "B" : "C";
  return std::string(matrix) + "[" + std::to_string(cell.row) + "][" + std::to_string(cell.col) +
         "]";
}

std::string dimText(Dim2 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + ")";
}

// Collects differences, keeping the first `limit` and counting the rest.
class Differences {
 public:
  explicit Differences(std::size_t limit) : limit_(std::max<std::size_t>(limit, 1)) {}
  void add(const std::string& line) {
    if (lines_.size() < limit_)
      lines_.push_back(line);
    else
      ++more_;
  }
  std::vector<std::string> take() {
    if (more_ > 0) lines_.back() = "... and " + std::to_string(more_ + 1) + " more differences";
    return std::move(lines_);
  }

 private:
  std::size_t limit_, more_ = 0;
  std::vector<std::string> lines_;
};

// "4 elements" (a float4), "1 word".
std::string widthText(int width, const char* unit) {
  return std::to_string(width) + " " + unit + (width == 1 ? "" : "s");
}

std::string wordText(int word) {
  return word < 0 ? "nothing" : "word " + std::to_string(word);
}

// The staged tiles' words, where the trace recorded them: every read at every inner index of
// every k-step, and every write where the Mapping stages the tile.
void compareSharedWords(const Mapping& traced, const Mapping& model, Differences& found) {
  for (const Operand operand : {Operand::A, Operand::B}) {
    const char* tile = operand == Operand::A ? "A's tile" : "B's tile";
    const int reads = traced.sharedReadSlots(operand), writes = traced.sharedWriteSlots(operand);
    if (reads == 0 && writes == 0) continue;  // not traced: the kernel used no accessor on it
    if (reads > 0 && traced.readsEveryK(operand) != model.readsEveryK(operand)) {
      found.add(std::string(tile) + ": read every " + std::to_string(traced.readsEveryK(operand)) +
                " values of k, the Mapping's every " + std::to_string(model.readsEveryK(operand)));
      continue;
    }
    if (reads != model.sharedReadSlots(operand)) {
      found.add(std::string(tile) + ": " + std::to_string(reads) +
                " reads per thread and inner index, the Mapping's " +
                std::to_string(model.sharedReadSlots(operand)));
      continue;
    }
    const bool writesModelled = model.sharedWriteSlots(operand) > 0;
    if (writesModelled && writes != model.sharedWriteSlots(operand))
      found.add(std::string(tile) + ": " + std::to_string(writes) +
                " writes per thread and k-step, the Mapping's " +
                std::to_string(model.sharedWriteSlots(operand)));
    const auto compare = [&](const std::optional<WarpSharedAccess>& got,
                             const std::optional<WarpSharedAccess>& want, int warp,
                             const std::string& what) {
      bool someLane = false;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int g = got ? got->word[std::size_t(lane)] : -1;
        const int w = want ? want->word[std::size_t(lane)] : -1;
        someLane = someLane || (g >= 0 && w >= 0);
        if (g != w)
          found.add("warp " + std::to_string(warp) + " lane " + std::to_string(lane) + ", " + what +
                    ": " + wordText(g) + " of " + tile + ", the Mapping's " + wordText(w));
      }
      if (someLane && got->width != want->width)
        found.add("warp " + std::to_string(warp) + ", " + what + " of " + tile + ": " +
                  widthText(got->width, "word") + " a lane, the Mapping's " +
                  widthText(want->width, "word"));
    };
    for (std::int64_t step = 0; step < traced.kSteps(); ++step)
      for (int warp = 0; warp < traced.warpsPerBlock(); ++warp) {
        const std::string atStep = " of k-step " + std::to_string(step);
        for (int kk = 0; kk < traced.kDepth(); ++kk)
          for (int slot = 0; slot < reads; ++slot)
            compare(
                traced.warpSharedRead(operand, warp, kk, 0, slot, step),
                model.warpSharedRead(operand, warp, kk, 0, slot, step), warp,
                "read " + std::to_string(slot) + " at inner index " + std::to_string(kk) + atStep);
        if (writesModelled)
          for (int slot = 0; slot < writes; ++slot)
            compare(traced.warpSharedWrite(operand, warp, slot, 0, step),
                    model.warpSharedWrite(operand, warp, slot, 0, step), warp,
                    "write " + std::to_string(slot) + atStep);
      }
  }
}

}  // namespace

std::vector<std::string> traceDifferences(const Mapping& traced, const Mapping& model,
                                          std::size_t maxListed) {
  Differences found(maxListed);
  const KernelTrace* trace = traced.trace();
  const Shape& shape = traced.shape();
  if (!trace) {
    found.add("the first Mapping is not a trace");
    return found.take();
  }
  if (shape.m != model.shape().m || shape.n != model.shape().n || shape.k != model.shape().k) {
    found.add("the trace is of another shape than the Mapping");
    return found.take();
  }
  const auto same = [](Dim2 a, Dim2 b) { return a.x == b.x && a.y == b.y; };
  if (!same(traced.block(), model.block()) || !same(traced.launchGrid(), model.launchGrid()) ||
      !same(traced.cluster(), model.cluster())) {
    found.add("blocks of " + dimText(traced.block()) + " threads in a grid of " +
              dimText(traced.launchGrid()) + ", clusters of " + dimText(traced.cluster()) +
              "; the Mapping launches " + dimText(model.block()) + " threads in " +
              dimText(model.launchGrid()) + ", clusters of " + dimText(model.cluster()));
    return found.take();
  }
  if (!same(traced.grid(), model.grid())) {
    found.add("a grid of " + dimText(traced.grid()) + " tiles; the Mapping's " +
              dimText(model.grid()));
    return found.take();
  }
  for (std::int64_t i = 0; i < shape.m; ++i)
    for (std::int64_t j = 0; j < shape.n; ++j) {
      const ThreadRef got = traced.owner(i, j), want = model.owner(i, j);
      if (got.block.x != want.block.x || got.block.y != want.block.y ||
          got.thread.x != want.thread.x || got.thread.y != want.thread.y)
        found.add("C[" + std::to_string(i) + "][" + std::to_string(j) + "] is stored by block " +
                  dimText(got.block) + " thread " + dimText(got.thread) +
                  ", the Mapping's owner is block " + dimText(want.block) + " thread " +
                  dimText(want.thread));
    }
  if (traced.kDepth() != model.kDepth()) {
    found.add("k-steps of " + std::to_string(traced.kDepth()) +
              " values of k (TS_KSTEP), the Mapping's of " + std::to_string(model.kDepth()));
    return found.take();
  }
  const Dim2 block = trace->tracedBlock;
  for (const Access access : {Access::LoadA, Access::LoadB, Access::StoreC}) {
    const Operand operand = operandOf(access);
    // Stores happen once, not per k-step: both count them at step 0.
    const std::int64_t steps = access == Access::StoreC ? 1 : traced.kSteps();
    const std::int64_t instructions =
        std::max(traced.instructionsPerStep(access), model.instructionsPerStep(access));
    for (std::int64_t step = 0; step < steps; ++step)
      for (std::int64_t instr = 0; instr < instructions; ++instr)
        for (int warp = 0; warp < traced.warpsPerBlock(); ++warp) {
          const WarpAccess got = traced.warpAccess(block, warp, access, step, instr);
          const WarpAccess want = model.warpAccess(block, warp, access, step, instr);
          if (got.activeLanes() > 0 && want.activeLanes() > 0 && got.width != want.width)
            found.add("block " + dimText(block) + " warp " + std::to_string(warp) + ", " +
                      toString(access) + " " + std::to_string(instr) + " of k-step " +
                      std::to_string(step) + ": " + widthText(got.width, "element") +
                      " a lane, the Mapping's " + widthText(want.width, "element"));
          for (int lane = 0; lane < kWarpSize; ++lane) {
            const std::int64_t g = got.element[std::size_t(lane)];
            const std::int64_t w = want.element[std::size_t(lane)];
            if (g != w)
              found.add("block " + dimText(block) + " warp " + std::to_string(warp) + " lane " +
                        std::to_string(lane) + ", " + toString(access) + " " +
                        std::to_string(instr) + " of k-step " + std::to_string(step) + ": " +
                        cellText(traced, operand, g) + ", the Mapping's " +
                        cellText(model, operand, w));
          }
        }
  }
  compareSharedWords(traced, model, found);
  return found.take();
}

}  // namespace tilescope
