// SPDX-License-Identifier: GPL-3.0-or-later
// The control panel's choices: how they round-trip through JSON and plan the runs of their sweep
// (the planning itself is tested in tests/plan).
#include <QtTest>
#include <set>

#include "choices.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"
#include "tilescope/user_kernel.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

class TestChoices : public QObject {
  Q_OBJECT

 private slots:
  // Autotune's parameters replace the chosen ones only for the kernel and type they were found
  // for.
  void tunedParametersApplyToTheirKernelAndTypeOnly() {
    Choices chosen;
    chosen.kernel = "blocktile-1d";
    chosen.params = {{"BM", 64}};
    plan::TunedEntry entry;
    entry.kernel = "blocktile-1d";
    entry.params = {{"BM", 128}, {"TM", 8}};
    QCOMPARE(withTuned(chosen, entry).params, entry.params);
    entry.element = ElementType::F16;
    QCOMPARE(withTuned(chosen, entry).params, chosen.params);
    entry.element = chosen.element;
    entry.kernel = "warptile";
    QCOMPARE(withTuned(chosen, entry).params, chosen.params);
  }

  void choicesRoundTripThroughJson() {
    Choices choices;
    choices.backend = "cuda";
    choices.device = 1;
    choices.kernel = "register-tiled";
    choices.params = {{"tile", 4}};
    choices.shape = {100, 200, 300};
    choices.element = ElementType::BF16;
    choices.square = false;
    choices.fixedReps = 7;
    choices.budgetSeconds = 0.5;
    choices.verify = false;
    choices.counters = true;
    choices.sweep = SweepKind::Kernel;
    choices.tiles = "1,2";
    choices.sizes = "64";
    choices.kernels = {"naive"};
    const Choices back = choicesFromJson(toJson(choices));
    QCOMPARE(toJson(back), toJson(choices));
    QCOMPARE(back.fixedReps, std::optional<int>(7));
    QCOMPARE(back.sweep, SweepKind::Kernel);
    QCOMPARE(back.element, ElementType::BF16);
    QVERIFY(back.counters);
    QVERIFY(baseRequest(back).collectCounters);
    QVERIFY(!baseRequest(Choices{}).collectCounters);
  }

