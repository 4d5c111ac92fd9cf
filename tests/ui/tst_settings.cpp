// SPDX-License-Identifier: GPL-3.0-or-later
// The settings file (issue #12): written whole through the one file writer, so it is never left
// half-written and never replaces a device, a FIFO or a read-only file; read leniently, so a
// damaged or hand-edited file costs its own values, never the start of the app.
#include <sys/stat.h>
#include <QtTest>

#include "servers.hpp"
#include "settings.hpp"
#include "suite_helpers.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

QByteArray contentOf(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

using test::writeText;

// The settings file and whatever else of its name is in its folder (a temporary file left behind).
QStringList filesBeside() {
  return QDir(QFileInfo(settingsPath()).path())
      .entryList({QFileInfo(settingsPath()).fileName() + QLatin1Char('*')}, QDir::Files);
}

}  // namespace

class TestSettings : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_settings"));
  }

  void init() {
    QFile::setPermissions(settingsPath(), QFile::ReadOwner | QFile::WriteOwner);
    for (const QString& file : filesBeside())
      QFile::remove(QFileInfo(settingsPath()).dir().filePath(file));
    takeSetAsideNotice();
  }

  void oneKeyChangesAndTheOthersStay() {
    QVERIFY(settingsPath().endsWith(QStringLiteral("/TileScopeTests/tst_settings.json")));
    QVERIFY(rememberedSetting("theme").is_null());
    QVERIFY(!rememberSetting("theme", "dark"));
    QVERIFY(!rememberSetting("exportFolder", "/tmp"));
    QCOMPARE(rememberedSetting("theme"), nlohmann::json("dark"));
    QVERIFY(!rememberSetting("theme", nullptr));
    QVERIFY(rememberedSetting("theme").is_null());
    QCOMPARE(rememberedSetting("exportFolder"), nlohmann::json("/tmp"));
    // The file is plain JSON that a person can read, with no temporary file left beside it.
    const nlohmann::json onDisk = nlohmann::json::parse(contentOf(settingsPath()).toStdString());
    QCOMPARE(onDisk, nlohmann::json({{"exportFolder", "/tmp"}}));
    QCOMPARE(filesBeside(), QStringList{QStringLiteral("tst_settings.json")});
  }

  void choicesRoundTripThroughTheFile() {
    Choices choices;
    choices.kernel = "register-tiled";
    choices.shape = {96, 64, 32};
    choices.square = false;
    saveLastChoices(choices);
    QStringList notices;
    const Choices loaded = loadLastChoices(&notices);
    QVERIFY2(notices.isEmpty(), qPrintable(notices.join('\n')));
    QCOMPARE(loaded.kernel, std::string("register-tiled"));
    QCOMPARE(loaded.shape.m, std::int64_t(96));
    QCOMPARE(loaded.shape.k, std::int64_t(32));
  }

  void recentFilesAreCappedAndHandEditsCostOnlyThemselves() {
    for (int i = 0; i < kMaxRecentFiles + 3; ++i)
      addRecentFile(QStringLiteral("/tmp/session-%1.json").arg(i));
    addRecentFile(QStringLiteral("/tmp/session-4.json"));
    const QStringList files = recentFiles();
    QCOMPARE(files.size(), kMaxRecentFiles);
    QCOMPARE(files.front(), QStringLiteral("/tmp/session-4.json"));
    QCOMPARE(files.count(QStringLiteral("/tmp/session-4.json")), 1);

    writeText(settingsPath(),
              R"({"recentFiles": ["/tmp/a.json", 7, null], "servers": [3, {"name": "gpu 1",
                 "command": "ssh x"}, {"name": "gpu1", "command": "ssh gpu1 tilescope-bench --serve"}],
                 "isolateCuda": "yes"})");
    QCOMPARE(recentFiles(), QStringList{QStringLiteral("/tmp/a.json")});
    const ServerSettings servers = loadServerSettings();
    QCOMPARE(servers.servers.size(), std::size_t(1));
    QCOMPARE(servers.servers.front().name, std::string("gpu1"));
    QCOMPARE(servers.servers.front().backend, std::string("cuda"));
    QVERIFY(!servers.isolateCuda);
  }

  void aDamagedFileIsNamedAndTheDefaultsAreUsed() {
    writeText(settingsPath(), "[1, 2]");
    QStringList notices;
    const Choices loaded = loadLastChoices(&notices);
    QCOMPARE(loaded.kernel, Choices{}.kernel);
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.front().contains(settingsPath()) &&
                 notices.front().contains(QStringLiteral("not a JSON object")) &&
                 notices.front().contains(QStringLiteral("defaults")),
             qPrintable(notices.front()));
    // The next change writes a sound file in its place.
    QVERIFY(!rememberSetting("theme", "light"));
    QCOMPARE(rememberedSetting("theme"), nlohmann::json("light"));
  }

  // Issue #37: a file the app could not read was replaced with the defaults at the first change,
  // its servers and every other key gone.
  void aFileThatCannotBeReadIsKeptAsideAndTheUserToldWhere_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("writeFirst");
    const QByteArray servers = R"({"servers": [{"name": "gpu1", "command": "ssh gpu1"}],)";
    QTest::newRow("trailing comma") << servers + R"( "theme": "dark",})"
                                    << "not valid JSON" << false;
    QTest::newRow("trailing comma, a write first") << servers + R"( "theme": "dark",})"
                                                   << "not valid JSON" << true;
    QTest::newRow("not JSON") << QByteArray("theme = dark\n") << "not valid JSON" << false;
    QTest::newRow("a list") << QByteArray("[1, 2]") << "not a JSON object" << false;
    QTest::newRow("a number") << QByteArray("5") << "not a JSON object" << true;
    QTest::newRow("a string") << QByteArray("\"theme\"") << "not a JSON object" << false;
    QTest::newRow("over 1 MiB") << servers + " \"padding\": \"" + QByteArray(1 << 20, 'x') + "\"}"
                                << "MiB" << false;
  }

  void aFileThatCannotBeReadIsKeptAsideAndTheUserToldWhere() {
    QFETCH(QByteArray, content);
    QFETCH(QString, reason);
    QFETCH(bool, writeFirst);
    QDir().mkpath(QFileInfo(settingsPath()).path());
    writeText(settingsPath(), content);
    QStringList notices;
    if (writeFirst)
      QVERIFY(!rememberSetting("theme", "light"));
    else
      loadLastChoices(&notices);
    // Kept beside, byte for byte, under a name with the time.
    QStringList kept = filesBeside();
    kept.removeAll(QFileInfo(settingsPath()).fileName());
    QCOMPARE(kept.size(), 1);
    const QString keptPath = QFileInfo(settingsPath()).dir().filePath(kept.front());
    QVERIFY2(QRegularExpression(QStringLiteral("^tst_settings\\.json\\.unreadable-\\d{8}-\\d{6}$"))
                 .match(kept.front())
                 .hasMatch(),
             qPrintable(kept.front()));
    QCOMPARE(contentOf(keptPath), content);
    // Said once, naming the file, why and where it went; a window takes it after the start.
    const std::optional<QString> notice = takeSetAsideNotice();
    QVERIFY(notice);
    QVERIFY(!takeSetAsideNotice());
    QVERIFY2(notice->contains(settingsPath()) && notice->contains(reason) &&
                 notice->contains(QStringLiteral("kept as ") + keptPath),
             qPrintable(*notice));
    if (!writeFirst) QCOMPARE(notices, QStringList{*notice});
    // A new file is written in its place, and the kept one stays as it was.
    QVERIFY(!rememberSetting("exportFolder", "/tmp"));
    QCOMPARE(rememberedSetting("exportFolder"), nlohmann::json("/tmp"));
    QCOMPARE(contentOf(keptPath), content);
    QCOMPARE(filesBeside().size(), 2);
  }

  void keysThisVersionDoesNotKnowAreKept() {
    QDir().mkpath(QFileInfo(settingsPath()).path());
    writeText(settingsPath(), R"({"fromANewerVersion": {"a": [1, 2]}, "theme": "light"})");
    QVERIFY(!rememberSetting("theme", "dark"));
    saveLastChoices(Choices{});
    const nlohmann::json onDisk = nlohmann::json::parse(contentOf(settingsPath()).toStdString());
    QCOMPARE(onDisk["fromANewerVersion"], nlohmann::json({{"a", {1, 2}}}));
    QCOMPARE(onDisk["theme"], nlohmann::json("dark"));
    QVERIFY(onDisk.contains("choices"));
  }

  // Issue #37: a number where a string belongs aborted the app at every start.
  void aServerEntryOfTheWrongTypeIsLeftOutAndSaid() {
    QDir().mkpath(QFileInfo(settingsPath()).path());
    writeText(settingsPath(), R"({"servers": [{"name": 5, "command": "ssh gpu1"},
        {"name": "gpu2", "command": 7}, {"name": "gpu3", "command": "ssh gpu3", "backend": 1},
        {"name": "gpu 4", "command": "ssh gpu4"}, {"name": "gpu5", "command": "ssh gpu5"}],
        "isolateCuda": "yes", "theme": "dark"})");
    const ServerSettings loaded = loadServerSettings();
    QCOMPARE(loaded.servers.size(), std::size_t(1));
    QCOMPARE(loaded.servers.front().name, std::string("gpu5"));
    const QStringList expected = {
        QStringLiteral("servers[0].name: 5 is not a string; that server is left out"),
        QStringLiteral("servers[1].command: 7 is not a string; that server is left out"),
        QStringLiteral("servers[2].backend: 1 is not a string; that server is left out"),
        QStringLiteral("server 'gpu 4': The name 'gpu 4' may hold only letters"),
        QStringLiteral("isolateCuda: 'yes' is not true or false; using false")};
    QCOMPARE(loaded.problems.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i)
      QVERIFY2(
          loaded.problems[i].contains(settingsPath()) && loaded.problems[i].contains(expected[i]),
          qPrintable(loaded.problems[i]));
    // Nothing else of the file is lost: it was readable, so it stays.
    QCOMPARE(rememberedSetting("theme"), nlohmann::json("dark"));
    QCOMPARE(filesBeside(), QStringList{QStringLiteral("tst_settings.json")});
  }

  void aReadOnlyFileIsNeverReplaced() {
    QVERIFY(!rememberSetting("theme", "light"));
    const QByteArray before = contentOf(settingsPath());
    QVERIFY(QFile::setPermissions(settingsPath(), QFile::ReadOwner));
    const std::optional<QString> problem = rememberSetting("theme", "dark");
    QVERIFY(problem);
    QVERIFY2(problem->contains(settingsPath()) && problem->contains(QStringLiteral("read-only")),
             qPrintable(*problem));
    QCOMPARE(contentOf(settingsPath()), before);
    QCOMPARE(filesBeside(), QStringList{QStringLiteral("tst_settings.json")});
  }

  void aFifoInItsPlaceNeitherBlocksNorIsReplaced() {
    QDir().mkpath(QFileInfo(settingsPath()).path());
    QCOMPARE(::mkfifo(QFile::encodeName(settingsPath()).constData(), 0600), 0);
    QStringList notices;
    loadLastChoices(&notices);
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.front().contains(QStringLiteral("FIFO")), qPrintable(notices.front()));
    QVERIFY(rememberSetting("theme", "dark"));
    QVERIFY(QFileInfo(settingsPath()).isFile() == false);
    QFile::remove(settingsPath());
  }
};

TILESCOPE_UI_SUITE(TestSettings, Guiless)
#include "tst_settings.moc"
