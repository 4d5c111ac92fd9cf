// SPDX-License-Identifier: GPL-3.0-or-later
// Sessions and result files on their own: round trips, and every kind of bad file refused with
// a message while nothing changes.
#include <sys/mount.h>
#include <sys/stat.h>

#include <QtTest>

#include <fstream>
#include <sstream>

#include "result_analysis.hpp"
#include "results_model.hpp"
#include "session.hpp"
#include "suite_helpers.hpp"
#include "test_results.hpp"
#include "tilescope/report/report.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

Session sampleSession() {
  Session session;
  session.created = "2025-01-01T00:00:00Z";
  session.devices = {{"cpu", {0, "Test CPU", {{"logical cores", "8"}}}},
                     {"cuda", {0, "NVIDIA H100", {{"SMs", "132"}, {"memory", "80 GiB"}}}}};
  session.choices.kernel = "register-tiled";
  session.choices.params = {{"tile", 4}};
  session.choices.sweep = SweepKind::Tile;
  RunResult gpu = test::madeUpResult("shared-tiled", {{"tile", 16}}, 1024, 1.85);
  gpu.backend = "cuda";
  gpu.device = "NVIDIA H100";
  gpu.phases = Phases{0.4, 1.85, 0.35};
  gpu.unsyncedHostMs = 0.01;
  gpu.resources = KernelResources{38, 2048, 16, 256, 8, 1.0};
  gpu.counters = HardwareCounters{
      6.5e9, 9.2e7, 8.5e8, 2.7e8,        1.07e9,
      5.2e5, 2.1e6, 2.7e9, 3.2e9,        2.7e8,
      2.9e8, 2.1e7, 0.997, std::nullopt, "CUPTI range profiler (GH100, kernel replay, 1 kernel)"};
  RunResult cpu = test::madeUpResult("naive", {{"tile", 16}}, 256, 3.0);
  cpu.countersUnavailable = "the CPU backend has no hardware counters";
  session.editorKernel = UserKernelSource{"padded", "TS_KERNEL {}\n// \"quoted\"\n"};
  session.results = {cpu, test::madeUpResult("library", {}, 256, 0.75), gpu};
  session.ceilings = {{"cpu",
                       "Test CPU",
                       {{kFp32Ceiling, kComputeUnit, 205.5, std::nullopt, "OpenBLAS sgemm"}},
                       {kBandwidthCeiling, kBandwidthUnit, 24.25, std::nullopt, "memcpy"}}};
  return session;
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

using test::writeText;

}  // namespace

class TestSession : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void sessionRoundTripsThroughAFile() {
    const Session session = sampleSession();
    const QString path = dir_.filePath(QStringLiteral("session.json"));
    QString error;
    QVERIFY2(saveSession(path, session, &error), qPrintable(error));
    const std::optional<Session> loaded = loadSession(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    QCOMPARE(toJson(*loaded), toJson(session));
    QCOMPARE(loaded->results.size(), std::size_t(3));
    QVERIFY(loaded->results[2].phases);
    QCOMPARE(loaded->results[2].phases->h2dMs, 0.4);
    QCOMPARE(loaded->results[2].resources, session.results[2].resources);
    QVERIFY(!loaded->results[0].resources);
    // Sessions keep the counters, and why a run has none.
    QCOMPARE(loaded->results[2].counters, session.results[2].counters);
    QVERIFY(!loaded->results[0].counters);
    QCOMPARE(loaded->results[0].countersUnavailable, session.results[0].countersUnavailable);
    // And the Kernel Editor's source.
    QVERIFY(loaded->editorKernel);
    QCOMPARE(loaded->editorKernel->name, std::string("padded"));
    QCOMPARE(loaded->editorKernel->source, session.editorKernel->source);
    QCOMPARE(loaded->devices[1].info.facts[0].second, std::string("132"));
    QCOMPARE(loaded->choices.sweep, SweepKind::Tile);
    QCOMPARE(loaded->ceilings, session.ceilings);
    const nlohmann::json json = nlohmann::json::parse(readAll(path).toStdString());
    QCOMPARE(json["format"], nlohmann::json(kSessionFormat));
    QVERIFY(json["version"].is_number_integer());
  }