  // Issue #12: m = -5, kernel "bogus" and tile = 1000 in the settings made the window exit 2.
  void unusableChoicesFallBackToDefaultsAndSaySo() {
    Choices choices = choicesFromJson({{"m", -5},
                                       {"kernel", "bogus"},
                                       {"params", {{"tile", 1000}}},
                                       {"reps", 0},
                                       {"budget_s", -1},
                                       {"backend", "tpu"}});
    const std::vector<std::string> repaired = repairChoices(choices);
    QCOMPARE(toJson(choices), toJson(Choices{}));
    const std::vector<std::string> expected = {
        "backend: 'tpu' is not a backend (cpu or cuda); using 'cpu'",
        "kernel: 'bogus' is not a known kernel; using 'shared-tiled'",
        "m, n, k:", "reps: 0 is not 1..100000", "budget_s:"};
    QCOMPARE(repaired.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      QVERIFY2(repaired[i].starts_with(expected[i]), repaired[i].c_str());

    Choices refusedTile;
    refusedTile.params = {{"tile", 1000}};
    const std::vector<std::string> tile = repairChoices(refusedTile);
    QCOMPARE(tile.size(), std::size_t(1));
    QVERIFY2(tile.front().starts_with("params: "), tile.front().c_str());
    QVERIFY(refusedTile.params.empty());
  }

  void choicesFromBadJsonKeepDefaults() {
    const Choices defaults;
    const Choices fromWrongTypes = choicesFromJson(
        {{"kernel", 5}, {"m", "big"}, {"sweep", "sideways"}, {"reps", "x"}, {"element", "fp8"}});
    QCOMPARE(toJson(fromWrongTypes), toJson(defaults));
    QCOMPARE(toJson(choicesFromJson(nlohmann::json::array())), toJson(defaults));
    // Numbers that do not fit (the fuzzer's find: a parameter of 1.4e33 was undefined
    // behaviour) keep the defaults too.
    const Choices fromHugeNumbers = choicesFromJson({{"params", {{"tile", 1.4e33}}},
                                                     {"device", 1e300},
                                                     {"m", -5.5},
                                                     {"n", 18446744073709551615ull},
                                                     {"reps", 1e20},
                                                     {"square", 1}});
    QCOMPARE(toJson(fromHugeNumbers), toJson(defaults));
    const Choices fromWholeNumbers =
        choicesFromJson({{"params", {{"tile", 8}}}, {"m", 96}, {"reps", 3}, {"budget_s", 1}});
    QCOMPARE(fromWholeNumbers.params.at("tile"), 8);
    QCOMPARE(fromWholeNumbers.shape.m, std::int64_t(96));
    QCOMPARE(fromWholeNumbers.fixedReps, std::optional<int>(3));
    QCOMPARE(fromWholeNumbers.budgetSeconds, 1.0);
  }

  // The requests carry the chosen type; a type the kernel does not multiply gives way to its
  // default only where asked (elementFor), and is refused when planned.
  void choicesCarryTheirElementType() {
    Choices choices;
    choices.kernel = "tensor-mma";
    choices.element = ElementType::TF32;
    QCOMPARE(baseRequest(choices).element, ElementType::TF32);
    QCOMPARE(elementFor(choices), ElementType::TF32);
    const std::vector<RunJob> jobs = planJobs(choices, sweepAxes(choices));
    QCOMPARE(jobs.size(), std::size_t(1));
    QCOMPARE(jobs.front().request.element, ElementType::TF32);

    choices.element = ElementType::F32;
    QCOMPARE(elementFor(choices), ElementType::F16);  // tensor-mma's first type
    try {
      planJobs(choices, sweepAxes(choices));
      QFAIL("tensor-mma in fp32 was planned");
    } catch (const Error& error) {
      QVERIFY2(QString(error.what()).contains(QStringLiteral("'tensor-mma' multiplies")),
               error.what());
    }
  }

  // A user kernel runs in the chosen type where its TS_TYPES lists it, else in its first type;
  // its planned runs carry that type.
  void aUserKernelRunsInATypeItTakes() {
    const UserKernelSource mine{"mine", "TS_TYPES(bf16, fp16)\nTS_LAUNCH(1, 1, 1, 1, 0)\n"};
    Choices choices;
    choices.element = ElementType::F16;
    QCOMPARE(userElementFor(choices, mine), ElementType::F16);
    choices.element = ElementType::F32;
    QCOMPARE(userElementFor(choices, mine), ElementType::BF16);
    QCOMPARE(planUserJobs(choices, mine, {}).front().request.element, ElementType::BF16);
    QCOMPARE(userElementFor(choices, {"plain", "TS_LAUNCH(1, 1, 1, 1, 0)\n"}), ElementType::F32);
  }

  void choicesPlanTheirSweep() {
    Choices choices;
    choices.kernel = "shared-tiled";
    choices.sweep = SweepKind::Tile;
    choices.tiles = "";
    QCOMPARE(planJobs(choices, sweepAxes(choices)).size(),
             kernelInfo("shared-tiled").param("tile")->allowed.size());
    choices.tiles = "4,x";
    QVERIFY_THROWS_EXCEPTION(Error, sweepAxes(choices));

    // A comparison runs each kernel at its own parameters (issue #35): given ones (autotune's
    // best), else its defaults, never the chosen kernel's tile.
    choices.kernel = "register-tiled";
    choices.params = {{"tile", 64}};
    choices.sweep = SweepKind::Kernel;
    choices.kernels = {"naive", "shared-tiled", "library"};
    const auto jobs = planJobs(choices, sweepAxes(choices), {}, {{"shared-tiled", {{"tile", 8}}}});
    QCOMPARE(jobs.size(), std::size_t(3));
    QCOMPARE(jobs[0].request.kernel, resolve({"naive", {}}));
    QCOMPARE(jobs[0].request.kernel.params.at("tile"),
             kernelInfo("naive").param("tile")->defaultValue);
    QCOMPARE(jobs[1].request.kernel, (KernelConfig{"shared-tiled", {{"tile", 8}}}));
    QCOMPARE(jobs[2].request.kernel, (KernelConfig{"library", {}}));
    QCOMPARE(jobs[2].backend, std::string("cpu"));
    // ... and over the listed sizes when asked: every kernel at every size.
    choices.kernelsOverSizes = true;
    choices.sizes = "32,64";
    const auto overSizes = planJobs(choices, sweepAxes(choices));
    QCOMPARE(overSizes.size(), std::size_t(6));
    std::set<std::pair<std::string, std::int64_t>> planned;
    for (const RunJob& job : overSizes) {
      planned.insert({job.request.kernel.kernel, job.request.shape.m});
      QCOMPARE(job.request.shape.m, job.request.shape.k);
    }
    QCOMPARE(planned.size(), std::size_t(6));
    QVERIFY(planned.count({"library", 64}));
    QCOMPARE(choicesFromJson(toJson(choices)).kernelsOverSizes, true);
    choices.kernelsOverSizes = false;
    choices.kernels.clear();
    QVERIFY_THROWS_EXCEPTION(Error, sweepAxes(choices));

    choices.sweep = SweepKind::Size;
    choices.sizes = "32,48x16x8";
    const auto sizes = planJobs(choices, sweepAxes(choices));
    QCOMPARE(sizes.size(), std::size_t(2));
    QCOMPARE(sizes[1].request.shape, (Shape{48, 16, 8}));
  }

  // The Kernel Editor's kernel runs with the panel's backend, size, measurement and sweep; every
  // job carries its source, and the panel's kernel and parameters are not its.
  void theEditorsKernelPlansWithThePanelsSweep() {
    const UserKernelSource mine{"mine",
                                "TS_PARAM(TILE, 16, 8, 16, 32)\nTS_PARAM(PAD, 0, 0, 1)\n"
                                "TS_LAUNCH(TILE, TILE, 1, 1, 0)\nTS_KERNEL {}\n"};
    Choices choices;
    choices.backend = "cuda";
    choices.kernel = "shared-tiled";
    choices.params = {{"tile", 4}};
    choices.shape = {96, 64, 32};
    choices.fixedReps = 3;
    const auto single = planUserJobs(choices, mine);
    QCOMPARE(single.size(), std::size_t(1));
    QCOMPARE(single[0].backend, std::string("cuda"));
    QCOMPARE(single[0].request.kernel,
             (KernelConfig{"user:mine", {{"TILE", 16}, {"PAD", 0}}, mine.source}));
    QCOMPARE(single[0].request.shape, (Shape{96, 64, 32}));
    QCOMPARE(single[0].request.sampling.fixedReps, std::optional<int>(3));

    choices.sweep = SweepKind::Tile;  // every value of its first parameter
    const auto tiles = planUserJobs(choices, mine, {{"PAD", 1}});
    QCOMPARE(tiles.size(), std::size_t(3));
    QCOMPARE(tiles[2].request.kernel.params, (Params{{"TILE", 32}, {"PAD", 1}}));

    choices.sweep = SweepKind::Kernel;  // first, then the chosen kernels
    choices.kernels = {"naive", "library"};
    const auto kernels = planUserJobs(choices, mine);
    QCOMPARE(kernels.size(), std::size_t(3));
    QCOMPARE(kernels[0].request.kernel.kernel, std::string("user:mine"));
    QCOMPARE(kernels[1].request.kernel, resolve({"naive", {}}));
    QVERIFY(!kernels[1].request.kernel.source);

    choices.sweep = SweepKind::Size;
    choices.sizes = "32,64";
    const auto sizes = planUserJobs(choices, mine);
    QCOMPARE(sizes.size(), std::size_t(2));
    QCOMPARE(sizes[1].request.shape, (Shape{64, 64, 64}));
    QCOMPARE(sizes[1].request.kernel.source, std::optional<std::string>(mine.source));

    QVERIFY_THROWS_EXCEPTION(Error, planUserJobs(choices, {"my kernel", mine.source}));
    QVERIFY_THROWS_EXCEPTION(Error, planUserJobs(choices, mine, {{"TILE", 12}}));
  }

  // What a window opened where its choices cannot run does with them (issue #35): an
  // unavailable backend becomes the first available one, a kernel it lacks the library, a type
  // it does not multiply one it does; each change said.
  void choicesAreMadeReadyForTheBackends() {
    const std::vector<BackendSummary> cpuOnly = {
        {"cpu",
         std::nullopt,
         {{0, "Test CPU", {}}},
         {{ElementType::TF32, "the CPU backend multiplies fp32 only"},
          {ElementType::F16, "the CPU backend multiplies fp32 only"},
          {ElementType::BF16, "the CPU backend multiplies fp32 only"}}},
        {"cuda", std::string("no CUDA driver"), {}, {}}};
    Choices sample;
    sample.backend = "cuda";
    sample.device = 1;
    sample.kernel = "tensor-mma";
    sample.element = ElementType::TF32;
    const QStringList changes = readyChoices(sample, cpuOnly);
    QCOMPARE(sample.backend, std::string("cpu"));
    QCOMPARE(sample.device, 0);
    QCOMPARE(sample.kernel, std::string("library"));
    QCOMPARE(sample.element, ElementType::F32);
    QCOMPARE(changes.size(), 3);
    QCOMPARE(changes[0],
             QStringLiteral("the cuda backend is unavailable (no CUDA driver): using cpu"));
    QCOMPARE(changes[2], QStringLiteral("cpu does not multiply tf32: using fp32"));
    QCOMPARE(readyChoices(sample, cpuOnly), QStringList());

    // A kernel the backend runs keeps its parameters; only the type changes.
    Choices library;
    library.kernel = "library";
    library.element = ElementType::BF16;
    QCOMPARE(readyChoices(library, cpuOnly).size(), 1);
    QCOMPARE(library.kernel, std::string("library"));
    QCOMPARE(library.element, ElementType::F32);

    // A run server still connecting keeps its place; no backend available changes nothing.
    Choices remote;
    remote.backend = "cuda@gpu1";
    std::vector<BackendSummary> connecting = cpuOnly;
    connecting.push_back({"cuda@gpu1", std::string("connecting"), {}, {}, true});
    QVERIFY(readyChoices(remote, connecting).isEmpty());
    QCOMPARE(remote.backend, std::string("cuda@gpu1"));
    Choices none;
    none.backend = "cuda";
    QVERIFY(readyChoices(none, {{"cuda", std::string("no CUDA driver"), {}, {}}}).isEmpty());
    QCOMPARE(none.backend, std::string("cuda"));
  }
};

TILESCOPE_UI_SUITE(TestChoices, Guiless)
#include "tst_choices.moc"
