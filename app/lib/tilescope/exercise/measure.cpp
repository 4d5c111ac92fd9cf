// SPDX-License-Identifier: GPL-3.0-or-later
// The trace checks: figures of the traced block, all its warps and k-steps, counted with the
// traffic model (sectors, bank passes) on the Mapping the trace builds, or from the trace's
// recorded accesses where a plain count is all it takes.
#include <set>

#include "tilescope/error.hpp"
#include "tilescope/exercise/check.hpp"
#include "tilescope/traffic.hpp"

namespace tilescope::exercise {
namespace {

const char* name(Operand operand) {
  return operand == Operand::A ? "A" : "B";
}

std::vector<Operand> operandsOf(OperandChoice choice) {
  if (choice == OperandChoice::A) return {Operand::A};
  if (choice == OperandChoice::B) return {Operand::B};
  return {Operand::A, Operand::B};
}

std::string operandWords(OperandChoice choice) {
  return choice == OperandChoice::Both         ? "A and B"
         : operandsOf(choice)[0] == Operand::A ? "A"
                                               : "B";
}

// The multiply-adds the traced block does: its outputs times K.
double blockMultiplyAdds(const Mapping& traced) {
  const KernelTrace& trace = *traced.trace();
  std::int64_t outputs = 0;
  for (int t = 0; t < traced.threadsPerBlock(); ++t)
    outputs += std::int64_t(traced.outputs(trace.tracedBlock, traced.threadOfLinear(t)).size());
  return double(outputs) * double(trace.shape.k);
}

// The loads of `operand` by the traced block's threads that fell inside the matrix (one outside
// returned zeros: an idle lane), each with its width.
template <typename Visit>
void forEachLoad(const KernelTrace& trace, Operand operand, Visit visit) {
  const auto& loads = operand == Operand::A ? trace.loadsA : trace.loadsB;
  const std::int64_t rows = operand == Operand::A ? trace.shape.m : trace.shape.k;
  const std::int64_t cols = operand == Operand::A ? trace.shape.k : trace.shape.n;
  for (const auto& perThread : loads)
    for (const TracedLoad& load : perThread)
      if (load.row < rows && load.col < cols) visit(load);
}

CheckPicture globalPicture(const Mapping& traced, Operand operand, int warp, std::int64_t step,
                           std::int64_t instr) {
  CheckPicture picture;
  picture.block = traced.trace()->tracedBlock;
  picture.warp = warp;
  picture.step = step;
  picture.access = operand == Operand::A ? Access::LoadA : Access::LoadB;
  picture.instr = instr;
  return picture;
}

CheckPicture sharedPicture(const Mapping& traced, Operand operand, int warp, std::int64_t step,
                           bool write, int innerK, int slot) {
  CheckPicture picture = globalPicture(traced, operand, warp, step, 0);
  picture.shared = true;
  picture.sharedOperand = operand;
  picture.sharedWrite = write;
  picture.innerK = innerK;
  picture.slot = slot;
  return picture;
}

void settle(CheckResult& result, double figure, std::string detail) {
  result.figure = figure;
  result.state = result.spec.passes(figure) ? CheckState::Passed : CheckState::Failed;
  result.detail = std::move(detail);
}

void failUnmeasured(CheckResult& result, std::string why) {
  result.state = CheckState::Failed;
  result.detail = std::move(why);
}

void sectorsPerLoad(const Mapping& traced, CheckResult& result) {
  const Dim2 block = traced.trace()->tracedBlock;
  double requests = 0, sectors = 0;
  int worst = -1;
  CheckPicture worstAt;
  for (const Operand operand : operandsOf(result.spec.operand)) {
    const Access access = operand == Operand::A ? Access::LoadA : Access::LoadB;
    const std::int64_t instructions = traced.instructionsPerStep(access);
    for (int warp = 0; warp < traced.warpsPerBlock(); ++warp)
      for (std::int64_t step = 0; step < traced.kSteps(); ++step)
        for (std::int64_t instr = 0; instr < instructions; ++instr) {
          const RequestTraffic request =
              requestTraffic(traced.warpAccess(block, warp, access, step, instr));
          if (request.activeLanes == 0) continue;
          requests += 1;
          sectors += request.sectors;
          if (request.sectors > worst) {
            worst = request.sectors;
            worstAt = globalPicture(traced, operand, warp, step, instr);
          }
        }
  }
  if (requests == 0)
    return failUnmeasured(result, "the trace saw no load of " + operandWords(result.spec.operand) +
                                      ": load through ts::loadA and ts::loadB (or their float4 "
                                      "forms) so the loads can be measured");
  result.picture = worstAt;
  settle(result, sectors / requests,
         numberText(sectors / requests) + " sectors per warp load of " +
             operandWords(result.spec.operand) + "; the worst, " + std::to_string(worst) +
             ", in warp " + std::to_string(worstAt.warp) + "'s load of " +
             name(worstAt.access == Access::LoadA ? Operand::A : Operand::B) + " at k-step " +
             std::to_string(worstAt.step));
}

void sharedPasses(const Mapping& traced, CheckResult& result) {
  double worst = 0;
  std::int64_t accesses = 0;
  std::optional<CheckPicture> worstAt;
  const auto consider = [&](const std::optional<WarpSharedAccess>& access, Operand operand,
                            int warp, std::int64_t step, bool write, int kk, int slot) {
    if (!access) return;
    const BankTraffic banks = bankTraffic(*access);
    if (banks.activeLanes == 0 || banks.phases == 0) return;
    ++accesses;
    const double passes = double(banks.wavefronts) / banks.phases;
    if (passes > worst) {
      worst = passes;
      worstAt = sharedPicture(traced, operand, warp, step, write, kk, slot);
    }
  };
  for (const Operand operand : {Operand::A, Operand::B}) {
    const int reads = traced.sharedReadSlots(operand), writes = traced.sharedWriteSlots(operand);
    for (int warp = 0; warp < traced.warpsPerBlock(); ++warp)
      for (std::int64_t step = 0; step < traced.kSteps(); ++step) {
        for (int slot = 0; slot < writes; ++slot)
          consider(traced.warpSharedWrite(operand, warp, slot, 0, step), operand, warp, step, true,
                   0, slot);
        for (int kk = 0; kk < traced.kDepth(); ++kk)
          for (int slot = 0; slot < reads; ++slot)
            consider(traced.warpSharedRead(operand, warp, kk, 0, slot, step), operand, warp, step,
                     false, kk, slot);
      }
  }
  if (accesses == 0)
    return failUnmeasured(result,
                          "the trace saw no shared-memory access: stage the tiles through "
                          "ts::writeShared and read them through ts::readShared");
  result.picture = worstAt;
  settle(result, worst,
         numberText(worst) + " passes of the banks in the worst warp access: warp " +
             std::to_string(worstAt->warp) + "'s " + (worstAt->sharedWrite ? "write" : "read") +
             " of " + name(worstAt->sharedOperand) + "'s tile at k-step " +
             std::to_string(worstAt->step) + " (1 is conflict-free)");
}

void globalLoadsPerFma(const Mapping& traced, CheckResult& result) {
  const KernelTrace& trace = *traced.trace();
  const double multiplyAdds = blockMultiplyAdds(traced);
  if (multiplyAdds == 0) return failUnmeasured(result, "the traced block stored no element of C");
  double loads = 0, mostLoads = -1;
  Operand heavier = Operand::A;
  for (const Operand operand : operandsOf(result.spec.operand)) {
    double count = 0;
    forEachLoad(trace, operand, [&](const TracedLoad& load) { count += load.width; });
    loads += count;
    if (count > mostLoads) mostLoads = count, heavier = operand;
  }
  result.picture = globalPicture(traced, heavier, 0, 0, 0);
  settle(result, loads / multiplyAdds,
         numberText(loads / multiplyAdds) + " elements of " + operandWords(result.spec.operand) +
             " loaded from global memory per multiply-add (" + numberText(loads) + " loads for " +
             numberText(multiplyAdds) + " multiply-adds of the traced block)");
}

void sharedReadsPerFma(const Mapping& traced, CheckResult& result) {
  const KernelTrace& trace = *traced.trace();
  const double multiplyAdds = blockMultiplyAdds(traced);
  if (multiplyAdds == 0) return failUnmeasured(result, "the traced block stored no element of C");
  double words = 0;
  for (const SharedTrace* tile : {&trace.sharedA, &trace.sharedB})
    for (const auto& perThread : tile->reads)
      for (const TracedWord& word : perThread) words += word.width;
  if (words == 0)
    return failUnmeasured(result,
                          "the trace saw no shared-memory read: read the staged tiles "
                          "through ts::readShared");
  result.picture = sharedPicture(traced, Operand::A, 0, 0, false, 0, 0);
  settle(result, words / multiplyAdds,
         numberText(words / multiplyAdds) + " words read from shared memory per multiply-add");
}

void outputsPerThread(const Mapping& traced, CheckResult& result) {
  const Dim2 block = traced.trace()->tracedBlock;
  double outputs = 0, threads = 0;
  for (int t = 0; t < traced.threadsPerBlock(); ++t) {
    const std::size_t mine = traced.outputs(block, traced.threadOfLinear(t)).size();
    if (mine == 0) continue;
    outputs += double(mine);
    threads += 1;
  }
  if (threads == 0) return failUnmeasured(result, "the traced block stored no element of C");
  result.picture = globalPicture(traced, Operand::A, 0, 0, 0);
  settle(result, outputs / threads,
         numberText(outputs / threads) + " elements of C per thread (" + numberText(outputs) +
             " stored by " + numberText(threads) + " threads)");
}

void loadWidth(const Mapping& traced, CheckResult& result) {
  const KernelTrace& trace = *traced.trace();
  double elements = 0, instructions = 0;
  for (const Operand operand : operandsOf(result.spec.operand))
    forEachLoad(trace, operand, [&](const TracedLoad& load) {
      elements += load.width;
      instructions += 1;
    });
  if (instructions == 0)
    return failUnmeasured(result, "the trace saw no load of " + operandWords(result.spec.operand));
  const Operand shown = operandsOf(result.spec.operand)[0];
  result.picture = globalPicture(traced, shown, 0, 0, 0);
  settle(result, elements / instructions,
         numberText(elements / instructions) + " elements per load instruction of a lane");
}

void sharedStages(const Mapping& traced, CheckResult& result) {
  const KernelTrace& trace = *traced.trace();
  if (trace.kDepth <= 1)
    return failUnmeasured(result,
                          "declare the k-step with TS_KSTEP(BK): stages are counted "
                          "per k-step");
  double written = 0;
  std::set<int> distinct;
  for (const SharedTrace* tile : {&trace.sharedA, &trace.sharedB})
    for (const auto& perThread : tile->writes)
      for (const TracedWord& word : perThread) {
        written += word.width;
        for (int w = 0; w < word.width; ++w) distinct.insert(word.word + w);
      }
  if (written == 0)
    return failUnmeasured(result,
                          "the trace saw no shared-memory write: stage the tiles through "
                          "ts::writeShared");
  const double steps = double(traced.kSteps());
  const double stages = double(distinct.size()) * steps / written;
  result.picture = sharedPicture(traced, Operand::A, 0,
                                 std::min<std::int64_t>(1, traced.kSteps() - 1), true, 0, 0);
  settle(result, stages,
         numberText(stages) + " copies of the tiles: " + std::to_string(distinct.size()) +
             " distinct words written, " + numberText(written / steps) + " per k-step");
}

}  // namespace

CheckResult measureTraceCheck(const CheckSpec& spec, const Mapping& traced) {
  if (!traced.trace())
    throw Error(ErrorKind::InvalidArgument, "a trace check needs a traced kernel's Mapping");
  CheckResult result;
  result.spec = spec;
  switch (spec.kind) {
    case CheckKind::SectorsPerLoad:
      sectorsPerLoad(traced, result);
      break;
    case CheckKind::SharedPasses:
      sharedPasses(traced, result);
      break;
    case CheckKind::GlobalLoadsPerFma:
      globalLoadsPerFma(traced, result);
      break;
    case CheckKind::SharedReadsPerFma:
      sharedReadsPerFma(traced, result);
      break;
    case CheckKind::OutputsPerThread:
      outputsPerThread(traced, result);
      break;
    case CheckKind::LoadWidth:
      loadWidth(traced, result);
      break;
    case CheckKind::SharedStages:
      sharedStages(traced, result);
      break;
    default:
      throw Error(ErrorKind::InvalidArgument,
                  std::string("\"") + checkName(spec.kind) + "\" is not read from a trace");
  }
  return result;
}

}  // namespace tilescope::exercise
