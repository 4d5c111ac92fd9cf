// Sweeps and choices: how a sweep expands into runs, and how the choices round-trip.
#include <QtTest>

#include "choices.hpp"
#include "sweep.hpp"
#include "tilescope/catalogue.hpp"
#include "tilescope/error.hpp"

using namespace tilescope;
using namespace tilescope::app;

class TestSweep : public QObject {
  Q_OBJECT

 private:
  static RunRequest base(const std::string& kernel) {
    RunRequest request;
    request.kernel = {kernel, {}};
    request.shape = {64, 64, 64};
    return request;
  }

  static std::vector<RunRequest> expand(const std::string& kernel,
                                        const std::vector<std::string>& axes) {
    std::vector<SweepAxis> parsed;
    for (const std::string& axis : axes) parsed.push_back(parseSweepAxis(axis));
    return expandSweep(base(kernel), parsed);
  }

 private slots:
  void noAxisIsOneResolvedRun() {
    const auto runs = expand("shared-tiled", {});
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].kernel.params.at("tile"),
             kernelInfo("shared-tiled").param("tile")->defaultValue);
  }

  void tileAllRunsEveryValidTile() {
    for (const char* kernel : {"shared-tiled", "register-tiled", "naive"}) {
      const auto runs = expand(kernel, {"tile=all"});
      const std::vector<int>& allowed = kernelInfo(kernel).param("tile")->allowed;
      QCOMPARE(runs.size(), allowed.size());
      for (std::size_t i = 0; i < runs.size(); ++i) {
        QCOMPARE(runs[i].kernel.params.at("tile"), allowed[i]);
      }
    }
  }

  void kernelAxisIsOutermostAndSkipsMissingParameters() {
    // library has no tile: one run, not one per tile.
    const auto runs = expand("naive", {"tile=8,16", "kernel=naive,library"});
    QCOMPARE(runs.size(), std::size_t(3));
    QCOMPARE(runs[0].kernel.kernel, std::string("naive"));
    QCOMPARE(runs[0].kernel.params.at("tile"), 8);
    QCOMPARE(runs[1].kernel.params.at("tile"), 16);
    QCOMPARE(runs[2].kernel.kernel, std::string("library"));
    QVERIFY(runs[2].kernel.params.empty());
  }

  void kernelAllRunsTheCatalogue() {
    QCOMPARE(expand("naive", {"kernel=all"}).size(), catalogue().size());
  }

  void sizeAxisTakesCubesAndShapes() {
    const auto runs = expand("naive", {"size=32,48x16x8"});
    QCOMPARE(runs.size(), std::size_t(2));
    QCOMPARE(runs[0].shape, (Shape{32, 32, 32}));
    QCOMPARE(runs[1].shape, (Shape{48, 16, 8}));
    const auto ks = expand("naive", {"k=1,7"});
    QCOMPARE(ks[1].shape, (Shape{64, 64, 7}));
  }

  void productOfAxes() {
    QCOMPARE(expand("shared-tiled", {"tile=4,8,16", "size=32,64"}).size(), std::size_t(6));
  }

  void badSweepsAreRefused_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("axis");
    QTest::newRow("no equals") << "naive"
                               << "tile";
    QTest::newRow("no values") << "naive"
                               << "tile=";
    QTest::newRow("empty value") << "naive"
                                 << "tile=8,,16";
    QTest::newRow("unknown axis") << "naive"
                                  << "colour=1";
    QTest::newRow("refused tile") << "register-tiled"
                                  << "tile=7";
    QTest::newRow("not a number") << "naive"
                                  << "tile=big";
    QTest::newRow("zero size") << "naive"
                               << "size=0";
    QTest::newRow("bad shape") << "naive"
                               << "size=4x4";
    QTest::newRow("all with others") << "naive"
                                     << "tile=all,8";
    QTest::newRow("all sizes") << "naive"
                               << "size=all";
    QTest::newRow("unknown kernel") << "naive"
                                    << "kernel=nope";
  }

  void badSweepsAreRefused() {
    QFETCH(QString, kernel);
    QFETCH(QString, axis);
    try {
      expand(kernel.toStdString(), {axis.toStdString()});
      QFAIL("no error");
    } catch (const Error& error) {
      QCOMPARE(error.kind(), ErrorKind::InvalidArgument);
      QVERIFY(std::string(error.what()).size() > 10);
    }
  }

  void choicesRoundTripThroughJson() {
    Choices choices;
    choices.backend = "cuda";
    choices.device = 1;
    choices.kernel = "register-tiled";
    choices.params = {{"tile", 4}};
    choices.shape = {100, 200, 300};
    choices.square = false;
    choices.fixedReps = 7;
    choices.budgetSeconds = 0.5;
    choices.verify = false;
    choices.sweep = SweepKind::Kernel;
    choices.tiles = "1,2";
    choices.sizes = "64";
    choices.kernels = {"naive"};
    const Choices back = choicesFromJson(toJson(choices));
    QCOMPARE(toJson(back), toJson(choices));
    QCOMPARE(back.fixedReps, std::optional<int>(7));
    QCOMPARE(back.sweep, SweepKind::Kernel);
  }

  void choicesFromBadJsonKeepDefaults() {
    const Choices defaults;
    const Choices fromWrongTypes =
        choicesFromJson({{"kernel", 5}, {"m", "big"}, {"sweep", "sideways"}, {"reps", "x"}});
    QCOMPARE(toJson(fromWrongTypes), toJson(defaults));
    QCOMPARE(toJson(choicesFromJson(nlohmann::json::array())), toJson(defaults));
  }

  void choicesPlanTheirSweep() {
    Choices choices;
    choices.kernel = "shared-tiled";
    choices.sweep = SweepKind::Tile;
    choices.tiles = "";
    QCOMPARE(planJobs(choices, sweepAxes(choices)).size(),
             kernelInfo("shared-tiled").param("tile")->allowed.size());
    choices.sweep = SweepKind::Kernel;
    choices.kernels = {"naive", "library"};
    const auto jobs = planJobs(choices, sweepAxes(choices));
    QCOMPARE(jobs.size(), std::size_t(2));
    QCOMPARE(jobs[1].backend, std::string("cpu"));
    choices.kernels.clear();
    QVERIFY_THROWS_EXCEPTION(Error, sweepAxes(choices));
  }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