  // Sessions saved before the roofline existed have no ceilings; they open with none.
  void aSessionWithoutCeilingsOpens() {
    nlohmann::json older = toJson(sampleSession());
    older.erase("ceilings");
    const QString path = dir_.filePath(QStringLiteral("older.json"));
    writeText(path, QByteArray::fromStdString(older.dump()));
    QString error;
    const std::optional<Session> loaded = loadSession(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    QVERIFY(loaded->ceilings.empty());
    QCOMPARE(loaded->results.size(), std::size_t(3));
  }

  void aNewMeasurementReplacesTheDevicesCeilings() {
    std::vector<DeviceCeilings> known = sampleSession().ceilings;
    DeviceCeilings gpu = known.front();
    gpu.backend = "cuda";
    gpu.device = "NVIDIA H200";
    rememberCeilings(known, gpu);
    QCOMPARE(known.size(), std::size_t(2));
    DeviceCeilings again = known.front();
    again.compute.front().measured = 210;
    rememberCeilings(known, again);
    QCOMPARE(known.size(), std::size_t(2));
    QCOMPARE(known.front().compute.front().measured, 210.0);
    QCOMPARE(known.back().device, std::string("NVIDIA H200"));
  }

  void badSessionFilesAreRefusedWithAMessage_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << QByteArray() << "not valid JSON";
    QTest::newRow("truncated") << QByteArray("{\"format\": \"tilescope-session\", \"vers")
                               << "not valid JSON";
    QTest::newRow("binary") << QByteArray("\x89PNG\r\n\x1a\n", 8) << "not valid JSON";
    QTest::newRow("foreign") << QByteArray("{\"name\": \"something else\"}") << "not a TileScope";
    QTest::newRow("array") << QByteArray("[1, 2, 3]") << "not a TileScope";
    // A results document opens as a session (aResultsDocumentOpensAsASession); a broken one not.
    QTest::newRow("results, newer")
        << QByteArray("{\"format\": \"tilescope-results\", \"version\": 99, \"results\": []}")
        << "newer";
    QTest::newRow("results, no list")
        << QByteArray("{\"format\": \"tilescope-results\", \"version\": 1}")
        << "results is missing";
    QTest::newRow("newer")
        << QByteArray("{\"format\": \"tilescope-session\", \"version\": 99, \"results\": []}")
        << "newer";
    QTest::newRow("no results") << QByteArray("{\"format\": \"tilescope-session\", \"version\": 1}")
                                << "results is missing";
    QTest::newRow("bad result")
        << QByteArray(
               "{\"format\": \"tilescope-session\", \"version\": 1, "
               "\"results\": [{\"backend\": \"cpu\"}]}")
        << "results[0].format_version is missing (and no result can be read)";
    // Issue #37: a "format" of another type aborted the app (a JSON library exception).
    const QByteArray rest = ", \"version\": 1, \"results\": []}";
    QTest::newRow("format a number") << "{\"format\": 5" + rest << "\"format\" is 5, not";
    QTest::newRow("format null") << "{\"format\": null" + rest << "\"format\" is null, not";
    QTest::newRow("format a list") << "{\"format\": [1]" + rest << "\"format\" is [1], not";
    QTest::newRow("format an object") << "{\"format\": {}" + rest << "\"format\" is {}, not";
    QTest::newRow("format a boolean") << "{\"format\": true" + rest << "\"format\" is true, not";
    QTest::newRow("results an object")
        << QByteArray("{\"format\": \"tilescope-session\", \"version\": 1, \"results\": {}}")
        << "results: {} is not a list";
    QTest::newRow("devices a string")
        << QByteArray(
               "{\"format\": \"tilescope-session\", \"version\": 1, \"results\": [], "
               "\"devices\": \"cpu\"}")
        << "devices: 'cpu' is not a list";
  }

