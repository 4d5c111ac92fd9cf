// SPDX-License-Identifier: GPL-3.0-or-later
// Backend > GPU Server...: the SSH and Slurm presets write the command from the host, any
// command may be typed, a bad name or an empty command is refused with its reason before Add,
// and Add, Remove and the isolation setting end up in the settings the dialog returns; Test
// Connection greets a local `tilescope-bench --serve` or shows why a command failed, without
// blocking the window.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>

#include "server_dialog.hpp"
#include "suite_helpers.hpp"
#include "tilescope/backend.hpp"
#include "ui_suite.hpp"

using namespace tilescope;

namespace {

using test::kWaitMs;

// Types `command` as any command on `backend`, clicks Test Connection and returns the answer
// label. The click returns at once: the label says it is connecting.
QLabel* testCommand(ui::ServerDialog& dialog, const QString& command, int backend) {
  dialog.findChild<QComboBox*>(QStringLiteral("preset"))->setCurrentIndex(2);
  dialog.findChild<QLineEdit*>(QStringLiteral("command"))->setText(command);
  dialog.findChild<QComboBox*>(QStringLiteral("backend"))->setCurrentIndex(backend);
  auto* test = dialog.findChild<QPushButton*>(QStringLiteral("testConnection"));
  auto* answer = dialog.findChild<QLabel*>(QStringLiteral("testResult"));
  if (!test || !answer || !test->isEnabled()) return nullptr;
  test->click();
  if (!answer->text().startsWith(QStringLiteral("Connecting"))) return nullptr;
  return answer;
}

}  // namespace

class TestServerDialog : public QObject {
  Q_OBJECT

 private slots:
  void presetsWriteTheCommandAndAddKeepsTheServer() {
    ui::ServerDialog dialog(desktop::ServerSettings{});
    auto* name = dialog.findChild<QLineEdit*>(QStringLiteral("name"));
    auto* host = dialog.findChild<QLineEdit*>(QStringLiteral("host"));
    auto* preset = dialog.findChild<QComboBox*>(QStringLiteral("preset"));
    auto* command = dialog.findChild<QLineEdit*>(QStringLiteral("command"));
    auto* add = dialog.findChild<QPushButton*>(QStringLiteral("add"));
    auto* problem = dialog.findChild<QLabel*>(QStringLiteral("problem"));
    QVERIFY(name && host && preset && command && add && problem);

    host->setText(QStringLiteral("gpu1.example.org"));
    QCOMPARE(command->text(), QStringLiteral("ssh gpu1.example.org tilescope-bench --serve"));
    preset->setCurrentIndex(1);
    QCOMPARE(command->text(),
             QStringLiteral("ssh gpu1.example.org srun --gres=gpu:1 tilescope-bench --serve"));
    QVERIFY(command->isReadOnly());
    // No name yet: Add is off and the reason is shown.
    QVERIFY(!add->isEnabled());
    QVERIFY(!problem->text().isEmpty());
    name->setText(QStringLiteral("gpu 1"));
    QVERIFY(!add->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("letters")));
    name->setText(QStringLiteral("gpu1"));
    QVERIFY(add->isEnabled());
    add->click();
    QCOMPARE(dialog.settings().servers.size(), std::size_t(1));
    QCOMPARE(dialog.settings().servers[0].name, std::string("gpu1"));
    QCOMPARE(dialog.settings().servers[0].backend, std::string("cuda"));
    QCOMPARE(dialog.settings().servers[0].command,
             std::string("ssh gpu1.example.org srun --gres=gpu:1 tilescope-bench --serve"));

