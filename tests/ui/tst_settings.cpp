// SPDX-License-Identifier: GPL-3.0-or-later
// The settings file (issue #12): written whole through the one file writer, so it is never left
// half-written and never replaces a device, a FIFO or a read-only file; read leniently, so a
// damaged or hand-edited file costs its own values, never the start of the app.
#include <sys/stat.h>
#include <QtTest>

#include "servers.hpp"
#include "settings.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using namespace tilescope::desktop;

namespace {

QByteArray contentOf(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeText(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  file.write(text);
}

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
    QFile::remove(settingsPath());
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