  void badSessionFilesAreRefusedWithAMessage() {
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    const QString path = dir_.filePath(QStringLiteral("session.json"));
    writeText(path, content);
    QString error;
    QVERIFY(!loadSession(path, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
  }

  void missingFileIsRefused() {
    QString error;
    QVERIFY(!loadSession(dir_.filePath(QStringLiteral("absent.json")), &error));
    QVERIFY(error.contains(QStringLiteral("Cannot read")));
  }

  void unwritablePathLeavesNothing() {
    QString error;
    const QString path = dir_.filePath(QStringLiteral("no/such/folder/session.json"));
    QVERIFY(!saveSession(path, sampleSession(), &error));
    QVERIFY2(error.contains(QStringLiteral("Cannot write")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("does not exist")), qPrintable(error));
    QVERIFY(!QFile::exists(path));
  }

  // Issue #12: /dev/zero was read until bad_alloc; a FIFO blocked forever.
  void devicesAndFifosAreRefusedAtOnce() {
    QString error;
    QVERIFY(!loadSession(QStringLiteral("/dev/zero"), &error));
    QVERIFY2(error.contains(QStringLiteral("it is a character device")), qPrintable(error));
    const QString fifo = dir_.filePath(QStringLiteral("session.fifo"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0644) == 0);
    QVERIFY(!loadSession(fifo, &error));
    QVERIFY2(error.contains(QStringLiteral("it is a FIFO")), qPrintable(error));
  }

  // Issue #12: impossible values opened without a word; now each bad result is skipped with a
  // warning naming its JSON path, and the rest opens.
  void badEntriesAreSkippedWithTheirPath() {
    nlohmann::json json = toJson(sampleSession());
    json["results"][0]["m"] = -256;
    json["results"][1]["stats"]["reps"] = -3;
    json["choices"]["m"] = 0;
    const QString path = dir_.filePath(QStringLiteral("odd.json"));
    writeText(path, QByteArray::fromStdString(json.dump()));
    QString error;
    const std::optional<Session> session = loadSession(path, &error);
    QVERIFY2(session, qPrintable(error));
    QCOMPARE(session->results.size(), std::size_t(1));
    QCOMPARE(session->warnings.size(), std::size_t(3));
    QVERIFY2(session->warnings[0].starts_with("choices.m, n, k:"), session->warnings[0].c_str());
    QCOMPARE(QString::fromStdString(session->warnings[1]),
             QStringLiteral("results[0].m: -256 is not a valid size (a whole number from 1 to "
                            "2147483647); that result is skipped"));
    QVERIFY(
        session->warnings[2].starts_with("results[1].stats.reps: -3 is not a valid repetition"));
    QCOMPARE(session->choices.shape, Choices{}.shape);

    // A damaged editor source is left out and said; the rest opens.
    json = toJson(sampleSession());
    json["kernel_editor"]["source"] = 42;
    writeText(path, QByteArray::fromStdString(json.dump()));
    const std::optional<Session> withoutKernel = loadSession(path, &error);
    QVERIFY2(withoutKernel, qPrintable(error));
    QVERIFY(!withoutKernel->editorKernel);
    QCOMPARE(withoutKernel->results.size(), std::size_t(3));
    QCOMPARE(withoutKernel->warnings.size(), std::size_t(1));
    QVERIFY2(withoutKernel->warnings[0].find("kernel_editor.source") != std::string::npos &&
                 withoutKernel->warnings[0].ends_with("the editor's kernel is left out"),
             withoutKernel->warnings[0].c_str());
  }

  // Issue #37: a tile of -5 or 0 opened without a word and exported as tile=-5.
  void aParameterValueTheKernelCannotTakeSkipsThatResultNamingIt() {
    nlohmann::json json = toJson(sampleSession());
    json["results"][0]["params"]["tile"] = -5;
    json["results"][2]["params"]["tile"] = 0;
    const QString path = dir_.filePath(QStringLiteral("tiles.json"));
    writeText(path, QByteArray::fromStdString(json.dump()));
    QString error;
    const std::optional<Session> session = loadSession(path, &error);
    QVERIFY2(session, qPrintable(error));
    QCOMPARE(session->results.size(), std::size_t(1));
    QCOMPARE(session->results.front().kernel.kernel, std::string("library"));
    QCOMPARE(session->warnings.size(), std::size_t(2));
    QVERIFY2(session->warnings[0].starts_with("results[0].params: naive: tile = -5 is refused") &&
                 session->warnings[0].ends_with("that result is skipped"),
             session->warnings[0].c_str());
    QVERIFY2(session->warnings[1].starts_with("results[2].params: shared-tiled: tile = 0 is "
                                              "refused"),
             session->warnings[1].c_str());
  }

  void versionsMustBeKnownIntegers() {
    nlohmann::json json = toJson(sampleSession());
    const QString path = dir_.filePath(QStringLiteral("version.json"));
    QString error;
    json["version"] = "1";
    writeText(path, QByteArray::fromStdString(json.dump()));
    QVERIFY(!loadSession(path, &error));
    QVERIFY2(error.contains(QStringLiteral("version: '1' is not a whole number")),
             qPrintable(error));
    json["version"] = std::uint64_t(1) << 63;
    writeText(path, QByteArray::fromStdString(json.dump()));
    QVERIFY(!loadSession(path, &error));
    QVERIFY2(error.contains(QStringLiteral("newer TileScope")), qPrintable(error));
  }

  // Issue #12: on a full disk the session and exports said "wrote FILE" and left 4096 bytes.
  void aFullDiskLeavesTheOldFileAndSaysWhy() {
    QTemporaryDir full;
    if (::mount("tmpfs", QFile::encodeName(full.path()).constData(), "tmpfs", 0, "size=8k") != 0)
      QSKIP("cannot mount a small tmpfs here");
    const QString path = full.filePath(QStringLiteral("session.json"));
    writeText(path, "old");
    Session big = sampleSession();
    for (int i = 0; i < 200; ++i) big.results.push_back(big.results.front());
    QString saveError, csvError, jsonError;
    const bool saved = saveSession(path, big, &saveError);
    const bool csv =
        exportResultsCsv(full.filePath(QStringLiteral("r.csv")), big.results, &csvError);
    const bool json = exportResultsJson(full.filePath(QStringLiteral("r.json")),
                                        {big.devices, big.results, {}}, &jsonError);
    QFile old(path);
    const QByteArray kept = old.open(QIODevice::ReadOnly) ? old.readAll() : QByteArray();
    const QStringList left = QDir(full.path()).entryList(QDir::Files | QDir::Hidden);
    ::umount2(QFile::encodeName(full.path()).constData(), MNT_DETACH);
    QVERIFY(!saved && !csv && !json);
    for (const QString& error : {saveError, csvError, jsonError})
      QVERIFY2(error.contains(QStringLiteral("No space left on device")), qPrintable(error));
    QCOMPARE(kept, QByteArray("old"));
    QCOMPARE(left, QStringList{QStringLiteral("session.json")});
  }

  void csvRoundTrips() {
    const Session session = sampleSession();
    const QString path = dir_.filePath(QStringLiteral("results.csv"));
    QString error;
    QVERIFY2(exportResultsCsv(path, session.results, &error), qPrintable(error));
    std::ifstream in(path.toStdString());
    const std::vector<RunResult> back = report::readCsv(in);
    QCOMPARE(back.size(), session.results.size());
    for (std::size_t i = 0; i < back.size(); ++i) {
      QCOMPARE(back[i].kernel, session.results[i].kernel);
      QCOMPARE(back[i].shape, session.results[i].shape);
      QCOMPARE(back[i].stats.medianMs, session.results[i].stats.medianMs);
      QCOMPARE(back[i].verified(), session.results[i].verified());
      QCOMPARE(bool(back[i].phases), bool(session.results[i].phases));
      QCOMPARE(back[i].resources, session.results[i].resources);
    }
  }

  void jsonRoundTrips() {
    const Session session = sampleSession();
    const QString path = dir_.filePath(QStringLiteral("results.json"));
    QString error;
    const report::ResultsDocument document{session.devices, session.results, session.ceilings};
    QVERIFY2(exportResultsJson(path, document, &error), qPrintable(error));
    const nlohmann::json json = nlohmann::json::parse(readAll(path).toStdString());
    QCOMPARE(json["format"], nlohmann::json(kResultsFormat));
    QCOMPARE(json["results"].size(), session.results.size());
    for (std::size_t i = 0; i < session.results.size(); ++i) {
      QCOMPARE(report::toJson(report::resultFromJson(json["results"][i])),
               report::toJson(session.results[i]));
    }
    QCOMPARE(json["devices"].size(), std::size_t(2));
  }

  // What tilescope-bench --format json writes on a GPU machine opens here as a session.
  void aResultsDocumentOpensAsASession() {
    const Session session = sampleSession();
    const QString path = dir_.filePath(QStringLiteral("from-bench.json"));
    QString error;
    const report::ResultsDocument document{session.devices, session.results, session.ceilings};
    QVERIFY2(exportResultsJson(path, document, &error), qPrintable(error));
    const std::optional<Session> opened = loadSession(path, &error);
    QVERIFY2(opened.has_value(), qPrintable(error));
    QCOMPARE(opened->results.size(), session.results.size());
    for (std::size_t i = 0; i < session.results.size(); ++i)
      QCOMPARE(report::toJson(opened->results[i]), report::toJson(session.results[i]));
    QCOMPARE(opened->devices.size(), session.devices.size());
    QCOMPARE(opened->ceilings, session.ceilings);
    QCOMPARE(opened->choices.kernel, session.results.front().kernel.kernel);
    QCOMPARE(opened->choices.shape, session.results.front().shape);
  }

  void modelShowsTheSameTableAfterALoad() {
    const Session session = sampleSession();
    ResultsModel original;
    original.setResults(session.results);
    const QString path = dir_.filePath(QStringLiteral("table.json"));
    QString error;
    QVERIFY(saveSession(path, session, &error));
    ResultsModel loaded;
    loaded.setResults(loadSession(path, &error)->results);
    QCOMPARE(loaded.rowCount(), original.rowCount());
    for (int row = 0; row < original.rowCount(); ++row) {
      for (int column = 0; column < original.columnCount(); ++column) {
        QCOMPARE(loaded.index(row, column).data(), original.index(row, column).data());
      }
    }
  }

  // A user kernel's result keeps its source through a session, and the table says whose it is.
  void aUserKernelsResultKeepsItsSource() {
    Session session = sampleSession();
    session.results.front().kernel = {"user:mine", {{"TILE", 16}}, "TS_KERNEL {}\n"};
    const QString path = dir_.filePath(QStringLiteral("user.json"));
    QString error;
    QVERIFY2(saveSession(path, session, &error), qPrintable(error));
    const std::optional<Session> loaded = loadSession(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    QCOMPARE(loaded->results.front().kernel, session.results.front().kernel);
    ResultsModel model;
    model.setResults(loaded->results);
    QCOMPARE(model.index(0, ResultsModel::Kernel).data(Qt::ToolTipRole).toString(),
             QStringLiteral("mine: your own kernel; the result keeps the CUDA source it ran"));
  }

  // A session file as another machine (with a GPU) would write it, by hand: the table shows its
  // resource figures, and leaves them empty for the result without.
  void resourcesFromAFileShowInTheTable() {
    const QString path = dir_.filePath(QStringLiteral("gpu.json"));
    nlohmann::json session = toJson(sampleSession());
    session["results"][2]["resources"] = {{"registers", 80},    {"shared_bytes", 49152},
                                          {"local_bytes", 24},  {"threads_per_block", 256},
                                          {"blocks_per_sm", 3}, {"occupancy", 0.375}};
    writeText(path, QByteArray::fromStdString(session.dump(2)));
    QString error;
    const std::optional<Session> loaded = loadSession(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    ResultsModel model;
    model.setResults(loaded->results);
    const auto cell = [&](int row, int column) {
      return model.index(row, column).data().toString();
    };
    QCOMPARE(cell(2, ResultsModel::Registers), QString("80"));
    QCOMPARE(cell(2, ResultsModel::SharedBytes), QString("49152"));
    QCOMPARE(cell(2, ResultsModel::LocalBytes), QString("24"));
    QCOMPARE(cell(2, ResultsModel::ThreadsPerBlock), QString("256"));
    QCOMPARE(cell(2, ResultsModel::BlocksPerSM), QString("3"));
    QCOMPARE(cell(2, ResultsModel::Occupancy), QString("37.5"));
    QCOMPARE(model.index(2, ResultsModel::Occupancy).data(ResultsModel::kSortRole).toDouble(),
             0.375);
    for (int column = ResultsModel::Registers; column <= ResultsModel::Occupancy; ++column) {
      QCOMPARE(cell(0, column), QString());
    }
  }

  void modelDerivesPercentOfLibraryAndSortsNumerically() {
    ResultsModel model;
    model.append(test::madeUpResult("naive", {{"tile", 16}}, 256, 3.0));
    QCOMPARE(model.index(0, ResultsModel::PercentOfLibrary).data().toString(), QString());
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.append(test::madeUpResult("library", {}, 256, 0.75));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(0, ResultsModel::PercentOfLibrary).data().toString(), QString("25.0"));
    QCOMPARE(model.index(1, ResultsModel::PercentOfLibrary).data().toString(), QString("100.0"));
    QCOMPARE(model.index(0, ResultsModel::MedianMs).data(ResultsModel::kSortRole).toDouble(), 3.0);
    QCOMPARE(model.index(0, ResultsModel::Params).data().toString(), QString("tile=16"));
    QCOMPARE(model.index(0, ResultsModel::Verified).data().toString(), QString("yes"));
  }

  void mergeDevicesKeepsEachOnce() {
    std::vector<MeasuredDevice> devices = sampleSession().devices;
    mergeDevices(devices, sampleSession().devices);
    QCOMPARE(devices.size(), std::size_t(2));
    mergeDevices(devices, {{"cuda", {1, "NVIDIA H200", {}}}});
    QCOMPARE(devices.size(), std::size_t(3));
  }
};

TILESCOPE_UI_SUITE(TestSession, Guiless)
#include "tst_session.moc"