    // Any command; the same name again is refused.
    preset->setCurrentIndex(2);
    QVERIFY(!command->isReadOnly());
    command->setText(QStringLiteral("/opt/tilescope/bin/tilescope-bench --serve"));
    name->setText(QStringLiteral("gpu1"));
    QVERIFY(!add->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("already")));
  }

  void testConnectionShowsTheDevicesOfALocalServer() {
    ui::ServerDialog dialog(desktop::ServerSettings{});
    // The window keeps turning while the server starts: a timer keeps firing.
    QElapsedTimer sinceTick;
    qint64 longestGapMs = 0;
    QTimer ticker;
    ticker.setInterval(20);
    connect(&ticker, &QTimer::timeout, this,
            [&] { longestGapMs = std::max(longestGapMs, sinceTick.restart()); });
    sinceTick.start();
    ticker.start();
    QLabel* answer =
        testCommand(dialog, QStringLiteral("sleep 1; exec '%1' --serve").arg(TILESCOPE_BENCH), 1);
    QVERIFY(answer);
    QTRY_VERIFY_WITH_TIMEOUT(!answer->text().startsWith(QStringLiteral("Connecting")), kWaitMs);
    ticker.stop();
    QVERIFY2(longestGapMs < 500, qPrintable(QString::number(longestGapMs)));
    const std::string cpu = makeBackend("cpu")->devices().front().name;
    QVERIFY2(answer->text().startsWith(QStringLiteral("Connected: the cpu backend offers 0: ")),
             qPrintable(answer->text()));
    QVERIFY2(answer->text().contains(QString::fromStdString(cpu)), qPrintable(answer->text()));
    // Testing adds nothing.
    QVERIFY(dialog.settings().servers.empty());
  }

  void testConnectionShowsWhyACommandFailed_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("ssh refused") << QStringLiteral(
                                        "echo 'Permission denied (publickey).' >&2; exit 255")
                                 << QStringList{"Failed: ", "status 255",
                                                "Permission denied (publickey)."};
    QTest::newRow("not found") << QStringLiteral("no-such-tilescope-bench --serve")
                               << QStringList{"status 127", "no-such-tilescope-bench"};
    QTest::newRow("not a server") << QStringLiteral("echo 'Welcome to gpu1'; cat >/dev/null")
                                  << QStringList{"does not speak the TileScope protocol",
                                                 "Welcome to gpu1"};
  }

  void testConnectionShowsWhyACommandFailed() {
    QFETCH(QString, command);
    QFETCH(QStringList, expected);
    ui::ServerDialog dialog(desktop::ServerSettings{});
    QLabel* answer = testCommand(dialog, command, 0);
    QVERIFY(answer);
    QTRY_VERIFY_WITH_TIMEOUT(!answer->text().startsWith(QStringLiteral("Connecting")), kWaitMs);
    for (const QString& part : expected)
      QVERIFY2(answer->text().contains(part), qPrintable(answer->text()));
  }

  void removeAndIsolationChangeTheSettings() {
    desktop::ServerSettings settings;
    settings.servers = {{"a", "ssh a tilescope-bench --serve", "cuda"},
                        {"b", "ssh b tilescope-bench --serve", "cpu"}};
    ui::ServerDialog dialog(settings);
    auto* list = dialog.findChild<QListWidget*>(QStringLiteral("servers"));
    auto* isolate = dialog.findChild<QCheckBox*>(QStringLiteral("isolateCuda"));
    QVERIFY(list && isolate);
    QCOMPARE(list->count(), 2);
    QVERIFY(list->item(1)->text().startsWith(QStringLiteral("cpu@b")));
    list->setCurrentRow(0);
    auto* remove = dialog.findChild<QPushButton*>(QStringLiteral("remove"));
    QVERIFY(remove && remove->isEnabled());
    remove->click();
    QCOMPARE(dialog.settings().servers.size(), std::size_t(1));
    QCOMPARE(dialog.settings().servers[0].name, std::string("b"));
    QVERIFY(!dialog.settings().isolateCuda);
    isolate->setChecked(true);
    QVERIFY(dialog.settings().isolateCuda);
  }
};

TILESCOPE_UI_SUITE(TestServerDialog, Gui)
#include "tst_server_dialog.moc"
