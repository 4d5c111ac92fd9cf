// SPDX-License-Identifier: GPL-3.0-or-later
// The pipelines of thread_map.hpp, as the pipeline timeline draws them: which k-step each stage
// holds in each iteration of the main loop, and what the warps do in it, in program order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tilescope/mapping.hpp"

namespace tilescope {
namespace {

using enum PipelineAction;

// Every stage holds at most one k-step at a time; each k-step is filled, multiplied in its own
// iteration, read on by its MMA batches in flight, then freed; and once the loop runs full every
// stage is busy.
void expectConsistent(const Pipeline& p, std::int64_t steps, const std::string& what) {
  for (std::int64_t iteration = -1; iteration <= steps + p.mmaInFlight; ++iteration) {
    int busy = 0;
    for (int stage = 0; stage < p.stages; ++stage) {
      int holders = 0;
      for (std::int64_t t = 0; t < steps; ++t)
        holders += p.stageOf(t) == stage && p.use(t, iteration) != StageUse::Free;
      EXPECT_LE(holders, 1) << what << ": stage " << stage << " in iteration " << iteration;
      const StageState state = p.stageDuring(stage, iteration, steps);
      EXPECT_EQ(state.use != StageUse::Free, holders == 1) << what << " iteration " << iteration;
      if (state.use != StageUse::Free) {
        EXPECT_EQ(p.stageOf(state.step), stage);
        EXPECT_EQ(p.use(state.step, iteration), state.use);
        ++busy;
      }
    }
    if (iteration >= p.mmaInFlight && iteration + p.ahead() < steps) {
      EXPECT_EQ(busy, p.stages) << what << ": the pipeline runs full in iteration " << iteration;
    }
  }
  for (std::int64_t t = 0; t < steps; ++t) {
    EXPECT_EQ(p.use(t, t), StageUse::Multiplying);
    // One stage copies in the iteration that multiplies; a pipeline at least one earlier.
    EXPECT_LE(p.copyStart(t), p.overlaps() ? t - 1 : t)
        << what << ": k-step " << t << " is copied before its use";
    for (std::int64_t iteration = p.copyStart(t); iteration < t; ++iteration)
      EXPECT_EQ(p.use(t, iteration), StageUse::Filling);
    EXPECT_EQ(p.use(t, t + p.mmaInFlight + 1), StageUse::Free);
  }
}

void expectActions(const std::vector<PipelineStep>& steps,
                   const std::vector<PipelineAction>& actions, const std::string& what) {
  ASSERT_EQ(steps.size(), actions.size()) << what;
  for (std::size_t i = 0; i < steps.size(); ++i)
    EXPECT_EQ(int(steps[i].action), int(actions[i])) << what << " action " << i;
}

Pipeline pipelineOf(const KernelConfig& config, const Shape& shape = {256, 256, 256}) {
  const std::optional<Pipeline> p = Mapping(config, shape).pipeline();
  EXPECT_TRUE(p.has_value()) << config.kernel;
  return p.value_or(Pipeline{});
}

TEST(Pipeline, EveryStagedConfigurationIsConsistent) {
  for (const KernelInfo& info : catalogue()) {
    if (!info.hasMapping) continue;
    for (const KernelConfig& config : validConfigurations(info)) {
      const Mapping mapping(config, {300, 260, 700});
      const std::optional<Pipeline> p = mapping.pipeline();
      if (!p) continue;
      const std::string what = config.kernel + " " + formatParams(config);
      EXPECT_GE(p->ahead(), p->overlaps() ? 1 : 0) << what;
      for (const std::int64_t steps : {std::int64_t(1), std::int64_t(2), mapping.kSteps()})
        expectConsistent(*p, steps, what);
      // The loop starts the copy of the k-step its stage can take: ahead() past this one.
      for (const PipelineRole role : pipelineRoles(*p))
        for (const PipelineStep& step : pipelineLoop(*p, role))
          if (step.action == Copy || step.action == LoadRegisters) {
            EXPECT_EQ(step.stepOffset, p->ahead()) << what;
          }
    }
  }
}

TEST(Pipeline, PipelinedWaitsForItsCopiesThenRefillsTheStageJustFreed) {
  const Pipeline p = pipelineOf({"pipelined", {{"stages", 3}}});
  EXPECT_EQ(p.stages, 3);
  EXPECT_EQ(p.fill, StageFill::CpAsync);
  EXPECT_EQ(p.ahead(), 2);
  // The kernel's cp.async.wait_group N with one group committed per k-step.
  EXPECT_EQ(p.pendingCopies(), 1);
  const std::vector<PipelineStep> loop = pipelineLoop(p, PipelineRole::EveryWarp);
  expectActions(loop, {WaitCopies, Barrier, Copy, Multiply}, "pipelined");
  EXPECT_EQ(loop[0].pending, 1);
  EXPECT_EQ(loop[2].stepOffset, 2);
  expectActions(pipelinePrologue(p, PipelineRole::EveryWarp, 10), {Copy, Copy}, "prologue");
  EXPECT_TRUE(pipelineEpilogue(p, PipelineRole::EveryWarp).empty());
  // Before the loop k-steps 0 and 1 are on their way and stage 2 is free; in k-step 4, stage 1
  // is multiplied (4 % 3) while k-steps 5 and 6 fill stages 2 and 0.
  EXPECT_EQ(p.stageDuring(0, -1, 10).use, StageUse::Filling);
  EXPECT_EQ(p.stageDuring(1, -1, 10).step, 1);
  EXPECT_EQ(p.stageDuring(2, -1, 10).use, StageUse::Free);
  EXPECT_EQ(p.stageDuring(1, 4, 10).use, StageUse::Multiplying);
  EXPECT_EQ(p.stageDuring(2, 4, 10).step, 5);
  EXPECT_EQ(p.stageDuring(0, 4, 10).step, 6);
  // The last k-step: nothing left to copy.
  EXPECT_EQ(p.stageDuring(0, 9, 10).use, StageUse::Multiplying);
  EXPECT_EQ(p.stageDuring(1, 9, 10).use, StageUse::Free);
}

TEST(Pipeline, WgmmaKeepsOneBatchReadingItsStage) {
  const Pipeline p = pipelineOf({"tensor-wgmma", {{"stages", 4}}});
  EXPECT_EQ(p.product, StageProduct::Wgmma);
  EXPECT_EQ(p.mmaInFlight, 1);
  EXPECT_EQ(p.ahead(), 2);
  EXPECT_EQ(p.pendingCopies(), 1);
  const std::vector<PipelineStep> loop = pipelineLoop(p, PipelineRole::EveryWarp);
  expectActions(loop, {WaitCopies, Barrier, Copy, Multiply, WaitMma}, "wgmma");
  EXPECT_EQ(loop.back().pending, 1);
  expectActions(pipelineEpilogue(p, PipelineRole::EveryWarp), {WaitMma}, "drain");
  EXPECT_EQ(pipelineEpilogue(p, PipelineRole::EveryWarp)[0].pending, 0);
  // In k-step 1 the batch of k-step 0 still reads stage 0; stage 0 is refilled (k-step 4) only
  // in k-step 2. After the loop the last batch drains.
  EXPECT_EQ(p.stageDuring(0, 1, 8).use, StageUse::MmaReading);
  EXPECT_EQ(p.stageDuring(0, 1, 8).step, 0);
  EXPECT_EQ(p.stageDuring(0, 2, 8).use, StageUse::Filling);
  EXPECT_EQ(p.stageDuring(0, 2, 8).step, 4);
  EXPECT_EQ(p.stageDuring(3, 8, 8).use, StageUse::MmaReading);
  EXPECT_EQ(p.stageDuring(3, 0, 8).use, StageUse::Free);  // k-step 3 starts in iteration 1
}

TEST(Pipeline, PrefetchedFillsItsSecondStageThroughRegisters) {
  const Pipeline p = pipelineOf({"prefetched", {}});
  EXPECT_EQ(p.stages, 2);
  EXPECT_EQ(p.fill, StageFill::Registers);
  expectActions(pipelineLoop(p, PipelineRole::EveryWarp),
                {LoadRegisters, Multiply, StoreRegisters, Barrier}, "prefetched");
  expectActions(pipelinePrologue(p, PipelineRole::EveryWarp, 5),
                {LoadRegisters, StoreRegisters, Barrier}, "prologue");
}

TEST(Pipeline, OneStageOverlapsNothing) {
  const Pipeline warptile = pipelineOf({"warptile", {}});
  EXPECT_FALSE(warptile.overlaps());
  EXPECT_EQ(warptile.ahead(), 0);
  expectActions(pipelineLoop(warptile, PipelineRole::EveryWarp),
                {LoadRegisters, StoreRegisters, Barrier, Multiply, Barrier}, "warptile");
  // The seed kernels describe no pipeline at all.
  EXPECT_FALSE(Mapping({"shared-tiled", {{"tile", 8}}}, {64, 64, 64}).pipeline().has_value());
  EXPECT_FALSE(Mapping({"naive", {{"tile", 8}}}, {64, 64, 64}).pipeline().has_value());
}

TEST(Pipeline, WarpSpecialisedProducerFillsEveryStageThenEachFreedOne) {
  // A producer warpgroup's TMA copies and two consumer warpgroups with mbarriers (tensor-tma).
  const Pipeline p{4, StageFill::Tma, StageHandover::Mbarrier, StageProduct::Wgmma, 1, 4};
  ASSERT_EQ(pipelineRoles(p).size(), 2u);
  expectConsistent(p, 12, "warp-specialised");
  expectActions(pipelinePrologue(p, PipelineRole::Producer, 12), {Copy, Copy, Copy, Copy},
                "producer prologue");
  EXPECT_TRUE(pipelinePrologue(p, PipelineRole::Consumer, 12).empty());
  expectActions(pipelineLoop(p, PipelineRole::Producer), {WaitEmpty, Copy}, "producer");
  const std::vector<PipelineStep> consumer = pipelineLoop(p, PipelineRole::Consumer);
  expectActions(consumer, {WaitFull, Multiply, WaitMma, Release}, "consumer");
  EXPECT_EQ(consumer.back().stepOffset, -1);  // the stage the previous batch read
  EXPECT_TRUE(pipelineEpilogue(p, PipelineRole::Producer).empty());
  // Every stage is filled before the first product; stage 0 is refilled once k-step 0's batch
  // is done (iteration 2).
  for (int stage = 0; stage < 4; ++stage)
    EXPECT_EQ(p.stageDuring(stage, -1, 12).use, StageUse::Filling);
  EXPECT_EQ(p.stageDuring(0, 1, 12).use, StageUse::MmaReading);
  EXPECT_EQ(p.stageDuring(0, 2, 12).step, 4);
}

}  // namespace
}  // namespace tilescope
